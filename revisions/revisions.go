// Package revisions is the table of every protocol revision this build knows (DESIGN
// "Architecture (inside the core)", Revisions): for each one its id, era, schema pin, spec
// URL and pages, and the per-revision facts the suite's behaviour depends on. Code outside
// this package asks the table (Modern, LatestLegacy, Lookup, Before, ...) and never spells
// or compares revision dates itself.
//
// The package is a leaf: it imports nothing from this module, so any package may import it.
// Adding a revision is a row here, a schema pin and feature tags.
package revisions

import (
	"strings"
	"time"
)

// Era is the way a revision is negotiated (basic/versioning#Compatibility Matrix of the modern
// revision): EraModern or EraHandshake.
type Era string

const (
	// EraModern revisions are stateless: every request carries its protocol version in
	// `_meta` and a client learns what a server supports with server/discover (basic/index#_meta,
	// server/discover of the modern revision).
	EraModern Era = "modern"
	// EraHandshake ("legacy") revisions negotiate the version once with initialize
	// (basic/lifecycle#Initialization of those revisions).
	EraHandshake Era = "handshake"
)

// Commit is the upstream commit of github.com/modelcontextprotocol/modelcontextprotocol that
// every schema pin and spec page of the table is taken from (40 hex digits).
const Commit = "b0f60ba5409db7a6582440a7b473cc0398890f15"

// BaseURL is the root of the published specification; a revision's pages live under
// BaseURL/<id>/ (see SpecURL).
const BaseURL = "https://modelcontextprotocol.io/specification"

// Pin identifies a revision's official schema file: the upstream Commit, the lower-case hex
// sha256 of the file's bytes (64 digits), and its path in the upstream repository
// ("schema/<id>/schema.json").
type Pin struct {
	Commit string
	SHA256 string
	Path   string
}

// Revision is one row of the table.
//
// ID is the revision's date as the protocol spells it (YYYY-MM-DD, the value of
// protocolVersion, basic/versioning). Era says how it is negotiated. Schema pins its
// schema.json. SpecURL is the root of its specification pages (BaseURL/<id>, no trailing
// slash). CatalogCode is the code features/catalog.tsv uses for it in the revision column and
// as a source prefix ("26:basic/index.mdx#..."), "" when the catalogue never names it. Pages
// lists, sorted, the specification pages of the revision the suite links to ("basic/index",
// "server/tools", no ".mdx"); nil when the suite links no page of it.
//
// The remaining fields are facts that differ by revision:
//   - Completions: the completions server capability and completion/complete exist
//     (server/utilities/completion).
//   - LoggingMethod: logging/setLevel exists (server/utilities/logging); the modern revision
//     moved the log level into each request's `_meta`.
//   - VersionHeader: a Streamable HTTP client sends MCP-Protocol-Version on every request
//     after initialization (basic/transports#Protocol Version Header); a server receiving a
//     request without it assumes the newest revision without this fact (HeaderlessDefault).
//   - Batches: a message may be a JSON-RPC batch, an array of requests and notifications or of
//     responses, and implementations must be able to receive one (basic/index#Batching,
//     basic/transports: a stdio line or a Streamable HTTP POST body, and SSE events, may carry
//     one); the revision after it removed batching (its changelog).
//   - Audio: content blocks may be audio (AudioContent; the changelog of the first revision
//     with it lists audio content among its schema changes).
//   - ResourceLinks: content blocks may be resource links (ResourceLink, server/tools#Resource
//     Links; the changelog of the first revision with it).
//   - EnumVariants: an elicitation's requested schema may hold titled and multi-select enums
//     and a default for every primitive (SingleSelectEnumSchema, MultiSelectEnumSchema; SEP-1330
//     and SEP-1034 in the changelog of the first revision with them).
type Revision struct {
	ID          string
	Era         Era
	Schema      Pin
	SpecURL     string
	CatalogCode string
	Pages       []string

	Completions   bool
	LoggingMethod bool
	VersionHeader bool
	Batches       bool
	Audio         bool
	ResourceLinks bool
	EnumVariants  bool
}

// Modern reports whether the row is of EraModern.
func (r Revision) Modern() bool { return r.Era == EraModern }

