package steps

import (
	"sync"

	"github.com/mcp-conform/mcp-conform/harness"
)

// httpState is what the Streamable HTTP steps of one scenario keep besides the session (which
// holds how each SSE reply ended, the requests sent at once and the listen stream held).
type httpState struct {
	mu      sync.Mutex
	oldInit *harness.Exchange // the initialize asking for 2025-03-26 (VER-006)
}

// httpOf returns the scenario's state for Streamable HTTP (HTTP, ERR-010, VER-005/006), made on
// first use (see stateOf).
func httpOf(w *World) *httpState {
	return stateOf(w, func() *httpState { return &httpState{} })
}

// Names of the Streamable HTTP checks that look at SSE traffic.
const (
	logLevelMeta     = "io.modelcontextprotocol/logLevel"
	foreignOrigin    = "http://evil.example"
	unknownPrompt    = "mcpconform-no-such-prompt"
	noSSEInThisRun   = "the server answered no request of this run with an SSE stream, so there is no stream to judge"
	noListenDeclared = "the server does not offer subscriptions/listen, which SUB-001 judges"
)
