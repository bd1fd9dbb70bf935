// Package integration runs mcp-conform end to end against real MCP servers nobody here wrote
// the protocol code of: the npm "everything" (stdio and streamableHttp), "filesystem" and
// "memory" servers (legacy revisions), a server of ours on the TypeScript SDK
// @modelcontextprotocol/server 2.x with the official conformance fixture surface, one on
// @modelcontextprotocol/sdk 1.x serving Streamable HTTP with sessions and one serving the HTTP+SSE
// transport of 2024-11-05 (SSEServerTransport), and servers of ours on
// go-sdk v1.8.0 (stateless and with sessions; also with -tools-only: a server offering tools
// alone, which the rules of the features it does not offer must not fail) and on mcp-go v1.2.1,
// over stdio and Streamable HTTP. Every verdict but na is pinned in
// testdata/golden/<subject>.golden (`go test ./integration -update` rewrites them), so a new
// false verdict on a real server is seen. The npm packages come from fixtures/package.json
// (`npm ci --prefix fixtures`); the SDK servers are the nested module fixtures/sdkservers.
package integration

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/runner"
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

// sdkBuild is one binary of the nested module fixtures/sdkservers, built once per test process
// into a folder TestMain removes (parallel tests share it; a t.TempDir would vanish with its test).
type sdkBuild struct {
	once sync.Once
	bin  string
	err  error
}

// sdkBins are the SDK servers by cmd name (cmd/gosdk, cmd/mcpgo); sdkDir holds their binaries.
var (
	sdkBins = map[string]*sdkBuild{"gosdk": {}, "mcpgo": {}}
	sdkDir  struct {
		once sync.Once
		path string
		err  error
	}
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if sdkDir.path != "" {
		_ = os.RemoveAll(sdkDir.path)
	}
	os.Exit(code)
}

// buildSDKServer builds fixtures/sdkservers/cmd/<name> once per test process and returns the
// binary's path.
func buildSDKServer(t *testing.T, name string) string {
	t.Helper()
	b := sdkBins[name]
	require.NotNil(t, b, "no SDK server %q", name)
	sdkDir.once.Do(func() { sdkDir.path, sdkDir.err = os.MkdirTemp("", "mcp-conform-sdkservers-") })
	require.NoError(t, sdkDir.err)
	b.once.Do(func() {
		out := filepath.Join(sdkDir.path, name)
		cmd := exec.Command("go", "build", "-o", out, "./cmd/"+name)
		cmd.Dir = filepath.Join("..", "fixtures", "sdkservers")
		if o, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building fixtures/sdkservers/cmd/%s: %w: %s", name, err, o)
			return
		}
		b.bin = out
	})
	require.NoError(t, b.err)
	return b.bin
}

// run runs the whole suite on cfg's target with the integration timings, requires a complete
// run without error verdicts and a results.json that matches its schema, logs every fail and
// warn, and checks the verdicts against the golden file testdata/golden/<golden>.golden.
func run(t *testing.T, golden string, cfg runner.Config) *reports.Run {
	t.Helper()
	cfg.Revision = "auto"
	// The product's default timings: these runs share 2 CI cores with the race detector and the
	// break table, and a shorter bound would blame a starved server for a slow reply.
	cfg.StartupTimeout, cfg.Timeout, cfg.QuietWindow = 60*time.Second, 10*time.Second, time.Second
	cfg.RunTimeout, cfg.MaxFrame, cfg.Concurrency = 5*time.Minute, 16<<20, runner.DefaultConcurrency
	cfg.Schemas = testutil.Schemas(t)
	cfg.Tool = reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"}
	r, err := runner.Run(context.Background(), cfg)
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
	checkGolden(t, golden, r)
	return r
}

// unofferedAreas are the rule-id prefixes of the features a -tools-only server does not offer.
var unofferedAreas = []string{"RES-", "PROMPT-", "CMPL-", "LOG-"}

// requireFairToUnoffered fails the test if a rule of an area in prefixes has verdict fail or
// error: a server that does not declare a feature must not be failed for it. It logs how many
// results of those areas the run had (the rules of an area may not exist yet).
func requireFairToUnoffered(t *testing.T, r *reports.Run, prefixes ...string) {
	t.Helper()
	var bad []string
	seen := map[string]int{}
	for _, res := range r.Results {
		for _, p := range prefixes {
			if !strings.HasPrefix(res.Rule, p) {
				continue
			}
			seen[p]++
			if res.Verdict == reports.Fail || res.Verdict == reports.Error {
				bad = append(bad, fmt.Sprintf("%s %s@%s %s: %s", res.Verdict, res.Rule, res.Revision, res.Transport, res.Reason))
			}
		}
	}
	t.Logf("results per unoffered area: %v", seen)
	require.Empty(t, bad, "rules of features the server does not offer must not fail")
}

