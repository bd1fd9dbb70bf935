package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// TestVersionPseudoCommit: the commit is the revision at the end of a pseudo-version, and
// nothing for a version that is not one.
func TestVersionPseudoCommit(t *testing.T) {
	for v, want := range map[string]string{
		"v0.0.0-20261201000000-abcdef123456":        "abcdef123456",
		"v0.0.0-20261201000000-abcdef123456+dirty":  "abcdef123456",
		"v1.2.4-0.20261201000000-0123456789ab":      "0123456789ab",
		"v1.2.4-rc.1.0.20261201000000-0123456789ab": "0123456789ab",
		"v2.0.0-20261201000000-fedcba987654":        "fedcba987654",
		"v1.2.3":                                    "",
		"v0.0.0-test":                               "",
		"v1.2.3-rc.1":                               "",
		"(devel)":                                   "",
		"":                                          "",
	} {
		require.Equal(t, want, pseudoCommit(v), v)
	}
}

// TestVersionToolInfoCommitFallback: without a commit from -ldflags or vcs.revision, the commit
// in results.json's tool block (and so in `version`) comes from a pseudo-version; with neither
// it is "unknown". The test binary has no vcs.revision (GOFLAGS=-buildvcs=false or a test build).
func TestVersionToolInfoCommitFallback(t *testing.T) {
	saved, savedCommit := Version, Commit
	t.Cleanup(func() { Version, Commit = saved, savedCommit })
	Commit = ""
	Version = "v0.0.0-20261201000000-abcdef123456"
	require.Equal(t, "abcdef123456", toolInfo().Commit)
	Version = "v1.2.3"
	require.Equal(t, "unknown", toolInfo().Commit)
	Commit = "0123456789abcdef0123456789abcdef01234567"
	require.Equal(t, Commit, toolInfo().Commit, "an explicit commit wins")
	Version, Commit = "v0.0.0-20261201000000-abcdef123456", ""
	code, stdout, _ := mainOut("version")
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(stdout, "mcp-conform v0.0.0-20261201000000-abcdef123456 (commit abcdef123456)\n"), stdout)
}

// TestVersionOfGoInstall is the documented install path end to end: this working tree (its
// tracked and untracked-but-not-ignored files) is served as a pseudo-version of the module
// from a file-based GOPROXY, `go install github.com/mcp-conform/mcp-conform/cmd/mcp-conform@V`
// builds it, and the binary's `version` prints V and the commit V ends in. The dependencies
// come from the local module cache's download folder (itself a GOPROXY layout) before the
// usual proxy; the module cache of the install is a temporary one, so nothing is left behind.
func TestVersionOfGoInstall(t *testing.T) {
	t.Parallel() // a whole run or a build: it overlaps the other long tests
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to list the module's files")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("%s is not a git work tree: %v", root, err)
	}
	goenv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}

	const version = "v0.0.0-20261201000000-abcdef123456"
	m := module.Version{Path: "github.com/mcp-conform/mcp-conform", Version: version}
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	escaped, err := module.EscapePath(m.Path)
	require.NoError(t, err)
	vdir := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	require.NoError(t, os.MkdirAll(vdir, 0o755))

	var files []modzip.File
	seen := map[string]bool{}
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) || seen[name] {
			continue // deleted in the work tree, or listed twice (unmerged)
		}
		require.NoError(t, err)
		seen[name] = true
		files = append(files, workFile{root: root, name: name, info: info})
	}
	var zipped bytes.Buffer
	require.NoError(t, modzip.Create(&zipped, m, files))
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	info, err := json.Marshal(map[string]string{"Version": version, "Time": "2026-12-01T00:00:00Z"})
	require.NoError(t, err)
	for name, body := range map[string][]byte{
		"list": []byte(version + "\n"), version + ".info": info, version + ".mod": goMod, version + ".zip": zipped.Bytes(),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(vdir, name), body, 0o644))
	}

	gobin := filepath.Join(tmp, "bin")
	cache := filepath.Join(goenv("GOMODCACHE"), "cache", "download")
	cmd := exec.Command("go", "install", m.Path+"/cmd/mcp-conform@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(),
		"GOBIN="+gobin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(cache)+","+goenv("GOPROXY"),
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOFLAGS=-modcacherw -trimpath", // a removable temporary module cache; build cache hits wherever it is
		"GOSUMDB=off", "GONOSUMDB="+m.Path, "GOPRIVATE=", "GONOPROXY=", "GOWORK=off", "GOTOOLCHAIN=local",
	)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go install:\n%s", out)

	got, err := exec.Command(filepath.Join(gobin, "mcp-conform"), "version").CombinedOutput()
	require.NoError(t, err, "%s", got)
	first, _, _ := strings.Cut(string(got), "\n")
	require.Equal(t, "mcp-conform "+version+" (commit abcdef123456)", first)
}

// workFile is a file of the work tree as golang.org/x/mod/zip wants it: Path is slash-separated
// and relative to the module root.
type workFile struct {
	root, name string
	info       fs.FileInfo
}

func (f workFile) Path() string                { return f.name }
func (f workFile) Lstat() (fs.FileInfo, error) { return f.info, nil }
func (f workFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.name)))
}