// HasPage reports whether page ("basic/lifecycle", no ".mdx" and no "#heading") is one of the
// revision's Pages.
func (r Revision) HasPage(page string) bool {
	for _, p := range r.Pages {
		if p == page {
			return true
		}
	}
	return false
}

// PageURL returns the URL of page of this revision with fragment anchor appended after "#"
// when it is not empty; page and anchor are used as given (see SpecURL).
func (r Revision) PageURL(page, anchor string) string { return SpecURL(r.ID, page, anchor) }

// SpecURL returns BaseURL/<id>/<page>, followed by "#" and anchor when anchor is not empty. id
// need not be in the table (a feature may name any revision); page and anchor are not escaped.
func SpecURL(id, page, anchor string) string {
	u := BaseURL + "/" + id + "/" + page
	if anchor != "" {
		u += "#" + anchor
	}
	return u
}

func row(id string, era Era, sha, code string, pages []string, completions, logging, header bool) Revision {
	return Revision{
		ID: id, Era: era, Schema: Pin{Commit: Commit, SHA256: sha, Path: "schema/" + id + "/schema.json"},
		SpecURL: BaseURL + "/" + id, CatalogCode: code, Pages: pages,
		Completions: completions, LoggingMethod: logging, VersionHeader: header,
	}
}

// modernPages are the pages of the modern specification the features and the catalogue link.
var modernPages = []string{
	"architecture/index", "basic/authorization/authorization-server-discovery", "basic/authorization/index",
	"basic/index", "basic/patterns/cancellation", "basic/patterns/index", "basic/patterns/mrtr",
	"basic/patterns/progress", "basic/patterns/subscriptions", "basic/transports/index",
	"basic/transports/stdio", "basic/transports/streamable-http", "basic/versioning", "changelog",
	"client/elicitation", "client/sampling", "deprecated", "extensions/tasks/overview", "schema",
	"server/discover", "server/prompts", "server/resources", "server/tools", "server/utilities/caching",
	"server/utilities/completion", "server/utilities/logging", "server/utilities/pagination",
}

// handshakePages are the pages of the newest handshake specification (docs/specification/<id>
// at Commit).
var handshakePages = []string{
	"architecture/index", "basic/authorization", "basic/index", "basic/lifecycle",
	"basic/transports", "basic/utilities/cancellation", "basic/utilities/ping",
	"basic/utilities/progress", "basic/utilities/tasks", "client/elicitation",
	"client/roots", "client/sampling", "schema", "server/index", "server/prompts",
	"server/resources", "server/tools", "server/utilities/completion",
	"server/utilities/logging", "server/utilities/pagination",
}

// june2025Pages, march2025Pages and oldestPages are the pages of the older handshake
// specifications (docs/specification/<id> at Commit): a result at that revision links its own
// page when the revision has it.
var june2025Pages = []string{
	"architecture/index", "basic/authorization", "basic/index", "basic/lifecycle", "basic/transports",
	"basic/utilities/cancellation", "basic/utilities/ping", "basic/utilities/progress", "changelog",
	"client/elicitation", "client/roots", "client/sampling", "schema", "server/index", "server/prompts",
	"server/resources", "server/tools", "server/utilities/completion", "server/utilities/logging",
	"server/utilities/pagination",
}

var march2025Pages = []string{
	"architecture/index", "basic/authorization", "basic/index", "basic/lifecycle", "basic/transports",
	"basic/utilities/cancellation", "basic/utilities/ping", "basic/utilities/progress", "changelog",
	"client/roots", "client/sampling", "server/index", "server/prompts", "server/resources",
	"server/tools", "server/utilities/completion", "server/utilities/logging", "server/utilities/pagination",
}

// withBatches returns r with the Batches fact set.
func withBatches(r Revision) Revision {
	r.Batches = true
	return r
}

// withContent returns r with the content facts set: Audio, ResourceLinks, EnumVariants.
func withContent(r Revision, audio, links, enums bool) Revision {
	r.Audio, r.ResourceLinks, r.EnumVariants = audio, links, enums
	return r
}

