package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The -update flag rewrites the golden files under testdata/ (go test ./reports -update); it is
// registered here unless another test file of the package registered it first.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
	return true
}()

// Hostile strings a server controls: its name, a frame it sends, its stderr.
const (
	hostileName  = `<script>alert(1)</script>`
	hostileFrame = `"><img src=x onerror=alert(1)>`
)

// htmlRun is a realistic run of two revisions over two transports with every verdict, schema
// errors, HTTP and SSE envelopes, a framing problem, invalid UTF-8, and hostile server strings.
func htmlRun() *Run {
	revs := []string{"2026-07-28", "2025-11-25"}
	trs := []string{"stdio", "http"}
	r := &Run{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcp-conform", Version: "v0.4.0", Commit: "0123456789ab"},
		Target: Target{Transport: "stdio+http", Command: []string{"node", "build/index.js", "--name", "it's me"},
			URL: "http://127.0.0.1:3000/mcp", HeaderNames: []string{"Authorization", "X-Api-Key"}},
		Server:     &Server{Name: hostileName, Version: `1.0"><svg onload=alert(2)>`},
		Revisions:  revs,
		Transports: trs,
		SchemaPins: map[string]Pin{
			"2026-07-28": {Commit: "b0f60ba5409db7a6582440a7b473cc0398890f15", SHA256: "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203"},
			"2025-11-25": {Commit: "b0f60ba5409db7a6582440a7b473cc0398890f15", SHA256: "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7"},
		},
		StartedAt:  time.Date(2026, 7, 30, 12, 0, 0, 0, time.UTC),
		DurationMs: 6917,
		StderrTail: "server starting\n<img src=x onerror=alert(3)>\n</pre><script>alert(4)</script>\n",
		Notes:      []string{"stdio: modern era detected", "http: legacy era: initialize negotiated 2025-11-25"},
	}
	seq := 0
	frame := func(dir, tr, raw string) int {
		seq++
		f := Frame{Seq: seq, Dir: dir, T: float64(seq) * 3.25, Transport: tr, Conn: 1, Raw: raw, Size: len(raw), Method: "tools/list"}
		if tr == "http" {
			if dir == "c2s" {
				f.HTTP = &HTTP{Method: "POST", Headers: map[string][]string{"Content-Type": {"application/json"}, "Mcp-Method": {"tools/list"}}}
			} else {
				f.HTTP = &HTTP{Status: 200, Headers: map[string][]string{"Content-Type": {"text/event-stream"}, "X-Evil": {`<b onmouseover=alert(5)>hi</b>`}}}
				f.SSE = &SSE{Event: "message", ID: `1"><i>`}
			}
		}
		r.Frames = append(r.Frames, f)
		return seq
	}
	type rule struct {
		id, level, feature, title string
		verdicts                  map[string]Verdict // by revision/transport; missing = pass
	}
	rules := []rule{
		{"MSG-003", "MUST", "Base protocol (basic/index)", "A response repeats the request id with the same JSON type", nil},
		{"MSG-014", "MUST", "Base protocol (basic/index)", "Unparseable JSON is answered with a parse error", map[string]Verdict{"2025-11-25/http": Fail}},
		{"META-001", "MUST", "Base protocol (basic/index)", "A request without a protocol version in _meta is rejected", map[string]Verdict{"2025-11-25/stdio": NA, "2025-11-25/http": NA, "2026-07-28/http": XFail}},
		{"STDIO-002", "SHOULD", "stdio transport (basic/transports/stdio)", "Nothing but MCP messages is written to stdout", map[string]Verdict{"2026-07-28/stdio": Warn, "2026-07-28/http": NA, "2025-11-25/http": NA}},
		{"HTTP-013", "MUST", "Streamable HTTP transport (basic/transports/streamable-http)", "An unknown method gets 404", map[string]Verdict{"2026-07-28/stdio": NA, "2025-11-25/stdio": NA, "2025-11-25/http": Error}},
		{"TOOL-001", "MUST", "Tools (server/tools)", "A fixture tool answers", map[string]Verdict{"2026-07-28/stdio": Untestable, "2026-07-28/http": Untestable}},
		{"CAP-006", "MAY", "Server features and capabilities (server/index)", "A declared capability answers its list request", map[string]Verdict{"2026-07-28/stdio": Info}},
		{"DISC-002", "MUST NOT", "Discovery (server/discover)", "The discover result has the DiscoverResult shape", nil},
		{"SCHEMA-001", "MUST", "Schema conformance (schema)", "Every message the server sends validates against the schema", map[string]Verdict{"2026-07-28/stdio": Fail}},
		{"LEG-001", "MUST", "Legacy lifecycle (2025-11-25 basic/lifecycle)", "initialize is answered", map[string]Verdict{"2026-07-28/stdio": NA, "2026-07-28/http": NA}},
	}
	for _, ru := range rules {
		for _, rev := range revs {
			for _, tr := range trs {
				v := ru.verdicts[rev+"/"+tr]
				if v == "" {
					v = Pass
				}
				res := Result{Rule: ru.id, Level: ru.level, Revision: rev, Transport: tr, Verdict: v, Title: ru.title, Feature: ru.feature,
					Spec:       Spec{Section: "basic/index#Responses", URL: "https://modelcontextprotocol.io/specification/" + rev + "/basic/index#responses"},
					Steps:      []Step{{Text: "a connected server", Status: "passed"}, {Text: "the client sends a \"tools/list\" request", Status: "passed"}},
					Frames:     []int{},
					DurationMs: 12}
				switch v {
				case NA:
					res.Reason = "rule holds since 2026-07-28; the server speaks 2025-11-25"
					res.Steps = []Step{{Text: "a connected server", Status: "skipped"}}
				case Pass, Info, Warn, Fail, XFail:
					res.Frames = append(res.Frames,
						frame("c2s", tr, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+rev+`"}}}`),
						frame("s2c", tr, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"resultType":"complete","ttlMs":-5}}`))
				}
				if v == Fail || v == Warn || v == XFail {
					res.Reason = "expected error -32700, got a result"
					res.Expected, res.Actual = "error -32700", "a result\nwith two lines"
					res.Steps = append(res.Steps, Step{Text: "the response is an error with code -32700", Status: "failed"})
				}
				if v == Warn {
					bad := frame("s2c", tr, hostileFrame)
					r.Frames[bad-1].Problem = "stdout line is not JSON"
					res.Frames = append(res.Frames, bad)
				}
				if ru.id == "SCHEMA-001" && v == Fail {
					n := frame("s2c", tr, `{"jsonrpc":"2.0","id":2,"result":{"a/b":{"~k":[1,{"deep":"<b>x</b>"}]},"ttlMs":-5,"resultType":"complete"}}`)
					res.Frames = append(res.Frames, n)
					res.SchemaErrors = []SchemaError{
						{Frame: n, Type: "ListToolsResultResponse", InstancePath: "/result/ttlMs", SchemaPath: "/$defs/ListToolsResult/properties/ttlMs/minimum", Message: "minimum: got -5, want 0"},
						{Frame: n, Type: "ListToolsResultResponse", InstancePath: "/result/a~1b/~0k/1", SchemaPath: "/$defs/Thing/additionalProperties", Message: `additional property "deep" <not allowed>`},
						{Frame: n, Type: "ListToolsResultResponse", InstancePath: "/result/missing", SchemaPath: "/$defs/X/required", Message: "missing"},
					}
					res.Reason = "expected every server frame validates, got 3 violations"
				}
				if v == Untestable {
					res.Reason = "needs the fixture tool test_simple_text"
				}
				if v == Error {
					res.Reason = "mcp-conform sent a frame that violates the schema"
					u := frame("s2c", tr, "caf\uFFFD \x01")
					r.Frames[u-1].RawBase64 = base64.StdEncoding.EncodeToString([]byte("caf\xe9 \x01"))
					res.Frames = append(res.Frames, u, 9999)
				}
				r.Results = append(r.Results, res)
			}
		}
	}
	return r
}

// has fails the test when page lacks want, without printing the whole page.
func has(t *testing.T, page, want string, msg ...any) {
	t.Helper()
	if !strings.Contains(page, want) {
		t.Fatalf("page lacks %q %s", want, fmt.Sprint(msg...))
	}
}

// lacks fails the test when page contains bad, showing where.
func lacks(t *testing.T, page, bad string, msg ...any) {
	t.Helper()
	if i := strings.Index(page, bad); i >= 0 {
		t.Fatalf("page contains %q at %d (%s): ...%s...", bad, i, fmt.Sprint(msg...), page[max(0, i-80):min(len(page), i+80)])
	}
}

func renderHTML(t testing.TB, r *Run) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	return b.String()
}

var (
	idAttr   = regexp.MustCompile(`\sid="([^"]*)"`)
	hrefAttr = regexp.MustCompile(`\shref="([^"]*)"`)
	tagRe    = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*/?>`)
	attrRe   = regexp.MustCompile(`\s+([^\s=>]+)(?:="([^"]*)")?`)
)

// htmlTag is one start or end tag of the page, its attributes unescaped.
type htmlTag struct {
	End   bool
	Name  string
	Attrs map[string]string
}

// scanTags tokenises page as html/template writes it: every '<' outside <script> and <style>
// starts a tag (text and attribute values have theirs escaped), attribute values are
// double-quoted. It fails the test on a '<' that does not start a well-formed tag, so a string
// that escaped escaping shows up as an error, not as a tag.
func scanTags(t *testing.T, page string) []htmlTag {
	t.Helper()
	var tags []htmlTag
	for i := 0; i < len(page); {
		j := strings.IndexByte(page[i:], '<')
		if j < 0 {
			break
		}
		i += j
		if strings.HasPrefix(page[i:], "<!DOCTYPE") {
			i += strings.IndexByte(page[i:], '>') + 1
			continue
		}
		m := tagRe.FindStringSubmatchIndex(page[i:])
		require.True(t, m != nil && m[0] == 0, "not a tag at offset %d: %.80q", i, page[i:])
		tag := htmlTag{End: m[3] > m[2], Name: strings.ToLower(page[i+m[4] : i+m[5]]), Attrs: map[string]string{}}
		for _, a := range attrRe.FindAllStringSubmatch(page[i+m[6]:i+m[7]], -1) {
			tag.Attrs[strings.ToLower(a[1])] = html.UnescapeString(a[2])
		}
		tags = append(tags, tag)
		i += m[1]
		if !tag.End && (tag.Name == "script" || tag.Name == "style") {
			end := strings.Index(page[i:], "</"+tag.Name+">")
			require.GreaterOrEqual(t, end, 0, "unterminated <%s>", tag.Name)
			i += end
		}
	}
	return tags
}

// inlineBlock returns the text of the page's only <name> element.
func inlineBlock(t *testing.T, page, name string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(page, "<"+name+">"), "one <%s> element", name)
	start := strings.Index(page, "<"+name+">") + len(name) + 2
	end := strings.Index(page[start:], "</"+name+">")
	require.GreaterOrEqual(t, end, 0)
	return page[start : start+end]
}

