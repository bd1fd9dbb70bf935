package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The browser check: fixtures/browser/check-report.mjs drives Debian's Chromium through
// playwright-core (fixtures/package.json; no browser download). These tests fail, never skip,
// when a piece is missing, naming how to install it. MCP_CONFORM_CHROMIUM overrides the
// browser path; MCP_CONFORM_SCREENSHOTS=DIR saves desktop and phone screenshots of the realistic
// run's report there.
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
	for _, vs := range ruleVerdicts {
		for v := range vs {
			e.RowsWithVerdict[v]++
		}
	}
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
func checkInChromium(t *testing.T, r *Run, e browserExpect, screenshots bool) (browserMetrics, time.Duration) {
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
	if shots := os.Getenv("MCP_CONFORM_SCREENSHOTS"); shots != "" && screenshots {
		args = append(args, "--screenshots", shots)
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
	m, _ := checkInChromium(t, r, e, true)
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
	m, render := checkInChromium(t, r, e, false)
	require.Equal(t, len(r.Results), m.Cards)
	require.Less(t, m.Bytes, int64(20<<20), "a 2000-frame report stays under 20 MiB")
	t.Logf("2000 frames, %d results: WriteHTML %s, %d bytes (%.1f MiB), %d elements; Chromium load %d ms (DOMContentLoaded %d ms, load event %d ms); slowest filter %d ms",
		len(r.Results), render.Round(time.Millisecond), m.Bytes, float64(m.Bytes)/(1<<20), m.Elements, m.LoadMs, m.DOMContentLoadedMs, m.LoadEventMs, m.FilterMs)
}
