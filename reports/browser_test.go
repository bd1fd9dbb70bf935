package reports

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The browser check: fixtures/browser/check-report.mjs drives Debian's Chromium through
// playwright-core (fixtures/package.json; no browser download). These tests fail, never skip,
// when a piece is missing, naming how to install it. MCP_CONFORM_CHROMIUM overrides the
// browser path; MCP_CONFORM_SCREENSHOTS=DIR saves desktop and phone screenshots of the realistic
// run's report there, and those of the first-screen runs under DIR/<run>.
var browserScript = filepath.Join("..", "fixtures", "browser", "check-report.mjs")

// browserExpect is what check-report.mjs asserts about a report (see its header).
type browserExpect struct {
	Results         int            `json:"results"`
	Verdicts        map[string]int `json:"verdicts"`
	Areas           map[string]int `json:"areas"`
	RowsWithVerdict map[string]int `json:"rowsWithVerdict"`
	RowsInArea      map[string]int `json:"rowsInArea"`
	Rows            int            `json:"rows"`
	Hostile         []string       `json:"hostile"`
	Marked          []string       `json:"marked"`
	FirstScreen     *firstScreen   `json:"firstScreen,omitempty"`
}

// firstScreen is what the top of the page must show: the number of failing MUST rules (a fail
// card) and SHOULD rules (only warn cards), every failing rule id, and how many of them are
// listed on the first screen and behind the link to the rest.
type firstScreen struct {
	Must   int      `json:"must"`
	Should int      `json:"should"`
	Rules  []string `json:"rules"`
	Shown  int      `json:"shown"`
	More   int      `json:"more"`
}

// browserMetrics is the JSON line check-report.mjs prints.
type browserMetrics struct {
	Bytes              int64 `json:"bytes"`
	LoadMs             int64 `json:"loadMs"`
	DOMContentLoadedMs int64 `json:"domContentLoadedMs"`
	LoadEventMs        int64 `json:"loadEventMs"`
	FilterMs           int64 `json:"filterMs"`
	Cards              int   `json:"cards"`
	Elements           int   `json:"elements"`
}

func expectationsOf(r *Run) browserExpect {
	r.Finalize()
	e := browserExpect{Results: len(r.Results), Verdicts: map[string]int{}, Areas: map[string]int{},
		RowsWithVerdict: map[string]int{}, RowsInArea: map[string]int{}}
	ruleVerdicts := map[string]map[string]bool{}
	for _, res := range r.Results {
		e.Verdicts[string(res.Verdict)]++
		e.Areas[area(res.Rule)]++
		if ruleVerdicts[res.Rule] == nil {
			ruleVerdicts[res.Rule] = map[string]bool{}
			e.RowsInArea[area(res.Rule)]++
			e.Rows++
		}
		ruleVerdicts[res.Rule][string(res.Verdict)] = true
	}
	fs := &firstScreen{Rules: []string{}}
	for rule, vs := range ruleVerdicts {
		for v := range vs {
			e.RowsWithVerdict[v]++
		}
		switch {
		case vs[string(Fail)]:
			fs.Must++
		case vs[string(Warn)]:
			fs.Should++
		default:
			continue
		}
		fs.Rules = append(fs.Rules, rule)
	}
	fs.Shown = min(len(fs.Rules), 10)
	fs.More = len(fs.Rules) - fs.Shown
	e.FirstScreen = fs
	return e
}

// browserPrereqs returns node and the Chromium path, failing the test with the fix when either,
// or playwright-core, is missing.
func browserPrereqs(t *testing.T) (node, chromium string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("browser check needs Node.js 20+ on PATH (node not found: %v)", err)
	}
	chromium = os.Getenv("MCP_CONFORM_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("browser check needs Chromium at %s: apt-get install -y chromium, or set MCP_CONFORM_CHROMIUM (%v)", chromium, err)
	}
	// Reading the script also makes go test's cache notice when it changes.
	if _, err := os.ReadFile(browserScript); err != nil {
		t.Fatalf("browser check script missing: %v", err)
	}
	if _, err := os.Stat(filepath.Join("..", "fixtures", "node_modules", "playwright-core", "package.json")); err != nil {
		t.Fatalf("browser check needs playwright-core: run npm ci --prefix fixtures (%v)", err)
	}
	return node, chromium
}

