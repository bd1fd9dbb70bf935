package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// baselineRun is a run of two revisions over two transports: MSG-014 fails on stdio and
// passes on http, META-006 (a SHOULD) warns, META-001 fails on 2026-07-28 and is na on
// 2025-11-25, HDR-001 passes, STDIO-006 is na everywhere, SCHEMA-001 is error. It is built out
// of order so sorting shows.
func baselineRun() *Run {
	res := func(rule, rev, tr string, v Verdict, reason string) Result {
		return Result{Rule: rule, Level: "MUST", Revision: rev, Transport: tr, Verdict: v, Title: rule + " title", Reason: reason, Steps: []Step{}, Frames: []int{}}
	}
	return &Run{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcp-conform", Version: "1.2.3"},
		Server:        &Server{Name: "example", Version: "0.9"},
		Results: []Result{
			res("MSG-014", "2026-07-28", "stdio", Fail, "expected error -32700, got no response"),
			res("MSG-014", "2026-07-28", "http", Pass, ""),
			res("META-006", "2026-07-28", "stdio", Warn, "no serverInfo in _meta"),
			res("META-001", "2026-07-28", "http", Fail, "expected error -32602,\ngot a result"),
			res("META-001", "2025-11-25", "http", NA, "rule holds since 2026-07-28"),
			res("HDR-001", "2026-07-28", "http", Pass, ""),
			res("STDIO-006", "2025-11-25", "stdio", NA, "rule holds since 2026-07-28"),
			res("SCHEMA-001", "2026-07-28", "stdio", Error, "validator crashed"),
		},
	}
}

func verdictOf(t *testing.T, r *Run, rule, rev, tr string) Result {
	t.Helper()
	for _, res := range r.Results {
		if res.Rule == rule && res.Revision == rev && res.Transport == tr {
			return res
		}
	}
	t.Fatalf("no result %s %s %s", rule, rev, tr)
	return Result{}
}

func TestParseBaselineAcceptsTheDocumentedForm(t *testing.T) {
	b, err := ParseBaseline([]byte(`# known failures of example-server
expected-failures:
  - rule: MSG-014
    transport: stdio
    reason: "SDK ignores unparseable lines (issue #123)"  # quoted: " #" starts a comment
  - rule: META-001
    revision: 2026-07-28        # unquoted: YAML would read a date, we keep the text
    reason: &later |
      fixed in the
      next release
  - {rule: DISC-005, revision: "2026-07-28", transport: http, reason: *later}
`))
	require.NoError(t, err)
	require.Equal(t, []BaselineEntry{
		{Rule: "MSG-014", Transport: "stdio", Reason: "SDK ignores unparseable lines (issue #123)", Line: 3},
		{Rule: "META-001", Revision: "2026-07-28", Reason: "fixed in the next release", Line: 6},
		{Rule: "DISC-005", Revision: "2026-07-28", Transport: "http", Reason: "fixed in the next release", Line: 11},
	}, b.Entries)
	require.Equal(t, "DISC-005 at 2026-07-28 on http", b.Entries[2].String())
	require.Equal(t, "MSG-014 on stdio", b.Entries[0].String())
}

func TestParseBaselineEmptyIsEmpty(t *testing.T) {
	for _, doc := range []string{"", "# nothing yet\n", "expected-failures:\n", "expected-failures: []\n", "~\n"} {
		b, err := ParseBaseline([]byte(doc))
		require.NoError(t, err, "%q", doc)
		require.Empty(t, b.Entries, "%q", doc)
	}
}