func TestServerEverythingStdioLegacy(t *testing.T) {
	t.Parallel()
	entry := nodeModule(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	// server-everything asks the client for sampling, elicitation and roots under its own tool
	// names (registered only for a client declaring the capability): --fixture-map points the
	// legacy input rules at them (INPUT-*, LEG-006, LEG-009, LEG-010).
	r := run(t, "server-everything-stdio", runner.Config{Transport: "stdio", Command: []string{nodeBinary(t), entry},
		FixtureMap: map[string]string{"test_sampling": "trigger-sampling-request", "test_elicitation": "trigger-elicitation-request",
			"test_list_roots": "get-roots-list"}})
	require.Equal(t, revisions.LegacyIDs(), r.Revisions, "server-everything (SDK 1.x) accepts every legacy revision and no modern one; notes: %v", r.Notes)
}

// TestServerEverythingStreamableHTTP runs the whole suite on the npm "everything" server in its
// streamableHttp mode: Streamable HTTP with sessions and an event store for resumption.
func TestServerEverythingStreamableHTTP(t *testing.T) {
	t.Parallel()
	entry := nodeModule(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	url := testutil.StartPortServer(t, 60*time.Second, "/mcp", nodeBinary(t), entry, "streamableHttp")
	r := run(t, "server-everything-http", runner.Config{Transport: "http", URL: url})
	require.Equal(t, revisions.LegacyIDs(), r.Revisions, "server-everything (SDK 1.x) accepts every legacy revision and no modern one; notes: %v", r.Notes)
}

// TestServerEverythingSSE runs the whole suite on the npm "everything" server in its sse mode
// (the SDK 1.x SSEServerTransport: the HTTP+SSE transport of 2024-11-05), reached as a user
// would, by --url alone: era detection falls back to HTTP+SSE (basic/transports#Backwards
// Compatibility), and every handshake revision the server accepts is tested over it.
func TestServerEverythingSSE(t *testing.T) {
	t.Parallel()
	entry := nodeModule(t, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	url := testutil.StartPortServer(t, 60*time.Second, "/sse", nodeBinary(t), entry, "sse")
	r := run(t, "server-everything-sse", runner.Config{Transport: "http", SSEFallback: true, URL: url,
		FixtureMap: map[string]string{"test_sampling": "trigger-sampling-request", "test_elicitation": "trigger-elicitation-request",
			"test_list_roots": "get-roots-list"}})
	require.Equal(t, []string{"sse"}, r.Transports, "notes: %v", r.Notes)
	require.Contains(t, r.Revisions, revisions.Oldest().ID, "notes: %v", r.Notes)
}

// TestTypeScriptSDKv1SSE runs the whole suite on a server of ours on @modelcontextprotocol/sdk
// 1.x serving the HTTP+SSE transport of 2024-11-05 with SSEServerTransport (--transport sse).
func TestTypeScriptSDKv1SSE(t *testing.T) {
	t.Parallel()
	script := nodeModule(t, "servers/ts-sse/server.mjs")
	nodeModule(t, "node_modules/@modelcontextprotocol/sdk")
	url := testutil.StartHTTPServer(t, 60*time.Second, nodeBinary(t), script, "--port", "0")
	r := run(t, "ts-sse", runner.Config{Transport: "sse", URL: url})
	require.Contains(t, r.Revisions, revisions.Oldest().ID, "notes: %v", r.Notes)
}

// TestServerMemoryStdio runs the whole suite on the npm "memory" server (legacy revisions,
// stdio, tools only), its knowledge graph kept in a temporary file.
func TestServerMemoryStdio(t *testing.T) {
	t.Parallel()
	entry := nodeModule(t, "node_modules/@modelcontextprotocol/server-memory/dist/index.js")
	graph := filepath.Join(t.TempDir(), "memory.jsonl")
	r := run(t, "server-memory-stdio", runner.Config{Transport: "stdio", Command: []string{"env", "MEMORY_FILE_PATH=" + graph, nodeBinary(t), entry}})
	require.NotEmpty(t, r.Revisions)
}

func TestTypeScriptSDKServer(t *testing.T) {
	t.Parallel()
	script := nodeModule(t, "servers/ts-modern/server.mjs")
	nodeModule(t, "node_modules/@modelcontextprotocol/server")
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		r := run(t, "ts-modern-stdio", runner.Config{Transport: "stdio", Command: []string{nodeBinary(t), script}})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		url := testutil.StartHTTPServer(t, 60*time.Second, nodeBinary(t), script, "--http", "--port", "0")
		r := run(t, "ts-modern-http", runner.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
}

// TestTypeScriptSDKv1Sessions runs the whole suite on a server of ours on the TypeScript SDK
// @modelcontextprotocol/sdk 1.x serving Streamable HTTP with sessions (a sessionIdGenerator): a
// request that lost the session's Mcp-Session-Id is answered 400, so no rule may fail because
// the suite sent one without it.
func TestTypeScriptSDKv1Sessions(t *testing.T) {
	t.Parallel()
	script := nodeModule(t, "servers/ts-sessions/server.mjs")
	nodeModule(t, "node_modules/@modelcontextprotocol/sdk")
	url := testutil.StartHTTPServer(t, 60*time.Second, nodeBinary(t), script, "--port", "0")
	r := run(t, "ts-sessions-http", runner.Config{Transport: "http", URL: url})
	require.Contains(t, r.Revisions, "2025-11-25")
	requireNoLostSession(t, r)
}

func TestGoSDKServer(t *testing.T) {
	t.Parallel()
	bin := buildSDKServer(t, "gosdk")
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		r := run(t, "gosdk-stdio", runner.Config{Transport: "stdio", Command: []string{bin, "-transport", "stdio"}})
		require.Equal(t, revisions.IDs(), r.Revisions, "go-sdk accepts all five revisions; notes: %v", r.Notes)
	})
	t.Run("http-stateless", func(t *testing.T) {
		t.Parallel()
		url := testutil.StartHTTPServer(t, 60*time.Second, bin, "-transport", "http", "-stateless")
		r := run(t, "gosdk-http-stateless", runner.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
	// With sessions (StreamableHTTPOptions{Stateless: false}): the legacy revisions get an
	// Mcp-Session-Id, a GET stream and DELETE.
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		url := testutil.StartHTTPServer(t, 60*time.Second, bin, "-transport", "http")
		r := run(t, "gosdk-http", runner.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
	})
}

// TestGoSDKServerToolsOnly runs the whole suite on the go-sdk server offering tools alone: the
// rules of resources, prompts, completion and logging must be na (or untestable), never fail.
func TestGoSDKServerToolsOnly(t *testing.T) {
	t.Parallel()
	bin := buildSDKServer(t, "gosdk")
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		r := run(t, "gosdk-tools-only-stdio", runner.Config{Transport: "stdio", Command: []string{bin, "-transport", "stdio", "-tools-only"}})
		require.Contains(t, r.Revisions, "2026-07-28")
		requireFairToUnoffered(t, r, unofferedAreas...)
	})
	t.Run("http-stateless", func(t *testing.T) {
		t.Parallel()
		url := testutil.StartHTTPServer(t, 60*time.Second, bin, "-transport", "http", "-stateless", "-tools-only")
		r := run(t, "gosdk-tools-only-http-stateless", runner.Config{Transport: "http", URL: url})
		require.Contains(t, r.Revisions, "2026-07-28")
		requireFairToUnoffered(t, r, unofferedAreas...)
	})
}

// TestMCPGoServer runs the whole suite on the mcp-go v1.2.1 server (every revision) over stdio and
// over stateful Streamable HTTP.
func TestMCPGoServer(t *testing.T) {
	t.Parallel()
	bin := buildSDKServer(t, "mcpgo")
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		r := run(t, "mcpgo-stdio", runner.Config{Transport: "stdio", Command: []string{bin, "-transport", "stdio"}})
		require.NotEmpty(t, r.Revisions)
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		url := testutil.StartHTTPServer(t, 60*time.Second, bin, "-transport", "http")
		r := run(t, "mcpgo-http", runner.Config{Transport: "http", URL: url})
		require.Equal(t, revisions.IDs(), r.Revisions, "mcp-go accepts all five revisions; notes: %v", r.Notes)
	})
}

