package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDiffIsRegression pins which transitions gate, with and without --strict ("" = absent).
func TestDiffIsRegression(t *testing.T) {
	for _, tc := range []struct {
		old, new        Verdict
		plain, isStrict bool
	}{
		{Pass, Fail, true, true},
		{NA, Fail, true, true},
		{Untestable, Fail, true, true},
		{XFail, Fail, true, true},
		{Info, Fail, true, true},
		{"", Fail, true, true},
		{Error, Fail, true, true},
		{Fail, Fail, false, false},
		{Pass, Warn, true, true},
		{NA, Warn, false, true},
		{Untestable, Warn, false, true},
		{XFail, Warn, false, true},
		{"", Warn, false, true},
		{Pass, Error, true, true},
		{Warn, Error, true, true},
		{Fail, Error, false, false},
		{Pass, NA, false, true},
		{Pass, Untestable, false, true},
		{Pass, "", false, true},
		{Fail, "", false, true},
		{Pass, XFail, false, false},
		{Fail, Pass, false, false},
		{Warn, Pass, false, false},
		{NA, Pass, false, false},
		{"", Pass, false, false},
		{NA, "", false, false},
		{Untestable, NA, false, false},
		{Error, "", false, false},
	} {
		require.Equal(t, tc.plain, IsRegression(tc.old, tc.new, false), "%q -> %q", tc.old, tc.new)
		require.Equal(t, tc.isStrict, IsRegression(tc.old, tc.new, true), "%q -> %q --strict", tc.old, tc.new)
	}
}

func diffRun(aborted string, rs ...Result) *Run {
	r := &Run{SchemaVersion: SchemaVersion, Tool: Tool{Name: "mcp-conform", Version: "v1.2.3", Commit: "abc"}, Aborted: aborted}
	for _, res := range rs {
		res.Level, res.Title = "MUST", res.Rule+" title"
		res.Spec.URL = "https://modelcontextprotocol.io/specification/2026-07-28/basic#" + res.Rule
		r.Results = append(r.Results, res)
	}
	return r
}

func res(rule, rev, tr string, v Verdict, reason string) Result {
	return Result{Rule: rule, Revision: rev, Transport: tr, Verdict: v, Reason: reason}
}

// TestDiffClassifiesByRuleRevisionTransport: the same rule over two transports is two results;
// each change lands in one kind, sorted by kind then rule (numerically) then revision.
func TestDiffClassifiesByRuleRevisionTransport(t *testing.T) {
	old := diffRun("",
		res("MSG-2", "2026-07-28", "stdio", Pass, ""),
		res("MSG-2", "2026-07-28", "http", Pass, ""),
		res("MSG-10", "2026-07-28", "stdio", Fail, "was broken"),
		res("TOOL-1", "2026-07-28", "stdio", Pass, ""),
		res("TOOL-2", "2025-11-25", "stdio", NA, "capability"),
		res("TOOL-3", "2026-07-28", "stdio", Pass, ""),
		res("TOOL-4", "2026-07-28", "stdio", Untestable, "needs fixture"),
		res("SAME-1", "2026-07-28", "stdio", Pass, ""),
	)
	new := diffRun("",
		res("MSG-2", "2026-07-28", "stdio", Pass, ""),
		res("MSG-2", "2026-07-28", "http", Fail, "now broken"),
		res("MSG-10", "2026-07-28", "stdio", Pass, ""),
		res("TOOL-3", "2026-07-28", "stdio", XFail, "covered"),
		res("TOOL-4", "2026-07-28", "stdio", Pass, ""),
		res("NEW-1", "2026-07-28", "stdio", Pass, ""),
		res("NEW-2", "2026-07-28", "stdio", Fail, "new rule fails"),
		res("SAME-1", "2026-07-28", "stdio", Pass, ""),
	)
	d := Diff(old, new, false)
	type row struct {
		kind        ChangeKind
		rule, tr    string
		oldV, newV  Verdict
		reason, why string
	}
	var got []row
	for _, c := range d.Changes {
		got = append(got, row{c.Kind, c.Rule, c.Transport, c.Old, c.New, c.Reason, c.Why})
	}
	require.Equal(t, []row{
		{Regression, "MSG-2", "http", Pass, Fail, "now broken", "new failure"},
		{Regression, "NEW-2", "stdio", "", Fail, "new rule fails", "new result that fails"},
		{Fixed, "MSG-10", "stdio", Fail, Pass, "", ""},
		{Unchecked, "TOOL-1", "stdio", Pass, "", "", ""},
		{Added, "NEW-1", "stdio", "", Pass, "", ""},
		{Removed, "TOOL-2", "stdio", NA, "", "capability", ""},
		{Changed, "TOOL-3", "stdio", Pass, XFail, "covered", ""},
		{Changed, "TOOL-4", "stdio", Untestable, Pass, "", ""},
	}, got)
	require.Equal(t, 2, d.Regressions)
	require.Equal(t, 2, d.Unchanged, "MSG-2 stdio and SAME-1")
	require.False(t, d.NewAborted)
	require.Equal(t, "MSG-2 title", d.Changes[0].Title)
	require.Equal(t, "TOOL-2 title", d.Of(Removed)[0].Title, "a removed result keeps the old run's title")

	strict := Diff(old, new, true)
	require.Equal(t, 3, strict.Regressions, "--strict: TOOL-1 passed and is no longer checked")
	require.Equal(t, "no longer checked (--strict)", strict.Of(Regression)[2].Why)
	require.Empty(t, strict.Of(Unchecked))

	same := Diff(old, old, true)
	require.Zero(t, same.Regressions)
	require.Empty(t, same.Changes)
	require.Equal(t, len(old.Results), same.Unchanged)
}