func TestHTMLEscapesServerStrings(t *testing.T) {
	page := renderHTML(t, htmlRun())
	for _, s := range []string{hostileName, hostileFrame, "<img", "<svg", "<b onmouseover", "<b>x</b>", `<i>`, "</pre><script>"} {
		lacks(t, page, s, "a server string reached the page unescaped")
	}
	has(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "server name shown as text")
	has(t, page, "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;", "hostile frame shown as text")
	has(t, page, "&lt;img src=x onerror=alert(3)&gt;", "stderr shown as text")
	require.Equal(t, 1, strings.Count(page, "<script"), "only the inline script")
	require.Equal(t, 1, strings.Count(page, "server starting"), "the stderr tail appears once")
}

func TestHTMLMarkupIsSelfContained(t *testing.T) {
	r := htmlRun()
	// A spec link that is not http(s) must not become a live link.
	r.Results[0].Spec.URL = "javascript:alert(6)"
	page := renderHTML(t, r)
	lacks(t, page, "javascript:")
	allowed := map[string]bool{}
	for _, n := range strings.Fields(`html head meta title link style body header h1 h2 h3 h4 p span strong em br dl dt dd div
		code table thead tbody tr th td caption nav a main section details summary meter ol li ul article pre mark label input
		button footer script`) {
		allowed[n] = true
	}
	tags := scanTags(t, page)
	require.Greater(t, len(tags), 100)
	for _, tag := range tags {
		require.True(t, allowed[tag.Name], "unexpected element <%s>", tag.Name)
		for name, val := range tag.Attrs {
			require.False(t, strings.HasPrefix(name, "on"), "<%s %s>: event handler attribute", tag.Name, name)
			require.NotEqual(t, "style", name, "<%s>: style attribute (the CSP admits none)", tag.Name)
			require.NotContains(t, []string{"src", "srcset", "action", "formaction", "poster", "background"}, name, "<%s %s>", tag.Name, name)
			if name == "href" {
				switch tag.Name {
				case "a":
					require.Regexp(t, `^(#|https://modelcontextprotocol\.io/)`, val, "<a href> leaves the document")
				case "link":
					require.Equal(t, "icon", tag.Attrs["rel"])
					require.Equal(t, "data:,", val, "<link> loads a remote asset")
				}
			}
		}
		if tag.Name == "script" && !tag.End {
			require.Empty(t, tag.Attrs, "the script is inline, without src")
		}
	}
}

