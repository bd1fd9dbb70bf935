// Package integration runs mcp-conform end to end against real MCP servers nobody here wrote
// the protocol code of: the npm "everything" server (legacy revisions, stdio), a server of ours
// on the TypeScript SDK @modelcontextprotocol/server 2.x and one on the Go SDK go-sdk v1.8.0
// (2026-07-28, stdio and Streamable HTTP). The npm packages come from fixtures/package.json
// (`npm ci --prefix fixtures`); the Go SDK server is the nested module fixtures/sdkservers.
package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/steps"
)

// nodeModule returns an absolute path under fixtures/, failing with the install hint when the
// npm packages are missing.
func nodeModule(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "fixtures", rel))
	require.NoError(t, err)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `npm ci --prefix fixtures` first (scripts/test.sh does)", p)
	}
	return p
}

func nodeBinary(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	require.NoError(t, err, "the integration tests need Node.js on PATH")
	return node
}

var goSDKBinary string

// buildGoSDK builds the go-sdk server of the nested module fixtures/sdkservers once.
func buildGoSDK(t *testing.T) string {
	t.Helper()
	if goSDKBinary != "" {
		return goSDKBinary
	}
	out := filepath.Join(t.TempDir(), "gosdk")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/gosdk")
	cmd.Dir = filepath.Join("..", "fixtures", "sdkservers")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "building fixtures/sdkservers/cmd/gosdk: %s", b)
	goSDKBinary = out
	return out
}

func run(t *testing.T, cfg steps.Config) *reports.Run {
	t.Helper()
	cfg.Revision = "auto"
	cfg.StartupTimeout, cfg.Timeout, cfg.QuietWindow = 60*time.Second, 3*time.Second, 500*time.Millisecond
	cfg.RunTimeout, cfg.MaxFrame, cfg.Concurrency = 5*time.Minute, 16<<20, 1
	cfg.Schemas = testutil.Schemas(t)
	cfg.Tool = reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"}
	r, err := steps.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Empty(t, r.Aborted, "run aborted; notes: %v", r.Notes)
	var errs []string
	for _, res := range r.Results {
		if res.Verdict == reports.Error {
			errs = append(errs, fmt.Sprintf("%s@%s: %s", res.Rule, res.Revision, res.Reason))
		}
		if res.Verdict == reports.Fail || res.Verdict == reports.Warn {
			t.Logf("%s %s@%s %s: %s", res.Verdict, res.Rule, res.Revision, res.Transport, res.Reason)
		}
	}
	require.Empty(t, errs, "results with verdict error")
	require.NotZero(t, r.Summary.Pass)
	var doc bytes.Buffer
	require.NoError(t, reports.WriteJSON(&doc, r))
	require.NoError(t, reports.ValidateDocument(doc.Bytes()), "results.json must match reports/results.schema.json")
	return r
}

func TestServerEverythingStdioLegacy(t *testing.T) {
	t.Parallel()
	entry := nodeModule(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	r := run(t, steps.Config{Transport: "stdio", Command: []string{nodeBinary(t), entry}})
	require.Equal(t, []string{"2025-11-25"}, r.Revisions, "server-everything negotiates the legacy revision only; notes: %v", r.Notes)
}

func TestTypeScriptSDKServer(t *testing.T) {
	t.Parallel()
	script := nodeModule(t, "servers/ts-modern/server.mjs")
	nodeModule(t, "node_modules/@modelcontextprotocol/server")
	t.Run("stdio", func(t *testing.T) {
		r := run(t, steps.Config{Transport: "stdio", Command: []string{nodeBinary(t), script}})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
	t.Run("http", func(t *testing.T) {
		url := testutil.StartHTTPServer(t, 60*time.Second, nodeBinary(t), script, "--http", "--port", "0")
		r := run(t, steps.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
}

func TestGoSDKServer(t *testing.T) {
	t.Parallel()
	bin := buildGoSDK(t)
	t.Run("stdio", func(t *testing.T) {
		r := run(t, steps.Config{Transport: "stdio", Command: []string{bin, "-transport", "stdio"}})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
	t.Run("http-stateless", func(t *testing.T) {
		url := testutil.StartHTTPServer(t, 60*time.Second, bin, "-transport", "http", "-stateless")
		r := run(t, steps.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
}
