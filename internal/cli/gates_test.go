package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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
		require.NoError(t, checkBaselinePath(filepath.Join(dir, "new", "sub", "baseline.yaml")))
		require.NoDirExists(t, filepath.Join(dir, "new"), "the check creates nothing")
	})
}
