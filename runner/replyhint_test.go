package runner_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/runner"
)

// abortedAgainst runs the suite against a loopback endpoint served by h at path and returns
// why the run could not be carried out.
func abortedAgainst(t *testing.T, h http.HandlerFunc, path string, header ...string) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := runner.Config{
		Transport: "http", URL: srv.URL + path, Revision: "auto", StartupTimeout: 5 * time.Second, Timeout: 5 * time.Second,
		QuietWindow: 100 * time.Millisecond, RunTimeout: 30 * time.Second, MaxFrame: 1 << 20, Schemas: testutil.Schemas(t),
	}
	if len(header) == 2 {
		cfg.Header = http.Header{header[0]: {header[1]}}
	}
	run, err := runner.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, run.Aborted)
	return run.Aborted
}

// TestReplyHintCredentials: an endpoint answering 401 (with or without WWW-Authenticate, with
// a JSON body or none) or 403 is reported as wanting credentials, with the --header to pass.
func TestReplyHintCredentials(t *testing.T) {
	for name, tc := range map[string]struct {
		status int
		auth   string
		body   string
	}{
		"401 with WWW-Authenticate": {401, `Bearer resource_metadata="http://x/.well-known"`, `{"error":"unauthorized"}`},
		"401 without":               {401, "", ""},
		"403":                       {403, "", "forbidden"},
	} {
		t.Run(name, func(t *testing.T) {
			why := abortedAgainst(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.auth != "" {
					w.Header().Set("WWW-Authenticate", tc.auth)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}, "/mcp")
			require.True(t, strings.HasPrefix(why, "the endpoint wants credentials: pass --header 'Authorization: …'"), why)
			require.Contains(t, why, fmt.Sprintf("HTTP %d", tc.status))
			if tc.auth != "" {
				require.Contains(t, why, "WWW-Authenticate: ")
				require.Contains(t, why, "resource_metadata")
			}
		})
	}
	// Credentials were passed and refused: the hint says so instead of asking for them.
	why := abortedAgainst(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}, "/mcp", "Authorization", "Bearer sekrit")
	require.True(t, strings.HasPrefix(why, "the endpoint refused the credentials sent (Authorization from --header)"), why)
	require.NotContains(t, why, "sekrit")
}

// TestReplyHintNotJSON: a body that is not JSON is shown with its Content-Type and first 200
// bytes, quoted (no control character); a 404 or an HTML page asks whether the path is the MCP
// endpoint.
func TestReplyHintNotJSON(t *testing.T) {
	long := "<!doctype html><html><body>\x1b[31mred\x07" + strings.Repeat("x", 300) + "</body></html>"
	for name, tc := range map[string]struct {
		path, ct, body string
		status         int
		want           []string
		pathHint       bool
	}{
		"html at root": {"/", "text/html; charset=utf-8", long, 200,
			[]string{`Content-Type "text/html; charset=utf-8"`, `\x1b[31mred\a`, "; is /mcp the MCP endpoint? the server answered an HTML page for /"}, true},
		"404 page": {"/api", "text/plain; charset=utf-8", "404 page not found\n", 404,
			[]string{"HTTP 404", `body "404 page not found\n"`, "is /api the MCP endpoint? the server answered 404 for it"}, true},
		"text/plain 200": {"/mcp", "text/plain", "hello", 200, []string{`Content-Type "text/plain"`, `body "hello"`}, false},
	} {
		t.Run(name, func(t *testing.T) {
			why := abortedAgainst(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ct)
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}, tc.path)
			for _, s := range tc.want {
				require.Contains(t, why, s)
			}
			require.Equal(t, tc.pathHint, strings.Contains(why, "the MCP endpoint?"), why)
			require.NotContains(t, why, "\x1b", "no control character reaches the message")
			require.NotContains(t, why, "\x07")
			if len(tc.body) > 200 {
				require.Contains(t, why, `xxx"...`, "the snippet stops at 200 bytes")
				require.NotContains(t, why, "</body>")
			}
		})
	}
}