var oldestPages = []string{
	"architecture/index", "basic/index", "basic/lifecycle", "basic/messages", "basic/transports",
	"basic/utilities/cancellation", "basic/utilities/ping", "basic/utilities/progress", "client/roots",
	"client/sampling", "server/index", "server/prompts", "server/resources", "server/tools",
	"server/utilities/completion", "server/utilities/logging", "server/utilities/pagination",
}

// table holds every row, newest first.
var table = []Revision{
	withContent(row("2026-07-28", EraModern, "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203", "26", modernPages, true, false, true), true, true, true),
	withContent(row("2025-11-25", EraHandshake, "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7", "25", handshakePages, true, true, true), true, true, true),
	withContent(row("2025-06-18", EraHandshake, "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01", "", june2025Pages, true, true, true), true, true, false),
	withContent(withBatches(row("2025-03-26", EraHandshake, "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131", "2503", march2025Pages, true, true, false)), true, false, false),
	withContent(row("2024-11-05", EraHandshake, "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce", "24", oldestPages, false, true, false), false, false, false),
}

// All returns every row, newest first. The slice is a fresh copy on each call (the rows'
// Pages slices are shared and must not be modified).
func All() []Revision { return append([]Revision(nil), table...) }

// IDs returns the id of every row, newest first, in a fresh slice.
func IDs() []string {
	out := make([]string, len(table))
	for i, r := range table {
		out[i] = r.ID
	}
	return out
}

// Lookup returns the row of revision id, and false when the build does not know id.
func Lookup(id string) (Revision, bool) {
	for _, r := range table {
		if r.ID == id {
			return r, true
		}
	}
	return Revision{}, false
}

// Known reports whether id is a revision of the table.
func Known(id string) bool {
	_, ok := Lookup(id)
	return ok
}

// Modern returns the newest modern revision: the version the suite sends in `_meta`
// (basic/index#_meta), asks server/discover with, and links modern features to.
func Modern() Revision { return newest(func(r Revision) bool { return r.Modern() }) }

// LatestLegacy returns the newest handshake revision: the version the suite asks for in
// initialize (basic/lifecycle#Version Negotiation of that revision) and the revision legacy
// results link to.
func LatestLegacy() Revision { return newest(func(r Revision) bool { return !r.Modern() }) }

// Oldest returns the oldest revision of the table.
func Oldest() Revision { return table[len(table)-1] }

// Legacy returns the handshake revisions, newest first, in a fresh slice.
func Legacy() []Revision { return Filter(func(r Revision) bool { return !r.Modern() }) }

// LegacyIDs returns the ids of Legacy, newest first, in a fresh slice.
func LegacyIDs() []string { return ids(Legacy()) }