// TestServerFilesystemStdio runs the whole suite on the npm filesystem server (legacy revisions,
// stdio), allowed one empty temporary folder.
func TestServerFilesystemStdio(t *testing.T) {
	t.Parallel()
	entry := nodeModule(t, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
	root := t.TempDir()
	r := run(t, "server-filesystem-stdio", runner.Config{Transport: "stdio", Command: []string{nodeBinary(t), entry, root}})
	require.NotEmpty(t, r.Revisions)
}

// lostSession is what the ts-sessions server answers a request that came without the
// Mcp-Session-Id of a live session.
const lostSession = "No valid session ID provided"

// requireNoLostSession fails the test if a fail or warn result cites a server frame refusing a
// request for lacking its session id: the suite carries the session on every request it sends
// in one, so such a refusal is the suite's fault, never a rule's evidence.
func requireNoLostSession(t *testing.T, r *reports.Run) {
	t.Helper()
	lost := map[int]bool{}
	for _, f := range r.Frames {
		if f.Dir == "s2c" && strings.Contains(f.Raw, lostSession) {
			lost[f.Seq] = true
		}
	}
	var bad []string
	for _, res := range r.Results {
		for _, seq := range res.Frames {
			if !lost[seq] {
				continue
			}
			line := fmt.Sprintf("%s %s@%s cites frame %d: %s", res.Verdict, res.Rule, res.Revision, seq, res.Reason)
			t.Logf("refused for lacking a session: %s", line)
			if res.Verdict == reports.Fail || res.Verdict == reports.Warn {
				bad = append(bad, line)
			}
			break
		}
	}
	t.Logf("%d server frames of the run refused a request without a valid session id", len(lost))
	require.Empty(t, bad, "no rule may fail or warn because the suite lost the session id")
}