func TestHTMLContentSecurityPolicy(t *testing.T) {
	page := renderHTML(t, htmlRun())
	var csp string
	for _, tag := range scanTags(t, page) {
		if tag.Name == "meta" && tag.Attrs["http-equiv"] == "Content-Security-Policy" {
			csp = tag.Attrs["content"]
		}
	}
	require.NotEmpty(t, csp, "CSP meta tag")
	require.True(t, strings.Index(page, "Content-Security-Policy") < strings.Index(page, "<style>"), "CSP comes before the inline blocks")
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	style, script := inlineBlock(t, page, "style"), inlineBlock(t, page, "script")
	require.NotEmpty(t, style)
	require.NotEmpty(t, script)
	want := "default-src 'none'; style-src " + hash(style) + "; script-src " + hash(script) + "; img-src data:; base-uri 'none'; form-action 'none'"
	require.Equal(t, want, csp, "CSP admits exactly the inline stylesheet and script, by hash")
	require.NotContains(t, csp, "unsafe")
	require.NotContains(t, style, "url(", "no CSS url() at all")
}

func TestHTMLCardPerResultAndUniqueAnchors(t *testing.T) {
	r := htmlRun()
	page := renderHTML(t, r)
	require.Equal(t, len(r.Results), strings.Count(page, `<article class="card `), "one card per result")
	ids := map[string]bool{}
	for _, m := range idAttr.FindAllStringSubmatch(page, -1) {
		require.False(t, ids[m[1]], "id %q used twice", m[1])
		ids[m[1]] = true
	}
	for _, res := range r.Results {
		require.True(t, ids["rule-"+res.Rule+"--"+res.Revision+"-"+res.Transport], "card anchor of %s %s %s", res.Rule, res.Revision, res.Transport)
		require.True(t, ids["rule-"+res.Rule], "rule anchor of %s", res.Rule)
	}
	for _, m := range hrefAttr.FindAllStringSubmatch(page, -1) {
		if strings.HasPrefix(m[1], "#") {
			require.True(t, ids[m[1][1:]], "link %s points at no element", m[1])
		}
	}
	// The first card of each rule is the first element under #rule-<id>.
	require.Regexp(t, `<section class="rule" id="rule-MSG-003" data-area="MSG">\s*<article class="card c-pass" id="rule-MSG-003--2026-07-28-stdio"`, page)
}