func TestParseBaselineErrorsNameTheLine(t *testing.T) {
	entry := "expected-failures:\n  - rule: MSG-014\n    reason: r\n"
	cases := []struct {
		name, doc string
		want      []string
	}{
		{"unknown top-level key", entry + "strict: true\n", []string{`baseline: line 4: unknown key "strict"`}},
		{"official format", "server:\n  - tools-call-with-progress\n", []string{`line 1: unknown key "server": this looks like an expected-failures file of the official MCP conformance suite`}},
		{"unknown entry key", entry + "    note: x\n", []string{`line 4: unknown key "note" in an entry (allowed: rule, revision, transport, reason)`}},
		{"typo of a key", "expected-failures:\n  - rule: MSG-014\n    reasn: r\n", []string{`line 3: unknown key "reasn"`, `line 2: entry MSG-014 has no reason`}},
		{"no rule", "expected-failures:\n  - transport: stdio\n    reason: r\n", []string{"line 2: entry has no rule"}},
		{"prefix instead of id", "expected-failures:\n  - rule: MSG-\n    reason: r\n", []string{`line 2: rule "MSG-" is not a rule id: give one exact id`}},
		{"pattern instead of id", "expected-failures:\n  - rule: MSG-*\n    reason: r\n", []string{`line 2: rule "MSG-*" is not a rule id`}},
		{"bad revision", "expected-failures:\n  - rule: MSG-014\n    revision: latest\n    reason: r\n", []string{`line 2: revision "latest" is not a protocol revision`}},
		{"bad transport", "expected-failures:\n  - rule: MSG-014\n    transport: ws\n    reason: r\n", []string{`line 2: transport "ws" is none of stdio, http and sse`}},
		{"empty reason", "expected-failures:\n  - rule: MSG-014\n    reason: \"  \"\n", []string{"line 2: entry MSG-014 has no reason"}},
		{"null reason", "expected-failures:\n  - rule: MSG-014\n    reason:\n", []string{`line 3: "reason" takes a single value`}},
		{"list as value", "expected-failures:\n  - rule: [MSG-014, MSG-015]\n    reason: r\n", []string{`line 2: "rule" takes a single value`}},
		{"duplicate key in entry", "expected-failures:\n  - rule: MSG-014\n    rule: MSG-015\n    reason: r\n", []string{`line 3: key "rule" appears twice in one entry`}},
		{"duplicate list key", entry + "expected-failures: []\n", []string{`line 4: key "expected-failures" appears twice`}},
		{"entry is a string", "expected-failures:\n  - MSG-014\n", []string{"line 2: an entry is a mapping with the keys rule, revision, transport, reason"}},
		{"list is a mapping", "expected-failures:\n  rule: MSG-014\n", []string{`line 2: "expected-failures" holds a list of entries`}},
		{"top-level list", "- rule: MSG-014\n  reason: r\n", []string{`line 1: a baseline is a mapping with the key "expected-failures"`}},
		{"missing list key", "{}\n", []string{`line 1: no "expected-failures" key`}},
		{"two documents", entry + "---\nexpected-failures: []\n", []string{"line 4: a second YAML document"}},
		{"syntax error", "expected-failures:\n  - rule: MSG-014\n\treason: r\n", []string{"baseline: line 2: found a tab character that violates indentation"}},
		{"unquoted comment", "expected-failures:\n  - rule: MSG-014\n    reason: #123\n", []string{`line 3: "reason" takes a single value`}},
		{"same entry twice", entry + "  - rule: MSG-014\n    reason: again\n", []string{"line 4: entry MSG-014 overlaps the entry MSG-014 at line 2"}},
		{"wide entry covers a narrow one", "expected-failures:\n  - rule: MSG-014\n    transport: stdio\n    reason: r\n  - rule: MSG-014\n    revision: 2026-07-28\n    reason: r\n",
			[]string{"line 5: entry MSG-014 at 2026-07-28 overlaps the entry MSG-014 on stdio at line 2"}},
		{"several problems at once", "expected-failures:\n  - rule: x\n    reason: r\n  - rule: MSG-014\n    transport: tcp\n    reason: r\n",
			[]string{`line 2: rule "x"`, `line 4: transport "tcp"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := ParseBaseline([]byte(c.doc))
			require.Error(t, err)
			require.Nil(t, b)
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParseBaselineNarrowEntriesOnDistinctTargetsDoNotOverlap(t *testing.T) {
	b, err := ParseBaseline([]byte(`expected-failures:
  - {rule: MSG-014, transport: stdio, reason: a}
  - {rule: MSG-014, transport: http, reason: b}
  - {rule: MSG-015, revision: 2026-07-28, reason: c}
  - {rule: MSG-015, revision: 2025-11-25, reason: d}
`))
	require.NoError(t, err)
	require.Len(t, b.Entries, 4)
}

func TestLoadBaselineNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conformance-baseline.yml")
	require.NoError(t, os.WriteFile(path, []byte("expected-failures:\n  - rule: MSG-014\n"), 0o644))
	_, err := LoadBaseline(path)
	require.ErrorContains(t, err, path+": line 2: entry MSG-014 has no reason")

	require.NoError(t, os.WriteFile(path, []byte("expected-failures:\n  - rule: MSG-014\n    reason: r\n"), 0o644))
	b, err := LoadBaseline(path)
	require.NoError(t, err)
	require.Equal(t, []BaselineEntry{{Rule: "MSG-014", Reason: "r", Line: 2}}, b.Entries)

	_, err = LoadBaseline(filepath.Join(dir, "missing.yml"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestApplyTurnsCoveredFailuresIntoXFail(t *testing.T) {
	r := baselineRun()
	b := &Baseline{Entries: []BaselineEntry{
		{Rule: "MSG-014", Transport: "stdio", Reason: "SDK ignores unparseable lines (#123)"},
		{Rule: "META-006", Reason: "serverInfo lands in 2.1"},
		{Rule: "SCHEMA-001", Reason: "errors are not server failures"},
	}}
	stale := b.Apply(r)
	require.Empty(t, stale)
	require.Empty(t, r.StaleBaseline)

	got := verdictOf(t, r, "MSG-014", "2026-07-28", "stdio")
	require.Equal(t, XFail, got.Verdict)
	require.Equal(t, "baseline: SDK ignores unparseable lines (#123) — expected error -32700, got no response", got.Reason)
	require.Equal(t, Pass, verdictOf(t, r, "MSG-014", "2026-07-28", "http").Verdict)
	require.Equal(t, XFail, verdictOf(t, r, "META-006", "2026-07-28", "stdio").Verdict, "a warn is an expected failure too")
	require.Equal(t, Fail, verdictOf(t, r, "META-001", "2026-07-28", "http").Verdict, "not in the baseline")
	require.Equal(t, Error, verdictOf(t, r, "SCHEMA-001", "2026-07-28", "stdio").Verdict, "error is never excused")

	require.Equal(t, Summary{Pass: 2, Fail: 1, NA: 2, Error: 1, XFail: 2}, r.Summary, "Apply recomputes the summary")
	require.Equal(t, ExitFail, ExitCode(r, false, len(stale)), "META-001 still fails")

	again := b.Apply(r)
	require.Empty(t, again)
	require.Equal(t, "baseline: SDK ignores unparseable lines (#123) — expected error -32700, got no response",
		verdictOf(t, r, "MSG-014", "2026-07-28", "stdio").Reason, "applying twice does not prefix twice")
}

func TestApplyExcusingEveryFailureLeavesExitToErrors(t *testing.T) {
	r := baselineRun()
	b := &Baseline{Entries: []BaselineEntry{
		{Rule: "MSG-014", Reason: "a"}, {Rule: "META-006", Reason: "b"}, {Rule: "META-001", Reason: "c"},
	}}
	stale := b.Apply(r)
	require.Empty(t, stale, "MSG-014 passes on http but fails on stdio: still needed")
	require.Zero(t, r.Summary.Fail)
	require.Equal(t, ExitError, ExitCode(r, true, len(stale)), "only the error is left; --strict does not revive an excused warn")
	require.Equal(t, XFail, verdictOf(t, r, "META-001", "2026-07-28", "http").Verdict)
	require.Equal(t, NA, verdictOf(t, r, "META-001", "2025-11-25", "http").Verdict)
}

func TestApplyFindsStaleEntries(t *testing.T) {
	r := baselineRun()
	b := &Baseline{Entries: []BaselineEntry{
		{Rule: "HDR-001", Reason: "passes now", Line: 2},                               // stale
		{Rule: "MSG-014", Transport: "http", Reason: "fixed over http", Line: 5},       // stale: narrowed to the passing transport
		{Rule: "MSG-014", Transport: "stdio", Reason: "still broken", Line: 8},         // needed
		{Rule: "STDIO-006", Reason: "only na results prove nothing", Line: 11},         // not stale
		{Rule: "SCHEMA-001", Reason: "an error proves nothing", Line: 14},              // not stale
		{Rule: "LEG-001", Reason: "not run (--rule)", Line: 17},                        // not stale
		{Rule: "META-001", Revision: "2025-11-25", Reason: "na on this one", Line: 20}, // not stale
	}}
	stale := b.Apply(r)
	require.Equal(t, []BaselineEntry{b.Entries[0], b.Entries[1]}, stale)
	require.Equal(t, stale, r.StaleBaseline)
	require.Equal(t, ExitFail, ExitCode(r, false, len(r.StaleBaseline)))

	var out bytes.Buffer
	require.NoError(t, WriteJSON(&out, r))
	back, err := ReadJSON(&out)
	require.NoError(t, err)
	require.Equal(t, []BaselineEntry{
		{Rule: "HDR-001", Reason: "passes now"},
		{Rule: "MSG-014", Transport: "http", Reason: "fixed over http"},
	}, back.StaleBaseline, "stale entries travel in results.json (without their line)")
}

func TestApplyNarrowsByRevisionAndTransport(t *testing.T) {
	cases := []struct {
		entry BaselineEntry
		xfail bool
	}{
		{BaselineEntry{Rule: "META-001"}, true},
		{BaselineEntry{Rule: "META-001", Revision: "2026-07-28"}, true},
		{BaselineEntry{Rule: "META-001", Transport: "http"}, true},
		{BaselineEntry{Rule: "META-001", Revision: "2026-07-28", Transport: "http"}, true},
		{BaselineEntry{Rule: "META-001", Revision: "2025-11-25"}, false},
		{BaselineEntry{Rule: "META-001", Transport: "stdio"}, false},
		{BaselineEntry{Rule: "META-00"}, false},
		{BaselineEntry{Rule: "META-0001"}, false},
	}
	for _, c := range cases {
		r := baselineRun()
		c.entry.Reason = "r"
		stale := (&Baseline{Entries: []BaselineEntry{c.entry}}).Apply(r)
		require.Empty(t, stale)
		got := verdictOf(t, r, "META-001", "2026-07-28", "http").Verdict
		if c.xfail {
			require.Equal(t, XFail, got, c.entry.String())
		} else {
			require.Equal(t, Fail, got, c.entry.String())
		}
	}
}

func TestApplyNilBaselineChangesNothing(t *testing.T) {
	r := baselineRun()
	var b *Baseline
	require.Empty(t, b.Apply(r))
	require.Equal(t, baselineRun().Results, r.Results)
}

func TestBaselineUnknownRules(t *testing.T) {
	b := &Baseline{Entries: []BaselineEntry{{Rule: "MSG-014"}, {Rule: "MSG-999"}}}
	known := map[string]bool{"MSG-014": true}
	require.Equal(t, []BaselineEntry{{Rule: "MSG-999"}}, b.Unknown(func(id string) bool { return known[id] }))
}

func TestWriteBaselineGoldenAndRoundTrip(t *testing.T) {
	r := baselineRun()
	(&Baseline{Entries: []BaselineEntry{{Rule: "META-006", Reason: "serverInfo — lands in 2.1"}}}).Apply(r)
	var out bytes.Buffer
	require.NoError(t, WriteBaseline(&out, r))
	checkConsoleGolden(t, "baseline-write.golden", out.Bytes())

	b, err := ParseBaseline(out.Bytes())
	require.NoError(t, err)
	for i := range b.Entries {
		b.Entries[i].Line = 0
	}
	require.Equal(t, []BaselineEntry{
		{Rule: "META-001", Revision: "2026-07-28", Transport: "http", Reason: "expected error -32602, got a result"},
		{Rule: "META-006", Revision: "2026-07-28", Transport: "stdio", Reason: "serverInfo — lands in 2.1"},
		{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Reason: "expected error -32700, got no response"},
	}, b.Entries, "fail and warn are written with their reason, xfail keeps the reason of its entry")

	fresh := baselineRun()
	stale := b.Apply(fresh)
	require.Empty(t, stale)
	require.Zero(t, fresh.Summary.Fail+fresh.Summary.Warn, "the written baseline excuses every failure of the run it came from")
	require.Equal(t, 3, fresh.Summary.XFail)
	require.Equal(t, 1, fresh.Summary.Error)

	var again bytes.Buffer
	require.NoError(t, WriteBaseline(&again, fresh))
	require.Equal(t, out.String(), again.String(), "rewriting after applying gives the same file")
}

func TestWriteBaselineWithNoFailures(t *testing.T) {
	r := &Run{SchemaVersion: SchemaVersion, Results: []Result{{Rule: "MSG-014", Verdict: Pass}}}
	var out bytes.Buffer
	require.NoError(t, WriteBaseline(&out, r))
	require.True(t, strings.HasSuffix(out.String(), "expected-failures: []\n"), out.String())
	b, err := ParseBaseline(out.Bytes())
	require.NoError(t, err)
	require.Empty(t, b.Entries)
}

func TestApplyRejudgesAnEarlierBaseline(t *testing.T) {
	r := &Run{Results: []Result{
		{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Reason: "no reply"},
		{Rule: "DISC-005", Revision: "2026-07-28", Transport: "stdio", Verdict: Warn, Reason: "no serverInfo"},
	}}
	old, err := ParseBaseline([]byte("expected-failures:\n  - rule: MSG-014\n    reason: old\n  - rule: DISC-005\n    reason: old too\n"))
	require.NoError(t, err)
	old.Apply(r) // sorts the results: DISC-005 first
	require.Equal(t, "DISC-005", r.Results[0].Rule)
	require.Equal(t, XFail, r.Results[0].Verdict)
	require.Equal(t, Warn, r.Results[0].BaselineVerdict)

	// A saved run re-judged by a baseline without DISC-005: its xfail becomes warn again.
	newer, err := ParseBaseline([]byte("expected-failures:\n  - rule: MSG-014\n    reason: new\n"))
	require.NoError(t, err)
	newer.Apply(r)
	byRule := map[string]Result{}
	for _, res := range r.Results {
		byRule[res.Rule] = res
	}
	require.Equal(t, Warn, byRule["DISC-005"].Verdict)
	require.Equal(t, "no serverInfo", byRule["DISC-005"].Reason)
	require.Equal(t, XFail, byRule["MSG-014"].Verdict)
	require.Contains(t, byRule["MSG-014"].Reason, "new")
	require.NotContains(t, byRule["MSG-014"].Reason, "old")

	// No baseline at all keeps the xfails of the document (nothing to re-judge with).
	var none *Baseline
	none.Apply(r)
	require.Equal(t, XFail, byRule["MSG-014"].Verdict)
}

func TestWriteBaselineKeepsEntriesOfRulesNotRun(t *testing.T) {
	r := &Run{Results: []Result{{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Reason: "no reply"}}}
	b, err := ParseBaseline([]byte("expected-failures:\n  - rule: MSG-015\n    reason: \"hand-written, see #12\"\n"))
	require.NoError(t, err)
	keep := b.Uncovered(r)
	require.Len(t, keep, 1)
	var buf bytes.Buffer
	require.NoError(t, WriteBaseline(&buf, r, keep...))
	back, err := ParseBaseline(buf.Bytes())
	require.NoError(t, err)
	require.Len(t, back.Entries, 2)
	require.Equal(t, "MSG-015", back.Entries[1].Rule)
	require.Equal(t, "hand-written, see #12", back.Entries[1].Reason)
}

// TestApplyWrittenReasonWithOtherFrameNumbersSaidOnce: a reason --write-baseline wrote names
// frame numbers and ids of that run; the next run's failure differs only in them, and its
// xfail reason gives the current one once, not both joined.
func TestApplyWrittenReasonWithOtherFrameNumbersSaidOnce(t *testing.T) {
	r := &Run{Results: []Result{{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail,
		Reason: "expected no code -32603, got frame 450: id 12 answered with -32603"}}}
	b := &Baseline{Entries: []BaselineEntry{{Rule: "MSG-014", Reason: "expected no code -32603, got frame 457: id 9 answered with -32603"}}}
	b.Apply(r)
	require.Equal(t, "baseline: expected no code -32603, got frame 450: id 12 answered with -32603", r.Results[0].Reason)

	// A reason of the user's own, other than in numbers, is kept beside the failure's.
	r.Results[0] = Result{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Reason: "got frame 450"}
	(&Baseline{Entries: []BaselineEntry{{Rule: "MSG-014", Reason: "SDK bug 12"}}}).Apply(r)
	require.Equal(t, "baseline: SDK bug 12 — got frame 450", r.Results[0].Reason)
}
