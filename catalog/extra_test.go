package catalog

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestExtraRulesMerged: every rule of catalog/extra-rules.md is in the embedded catalogue
// (scripts/gen-rule-catalog.py merges the file after RULES.md) with its level, revisions,
// transport and section, so a change to the file without regenerating features/catalog.tsv
// fails here.
func TestExtraRulesMerged(t *testing.T) {
	src, err := os.ReadFile("extra-rules.md")
	require.NoError(t, err)
	row := regexp.MustCompile(`^\| ([A-Z]+-\d{3}) \| ([^|]+) \| (26|25|24|2503|both) \| (any|stdio|http|sse) \| ([^|]+) \|`)
	known, err := KnownRules()
	require.NoError(t, err)
	byID := map[string]Known{}
	for _, k := range known {
		byID[k.ID] = k
	}
	n := 0
	for _, line := range strings.Split(string(src), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		k, ok := byID[m[1]]
		require.True(t, ok, "%s of extra-rules.md is not in features/catalog.tsv: rerun scripts/gen-rule-catalog.py", m[1])
		require.Equal(t, strings.TrimSpace(strings.Split(m[2], "(")[0]), k.Level, m[1])
		first := strings.Split(strings.TrimSpace(m[5]), ";")[0]
		require.Equal(t, pageSection(strings.SplitN(first, ":", 2)[1]), k.Section, m[1])
		if m[4] != "any" {
			require.Equal(t, []string{m[4]}, k.Transports, m[1])
		}
		rev, ok := revisions.ByCatalogCode(m[3])
		if ok && !rev.Modern() {
			require.Equal(t, rev.ID, k.Until, m[1])
			require.Equal(t, rev.ID, k.SpecRevision, m[1])
		}
	}
	require.NotZero(t, n, "extra-rules.md lists no rule")
	sse := byID["SSE-001"]
	require.Equal(t, revisions.Oldest().ID, sse.Since)
	require.Equal(t, revisions.Oldest().ID, sse.Until)
	require.Equal(t, "basic/transports#HTTP with SSE", sse.Section)
	// A rule of one older revision holds in that revision alone (Rev 2503).
	batch := byID["MSG-018"]
	require.Equal(t, revisions.BatchRevisions(), []string{batch.Since})
	require.Equal(t, batch.Since, batch.Until)
	require.Equal(t, "basic/index#Batching", batch.Section)
}