func TestHTMLAnchorsStayUniqueForOddRuleIDs(t *testing.T) {
	r := &Run{SchemaVersion: SchemaVersion, Results: []Result{
		{Rule: `X 1"><b>`, Revision: "2026-07-28", Transport: "stdio", Verdict: Pass},
		{Rule: "X_1__b_", Revision: "2026-07-28", Transport: "stdio", Verdict: Pass},
		{Rule: "DUP-1", Revision: "2026-07-28", Transport: "stdio", Verdict: Pass},
		{Rule: "DUP-1", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail},
		{Rule: "results", Revision: "", Transport: "", Verdict: NA},
	}}
	page := renderHTML(t, r)
	ids := map[string]bool{}
	for _, m := range idAttr.FindAllStringSubmatch(page, -1) {
		require.False(t, ids[m[1]], "id %q used twice", m[1])
		ids[m[1]] = true
	}
	for _, m := range hrefAttr.FindAllStringSubmatch(page, -1) {
		if strings.HasPrefix(m[1], "#") {
			require.True(t, ids[m[1][1:]], "link %s points at no element", m[1])
		}
	}
	require.True(t, ids["rule-DUP-1--2026-07-28-stdio~2"])
	require.Equal(t, 5, strings.Count(page, `<article class="card `))
}

func TestHTMLCardContent(t *testing.T) {
	page := renderHTML(t, htmlRun())
	card := func(anchor string) string {
		i := strings.Index(page, `id="`+anchor+`"`)
		require.GreaterOrEqual(t, i, 0, anchor)
		j := strings.Index(page[i:], "</article>")
		return page[i : i+j]
	}
	c := card("rule-SCHEMA-001--2026-07-28-stdio")
	has(t, c, `<a href="https://modelcontextprotocol.io/specification/2026-07-28/basic/index#responses" rel="noreferrer noopener">basic/index#Responses</a>`)
	has(t, c, "<code>/result/a~1b/~0k/1</code>", "instance path")
	has(t, c, "<code>/$defs/Thing/additionalProperties</code>", "schema path")
	has(t, c, `&#34;ttlMs&#34;: <mark title="minimum: got -5, want 0 [/$defs/ListToolsResult/properties/ttlMs/minimum]">-5</mark>`, "offending value highlighted")
	has(t, c, "<mark title=\"additional property &#34;deep&#34; &lt;not allowed&gt; [/$defs/Thing/additionalProperties]\">{\n", "object value highlighted")
	has(t, c, "Not highlighted (no such value in the text shown): <code>/result/missing</code>")
	has(t, c, "server → client")
	has(t, c, `<span class="t">&#43;0.166 s</span>`)
	has(t, c, "MUST")

	c = card("rule-STDIO-002--2026-07-28-stdio")
	has(t, c, `<span class="v v-warn">warn</span>`)
	has(t, c, "<pre>error -32700</pre>", "expected")
	has(t, c, "<pre>a result\nwith two lines</pre>", "actual")
	has(t, c, "<p class=\"problem\"><strong>Framing problem:</strong> stdout line is not JSON</p>")
	has(t, c, `<pre class="body">&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</pre>`, "invalid JSON shown raw")
	has(t, c, `<li class="st-failed"><span class="st">failed</span> the response is an error with code -32700</li>`)
	has(t, c, "<details class=\"steps\" open>", "a problem opens its steps")

	c = card("rule-MSG-003--2025-11-25-http")
	has(t, c, `<span class="tag">POST</span>`)
	has(t, c, `<span class="tag">HTTP 200</span>`)
	has(t, c, `<tr><th scope="row">X-Evil</th><td>&lt;b onmouseover=alert(5)&gt;hi&lt;/b&gt;</td></tr>`)
	has(t, c, "SSE id <code>1&#34;&gt;&lt;i&gt;</code>")
	has(t, c, "<details class=\"steps\"><summary>", "a pass keeps its steps closed")
	has(t, c, "<details class=\"frame d-c2s\"", "frames start collapsed")

	c = card("rule-HTTP-013--2025-11-25-http")
	has(t, c, "Exact bytes (not valid UTF-8), base64</summary><pre>Y2Fm6SAB</pre>")
	has(t, c, "Frames cited but not in results.json: 9999")
}

