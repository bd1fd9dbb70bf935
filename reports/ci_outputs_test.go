package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestJUnitStrictCountsWarnAsFailure: under --strict the exit code is 1 on a warn, so
// junit.xml must count it as a failure too (it showed failures="0").
func TestJUnitStrictCountsWarnAsFailure(t *testing.T) {
	for strict, want := range map[bool]int{false: 2, true: 3} { // sampleRun: 2 fail, 1 warn
		var buf bytes.Buffer
		require.NoError(t, WriteJUnitOptions(&buf, sampleRun(), JUnitOptions{Strict: strict}))
		var doc junitSuites
		require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
		require.Equal(t, want, doc.Failures, "strict=%v", strict)
		sum := 0
		var warnCase *junitCase
		for _, s := range doc.Suites {
			sum += s.Failures
			for i, c := range s.Cases {
				if strings.HasPrefix(c.Name, "MSG-9 ") {
					warnCase = &s.Cases[i]
				}
			}
		}
		require.Equal(t, want, sum, "the suites add up to the total")
		require.NotNil(t, warnCase)
		if strict {
			require.NotNil(t, warnCase.Failure)
			require.Equal(t, "warn", warnCase.Failure.Type)
			require.Equal(t, "error message is 4096 characters long", warnCase.Failure.Message)
		} else {
			require.Nil(t, warnCase.Failure)
			require.Contains(t, warnCase.SystemOut, "warn: error message is 4096 characters long")
		}
	}
	var plain, zero bytes.Buffer
	require.NoError(t, WriteJUnit(&plain, sampleRun()))
	require.NoError(t, WriteJUnitOptions(&zero, sampleRun(), JUnitOptions{}))
	require.Equal(t, plain.String(), zero.String())
}

// badgeDoc decodes a badge independently of the writer's types.
type badgeDoc struct {
	XMLName xml.Name `xml:"svg"`
	NS      string   `xml:"xmlns,attr"`
	Width   int      `xml:"width,attr"`
	Label   string   `xml:"aria-label,attr"`
	Title   string   `xml:"title"`
	Rects   []struct {
		X     int    `xml:"x,attr"`
		Width int    `xml:"width,attr"`
		Fill  string `xml:"fill,attr"`
	} `xml:"rect"`
	Texts []string `xml:"g>text"`
}

func badgeOf(t *testing.T, r *Run) (badgeDoc, string) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteBadge(&buf, r))
	// Well-formed: a strict decoder reads every token to the end.
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, buf.String())
	}
	var doc badgeDoc
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	return doc, buf.String()
}

func mustResults(verdicts ...Verdict) []Result {
	var out []Result
	for i, v := range verdicts {
		out = append(out, Result{Rule: fmt.Sprintf("MSG-%d", i+1), Level: "MUST", Revision: "2026-07-28", Transport: "stdio", Verdict: v})
	}
	return out
}

// TestBadgeShowsMustPassRateAndRevisions: badge.svg is a self-contained SVG whose text is the
// MUST pass rate (pass / judged; na, untestable, error and SHOULD results not counted) and the
// revisions, coloured by the rate.
func TestBadgeShowsMustPassRateAndRevisions(t *testing.T) {
	r := &Run{Revisions: []string{"2026-07-28", "2025-11-25"},
		Results: append(mustResults(Pass, Pass, Pass, Fail, NA, Untestable, Error),
			Result{Rule: "CAP-007", Level: "SHOULD", Revision: "2026-07-28", Transport: "stdio", Verdict: Warn})}
	doc, raw := badgeOf(t, r)
	require.Equal(t, "http://www.w3.org/2000/svg", doc.NS)
	require.Equal(t, "MCP MUST: 75.0% · 2026-07-28, 2025-11-25", doc.Title)
	require.Equal(t, doc.Title, doc.Label)
	require.Equal(t, []string{"MCP MUST", "75.0% · 2026-07-28, 2025-11-25"}, doc.Texts)
	require.Len(t, doc.Rects, 2)
	require.Equal(t, badgeMid, doc.Rects[1].Fill)
	require.Equal(t, doc.Width, doc.Rects[0].Width+doc.Rects[1].Width, "the halves fill the badge")
	require.Equal(t, doc.Rects[0].Width, doc.Rects[1].X)
	require.NotContains(t, raw, "href", "no remote or linked asset")
	require.NotContains(t, raw, "<script")
	require.Equal(t, 1, strings.Count(raw, "http"), "the only URL is the SVG namespace")

	for name, c := range map[string]struct {
		results []Result
		text    string
		fill    string
	}{
		"xfail":       {mustResults(Pass, Pass, XFail), "66.7%", badgeLow}, // xfail is judged, not a pass
		"clean":       {mustResults(Pass, Pass), "100%", badgeAll},
		"none judged": {mustResults(NA, Untestable), "–", badgeUnknown},
		"failing":     {mustResults(Fail, Fail, Pass), "33.3%", badgeBad},
		"high":        {mustResults(Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Pass, Fail), "90.0%", badgeHigh},
	} {
		doc, _ := badgeOf(t, &Run{Revisions: []string{"2025-06-18"}, Results: c.results})
		require.Equal(t, c.text+" · 2025-06-18", doc.Texts[1], name)
		require.Equal(t, c.fill, doc.Rects[1].Fill, name)
	}
}