// TestDiffNewRunAbortedIsRegression: a new run not carried out in full gates even when the
// results it has are no worse; one aborted like the old run does not.
func TestDiffNewRunAbortedIsRegression(t *testing.T) {
	old := diffRun("", res("MSG-1", "2026-07-28", "stdio", Pass, ""))
	cut := diffRun("run timeout after 15m0s", res("MSG-1", "2026-07-28", "stdio", Pass, ""))
	d := Diff(old, cut, false)
	require.True(t, d.NewAborted)
	require.Equal(t, 1, d.Regressions)
	var b bytes.Buffer
	require.NoError(t, WriteDiffText(&b, d))
	require.Contains(t, b.String(), "new run was not carried out in full: run timeout after 15m0s")
	require.Zero(t, Diff(cut, cut, false).Regressions)
}

// TestDiffTextNamesEachChange: the text rendering lists regressions first with old -> new and
// the reason, and ends with the headline.
func TestDiffTextNamesEachChange(t *testing.T) {
	old := diffRun("", res("MSG-1", "2026-07-28", "stdio", Pass, ""), res("MSG-3", "2026-07-28", "stdio", Warn, "x"))
	new := diffRun("", res("MSG-1", "2026-07-28", "stdio", Fail, "bad\nid \x1b[31m"), res("MSG-3", "2026-07-28", "stdio", Pass, ""))
	old.Results[0].Verdict, new.Results[0].Verdict = Pass, Fail
	var b bytes.Buffer
	require.NoError(t, WriteDiffText(&b, Diff(old, new, false)))
	out := b.String()
	require.Contains(t, out, "Regressions (1):\n  MSG-1      2026-07-28 stdio pass       -> fail       [new failure] bad id \\x1b[31m\n")
	require.Contains(t, out, "Fixed (1):\n  MSG-3      2026-07-28 stdio warn       -> pass       MSG-3 title\n")
	require.NotContains(t, out, "\x1b")
	require.True(t, strings.HasSuffix(out, "\n1 regression, 1 fixed, 0 unchanged\n"), out)
	require.Less(t, strings.Index(out, "Regressions"), strings.Index(out, "Fixed"))
}

// TestDiffMarkdownEscapesServerText: a reason holding table and markup syntax stays inside its
// cell, the rule links to its spec section, and a clean diff says so in the heading.
func TestDiffMarkdownEscapesServerText(t *testing.T) {
	old := diffRun("", res("MSG-1", "2026-07-28", "http", Pass, ""))
	new := diffRun("", res("MSG-1", "2026-07-28", "http", Fail, "got | <script>x</script> [a](b) @octocat `c`\nnext"))
	var b bytes.Buffer
	require.NoError(t, WriteDiffMarkdown(&b, Diff(old, new, false)))
	out := b.String()
	require.True(t, strings.HasPrefix(out, "### ❌ mcp-conform diff: 1 regression"), out)
	require.Contains(t, out, "#### Regressions (1)\n\n| Rule | Revision | Transport | Was | Now | Reason |\n| --- | --- | --- | --- | --- | --- |\n")
	require.Contains(t, out, "| [MSG-1](https://modelcontextprotocol.io/specification/2026-07-28/basic#MSG-1) | 2026-07-28 | http | pass | fail | new failure: got \\| &lt;script&gt;x&lt;/script&gt; \\[a\\](b) \\@octocat \\`c\\` next |\n")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "| [MSG-1]") {
			require.Equal(t, 7, strings.Count(line, "|")-strings.Count(line, "\\|"), "the row has six cells: %s", line)
		}
	}
	b.Reset()
	require.NoError(t, WriteDiffMarkdown(&b, Diff(old, old, false)))
	require.True(t, strings.HasPrefix(b.String(), "### ✅ mcp-conform diff: no regression"), b.String())
	require.NotContains(t, b.String(), "####", "no section without changes")
}

// TestDiffJSONRoundTrips: the JSON rendering is the RunDiff, with absent verdicts omitted.
func TestDiffJSONRoundTrips(t *testing.T) {
	old := diffRun("", res("MSG-1", "2026-07-28", "stdio", Pass, ""))
	new := diffRun("", res("MSG-1", "2026-07-28", "stdio", Fail, "broken"), res("MSG-2", "2026-07-28", "stdio", Pass, ""))
	d := Diff(old, new, true)
	var b bytes.Buffer
	require.NoError(t, WriteDiffJSON(&b, d))
	var back RunDiff
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	require.Equal(t, d.Changes, back.Changes)
	require.Equal(t, 1, back.Regressions)
	require.True(t, back.Strict)
	require.Equal(t, Summary{Fail: 1, Pass: 1}, back.New.Summary)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	added := raw["changes"].([]any)[1].(map[string]any)
	require.Equal(t, "added", added["kind"])
	require.NotContains(t, added, "old", "an absent verdict is omitted")
}
