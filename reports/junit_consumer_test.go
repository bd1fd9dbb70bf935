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

// checkScript is the consumer check, relative to this package's folder.
var checkScript = filepath.Join("..", "fixtures", "junit", "check.mjs")

// runCheck runs `node fixtures/junit/check.mjs junitPath jsonPath` and returns its exit code
// and combined output. A missing node or junit2json package fails the test: the JUnit output
// is only proven readable by a real consumer when the consumer runs.
func runCheck(t *testing.T, junitPath, jsonPath string) (int, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node (Node.js 20+) is needed to run the JUnit consumer check %s", checkScript)
	_, err = os.Stat(filepath.Join("..", "fixtures", "node_modules", "junit2json", "package.json"))
	require.NoError(t, err, "the npm package junit2json is not installed; run: npm ci --prefix fixtures")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, checkScript, junitPath, jsonPath)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	require.NoError(t, ctx.Err(), "check.mjs did not finish within a minute; output:\n%s", out.String())
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "running check.mjs: %v\n%s", err, out.String())
		return ee.ExitCode(), out.String()
	}
	return 0, out.String()
}

// writeBoth writes the JUnit and JSON reports of r to dir and returns their paths.
func writeBoth(t *testing.T, dir string, r *Run) (string, string) {
	t.Helper()
	var x, j bytes.Buffer
	require.NoError(t, WriteJUnit(&x, r))
	require.NoError(t, WriteJSON(&j, r))
	xp, jp := filepath.Join(dir, "junit.xml"), filepath.Join(dir, "results.json")
	require.NoError(t, os.WriteFile(xp, x.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(jp, j.Bytes(), 0o644))
	return xp, jp
}

func TestJUnitConsumerAgreesWithResultsJSON(t *testing.T) {
	r := sampleRun()
	xp, jp := writeBoth(t, t.TempDir(), r)
	for _, v := range Verdicts {
		if v == NotRun {
			continue // a run carried out in full; TestJUnitNotRunIsSkipped covers it
		}
		require.NotZero(t, r.Summary.Count(v), "the sample must hold every verdict; %s is missing", v)
	}
	code, out := runCheck(t, xp, jp)
	require.Equal(t, 0, code, "check.mjs rejected the JUnit file:\n%s", out)
	require.Contains(t, out, "10 tests, 2 failures, 1 errors, 2 skipped")

	// An aborted run has no testcase at all.
	empty := &Run{SchemaVersion: SchemaVersion, Target: Target{Transport: "stdio", Command: []string{"false"}}, Aborted: "server did not start"}
	xp, jp = writeBoth(t, t.TempDir(), empty)
	code, out = runCheck(t, xp, jp)
	require.Equal(t, 0, code, "check.mjs rejected the JUnit file of an empty run:\n%s", out)
}

// The check can fail: a results.json that disagrees with the JUnit file is reported, naming
// the count that differs.
func TestJUnitConsumerReportsMismatches(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(doc map[string]any)
		want   []string
	}{
		{"one more failure", func(d map[string]any) { d["summary"].(map[string]any)["fail"] = 3.0 },
			[]string{`failures: <testsuites failures="2"> but results.json summary.fail + staleBaseline.length is 3`, "failures: 2 counted in the testcases but results.json summary.fail + staleBaseline.length is 3"}},
		{"untestable counts as skipped", func(d map[string]any) { d["summary"].(map[string]any)["untestable"] = 0.0 },
			[]string{`skipped: <testsuites skipped="2"> but results.json summary.na + summary.untestable + summary.notrun is 1`}},
		{"one result fewer", func(d map[string]any) { d["results"] = d["results"].([]any)[1:] },
			[]string{`tests: <testsuites tests="10"> but results.json results.length + staleBaseline.length + aborted is 9`}},
		{"errors", func(d map[string]any) { d["summary"].(map[string]any)["error"] = 0.0 },
			[]string{"errors: 1 counted in the testcases but results.json summary.error + aborted is 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			xp, jp := writeBoth(t, dir, sampleRun())
			raw, err := os.ReadFile(jp)
			require.NoError(t, err)
			var doc map[string]any
			require.NoError(t, json.Unmarshal(raw, &doc))
			tc.mutate(doc)
			raw, err = json.Marshal(doc)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(jp, raw, 0o644))

			code, out := runCheck(t, xp, jp)
			require.Equal(t, 1, code, "check.mjs must reject the mismatch; output:\n%s", out)
			require.Contains(t, out, "disagrees with")
			for _, w := range tc.want {
				require.Contains(t, out, w)
			}
		})
	}

	// A JUnit file whose testcase contradicts its own verdict property is caught too.
	dir := t.TempDir()
	xp, jp := writeBoth(t, dir, sampleRun())
	x, err := os.ReadFile(xp)
	require.NoError(t, err)
	x = bytes.Replace(x, []byte(`<property name="verdict" value="warn">`), []byte(`<property name="verdict" value="fail">`), 1)
	require.NoError(t, os.WriteFile(xp, x, 0o644))
	code, out := runCheck(t, xp, jp)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, `"MSG-9 An error message is a short description [2026-07-28 stdio]" has verdict fail but carries <nothing>`)
}