// checkInChromium writes r as HTML under a temporary folder, runs the browser check on it and
// returns its measurements and the page's size.
func checkInChromium(t *testing.T, r *Run, e browserExpect, shots ...string) (browserMetrics, time.Duration) {
	t.Helper()
	node, chromium := browserPrereqs(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	start := time.Now()
	require.NoError(t, WriteHTML(&buf, r))
	render := time.Since(start)
	require.NoError(t, os.WriteFile(page, buf.Bytes(), 0o644))
	expect := filepath.Join(dir, "expect.json")
	b, err := json.Marshal(e)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(expect, b, 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{browserScript, "--chromium", chromium, "--expect", expect}
	// shots: the --screenshots folder, then the --first-screens folder; "" for none.
	for i, flag := range []string{"--screenshots", "--first-screens"} {
		if i < len(shots) && shots[i] != "" {
			args = append(args, flag, shots[i])
		}
	}
	cmd := exec.CommandContext(ctx, node, append(args, page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("browser check did not finish within 3 minutes\nstderr:\n%s", stderr.String())
	}
	require.NoError(t, err, "browser check failed:\n%s", stderr.String())
	var m browserMetrics
	require.NoError(t, json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &m), "browser check output: %s", stdout.String())
	return m, render
}

func TestHTMLReportInChromium(t *testing.T) {
	r := htmlRun()
	e := expectationsOf(r)
	e.Hostile = []string{hostileName, hostileFrame, "<img src=x onerror=alert(3)>", "<b onmouseover=alert(5)>hi</b>"}
	e.Marked = []string{"-5"}
	require.Greater(t, len(e.Verdicts), 7, "the run has every verdict")
	m, _ := checkInChromium(t, r, e, os.Getenv("MCP_CONFORM_SCREENSHOTS"))
	require.Equal(t, len(r.Results), m.Cards)
	t.Logf("report %d bytes, %d elements; loaded in %d ms (DOMContentLoaded %d ms); slowest filter %d ms",
		m.Bytes, m.Elements, m.LoadMs, m.DOMContentLoadedMs, m.FilterMs)
}

// TestHTMLLargeRunInChromium measures a run of 2000 frames: render time, size, load time.
func TestHTMLLargeRunInChromium(t *testing.T) {
	r := htmlLargeRun(2000)
	require.Len(t, r.Frames, 2000)
	e := expectationsOf(r)
	e.Marked = []string{"-1"}
	m, render := checkInChromium(t, r, e)
	require.Equal(t, len(r.Results), m.Cards)
	require.Less(t, m.Bytes, int64(20<<20), "a 2000-frame report stays under 20 MiB")
	t.Logf("2000 frames, %d results: WriteHTML %s, %d bytes (%.1f MiB), %d elements; Chromium load %d ms (DOMContentLoaded %d ms, load event %d ms); slowest filter %d ms",
		len(r.Results), render.Round(time.Millisecond), m.Bytes, float64(m.Bytes)/(1<<20), m.Elements, m.LoadMs, m.DOMContentLoadedMs, m.LoadEventMs, m.FilterMs)
}

// failuresRun is a run over 26 areas, like the reference's, of two revisions over stdio in which
// n rules fail: every third a SHOULD rule (warn), the others MUST rules (fail) in both
// revisions, each with a reason longer than a line; the other rules pass or are na.
func failuresRun(n int) *Run {
	r := &Run{SchemaVersion: SchemaVersion, Tool: Tool{Name: "mcp-conform", Version: "v0.4.0", Commit: "0123456789ab"},
		Target: Target{Transport: "stdio", Command: []string{"node", "build/index.js"}}, Server: &Server{Name: "example", Version: "1.0"},
		Revisions: []string{"2026-07-28", "2025-11-25"}, Transports: []string{"stdio"}, DurationMs: 2900,
		SchemaPins: map[string]Pin{"2026-07-28": {Commit: "b0f60ba5409db7a6582440a7b473cc0398890f15", SHA256: "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203"}}}
	areas := []string{"CACHE", "CAP", "CMPL", "CONT", "DEP", "DISC", "ERR", "EXT", "HDR", "HTTP", "LEG", "LFEAT", "LOG", "META",
		"MSG", "PAGE", "PROBE", "PROMPT", "RES", "RT", "SCHEMA", "STATE", "STDIO", "SUB", "TOOL", "VER"}
	failing := 0
	for i := 0; i < 8*len(areas); i++ {
		rule := fmt.Sprintf("%s-%03d", areas[i%len(areas)], i/len(areas)+1)
		fails := i%3 == 1 && failing < n
		level := "MUST"
		if fails {
			failing++
			if failing%3 == 0 {
				level = "SHOULD"
			}
		}
		for _, rev := range r.Revisions {
			res := Result{Rule: rule, Level: level, Revision: rev, Transport: "stdio", Verdict: Pass, Title: "Rule " + rule + " holds",
				Feature: "Feature " + areas[i%len(areas)] + " (basic/index)", DurationMs: 3,
				Steps: []Step{{Text: "a connected server", Status: "passed"}}}
			switch {
			case fails && level == "MUST":
				res.Verdict = Fail
			case fails:
				res.Verdict = Warn
			case i%4 == 0:
				res.Verdict, res.Reason = NA, "the server does not declare the capability"
			}
			if fails {
				res.Reason = "expected every listed tool to be a Tool whose inputSchema is an object of type \"object\", got tool \"t" +
					strconv.Itoa(i) + "\": missing property 'type' at \"/inputSchema\""
			}
			r.Results = append(r.Results, res)
		}
	}
	if failing != n {
		panic(fmt.Sprintf("failuresRun: %d failing rules, want %d", failing, n))
	}
	return r
}

// breakRun is the results.json of a real run of the reference fixture broken at TOOL-001
// (mcp-conform run --out DIR -- reference -break TOOL-001), kept without the frames of the
// results that do not fail.
func breakRun(t *testing.T) *Run {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "html", "break-TOOL-001.results.json.gz"))
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	r, err := ReadJSON(zr)
	require.NoError(t, err)
	return r
}

