package reports

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The -update flag rewrites the golden files under testdata/ (go test ./reports -update). It
// is defined here unless another test file of the package defined it first.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
	return true
}()

// updateGoldenFiles reports whether -update was given (read at test time, after flag parsing).
func updateGoldenFiles() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// sampleRun is a realistic run of two transports and two revisions with every verdict, a
// rule tested on several (revision, transport), schema errors, HTTP, SSE and non-UTF-8
// frames, and server text that needs escaping (markup, quotes, a control character, a
// newline). It is built out of order so the writers' sorting shows.
func sampleRun() *Run {
	spec := func(section string) Spec {
		page, heading, _ := strings.Cut(section, "#")
		return Spec{Section: section, URL: "https://modelcontextprotocol.io/specification/2026-07-28/" + page + "#" + strings.ReplaceAll(strings.ToLower(heading), " ", "-")}
	}
	steps := func(status ...string) []Step {
		out := []Step{}
		for i, s := range status {
			out = append(out, Step{Text: []string{"a connected server", "the client sends a \"tools/list\" request", "the response is a result"}[i%3], Status: s})
		}
		return out
	}
	const base = "Base protocol (basic/index)"
	const stdio = "stdio transport (basic/transports/stdio)"
	const schema = "Schema conformance (schema)"
	const http = "Streamable HTTP transport (basic/transports/streamable-http)"
	r := &Run{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "mcp-conform", Version: "v0.3.0", Commit: "0123456789abcdef0123456789abcdef01234567"},
		Target:        Target{Transport: "stdio+http", Command: []string{"node", "build/index.js"}, URL: "http://127.0.0.1:3000/mcp", HeaderNames: []string{"Authorization"}},
		Server:        &Server{Name: "example-server", Version: "1.2.3"},
		Revisions:     []string{"2026-07-28", "2025-11-25"},
		Transports:    []string{"stdio", "http"},
		SchemaPins: map[string]Pin{
			"2026-07-28": {Commit: "b0f60ba5409db7a6582440a7b473cc0398890f15", SHA256: "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203"},
			"2025-11-25": {Commit: "b0f60ba5409db7a6582440a7b473cc0398890f15", SHA256: "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7"},
		},
		StartedAt:  time.Date(2026, 7, 30, 9, 15, 42, 123456789, time.UTC),
		DurationMs: 8421,
		StderrTail: "server: listening\nserver: stdin closed; exiting\n",
		Notes:      []string{"stdio: modern era detected: server/discover returned a DiscoverResult", "stdio: legacy era: initialize negotiated 2025-11-25"},
		Summary:    Summary{Pass: 99}, // stale on purpose: Finalize recomputes it
		Results: []Result{
			{Rule: "STDIO-002", Level: "MUST NOT", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail,
				Title: "The server writes nothing to stdout that is not a valid MCP message", Feature: stdio, Spec: spec("basic/transports/stdio#Stdio"),
				Reason: "line 3 of stdout is not JSON: <banner> & \"hello\" \x1b[0m", Expected: "only JSON-RPC messages on stdout",
				Actual: "frame 7: not JSON: Server <v1> starting\u2026\nready", Steps: steps("passed", "passed", "failed"), Frames: []int{6, 7}, DurationMs: 1204},
			{Rule: "MSG-014", Level: "MUST", Revision: "2025-11-25", Transport: "http", Verdict: Pass,
				Title: "A response carries the id of its request", Feature: base, Spec: spec("basic/index#Responses"),
				Steps: steps("passed", "passed", "passed"), Frames: []int{10, 11}, DurationMs: 12},
			{Rule: "MSG-014", Level: "MUST", Revision: "2026-07-28", Transport: "stdio", Verdict: Pass,
				Title: "A response carries the id of its request", Feature: base, Spec: spec("basic/index#Responses"),
				Steps: steps("passed", "passed", "passed"), Frames: []int{1, 2}, DurationMs: 3},
			{Rule: "MSG-014", Level: "MUST", Revision: "2026-07-28", Transport: "http", Verdict: XFail,
				Title: "A response carries the id of its request", Feature: base, Spec: spec("basic/index#Responses"),
				Reason: "expected id 1004, got id \"1004\" (known failure, baseline entry MSG-014@2026-07-28/http)", Expected: "id 1004", Actual: "id \"1004\"",
				Steps: steps("passed", "passed", "failed"), Frames: []int{8, 9}, DurationMs: 7},
			{Rule: "MSG-9", Level: "SHOULD", Revision: "2026-07-28", Transport: "stdio", Verdict: Warn,
				Title: "An error message is a short description", Feature: base, Spec: spec("basic/index#Errors"),
				Reason: "error message is 4096 characters long", Expected: "a one-sentence message", Actual: "a 4096-character message",
				Steps: steps("passed", "passed", "failed"), Frames: []int{3, 4}, DurationMs: 5},
			{Rule: "MSG-10", Level: "MAY", Revision: "2026-07-28", Transport: "stdio", Verdict: Info,
				Title: "The server may include data in an error", Feature: base, Spec: spec("basic/index#Errors"),
				Reason: "the error carries data: {\"detail\":\"x < y\"}", Steps: steps("passed", "passed"), Frames: []int{3, 4}, DurationMs: 1},
			{Rule: "HDR-003", Level: "MUST", Revision: "2025-11-25", Transport: "stdio", Verdict: NA,
				Title: "The server answers 400 to a request without MCP-Protocol-Version", Feature: http, Spec: spec("basic/transports/streamable-http#Protocol Version Header"),
				Reason: "rule holds on http; this run tests stdio", Steps: []Step{}, Frames: []int{}},
			{Rule: "HDR-003", Level: "MUST", Revision: "2026-07-28", Transport: "http", Verdict: Error,
				Title: "The server answers 400 to a request without MCP-Protocol-Version", Feature: http, Spec: spec("basic/transports/streamable-http#Protocol Version Header"),
				Reason: "request timed out after 10s", Expected: "HTTP status 400", Actual: "no response within 10s",
				Steps: steps("passed", "failed"), Frames: []int{12}, DurationMs: 10003},
			{Rule: "CAP-006", Level: "MUST", Revision: "2026-07-28", Transport: "http", Verdict: Untestable,
				Title: "A declared capability answers its list request", Feature: "Server features and capabilities (server/index)", Spec: spec("server/tools#Capabilities"),
				Reason: "needs the fixture tool test_simple_text, which the server does not offer", Steps: steps("passed"), Frames: []int{13, 14}, DurationMs: 40},
			{Rule: "SCHEMA-001", Level: "MUST", Revision: "2026-07-28", Transport: "http", Verdict: Fail,
				Title: "Every message the server sends validates against the revision's schema", Feature: schema, Spec: spec("schema#Schema"),
				Reason: "2 violations in 1 frame", Expected: "every server frame valid against the 2026-07-28 schema",
				Actual: "2 violations in 1 frames; first: frame 14 minimum: got -1, want 0 at \"/result/ttlMs\"",
				SchemaErrors: []SchemaError{
					{Frame: 14, Type: "DiscoverResultResponse", InstancePath: "/result/ttlMs", SchemaPath: "/$defs/DiscoverResult/properties/ttlMs/minimum", Message: "minimum: got -1, want 0"},
					{Frame: 14, Type: "DiscoverResultResponse", InstancePath: "", SchemaPath: "/$defs/JSONRPCResultResponse/required", Message: "missing property 'jsonrpc'"},
				},
				Steps: []Step{}, Frames: []int{14}, DurationMs: 0},
		},
		Frames: []Frame{
			{Seq: 14, Dir: "s2c", T: 812.5, Transport: "http", Conn: 3, Raw: `{"id":1007,"result":{"ttlMs":-1}}`, Size: 34, Method: "server/discover",
				HTTP: &HTTP{Status: 200, Headers: map[string][]string{"Content-Type": {"text/event-stream"}}}, SSE: &SSE{Event: "message", ID: "e-1"}},
			{Seq: 1, Dir: "c2s", T: 0.125, Transport: "stdio", Conn: 1, Raw: `{"jsonrpc":"2.0","id":1001,"method":"server/discover","params":{}}`, Size: 66, Method: "server/discover"},
			{Seq: 2, Dir: "s2c", T: 4.5, Transport: "stdio", Conn: 1, Raw: `{"jsonrpc":"2.0","id":1001,"result":{}}`, Size: 39, Method: "server/discover"},
			{Seq: 7, Dir: "s2c", T: 91, Transport: "stdio", Conn: 2, Raw: "Server <v1> starting\uFFFD", RawBase64: "U2VydmVyIDx2MT4gc3RhcnRpbmf/", Size: 21, Problem: "not JSON"},
			{Seq: 12, Dir: "c2s", T: 700, Transport: "http", Conn: 3, Raw: `{"jsonrpc":"2.0","id":1006,"method":"tools/list"}`, Size: 49, Method: "tools/list",
				HTTP: &HTTP{Method: "POST", Headers: map[string][]string{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}}},
			{Seq: 20, Dir: "s2c", T: 900, Transport: "stdio", Conn: 4, Raw: strings.Repeat("x", 64), Size: 1 << 20, Truncated: true, Problem: "line longer than --max-frame"},
		},
	}
	// Every frame a result cites is in the document, as in a real run.
	have := map[int]bool{}
	for _, f := range r.Frames {
		have[f.Seq] = true
	}
	for _, res := range r.Results {
		for _, seq := range res.Frames {
			if !have[seq] {
				have[seq] = true
				dir, raw := "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 1000+seq)
				if seq%2 == 0 {
					dir, raw = "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"tools":[]}}`, 1000+seq-1)
				}
				r.Frames = append(r.Frames, Frame{Seq: seq, Dir: dir, T: float64(seq) * 10.5, Transport: res.Transport, Conn: 2, Raw: raw, Size: len(raw), Method: "tools/list"})
			}
		}
	}
	return r
}

func checkJUnitGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "junit", name)
	if updateGoldenFiles() {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run go test ./reports -run TestJUnitGolden -update")
	require.Equal(t, string(want), string(got), "JUnit output differs from %s (rerun with -update if the change is intended)", path)
}

func TestJUnitGolden(t *testing.T) {
	var a bytes.Buffer
	require.NoError(t, WriteJUnit(&a, sampleRun()))
	checkJUnitGolden(t, "sample.xml", a.Bytes())

	// Same bytes again, from a run that is already sorted: nothing depends on map order or
	// on the clock.
	var b bytes.Buffer
	r := sampleRun()
	r.Finalize()
	require.NoError(t, WriteJUnit(&b, r))
	require.Equal(t, a.String(), b.String())

	aborted := &Run{SchemaVersion: SchemaVersion, Target: Target{Transport: "stdio", Command: []string{"false"}},
		StartedAt: time.Date(2026, 7, 30, 9, 15, 42, 0, time.UTC), DurationMs: 3, Aborted: "server did not start"}
	var c bytes.Buffer
	require.NoError(t, WriteJUnit(&c, aborted))
	checkJUnitGolden(t, "aborted.xml", c.Bytes())
}

// Parsed-back shape of the JUnit document, independent of the writer's own types.
type parsedSuites struct {
	XMLName   xml.Name `xml:"testsuites"`
	Name      string   `xml:"name,attr"`
	Tests     int      `xml:"tests,attr"`
	Failures  int      `xml:"failures,attr"`
	Errors    int      `xml:"errors,attr"`
	Skipped   int      `xml:"skipped,attr"`
	Time      string   `xml:"time,attr"`
	Timestamp string   `xml:"timestamp,attr"`
	Suites    []struct {
		Name      string `xml:"name,attr"`
		Tests     int    `xml:"tests,attr"`
		Failures  int    `xml:"failures,attr"`
		Errors    int    `xml:"errors,attr"`
		Skipped   int    `xml:"skipped,attr"`
		Time      string `xml:"time,attr"`
		Timestamp string `xml:"timestamp,attr"`
		Cases     []struct {
			Name       string `xml:"name,attr"`
			Classname  string `xml:"classname,attr"`
			Time       string `xml:"time,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnitParsesBackAndCountsMatchSummary(t *testing.T) {
	r := sampleRun()
	var buf bytes.Buffer
	require.NoError(t, WriteJUnit(&buf, r))
	require.True(t, strings.HasPrefix(buf.String(), xml.Header))

	var doc parsedSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc), "the JUnit output must be well-formed XML")

	s := r.Summary
	require.Equal(t, Summary{Pass: 2, Fail: 2, Warn: 1, Info: 1, NA: 1, Untestable: 1, Error: 1, XFail: 1}, s, "the sample has every verdict")
	require.Equal(t, "mcp-conform", doc.Name)
	require.Equal(t, len(r.Results), doc.Tests)
	require.Equal(t, s.Fail, doc.Failures)
	require.Equal(t, s.Error, doc.Errors)
	require.Equal(t, s.NA+s.Untestable, doc.Skipped)
	require.Equal(t, "8.421", doc.Time)
	require.Equal(t, "2026-07-30T09:15:42", doc.Timestamp)

	var names, order []string
	var failures, errs, skipped, cases int
	seen := map[string]bool{}
	for _, suite := range doc.Suites {
		var sf, se, ss int
		require.Len(t, suite.Cases, suite.Tests, "suite %q tests attribute", suite.Name)
		require.Equal(t, doc.Timestamp, suite.Timestamp)
		for _, c := range suite.Cases {
			cases++
			require.Equal(t, suite.Name, c.Classname, "classname is the feature")
			key := c.Classname + "\x00" + c.Name
			require.False(t, seen[key], "testcase %q appears twice", c.Name)
			seen[key] = true
			names = append(names, c.Name)
			props := map[string]string{}
			for _, p := range c.Properties {
				props[p.Name] = p.Value
			}
			for _, k := range []string{"rule", "revision", "transport", "level", "verdict", "spec.section", "spec.url"} {
				require.NotEmpty(t, props[k], "testcase %q lacks property %s", c.Name, k)
			}
			require.Equal(t, props["rule"]+" ", c.Name[:len(props["rule"])+1], "name starts with the rule id")
			require.True(t, strings.HasSuffix(c.Name, " ["+props["revision"]+" "+props["transport"]+"]"), c.Name)
			order = append(order, props["rule"]+"@"+props["revision"]+"/"+props["transport"])
			got := 0
			if c.Failure != nil {
				got++
				sf++
				require.Equal(t, "fail", props["verdict"])
				require.Equal(t, "fail", c.Failure.Type)
				require.Contains(t, c.Failure.Body, "Expected: ")
				require.Contains(t, c.Failure.Body, "Actual: ")
			}
			if c.Error != nil {
				got++
				se++
				require.Equal(t, "error", props["verdict"])
				require.Equal(t, "error", c.Error.Type)
				require.Equal(t, "request timed out after 10s", c.Error.Message)
			}
			if c.Skipped != nil {
				got++
				ss++
				require.Contains(t, []string{"na", "untestable"}, props["verdict"])
				require.NotEmpty(t, c.Skipped.Message)
			}
			switch props["verdict"] {
			case "fail", "error", "na", "untestable":
				require.Equal(t, 1, got, "testcase %q must carry exactly one outcome element", c.Name)
			case "pass":
				require.Zero(t, got)
				require.Empty(t, c.SystemOut, "a plain pass has no note")
			default: // warn, info, xfail pass with the note in system-out
				require.Zero(t, got, "testcase %q (%s) passes", c.Name, props["verdict"])
				require.True(t, strings.HasPrefix(c.SystemOut, props["verdict"]+": "), "system-out of %q: %q", c.Name, c.SystemOut)
			}
		}
		require.Equal(t, suite.Failures, sf, "suite %q failures attribute", suite.Name)
		require.Equal(t, suite.Errors, se, "suite %q errors attribute", suite.Name)
		require.Equal(t, suite.Skipped, ss, "suite %q skipped attribute", suite.Name)
		failures, errs, skipped = failures+sf, errs+se, skipped+ss
	}
	require.Equal(t, len(r.Results), cases)
	require.Equal(t, s.Fail, failures)
	require.Equal(t, s.Error, errs)
	require.Equal(t, s.NA+s.Untestable, skipped)

	// Testcases come in Run.Finalize order within each suite, suites in the order of their
	// first result.
	var want []string
	for _, res := range r.Results {
		want = append(want, res.Rule+"@"+res.Revision+"/"+res.Transport)
	}
	require.ElementsMatch(t, want, order)
	require.Equal(t, []string{"Server features and capabilities (server/index)", "Streamable HTTP transport (basic/transports/streamable-http)",
		"Base protocol (basic/index)", "Schema conformance (schema)", "stdio transport (basic/transports/stdio)"}, suiteNames(doc))
	require.Equal(t, []string{
		"MSG-9 An error message is a short description [2026-07-28 stdio]",
		"MSG-10 The server may include data in an error [2026-07-28 stdio]",
		"MSG-014 A response carries the id of its request [2026-07-28 http]",
		"MSG-014 A response carries the id of its request [2026-07-28 stdio]",
		"MSG-014 A response carries the id of its request [2025-11-25 http]",
	}, caseNames(doc, "Base protocol (basic/index)"))

	// Server text survives the round trip; the control character, which XML 1.0 cannot
	// carry, becomes U+FFFD.
	stdioSuite := doc.Suites[len(doc.Suites)-1]
	require.Equal(t, "line 3 of stdout is not JSON: <banner> & \"hello\" \uFFFD[0m", stdioSuite.Cases[0].Failure.Message)
	require.Contains(t, stdioSuite.Cases[0].Failure.Body, "Actual: frame 7: not JSON: Server <v1> starting\u2026\nready\n")
	require.Contains(t, stdioSuite.Cases[0].Failure.Body, "Frames: 6, 7\n")
	schemaSuite := doc.Suites[3]
	require.Contains(t, schemaSuite.Cases[0].Failure.Body,
		"Schema error in frame 14 (DiscoverResultResponse) at /result/ttlMs: minimum: got -1, want 0 [schema /$defs/DiscoverResult/properties/ttlMs/minimum]\n")
	require.NotContains(t, buf.String(), "\x1b")
}

func suiteNames(doc parsedSuites) []string {
	var out []string
	for _, s := range doc.Suites {
		out = append(out, s.Name)
	}
	return out
}

func caseNames(doc parsedSuites, suite string) []string {
	var out []string
	for _, s := range doc.Suites {
		if s.Name == suite {
			for _, c := range s.Cases {
				out = append(out, c.Name)
			}
		}
	}
	return out
}

func TestJUnitEmptyRunIsValid(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJUnit(&buf, &Run{}))
	var doc parsedSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	require.Zero(t, doc.Tests)
	require.Empty(t, doc.Suites)
	require.Equal(t, "0.000", doc.Time)
}

func TestJUnitSeconds(t *testing.T) {
	for ms, want := range map[int64]string{0: "0.000", 7: "0.007", 1204: "1.204", 10003: "10.003", -5: "0.000"} {
		require.Equal(t, want, junitSeconds(ms), "%d ms", ms)
	}
}
