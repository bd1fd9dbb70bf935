package revisions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTableShape(t *testing.T) {
	all := All()
	require.NotEmpty(t, all)
	seen := map[string]bool{}
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	for i, r := range all {
		require.True(t, IsID(r.ID), r.ID)
		require.False(t, seen[r.ID], "duplicate %s", r.ID)
		seen[r.ID] = true
		if i > 0 {
			require.True(t, Before(r.ID, all[i-1].ID), "newest first: %s before %s", r.ID, all[i-1].ID)
		}
		require.Contains(t, []Era{EraModern, EraHandshake}, r.Era)
		require.Regexp(t, hex, r.Schema.SHA256)
		require.Equal(t, Commit, r.Schema.Commit)
		require.Equal(t, "schema/"+r.ID+"/schema.json", r.Schema.Path)
		require.Equal(t, BaseURL+"/"+r.ID, r.SpecURL)
		require.True(t, sort.StringsAreSorted(r.Pages), "%s pages sorted", r.ID)
		got, ok := Lookup(r.ID)
		require.True(t, ok)
		require.Equal(t, r.ID, got.ID)
		require.Equal(t, r.Modern(), IsModern(r.ID))
	}
	// Eras do not interleave: every modern revision is newer than every handshake one.
	for _, m := range Filter(Revision.Modern) {
		for _, l := range Legacy() {
			require.True(t, After(m.ID, l.ID))
		}
	}
	all[0].ID = "changed"
	require.NotEqual(t, "changed", All()[0].ID, "All returns a copy")
}

func TestHelpers(t *testing.T) {
	m, l := Modern(), LatestLegacy()
	require.Equal(t, EraModern, m.Era)
	require.Equal(t, EraHandshake, l.Era)
	require.Equal(t, IDs()[0], m.ID)
	require.Equal(t, l.ID, LegacyIDs()[0])
	require.Equal(t, IDs()[len(IDs())-1], Oldest().ID)
	require.Len(t, IDs(), len(LegacyIDs())+len(Filter(Revision.Modern)))
	require.False(t, Known("2099-01-01"))
	require.False(t, IsLegacy(m.ID))
	require.True(t, IsLegacy(l.ID))
	require.True(t, IsModern("2099-01-01"), "a newer unknown date is modern")
	require.Equal(t, EraHandshake, EraOf(Oldest().ID))
	require.True(t, InRange(l.ID, Oldest().ID, l.ID))
	require.False(t, InRange(m.ID, "", l.ID))
	require.True(t, InRange(m.ID, "", ""))
	require.Equal(t, 0, Compare(m.ID, m.ID))

	h := HeaderlessDefault()
	require.False(t, h.VersionHeader)
	for _, r := range All() {
		if After(r.ID, h.ID) {
			require.True(t, r.VersionHeader, r.ID)
		}
	}
	c := First(func(r Revision) bool { return r.Completions })
	require.NotEqual(t, Oldest().ID, c.ID)
	require.False(t, Modern().LoggingMethod)
	require.True(t, LatestLegacy().LoggingMethod)

	r, ok := ByCatalogCode(m.CatalogCode)
	require.True(t, ok)
	require.Equal(t, m.ID, r.ID)
	_, ok = ByCatalogCode("")
	require.False(t, ok)
	require.True(t, l.HasPage("basic/lifecycle"))
	require.False(t, m.HasPage("basic/lifecycle"))
	require.Equal(t, BaseURL+"/"+m.ID+"/basic/index#error-codes", m.PageURL("basic/index", "error-codes"))
	require.False(t, IsID("latest"))
}

func TestSentinels(t *testing.T) {
	require.False(t, Known(Future))
	require.False(t, Known(Past))
	require.True(t, After(Future, Modern().ID))
	require.True(t, Before(Past, Oldest().ID))
}

func TestFacts(t *testing.T) {
	require.True(t, CompletionsSince().Completions)
	require.True(t, Before(Oldest().ID, CompletionsSince().ID))
	require.Equal(t, LatestLegacy().ID, LoggingMethodUntil().ID)
	require.True(t, VersionHeaderSince().VersionHeader)
	require.True(t, After(VersionHeaderSince().ID, HeaderlessDefault().ID))
	require.Equal(t, HeaderlessDefault().ID, HeaderlessIDs()[0])
	// Batches came with one revision and went with the next (basic/index#Batching; the next
	// revision's changelog removed them): neither the oldest nor any after the first.
	require.Len(t, BatchRevisions(), 1)
	b := BatchRevisions()[0]
	require.True(t, AllowsBatches(b))
	require.False(t, AllowsBatches(Oldest().ID))
	require.False(t, AllowsBatches(LatestLegacy().ID))
	require.False(t, AllowsBatches(Modern().ID))
	require.False(t, AllowsBatches(Future))
	r, ok := ByCatalogCode(mustLookup(t, b).CatalogCode)
	require.True(t, ok)
	require.Equal(t, b, r.ID)
}

func mustLookup(t *testing.T, id string) Revision {
	r, ok := Lookup(id)
	require.True(t, ok, id)
	return r
}

// TestContentFactsMatchSchemas: each content fact says what the revision's pinned schema
// defines (AudioContent, ResourceLink, MultiSelectEnumSchema), read from MCP_CONFORM_SCHEMAS.
func TestContentFactsMatchSchemas(t *testing.T) {
	dir := os.Getenv("MCP_CONFORM_SCHEMAS")
	if dir == "" {
		t.Skip("MCP_CONFORM_SCHEMAS is not set")
	}
	for _, r := range All() {
		raw, err := os.ReadFile(filepath.Join(dir, r.ID, "schema.json"))
		require.NoError(t, err)
		var doc struct {
			Definitions map[string]json.RawMessage `json:"definitions"`
			Defs        map[string]json.RawMessage `json:"$defs"`
		}
		require.NoError(t, json.Unmarshal(raw, &doc))
		defs := doc.Defs
		if defs == nil {
			defs = doc.Definitions
		}
		audio, links, enums := Content(r.ID)
		require.Equal(t, defs["AudioContent"] != nil, audio, "%s Audio", r.ID)
		require.Equal(t, defs["ResourceLink"] != nil, links, "%s ResourceLinks", r.ID)
		require.Equal(t, defs["MultiSelectEnumSchema"] != nil, enums, "%s EnumVariants", r.ID)
	}
	audio, links, enums := Content(Future)
	require.False(t, audio || links || enums)
}