func TestHTMLHeaderAndHeadline(t *testing.T) {
	r := htmlRun()
	r.Aborted = "run timeout <5m> passed"
	r.StaleBaseline = []BaselineEntry{{Rule: "MSG-009", Transport: "http", Reason: "fixed in <v2>"}}
	page := renderHTML(t, r)
	has(t, page, `<p class="aborted" role="alert"><strong>Run not carried out in full:</strong> run timeout &lt;5m&gt; passed</p>`)
	has(t, page, "<li><code>MSG-009 on http</code>: fixed in &lt;v2&gt;</li>")
	for _, s := range []string{
		`<code class="cmd">node build/index.js --name &#39;it&#39;\&#39;&#39;s me&#39;</code>`,
		`<code class="cmd">http://127.0.0.1:3000/mcp</code>`,
		"<code>Authorization, X-Api-Key</code>",
		"<dd>2026-07-28, 2025-11-25</dd>",
		"<dd>stdio, http</dd>",
		"v0.4.0 <span class=\"muted\">commit</span> <code>0123456789ab</code>",
		"<dd>2026-07-30 12:00:00 UTC</dd>",
		"<dd>6.92 s</dd>",
		"<tr><td>2026-07-28</td><td><code>b0f60ba5409db7a6582440a7b473cc0398890f15</code></td><td><code>ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203</code></td></tr>",
		"<li>http: legacy era: initialize negotiated 2025-11-25</li>",
	} {
		has(t, page, s)
	}
	// MUST/MUST NOT judged: MSG-003 4 pass; MSG-014 3 pass 1 fail; META-001 1 pass 1 xfail;
	// HTTP-013 1 pass; TOOL-001 2 pass; DISC-002 4 pass; SCHEMA-001 3 pass 1 fail; LEG-001
	// 2 pass: 20 / 23.
	has(t, page, "20 pass ÷ 23 judged MUST / MUST NOT checks")
	has(t, page, "<p class=\"figure\">87.0%</p><p class=\"label\">MUST pass rate</p>")
	// SHOULD: STDIO-002 1 pass 1 warn (2 na).
	has(t, page, "1 pass ÷ 2 judged SHOULD / SHOULD NOT checks")
	// Coverage: 40 results, 8 na -> 32 applicable; 2 untestable, 1 error -> 29 run.
	has(t, page, "29 run ÷ 32 applicable; not run: 2 untestable, 1 error; 8 na left out")
	has(t, page, "<p class=\"figure\">90.6%</p><p class=\"label\">Coverage</p>")
}

func TestHTMLHeadlineRates(t *testing.T) {
	res := func(level string, v Verdict) Result { return Result{Level: level, Verdict: v} }
	must, should, cov := headline([]Result{
		res("MUST", Pass), res("MUST NOT", Pass), res("MUST", Fail), res("MUST", NA), res("MUST", Untestable),
		res("MUST", Error), res("MUST", XFail), res("SHOULD", Warn), res("SHOULD NOT", Pass), res("MAY", Info),
	})
	require.Equal(t, rateView{Num: 2, Den: 4, Pct: "50.0%", Value: "0.5000"}, must)
	require.Equal(t, rateView{Num: 1, Den: 2, Pct: "50.0%", Value: "0.5000"}, should)
	require.Equal(t, coverageView{rateView: rateView{Num: 7, Den: 9, Pct: "77.8%", Value: "0.7778"}, Untestable: 1, Error: 1, NA: 1}, cov)
	must, _, cov = headline(nil)
	require.Equal(t, "–", must.Pct)
	require.Equal(t, "–", cov.Pct)
}

func TestHTMLMatrixOrderAndCells(t *testing.T) {
	page := renderHTML(t, htmlRun())
	var order []string
	for _, m := range regexp.MustCompile(`<tr class="group"><th colspan="5" scope="rowgroup"><a href="#[^"]*">([^<]*)</a>`).FindAllStringSubmatch(page, -1) {
		order = append(order, m[1])
	}
	require.Equal(t, []string{
		"Base protocol (basic/index)",
		"stdio transport (basic/transports/stdio)",
		"Streamable HTTP transport (basic/transports/streamable-http)",
		"Server features and capabilities (server/index)",
		"Discovery (server/discover)",
		"Tools (server/tools)",
		"Schema conformance (schema)",
		"Legacy lifecycle (2025-11-25 basic/lifecycle)",
	}, order)
	has(t, page, `<th scope="col"><span class="rev">2026-07-28</span> <span class="tr">stdio</span></th><th scope="col"><span class="rev">2026-07-28</span> <span class="tr">http</span></th>`)
	has(t, page, `<tr class="rule-row" data-area="META" data-verdicts="pass xfail na">`)
	has(t, page, `<a class="v v-xfail" data-verdict="xfail" href="#rule-META-001--2026-07-28-http" title="META-001 2026-07-28 http: xfail">xfail</a>`)
}