// Filter returns the rows for which keep is true, newest first, in a fresh slice.
func Filter(keep func(Revision) bool) []Revision {
	var out []Revision
	for _, r := range table {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// FilterIDs returns the ids of Filter(keep), newest first.
func FilterIDs(keep func(Revision) bool) []string { return ids(Filter(keep)) }

// First returns the oldest row for which has is true: the revision that introduced a fact.
// It panics when no row has it (a programming error in the caller's predicate).
func First(has func(Revision) bool) Revision {
	for i := len(table) - 1; i >= 0; i-- {
		if has(table[i]) {
			return table[i]
		}
	}
	panic("revisions: no revision has the fact")
}

// Last returns the newest row for which has is true: the last revision a fact held in. It
// panics when no row has it.
func Last(has func(Revision) bool) Revision { return newest(has) }

// HeaderlessDefault returns the revision a Streamable HTTP server assumes for a request
// without MCP-Protocol-Version (basic/transports#Protocol Version Header): the newest
// revision without VersionHeader.
func HeaderlessDefault() Revision { return Last(func(r Revision) bool { return !r.VersionHeader }) }

// CompletionsSince returns the oldest revision with the completions capability
// (Revision.Completions, server/utilities/completion).
func CompletionsSince() Revision { return First(func(r Revision) bool { return r.Completions }) }

// LoggingMethodUntil returns the newest revision that defines logging/setLevel
// (Revision.LoggingMethod, server/utilities/logging#Setting Log Level).
func LoggingMethodUntil() Revision { return Last(func(r Revision) bool { return r.LoggingMethod }) }

// VersionHeaderSince returns the oldest revision whose HTTP clients send MCP-Protocol-Version
// on every request (Revision.VersionHeader, basic/transports#Protocol Version Header).
func VersionHeaderSince() Revision { return First(func(r Revision) bool { return r.VersionHeader }) }

// Content reports, for the revision id, whether its content blocks may be audio, may be resource
// links, and whether its elicitation schemas may hold the enum variants (Revision.Audio,
// ResourceLinks, EnumVariants); all false for an id the table does not know.
func Content(id string) (audio, links, enums bool) {
	r, ok := Lookup(id)
	return ok && r.Audio, ok && r.ResourceLinks, ok && r.EnumVariants
}

// AllowsBatches reports whether revision id lets a message be a JSON-RPC batch (Revision.Batches,
// basic/index#Batching of that revision); false for an id the table does not know.
func AllowsBatches(id string) bool {
	r, ok := Lookup(id)
	return ok && r.Batches
}

// BatchRevisions returns, newest first, the ids of the revisions with Batches, in a fresh slice.
func BatchRevisions() []string { return FilterIDs(func(r Revision) bool { return r.Batches }) }

// HeaderlessIDs returns, newest first, the ids of the revisions whose HTTP clients send no
// MCP-Protocol-Version (not Revision.VersionHeader), in a fresh slice.
func HeaderlessIDs() []string { return FilterIDs(func(r Revision) bool { return !r.VersionHeader }) }

// EraOf returns the era of revision id: EraModern when id is not older than the oldest
// modern revision of the table, EraHandshake otherwise. An id the table does not know is
// placed by its order (Compare), so a newer unknown date counts as modern.
func EraOf(id string) Era {
	if IsModern(id) {
		return EraModern
	}
	return EraHandshake
}

// IsModern reports whether revision id uses per-request `_meta` instead of initialize: id is
// not Before the oldest modern revision (see EraOf for ids the table does not know).
func IsModern(id string) bool {
	return !Before(id, First(func(r Revision) bool { return r.Modern() }).ID)
}

// IsLegacy reports whether id is a handshake revision of the table (Known and not modern).
func IsLegacy(id string) bool {
	r, ok := Lookup(id)
	return ok && !r.Modern()
}

// Compare orders revision ids chronologically: -1 when a is older than b, 0 when equal, +1
// when newer. Ids are dates (YYYY-MM-DD), so chronological order is lexical order; any two
// strings compare lexically, known or not.
func Compare(a, b string) int { return strings.Compare(a, b) }

// Before reports whether revision a is older than revision b (Compare(a, b) < 0).
func Before(a, b string) bool { return Compare(a, b) < 0 }

// After reports whether revision a is newer than revision b (Compare(a, b) > 0).
func After(a, b string) bool { return Compare(a, b) > 0 }

// InRange reports whether revision id lies within since..until, both inclusive; an empty
// bound is open.
func InRange(id, since, until string) bool {
	return (since == "" || !Before(id, since)) && (until == "" || !After(id, until))
}

// ByCatalogCode returns the row features/catalog.tsv names by code ("26", "25"), and false
// for any other code.
func ByCatalogCode(code string) (Revision, bool) {
	if code == "" {
		return Revision{}, false
	}
	for _, r := range table {
		if r.CatalogCode == code {
			return r, true
		}
	}
	return Revision{}, false
}

// IsID reports whether s has the shape of a revision id, a valid calendar date YYYY-MM-DD,
// whether or not the table knows it.
func IsID(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func newest(has func(Revision) bool) Revision {
	for _, r := range table {
		if has(r) {
			return r
		}
	}
	panic("revisions: no revision has the fact")
}

func ids(rs []Revision) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

const (
	// Future is a well-formed revision id newer than every row, which no server supports: the
	// suite sends it to provoke UnsupportedProtocolVersion (basic/versioning#Version
	// Negotiation). IsModern holds for it.
	Future = "2099-01-01"
	// Past is a well-formed revision id older than every row, which no server supports (sent
	// like Future; IsModern does not hold for it).
	Past = "1900-01-01"
)
