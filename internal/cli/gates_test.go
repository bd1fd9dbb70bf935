package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TestWriteBaselineUnwritableBeforeRun: an unwritable --write-baseline is a usage error
// (exit 2) before any server is started, not a write error after the whole run.
func TestWriteBaselineUnwritableBeforeRun(t *testing.T) {
	schemasEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	readonly := filepath.Join(dir, "readonly")
	require.NoError(t, os.Mkdir(readonly, 0o555))
	cases := map[string]string{
		"missing folder under a file": filepath.Join(file, "missing", "baseline.yaml"),
		"a folder":                    dir,
	}
	if os.Geteuid() != 0 { // root writes in a read-only folder
		cases["read-only folder"] = filepath.Join(readonly, "baseline.yaml")
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "started")
			start := time.Now()
			code, stdout, stderr := mainOut("run", "--write-baseline", path, "--", "sh", "-c", "touch "+marker+"; exec sleep 600")
			require.Equal(t, reports.ExitUsage, code, stderr)
			require.Less(t, time.Since(start), 5*time.Second)
			require.Empty(t, stdout)
			require.Contains(t, stderr, "--write-baseline "+path)
			require.NoFileExists(t, marker, "no server may be started")
		})
	}
	t.Run("missing folder is created at the end", func(t *testing.T) {
		require.NoError(t, checkOutputPath(filepath.Join(dir, "new", "sub", "baseline.yaml")))
		require.NoDirExists(t, filepath.Join(dir, "new"), "the check creates nothing")
	})
}

// TestNothingAppliesExit2: a selection of rules none of which holds at the detected revisions
// and transport is exit 2 with the reason, before any scenario runs; rules that are na only for
// an undeclared capability still count as applicable. -break VER-003 makes the reference
// server modern-only, -break CAP-001 drops its tools capability.
func TestNothingAppliesExit2(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"http tags on stdio":     {[]string{"--tags", "@transport:http", "--", self, referenceServerCmd}, "applies to http only"},
		"legacy rules on modern": {[]string{"--rule", "LEG-", "--", self, referenceServerCmd, "-break", "VER-003"}, "the server speaks 2026-07-28"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := mainOut(append([]string{"run", "--quiet-window", "300ms"}, tc.args...)...)
			require.Equal(t, reports.ExitUsage, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, "so the run would test nothing")
			require.Contains(t, stderr, tc.want)
		})
	}
	t.Run("tool rules on a server without tools", func(t *testing.T) {
		code, stdout, stderr := mainOut("run", "--quiet-window", "300ms", "--format", "json", "--rule", "TOOL-", "--", self, referenceServerCmd, "-break", "VER-003", "-break", "CAP-001")
		require.NotEqual(t, reports.ExitUsage, code, stderr)
		var run reports.Run
		require.NoError(t, json.Unmarshal([]byte(stdout), &run))
		require.NotZero(t, run.Summary.NA, "the TOOL rules are na for the undeclared tools capability")
	})
}

// TestFixtureMapNamingNothingWarns: a --fixture-map alias the server does not list is a
// warning on stderr and a note in results.json; an alias it lists is neither, and neither is
// one for a tool that asks the client (a server may list it only to a client declaring the
// capability, which the shared connection does not).
func TestFixtureMapNamingNothingWarns(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	out := t.TempDir()
	code, _, stderr := mainOut("run", "--quiet-window", "300ms", "--out", out, "--rule", "DISC-001",
		"--fixture-map", "test_echo=no_such_tool", "--fixture-map", "test_simple_text=test_echo",
		"--fixture-map", "test://static-text=test://nowhere", "--fixture-map", "test_sampling=trigger-sampling-request", "--", self, referenceServerCmd)
	require.Equal(t, reports.ExitOK, code, stderr)
	require.Contains(t, stderr, `warning: --fixture-map test_echo=no_such_tool: the server lists no tool "no_such_tool"`)
	require.Contains(t, stderr, `warning: --fixture-map test://static-text=test://nowhere: the server lists no resource "test://nowhere"`)
	require.NotContains(t, stderr, "test_simple_text=test_echo:", "test_echo is a tool the server lists")
	require.NotContains(t, stderr, "test_sampling=", "a sampling tool may be listed only to a client declaring sampling")
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	require.NoError(t, err)
	var run reports.Run
	require.NoError(t, json.Unmarshal(b, &run))
	var notes []string
	for _, n := range run.Notes {
		if strings.HasPrefix(n, "--fixture-map ") {
			notes = append(notes, n)
		}
	}
	require.Len(t, notes, 2, "%q", run.Notes)
	require.Contains(t, notes[0]+notes[1], "no_such_tool")
}

// TestDemoRunsTheHalfASelectionFits: a demo selection that fits one transport only runs that
// half (exit 0, its transport alone in results), and one that fits neither is a usage error.
func TestDemoRunsTheHalfASelectionFits(t *testing.T) {
	schemasEnv(t)
	code, stdout, stderr := mainOut("demo", "--quiet-window", "300ms", "--rule", "HTTP-001", "--rule", "HTTP-002", "--format", "json")
	require.Equal(t, 0, code, stderr)
	var run reports.Run
	require.NoError(t, json.Unmarshal([]byte(stdout), &run))
	assert.Equal(t, []string{"http"}, run.Transports)
	assert.NotZero(t, run.Summary.Pass)
	code, _, stderr = mainOut("demo", "--tags", "@transport:http && @transport:stdio")
	assert.Equal(t, reports.ExitUsage, code, stderr)
}

// TestWriteBaselineKeptWhenRunAborted: a run not carried out in full (here: the server command
// does not exist) leaves an existing --write-baseline file as it was, and says so.
func TestWriteBaselineKeptWhenRunAborted(t *testing.T) {
	schemasEnv(t)
	path := filepath.Join(t.TempDir(), "baseline.yaml")
	before := []byte("expected-failures:\n  - rule: TOOL-001\n    reason: kept\n")
	require.NoError(t, os.WriteFile(path, before, 0o644))
	code, _, stderr := mainOut("run", "--write-baseline", path, "--", filepath.Join(t.TempDir(), "no-such-server"))
	assert.Equal(t, reports.ExitError, code, stderr)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	assert.Contains(t, stderr, "baseline not written")
	assert.NotContains(t, stderr, "baseline written:")
}
