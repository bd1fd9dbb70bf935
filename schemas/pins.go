package schemas

import "sort"

// Commit is the upstream commit of github.com/modelcontextprotocol/modelcontextprotocol that
// every pinned schema is taken from.
const Commit = "b0f60ba5409db7a6582440a7b473cc0398890f15"

// Pin identifies one official schema file: the specification revision it describes, the
// upstream commit, the hex sha256 of the file's bytes, and its path in the upstream
// repository ("schema/<revision>/schema.json").
type Pin struct {
	Revision string
	Commit   string
	SHA256   string
	Path     string
}

// pinnedSHA256 holds the sha256 of schema/<revision>/schema.json at Commit.
var pinnedSHA256 = map[string]string{
	"2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
	"2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
	"2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
	"2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
	"2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}

// Pins returns the pin of every supported revision, sorted by revision (oldest first). The
// slice is a fresh copy on each call.
func Pins() []Pin {
	revs := Revisions()
	out := make([]Pin, 0, len(revs))
	for _, r := range revs {
		p, _ := PinFor(r)
		out = append(out, p)
	}
	return out
}

// PinFor returns the pin of revision rev (e.g. "2026-07-28"), and false when rev is not a
// pinned revision.
func PinFor(rev string) (Pin, bool) {
	sum, ok := pinnedSHA256[rev]
	if !ok {
		return Pin{}, false
	}
	return Pin{Revision: rev, Commit: Commit, SHA256: sum, Path: "schema/" + rev + "/schema.json"}, true
}

// Revisions returns the pinned revisions, sorted oldest first. Revision strings are dates
// (YYYY-MM-DD), so lexical order is chronological order.
func Revisions() []string {
	out := make([]string, 0, len(pinnedSHA256))
	for r := range pinnedSHA256 {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}