// TestBadgeEscapesText: text that is not XML-safe (a hostile results.json given to `report`)
// is escaped, and the badge stays well-formed.
func TestBadgeEscapesText(t *testing.T) {
	doc, raw := badgeOf(t, &Run{Revisions: []string{`<script>&"x"</script>`}, Results: mustResults(Pass)})
	require.NotContains(t, raw, "<script>")
	require.Equal(t, `100% · <script>&"x"</script>`, doc.Texts[1])
}

// TestGitHubEscaping: the workflow-command rules: %, CR and LF in data; also : and , in
// property values.
func TestGitHubEscaping(t *testing.T) {
	require.Equal(t, "100%25 done%0D%0A::error::x, y: z", GitHubEscapeData("100% done\r\n::error::x, y: z"))
	require.Equal(t, "a%3A b%2C c%25%0A", GitHubEscapeProperty("a: b, c%\n"))
	require.Equal(t, "::warning title=A%3AB%2CC::m%25\n", githubCommand("warning", [][2]string{{"title", "A:B,C"}, {"file", ""}}, "m%"))
}

// TestGitHubAnnotations: one annotation per failing rule (its targets merged), ::warning for a
// warn (::error under --strict), errors and stale entries annotated too, nothing for what
// passes; every annotation is one line whatever the server wrote.
func TestGitHubAnnotations(t *testing.T) {
	r := sampleRun()
	r.Results = append(r.Results, Result{Rule: "STDIO-002", Level: "MUST NOT", Revision: "2025-11-25", Transport: "stdio", Verdict: Fail,
		Title: "The server writes nothing to stdout that is not a valid MCP message", Reason: "stdout: x\n::error::injected, 100%"})
	r.StaleBaseline = []BaselineEntry{{Rule: "MSG-014", Transport: "stdio", Reason: "ids: fixed", Line: 7}}
	r.Aborted = "interrupted"
	var buf bytes.Buffer
	require.NoError(t, WriteGitHubAnnotations(&buf, r, GitHubOptions{BaselineFile: "ci/base,line.yml"}))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for _, l := range lines {
		require.True(t, strings.HasPrefix(l, "::error ") || strings.HasPrefix(l, "::warning "), l)
		require.Equal(t, 2, strings.Count(l, "::"), "one command per line, no injected one: %s", l)
	}
	require.Equal(t, []string{
		"::error title=HDR-003 could not be checked%3A The server answers 400 to a request without MCP-Protocol-Version::request timed out after 10s [2026-07-28 http] Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#protocol-version-header",
		"::warning title=MSG-9 SHOULD%3A An error message is a short description::error message is 4096 characters long [2026-07-28 stdio] Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/index#errors",
		"::error title=SCHEMA-001 MUST%3A Every message the server sends validates against the revision's schema::2 violations in 1 frame [2026-07-28 http] Spec: https://modelcontextprotocol.io/specification/2026-07-28/schema#schema",
		"::error title=STDIO-002 MUST NOT%3A The server writes nothing to stdout that is not a valid MCP message::line 3 of stdout is not JSON: <banner> & \"hello\" \\x1b[0m [2026-07-28 stdio, 2025-11-25 stdio] Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#stdio",
		"::error file=ci/base%2Cline.yml,line=7,title=Stale baseline entry MSG-014 on stdio::The rule passes now: remove the entry from the baseline (its reason: ids: fixed)",
		"::error title=mcp-conform%3A run not carried out in full::interrupted",
	}, lines)
	buf.Reset()
	require.NoError(t, WriteGitHubAnnotations(&buf, sampleRun(), GitHubOptions{Strict: true}))
	require.Contains(t, buf.String(), "::error title=MSG-9 SHOULD%3A")
	require.NotContains(t, buf.String(), "::warning")

	buf.Reset()
	clean := &Run{Results: mustResults(Pass, NA, Info, XFail, Untestable)}
	require.NoError(t, WriteGitHubAnnotations(&buf, clean, GitHubOptions{}))
	require.Empty(t, buf.String())
}

