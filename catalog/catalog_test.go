package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func TestCatalogEmbeddedFeatures(t *testing.T) {
	rules, err := Catalog()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rules), 25, "issue #2 asks for at least 25 rules")
	ids := map[string]bool{}
	for _, r := range rules {
		require.False(t, ids[r.ID], "duplicate %s", r.ID)
		ids[r.ID] = true
		require.Contains(t, []string{"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "PROBE"}, r.Level, r.ID)
		require.Equal(t, r.Level == "PROBE", strings.HasPrefix(r.ID, "PROBE-"), "%s: the PROBE level is for PROBE ids only", r.ID)
		require.NotEmpty(t, r.Since, "%s needs @since", r.ID)
		require.Contains(t, r.Section, "#", "%s: Spec line names page#Heading", r.ID)
		require.True(t, strings.HasPrefix(r.SpecURL(), SpecBaseURL+"/"), r.ID)
		require.NotEmpty(t, r.Description, r.ID)
	}
}

func TestCatalogRejectsBadTags(t *testing.T) {
	for name, body := range map[string]string{
		"no rule":    "Feature: f\n  @MUST @since:2026-07-28\n  Scenario: s\n    Spec: a#b\n    Given a connected server\n",
		"two levels": "Feature: f\n  @rule:X-1 @MUST @SHOULD\n  Scenario: s\n    Spec: a#b\n    Given a connected server\n",
		"no spec":    "Feature: f\n  @rule:X-1 @MUST\n  Scenario: s\n    Given a connected server\n",
		"duplicate":  "Feature: f\n  @rule:X-1 @MUST\n  Scenario: s\n    Spec: a#b\n    Given x\n  @rule:X-1 @MUST\n  Scenario: t\n    Spec: a#b\n    Given x\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := catalogFS(fstest.MapFS{"a.feature": {Data: []byte(body)}})
			require.Error(t, err)
		})
	}
}

func TestRuleAppliesTo(t *testing.T) {
	r := Rule{Since: "2024-11-05", Until: "2025-11-25", Transports: []string{"stdio"}}
	ok, _ := r.AppliesTo("2025-06-18", "stdio")
	require.True(t, ok)
	ok, why := r.AppliesTo("2026-07-28", "stdio")
	require.False(t, ok)
	require.Contains(t, why, "up to 2025-11-25")
	ok, why = r.AppliesTo("2025-11-25", "http")
	require.False(t, ok)
	require.Contains(t, why, "stdio only")
	ok, _ = Rule{Since: "2026-07-28"}.AppliesTo("2025-11-25", "http")
	require.False(t, ok)
}

func TestSpecURLAnchor(t *testing.T) {
	r := Rule{Section: "basic/transports/stdio#Backward Compatibility", SpecRevision: "2026-07-28"}
	require.Equal(t, "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility", r.SpecURL())
	r = Rule{Section: "basic/index#_meta", SpecRevision: "2025-11-25"}
	require.Equal(t, "https://modelcontextprotocol.io/specification/2025-11-25/basic/index#_meta", r.SpecURL())
}

func TestTagExpressions(t *testing.T) {
	tags := []string{"@rule:MSG-014", "@MUST", "@since:2024-11-05"}
	for expr, want := range map[string]bool{
		"":                                   true,
		"@MUST":                              true,
		"MUST":                               true,
		"@SHOULD":                            false,
		"@MUST && ~@transport:http":          true,
		"@MUST && @transport:http":           false,
		"@SHOULD, @rule:MSG-014":             true,
		"~@MUST":                             false,
		"@rule:MSG-014 && @since:2024-11-05": true,
	} {
		require.NoError(t, ValidateTags(expr), expr)
		require.Equal(t, want, MatchTags(expr, tags), expr)
	}
	for _, bad := range []string{"@MUST &&", "(@MUST", "@MUST and @SHOULD", ",", "@a && && @b", "~"} {
		require.Error(t, ValidateTags(bad), bad)
	}
}

func TestSelect(t *testing.T) {
	rules, err := Catalog()
	require.NoError(t, err)
	require.NotEmpty(t, Select(rules, []string{"MSG-"}, ""))
	require.Empty(t, Select(rules, []string{"msg-"}, ""), "rule ids are upper case")
	require.NotEmpty(t, Select(rules, nil, "@rule:MSG-014"))
	require.Empty(t, Select(rules, nil, "@MSG-014"))
	all := Select(rules, nil, "")
	require.Len(t, all, len(rules))
}

func TestKnownRulesCoverTheImplementedOnes(t *testing.T) {
	known, err := KnownRules()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(known), 300)
	byID := map[string]Known{}
	for _, k := range known {
		require.NotContains(t, byID, k.ID)
		byID[k.ID] = k
		require.Contains(t, k.Section, "#", k.ID)
	}
	rules, err := Catalog()
	require.NoError(t, err)
	for _, r := range rules {
		if r.ID == "SCHEMA-001" || strings.HasPrefix(r.ID, "PROBE-") { // ours, and the probes: not rules of the catalogue
			continue
		}
		k, ok := byID[r.ID]
		require.True(t, ok, "%s has a scenario but is not in features/catalog.tsv", r.ID)
		require.Equal(t, k.Level, r.Level, "%s: level of the scenario and of the catalogue", r.ID)
		if len(k.Transports) > 0 { // a rule of every transport may be checked on some only
			require.Equal(t, k.Transports, r.Transports, "%s: transports", r.ID)
		}
	}
	require.False(t, byID["TOOL-017"].Testable())
	require.True(t, byID["MSG-014"].Testable())
}