// TestHTMLFirstScreenInChromium opens reports with 3 and 25 failing rules and the report of a
// -break run in headless Chromium at 1280x800 and 390x844: the failing rules (the first 10 of
// 25, and the link to the rest) are inside the viewport without scrolling, each links to a
// failing card, the default view hides pass and na, and a card reached by a link is not under
// the sticky filter bar. Screenshots are written to a temporary folder, or under
// MCP_CONFORM_SCREENSHOTS.
func TestHTMLFirstScreenInChromium(t *testing.T) {
	runs := []struct {
		name string
		run  func(t *testing.T) *Run
		must int
	}{
		{"3-failures", func(*testing.T) *Run { return failuresRun(3) }, 2},
		{"25-failures", func(*testing.T) *Run { return failuresRun(25) }, 17},
		{"reference-break-TOOL-001", breakRun, 1},
	}
	for _, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run(t)
			e := expectationsOf(r)
			require.Equal(t, tc.must, e.FirstScreen.Must, "failing MUST rules in the run")
			if tc.name == "reference-break-TOOL-001" {
				require.Equal(t, []string{"TOOL-001"}, e.FirstScreen.Rules)
			}
			shots := t.TempDir()
			if dir := os.Getenv("MCP_CONFORM_SCREENSHOTS"); dir != "" {
				shots = filepath.Join(dir, tc.name)
				require.NoError(t, os.MkdirAll(shots, 0o755))
			}
			checkInChromium(t, r, e, "", shots)
			for _, name := range []string{"first-screen-desktop.png", "first-screen-phone.png"} {
				st, err := os.Stat(filepath.Join(shots, name))
				require.NoError(t, err, "screenshot %s", name)
				require.Greater(t, st.Size(), int64(1000), "screenshot %s is an image", name)
			}
			t.Logf("screenshots in %s", shots)
		})
	}
}