func TestHTMLFeatureOrder(t *testing.T) {
	want := []string{
		"Base protocol (basic/index)",
		"Versioning (basic/versioning)",
		"stdio transport (basic/transports/stdio)",
		"Unlisted basic page (basic/aaa)",
		"Server features (server/index)",
		"Tools (server/tools)",
		"Something new (server/zzz)",
		"Roots (client/roots)",
		"Schema conformance (schema)",
		"No page at all",
		"Legacy lifecycle (2025-11-25 basic/lifecycle)",
	}
	for i := range want {
		for j := range want {
			require.Equal(t, i < j, featureLess(want[i], want[j]), "%q before %q", want[i], want[j])
		}
	}
}

func TestPrettyJSONKeepsLiteralsAndMarksPointers(t *testing.T) {
	raw := ` {"a":{"b/c":[1, {"x":-32602.0}]},"s":"q\"]}","e":{},"f":[],"~":true} `
	segs, hit, ok := prettyJSON(raw, map[string]string{"/a/b~1c/1/x": "X", "/a/b~1c": "ARR", "/~0": "T", "/nope": "N"})
	require.True(t, ok)
	var b strings.Builder
	for _, s := range segs {
		switch s.Kind {
		case segOpen:
			b.WriteString("[[" + s.Title + ":")
		case segClose:
			b.WriteString("]]")
		default:
			b.WriteString(s.Text)
		}
	}
	require.Equal(t, `{
  "a": {
    "b/c": [[ARR:[
      1,
      {
        "x": [[X:-32602.0]]
      }
    ]]]
  },
  "s": "q\"]}",
  "e": {},
  "f": [],
  "~": [[T:true]]
}`, b.String())
	require.Equal(t, map[string]bool{"/a/b~1c/1/x": true, "/a/b~1c": true, "/~0": true}, hit)

	segs, _, ok = prettyJSON(`"x"`, map[string]string{"": "root"})
	require.True(t, ok)
	require.Equal(t, []jsonSeg{{Kind: segOpen, Title: "root"}, {Text: `"x"`}, {Kind: segClose}}, segs)

	for _, bad := range []string{"", "{", `{"a":1}{}`, hostileFrame, "\ufeff{}", strings.Repeat("[", 65) + strings.Repeat("]", 65)} {
		_, _, ok := prettyJSON(bad, nil)
		require.False(t, ok, "%.20q", bad)
	}
	_, _, ok = prettyJSON(strings.Repeat("[", 64)+strings.Repeat("]", 64), nil)
	require.True(t, ok, "64 levels are pretty-printed")
}

func TestHTMLClipsHugeFrames(t *testing.T) {
	big := `{"data":"` + strings.Repeat("é", htmlMaxFrameBytes) + `"}`
	v := buildFrame(&Frame{Seq: 1, Dir: "s2c", Raw: big, Size: len(big)}, []SchemaError{{Frame: 1, InstancePath: "/data"}}, "f1")
	require.False(t, v.Pretty)
	require.Len(t, v.Body, 1)
	require.LessOrEqual(t, len(v.Body[0].Text), htmlMaxFrameBytes)
	require.Equal(t, len(big), len(v.Body[0].Text)+v.Clipped)
	require.True(t, strings.HasSuffix(v.Body[0].Text, "é"), "cut on a character boundary")
	require.Equal(t, []string{"/data"}, v.Unplaced)
}

func TestHTMLFormatting(t *testing.T) {
	require.Equal(t, "0 ms", formatMs(0))
	require.Equal(t, "999 ms", formatMs(999))
	require.Equal(t, "6.92 s", formatMs(6917))
	require.Equal(t, "2 min 5 s", formatMs(125_400))
	require.Equal(t, "+0.013 s", formatOffset(13.25))
	require.Equal(t, `a 'b c' '' 'it'\''s' x=y/z`, shellJoin([]string{"a", "b c", "", "it's", "x=y/z"}))
	require.Equal(t, "MSG", area("MSG-014"))
	require.Equal(t, "SCHEMA", area("SCHEMA"))
}

// TestHTMLGolden pins the whole page of a small run (go test ./reports -update rewrites it).
func TestHTMLGolden(t *testing.T) {
	r := htmlRun()
	r.Results = r.Results[:8]
	got := renderHTML(t, r)
	require.Equal(t, got, renderHTML(t, r), "rendering is deterministic")
	path := filepath.Join("testdata", "html", "report.golden.html")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test ./reports -update creates it")
	require.Equal(t, string(want), got, "golden %s differs (go test ./reports -update rewrites it)", path)
}

