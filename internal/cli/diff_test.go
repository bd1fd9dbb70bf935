package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

// saveRun runs the reference server (this test binary, with breaks) over stdio on the META-
// and DISC- rules and returns the path of the results.json it wrote.
func saveRun(t *testing.T, breaks ...string) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	out := t.TempDir()
	args := []string{"run", "--quiet-window", "200ms", "--rule", "META-", "--rule", "DISC-", "--out", out, "--", self, referenceServerCmd}
	for _, b := range breaks {
		args = append(args, "-break", b)
	}
	code, _, stderr := mainOut(args...)
	want := reports.ExitOK
	if len(breaks) > 0 {
		want = reports.ExitFail
	}
	require.Equal(t, want, code, stderr)
	return filepath.Join(out, "results.json")
}

// TestDiffBreakRunAgainstCleanRun is issue 12's done-when check: the diff of a -break run of the
// reference server against a clean run exits 1 naming the broken rule; two clean runs exit 0;
// the other way round the rule is fixed (exit 0).
func TestDiffBreakRunAgainstCleanRun(t *testing.T) {
	t.Parallel() // a whole run or a build: it overlaps the other long tests
	schemasEnv(t)
	clean, again, broken := saveRun(t), saveRun(t), saveRun(t, "META-001")

	code, stdout, stderr := mainOut("diff", clean, again)
	require.Equal(t, reports.ExitOK, code, stdout+stderr)
	require.Contains(t, stdout, "no regression")
	require.NotContains(t, stdout, "Regressions")

	code, stdout, stderr = mainOut("diff", clean, broken)
	require.Equal(t, reports.ExitFail, code, stdout+stderr)
	require.Regexp(t, `Regressions \(\d+\):\n(  .*\n)*  META-001 +\S+ +stdio pass +-> fail +\[new failure\]`, stdout)
	require.Empty(t, stderr)

	code, stdout, _ = mainOut("diff", "--format", "markdown", clean, broken)
	require.Equal(t, reports.ExitFail, code)
	require.True(t, strings.HasPrefix(stdout, "### ❌ mcp-conform diff: "), stdout)
	require.Regexp(t, `\| \[META-001\]\(https://modelcontextprotocol\.io/specification/[^)]+\) \| \S+ \| stdio \| pass \| fail \| new failure: `, stdout)

	code, stdout, _ = mainOut("diff", broken, clean, "--format", "json")
	require.Equal(t, reports.ExitOK, code, stdout)
	var d reports.RunDiff
	require.NoError(t, json.Unmarshal([]byte(stdout), &d))
	require.Zero(t, d.Regressions)
	fixed := d.Of(reports.Fixed)
	require.NotEmpty(t, fixed)
	require.Equal(t, "META-001", fixed[0].Rule)
	require.Equal(t, reports.Fail, fixed[0].Old)
	require.Equal(t, reports.Pass, fixed[0].New)
	require.Equal(t, broken, d.Old.File)
}

// TestDiffBadInputExits2: a missing file, a file that is not JSON, a results.json of another
// schemaVersion and a JSON object that is not a results.json are exit 2 with a message naming
// the file and what is wrong; so are a wrong number of files and an unknown format.
func TestDiffBadInputExits2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	good := write("good.json", minimalResults)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"missing file":   {[]string{filepath.Join(dir, "nope.json"), good}, "nope.json: no such file"},
		"not json":       {[]string{good, write("page.json", "<html>")}, "page.json is not a results.json: not a JSON object"},
		"no version":     {[]string{good, write("other.json", `{"name":"x"}`)}, "other.json is not a results.json: it has no schemaVersion"},
		"future version": {[]string{write("v2.json", `{"schemaVersion":"2"}`), good}, `v2.json has schemaVersion "2"; this build reads schemaVersion "1"`},
		"invalid":        {[]string{good, write("bad.json", `{"schemaVersion":"1"}`)}, "bad.json is not a results.json this build can read"},
		"one file":       {[]string{good}, "diff takes two results.json files"},
		"three files":    {[]string{good, good, good}, "diff takes two results.json files"},
		"bad format":     {[]string{"--format", "html", good, good}, "--format must be text, json or markdown"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := mainOut(append([]string{"diff"}, tc.args...)...)
			require.Equal(t, reports.ExitUsage, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, tc.want)
		})
	}
	code, stdout, stderr := mainOut("diff", good, good)
	require.Equal(t, reports.ExitOK, code, stderr)
	require.Contains(t, stdout, "no regression, 1 unchanged")
}

// TestDiffListedInUsage: `mcp-conform help` names the diff subcommand.
func TestDiffListedInUsage(t *testing.T) {
	code, stdout, _ := mainOut("help")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "mcp-conform diff OLD.json NEW.json")
}

// minimalResults is the smallest valid results.json: one stdio result.
const minimalResults = `{
  "schemaVersion": "1",
  "tool": {"name": "mcp-conform", "version": "v1.0.0", "commit": "unknown"},
  "target": {"transport": "stdio", "command": ["server"]},
  "revisions": ["2026-07-28"],
  "transports": ["stdio"],
  "schemaPins": {},
  "startedAt": "2026-12-01T00:00:00Z",
  "durationMs": 1,
  "stderrTail": "",
  "summary": {"pass": 1, "fail": 0, "warn": 0, "info": 0, "na": 0, "untestable": 0, "error": 0, "xfail": 0},
  "results": [{"rule": "MSG-001", "level": "MUST", "revision": "2026-07-28", "transport": "stdio", "verdict": "pass",
    "title": "t", "feature": "f", "spec": {"section": "basic#Messages", "url": "https://modelcontextprotocol.io/specification/2026-07-28/basic"},
    "steps": [], "frames": [], "durationMs": 0}],
  "frames": []
}`
