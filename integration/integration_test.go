// Package integration runs mcp-conform end to end against real MCP servers nobody here wrote
// the protocol code of: the npm "everything" server (legacy revisions, stdio), a server of ours
// on the TypeScript SDK @modelcontextprotocol/server 2.x and one on the Go SDK go-sdk v1.8.0
// (2026-07-28, stdio and Streamable HTTP). The npm packages come from fixtures/package.json
// (`npm ci --prefix fixtures`); the Go SDK server is the nested module fixtures/sdkservers.
package integration

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/schemas"
	"github.com/mcp-conform/mcp-conform/steps"
)

func schemaSet(t *testing.T) *schemas.Set {
	t.Helper()
	dir := os.Getenv("MCP_CONFORM_SCHEMAS")
	if dir == "" || !filepath.IsAbs(dir) {
		t.Fatalf("MCP_CONFORM_SCHEMAS must be the absolute path of the folder with <revision>/schema.json (e.g. ../shared/spec/schema); got %q", dir)
	}
	return schemas.NewSet(schemas.Source{Dir: dir, NoDownload: true})
}

// fixturePath returns an absolute path under fixtures/, failing with the install hint when the
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

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// startHTTP starts argv, waits for its "listening on URL" line on stderr and returns the URL.
func startHTTP(t *testing.T, argv ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not print its listening line within 60s", strings.Join(argv, " "))
	}
	return ""
}

func run(t *testing.T, cfg steps.Config) *reports.Run {
	t.Helper()
	cfg.Revision = "auto"
	cfg.StartupTimeout, cfg.Timeout, cfg.QuietWindow = 60*time.Second, 3*time.Second, 500*time.Millisecond
	cfg.RunTimeout, cfg.MaxFrame, cfg.Concurrency = 5*time.Minute, 16<<20, 1
	cfg.Schemas = schemaSet(t)
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
		url := startHTTP(t, nodeBinary(t), script, "--http", "--port", "0")
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
		url := startHTTP(t, bin, "-transport", "http", "-stateless")
		r := run(t, steps.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
}
