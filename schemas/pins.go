package schemas

import (
	"sort"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// Commit is the upstream commit of github.com/modelcontextprotocol/modelcontextprotocol that
// every pinned schema is taken from (revisions.Commit).
const Commit = revisions.Commit

// Pin identifies one official schema file: the specification revision it describes, the
// upstream commit, the hex sha256 of the file's bytes, and its path in the upstream
// repository ("schema/<revision>/schema.json"). It is the Schema pin of a row of package
// revisions, with the row's id.
type Pin struct {
	Revision string
	Commit   string
	SHA256   string
	Path     string
}

// Pins returns the pin of every revision of package revisions, sorted by revision (oldest
// first). The slice is a fresh copy on each call.
func Pins() []Pin {
	revs := Revisions()
	out := make([]Pin, 0, len(revs))
	for _, r := range revs {
		p, _ := PinFor(r)
		out = append(out, p)
	}
	return out
}

// PinFor returns the pin of revision rev (an id of package revisions), and false when rev is
// not a pinned revision.
func PinFor(rev string) (Pin, bool) {
	r, ok := revisions.Lookup(rev)
	if !ok {
		return Pin{}, false
	}
	return Pin{Revision: r.ID, Commit: r.Schema.Commit, SHA256: r.Schema.SHA256, Path: r.Schema.Path}, true
}

// Revisions returns the pinned revisions, sorted oldest first (revisions.Compare order).
func Revisions() []string {
	out := revisions.IDs()
	sort.Slice(out, func(i, j int) bool { return revisions.Before(out[i], out[j]) })
	return out
}
