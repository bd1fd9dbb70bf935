package cli

import "golang.org/x/mod/module"

// pseudoCommit returns the commit a Go pseudo-version names: the revision at its end
// ("abcdef123456" in v0.0.0-20261201000000-abcdef123456, v1.2.4-0.20261201000000-abcdef123456
// or v0.0.0-20261201000000-abcdef123456+dirty). It returns "" when v is not a pseudo-version
// (a release tag such as v1.2.3, "(devel)", "").
func pseudoCommit(v string) string {
	rev, err := module.PseudoVersionRev(v)
	if err != nil {
		return ""
	}
	return rev
}