// TestDeferredReasonsNameUnimplementedRules: a reason in features/deferred.tsv belongs to a
// testable rule that has no scenario; once a scenario exists the line must go.
func TestDeferredReasonsNameUnimplementedRules(t *testing.T) {
	known, err := KnownRules()
	require.NoError(t, err)
	rules, err := Catalog()
	require.NoError(t, err)
	implemented := map[string]bool{}
	for _, r := range rules {
		implemented[r.ID] = true
	}
	for _, k := range known {
		if k.Deferred == "" {
			continue
		}
		require.False(t, implemented[k.ID], "%s has a scenario: remove its line from deferred.tsv", k.ID)
		require.True(t, k.Testable(), "%s is N/T in the catalogue; its reason comes from there", k.ID)
	}
}

// The pages rules link to are pages of the revision they link to (revisions.Revision.Pages).
func TestSpecPagesAreInTheRevisionTable(t *testing.T) {
	rules, err := Catalog()
	require.NoError(t, err)
	for _, r := range rules {
		rev, ok := revisions.Lookup(r.SpecRevision)
		require.True(t, ok, "%s links to revision %s, which the table does not know", r.ID, r.SpecRevision)
		page, _, _ := strings.Cut(r.Section, "#")
		require.True(t, rev.HasPage(page), "%s: page %s is not among the pages of %s", r.ID, page, rev.ID)
	}
	known, err := KnownRules()
	require.NoError(t, err)
	for _, k := range known {
		if page, _, _ := strings.Cut(k.LegacySection, "#"); page != "" {
			require.True(t, revisions.LatestLegacy().HasPage(page), "%s: legacy page %s", k.ID, page)
		}
	}
}

// The _meta key-name format arrived in 2025-06-18 (basic/index#_meta of that revision); a
// 2025-03-26 server is not judged by it. The reserved prefixes arrived then too, but 2025-06-18
// reserves a prefix with modelcontextprotocol or mcp in any label followed by another label,
// 2025-11-25 one whose second label it is: META-009 checks the latter, so it starts there
// (docs/tag-audit.md).
func TestMetaKeyRulesStart(t *testing.T) {
	rules, err := Catalog()
	require.NoError(t, err)
	first := map[string]string{"META-008": "2025-06-18", "META-009": "2025-11-25"}
	for _, r := range rules {
		since, ok := first[r.ID]
		if !ok {
			continue
		}
		for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
			applies, _ := r.AppliesTo(rev, "stdio")
			require.Equal(t, rev >= since, applies, "%s at %s", r.ID, rev)
		}
	}
}

// TestClaimsNameImplementedRules: a schema claim (judge.Claim) hands violations to a rule, so
// that rule must have a scenario to report them.
func TestClaimsNameImplementedRules(t *testing.T) {
	rules, err := Catalog()
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, r := range rules {
		ids[r.ID] = true
	}
	for _, c := range judge.Claims() {
		require.True(t, ids[c.Rule], "claim %+v names a rule without a scenario", c)
		require.NotEqual(t, "SCHEMA-001", c.Rule)
	}
}

// TestLevelAtEarlierRevisions: a `@SHOULD-until:` tag grades the rule SHOULD at that revision
// and the ones before it and by its level tag after; a rule without one has its level at
// every revision; and the tag must name a handshake-era revision.
func TestLevelAtEarlierRevisions(t *testing.T) {
	legacy := revisions.LegacyIDs() // newest first
	older, newer := legacy[len(legacy)-2], legacy[len(legacy)-3]
	r := Rule{Level: "MUST", EarlierLevel: "SHOULD", EarlierUntil: older}
	assert.Equal(t, "SHOULD", r.LevelAt(legacy[len(legacy)-1]))
	assert.Equal(t, "SHOULD", r.LevelAt(older))
	assert.Equal(t, "MUST", r.LevelAt(newer))
	assert.Equal(t, "MUST", r.LevelAt(revisions.Modern().ID))
	assert.Equal(t, "MUST", Rule{Level: "MUST"}.LevelAt(older))

	scenario := func(tags string) string {
		return "Feature: f\n\n  " + tags + "\n  Scenario: s\n    Spec: basic/lifecycle#Operation\n    Given a connected server\n"
	}
	rules, err := catalogFS(fstest.MapFS{"a.feature": {Data: []byte(scenario("@rule:LEG-006 @MUST @SHOULD-until:" + older + " @since:" + legacy[len(legacy)-1]))}})
	require.NoError(t, err)
	require.Len(t, rules, 1)
	assert.Equal(t, "MUST", rules[0].Level)
	assert.Equal(t, "SHOULD", rules[0].EarlierLevel)
	assert.Equal(t, older, rules[0].EarlierUntil)
	_, err = catalogFS(fstest.MapFS{"a.feature": {Data: []byte(scenario("@rule:LEG-006 @MUST @SHOULD-until:" + revisions.Modern().ID))}})
	assert.ErrorContains(t, err, "not a handshake-era revision")

	all, err := Catalog()
	require.NoError(t, err)
	for _, r := range all {
		if r.ID == "LEG-006" || r.ID == "LEG-007" {
			assert.Equal(t, "SHOULD", r.LevelAt(older), "%s: basic/lifecycle#Operation says SHOULD there", r.ID)
			assert.Equal(t, "MUST", r.LevelAt(newer), r.ID)
		}
	}
}