// htmlLargeRun is a run of about frames frames: 400 rules × 2 revisions × 2 transports, five
// frames per applicable result, schema errors on some.
func htmlLargeRun(frames int) *Run {
	r := htmlRun()
	r.Results, r.Frames = nil, nil
	areas := []string{"MSG", "META", "STATE", "RT", "ERR", "DISC", "CAP", "VER", "STDIO", "HTTP", "HDR", "TOOL", "RES", "PROMPT"}
	feats := []string{"Base protocol (basic/index)", "Base protocol (basic/index)", "Base protocol (basic/index)", "Base protocol (basic/index)",
		"Base protocol (basic/index)", "Discovery (server/discover)", "Server features and capabilities (server/index)", "Versioning (basic/versioning)",
		"stdio transport (basic/transports/stdio)", "Streamable HTTP transport (basic/transports/streamable-http)",
		"Streamable HTTP transport (basic/transports/streamable-http)", "Tools (server/tools)", "Resources (server/resources)", "Prompts (server/prompts)"}
	body := `{"jsonrpc":"2.0","id":%d,"result":{"tools":[{"name":"tool-%d","description":"A tool that does a thing with a fairly long description","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}],"resultType":"complete","ttlMs":%d}}`
	seq := 0
	verdicts := []Verdict{Pass, Pass, Pass, Pass, Pass, Pass, NA, NA, Fail, Warn, Info, Untestable, Error, XFail}
	for i := 0; seq < frames; i++ {
		ai := i % len(areas)
		rule := fmt.Sprintf("%s-%03d", areas[ai], i/len(areas)+1)
		for _, rev := range []string{"2026-07-28", "2025-11-25"} {
			for _, tr := range []string{"stdio", "http"} {
				v := verdicts[(i*7+len(rev)+len(tr))%len(verdicts)]
				res := Result{Rule: rule, Level: "MUST", Revision: rev, Transport: tr, Verdict: v, Title: "Rule " + rule + " holds", Feature: feats[ai],
					Spec:  Spec{Section: "basic/index#x", URL: "https://modelcontextprotocol.io/specification/" + rev + "/basic/index#x"},
					Steps: []Step{{Text: "a connected server", Status: "passed"}, {Text: "the response is a result", Status: "passed"}}, Frames: []int{}}
				if v != NA {
					for k := 0; k < 5 && seq < frames; k++ {
						seq++
						ttl := 60000
						if v == Fail && k == 1 {
							ttl = -1
							res.SchemaErrors = append(res.SchemaErrors, SchemaError{Frame: seq, InstancePath: "/result/ttlMs", SchemaPath: "/$defs/Result/properties/ttlMs/minimum", Message: "minimum: got -1, want 0"})
						}
						raw := fmt.Sprintf(body, seq, seq, ttl)
						dir := "s2c"
						if k%2 == 0 {
							dir, raw = "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"%s"}}}`, seq, rev)
						}
						f := Frame{Seq: seq, Dir: dir, T: float64(seq) * 2.5, Transport: tr, Conn: 1, Raw: raw, Size: len(raw), Method: "tools/list"}
						if tr == "http" {
							f.HTTP = &HTTP{Method: "POST", Headers: map[string][]string{"Content-Type": {"application/json"}}}
						}
						r.Frames = append(r.Frames, f)
						res.Frames = append(res.Frames, seq)
					}
				}
				r.Results = append(r.Results, res)
			}
		}
	}
	return r
}