// TestGitHubStepSummary: the markdown summary names the exit code, the counts and every
// failing result in a table whose cells cannot be broken by what the server wrote.
func TestGitHubStepSummary(t *testing.T) {
	r := sampleRun()
	r.StaleBaseline = []BaselineEntry{{Rule: "MSG-014", Transport: "stdio", Reason: "fixed | really"}}
	var buf bytes.Buffer
	require.NoError(t, WriteGitHubSummary(&buf, r, GitHubOptions{ExitCode: 1, Strict: true}))
	md := buf.String()
	require.True(t, strings.HasPrefix(md, "### mcp-conform: exit 1\n"), md)
	require.Contains(t, md, "Server: example-server 1.2.3")
	require.Contains(t, md, "| pass | fail | warn | info | na | untestable | error | xfail |\n")
	require.Contains(t, md, "| 2 | 2 | 1 | 1 | 1 | 1 | 1 | 1 |\n")
	require.Contains(t, md, "MUST pass rate: 40.0% (2/5); SHOULD pass rate: 0.0% (0/1)")
	require.Contains(t, md, "| STDIO-002 | 2026-07-28 | stdio | fail | line 3 of stdout is not JSON: &lt;banner&gt; &amp; \"hello\" \\\\x1b\\[0m |\n")
	require.Contains(t, md, "| MSG-9 | 2026-07-28 | stdio | warn (strict: fails) |")
	require.Contains(t, md, "| HDR-003 | 2026-07-28 | http | error | request timed out after 10s |")
	require.NotContains(t, md, "| MSG-10 |", "info is not a problem")
	require.Contains(t, md, "- MSG-014 on stdio: fixed \\| really\n")
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| STDIO-002") || strings.HasPrefix(l, "- MSG-014") {
			require.Equal(t, strings.Count(l, "|")-strings.Count(l, `\|`), map[bool]int{true: 6, false: 0}[l[0] == '|'], "no cell broken: %s", l)
		}
	}

	many := &Run{Results: mustResults(make([]Verdict, 60)...)}
	for i := range many.Results {
		many.Results[i].Verdict = Fail
	}
	buf.Reset()
	require.NoError(t, WriteGitHubSummary(&buf, many, GitHubOptions{ExitCode: 1}))
	require.Equal(t, githubSummaryRows, strings.Count(buf.String(), "\n| MSG-"))
	require.Contains(t, buf.String(), "… and 10 more: see report.html in the artifact.")

	// A run aborted before era detection names no revision: the summary says so.
	buf.Reset()
	require.NoError(t, WriteGitHubSummary(&buf, &Run{Aborted: "HTTP 401", Transports: []string{"http"}}, GitHubOptions{ExitCode: 3}))
	require.Contains(t, buf.String(), "Revisions: none detected; transports: http")
}

// TestBadgeIncompleteRun: a run not carried out in full shows "incomplete" in red, whatever
// its judged MUST results were.
func TestBadgeIncompleteRun(t *testing.T) {
	doc, _ := badgeOf(t, &Run{Revisions: []string{"2026-07-28"}, Aborted: "the run was interrupted", Results: mustResults(Pass, Pass, Error)})
	require.Equal(t, "incomplete · 2026-07-28", doc.Texts[1])
	require.Equal(t, badgeBad, doc.Rects[1].Fill)
}