func BenchmarkWriteHTML2000Frames(b *testing.B) {
	r := htmlLargeRun(2000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteHTML(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/report")
}

func TestHTMLShowsBidiAndControlCharacters(t *testing.T) {
	r := &Run{SchemaVersion: SchemaVersion, Server: &Server{Name: "evil\u202ename\x1b[2J\x07", Version: "1"},
		Results: []Result{{Rule: "MSG-014", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Title: "t", Feature: "f",
			Reason: "got \u2066isolated\u2069", Steps: []Step{}, Frames: []int{}}}}
	var buf bytes.Buffer
	require.NoError(t, WriteHTML(&buf, r))
	page := buf.String()
	for _, c := range []string{"\u202e", "\u2066", "\u2069", "\x1b", "\x07"} {
		require.NotContains(t, page, c)
	}
	require.Contains(t, page, `evil\u202ename\x1b[2J\x07`)
	require.Contains(t, page, `got \u2066isolated\u2069`)
}

// TestHTMLFailuresFirst: the page opens with the failing rules (issue 12, "What was seen": the
// first screen showed the header, the legend and the rates, but not one failing rule). The
// section comes before the run facts and the headline, counts MUST (fail) and SHOULD (warn)
// rules apart, lists fail rules before warn rules with the reason of their first failing card
// and a link to it, the first 10 only, with a link to the others listed after the headline.
func TestHTMLFailuresFirst(t *testing.T) {
	page := renderHTML(t, failuresRun(3))
	fail := strings.Index(page, `<section id="failures"`)
	require.Greater(t, fail, 0, "a failures section")
	require.Less(t, fail, strings.Index(page, `<dl class="facts">`), "failures before the run facts")
	require.Less(t, fail, strings.Index(page, `id="headline"`), "failures before the headline")
	has(t, page, `3 failing rules: <span class="fcount"><span class="v v-fail">fail</span> 2 MUST</span> <span class="fcount"><span class="v v-warn">warn</span> 1 SHOULD</span>`)
	items := regexp.MustCompile(`<li><a href="#([^"]+)"[^>]*><span class="v v-(\w+)">`).FindAllStringSubmatch(page[fail:strings.Index(page, `<dl class="facts">`)], -1)
	require.Len(t, items, 3)
	for i, want := range []string{"fail", "fail", "warn"} {
		require.Equal(t, want, items[i][2], "fail rules first")
		has(t, page, `<article class="card c-`+want+`" id="`+items[i][1]+`"`, "item links to a failing card")
	}
	has(t, page, `<span class="freason" title="expected every listed tool`, "the reason is listed")
	lacks(t, page, `id="failures-more"`, "no rest when all are listed")

	page = renderHTML(t, failuresRun(25))
	head := page[strings.Index(page, `<section id="failures"`):strings.Index(page, `<dl class="facts">`)]
	has(t, head, "25 failing rules:")
	require.Equal(t, 10, strings.Count(head, "<li>"), "the first 10 on the first screen")
	has(t, head, `<a href="#failures-more">15 more failing rules</a>`)
	more := page[strings.Index(page, `<section id="failures-more"`):strings.Index(page, `<div class="filters"`)]
	require.Equal(t, 15, strings.Count(more, "<li>"), "the other 15 behind the link")
	has(t, more, `Failing rules 11–25`)

	clean := htmlRun()
	clean.Results = clean.Results[:4] // MSG-003: pass everywhere
	has(t, renderHTML(t, clean), `No MUST or SHOULD rule fails`)
}

// TestHTMLDefaultViewHidesPassAndNA: the filter bar starts with pass and na unchecked (issue
// 12, "What was seen": the default view listed all 204 cards, 133 of them na; the problems
// filter was not the default), unless nothing else would be shown. The cards themselves carry
// no hidden attribute, so without JavaScript every card stays visible.
func TestHTMLDefaultViewHidesPassAndNA(t *testing.T) {
	page := renderHTML(t, htmlRun())
	for _, v := range []string{"pass", "na"} {
		has(t, page, `<input type="checkbox" name="verdict" value="`+v+`">`, v+" unchecked")
	}
	for _, v := range []string{"fail", "warn", "info", "untestable", "error", "xfail"} {
		has(t, page, `<input type="checkbox" name="verdict" value="`+v+`" checked>`, v+" checked")
	}
	require.NotRegexp(t, `<(article|section)[^>]* hidden`, page, "no card or section hidden in the markup")

	clean := htmlRun()
	clean.Results = clean.Results[:4]
	has(t, renderHTML(t, clean), `<input type="checkbox" name="verdict" value="pass" checked>`, "an all-pass run shows its cards")
}

// TestHTMLIncompleteRunIsNotGreen: a run not carried out in full with no failing result says
// that it is incomplete instead of "No MUST or SHOULD rule fails" in green.
func TestHTMLIncompleteRunIsNotGreen(t *testing.T) {
	r := failuresRun(0)
	r.Aborted = "the run was interrupted"
	page := renderHTML(t, r)
	has(t, page, `<section id="failures" class="failures incomplete"`)
	has(t, page, "the run is incomplete")
	lacks(t, page, "No MUST or SHOULD rule fails")
	r.Aborted = ""
	page = renderHTML(t, r)
	has(t, page, `<section id="failures" class="failures none"`)
	has(t, page, "No MUST or SHOULD rule fails")
}

// TestHTMLStaleOnlyRunIsNotGreen: a run that fails only on stale baseline entries says so in
// the failures box, linking to them, instead of a green "No MUST or SHOULD rule fails".
func TestHTMLStaleOnlyRunIsNotGreen(t *testing.T) {
	r := failuresRun(0)
	r.StaleBaseline = []BaselineEntry{{Rule: "MSG-014", Transport: "stdio", Reason: "fixed"}, {Rule: "TOOL-001", Reason: "fixed"}}
	page := renderHTML(t, r)
	has(t, page, `<section id="failures" class="failures"`)
	has(t, page, `2 stale baseline entries fail the run: <a href="#stale">remove them from the baseline</a>`)
	has(t, page, `id="stale"`)
	lacks(t, page, `class="failures none"`)
}

// TestHTMLFailuresHeadingCallsOnlySHOULDRulesSHOULD: a MUST NOT rule graded a warning (MSG-009,
// a null id that could not be read) is counted among the warnings but not called a SHOULD.
func TestHTMLFailuresHeadingCallsOnlySHOULDRulesSHOULD(t *testing.T) {
	r := failuresRun(3) // one of the three is a SHOULD warn
	page := renderHTML(t, r)
	has(t, page, `<span class="v v-warn">warn</span> 1 SHOULD</span>`)
	r.Results = append(r.Results, Result{Rule: "MSG-009", Level: "MUST NOT", Revision: "2026-07-28", Transport: "stdio", Verdict: Warn,
		Title: "An error response never carries a null id", Feature: "Feature MSG (basic/index)", Reason: "id null for an unreadable id"})
	page = renderHTML(t, r)
	has(t, page, `<span class="v v-warn">warn</span> 2</span>`)
	lacks(t, page, `2 SHOULD`)
}
