package runner

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// sseRefusals are the statuses of a POSTed initialize after which a client that supports the
// deprecated HTTP+SSE transport tries it (2025-03-26 basic/transports#Backwards Compatibility:
// "fails with an HTTP 4xx status code (e.g., 405 Method Not Allowed or 404 Not Found)").
var sseRefusals = map[int]bool{http.StatusBadRequest: true, http.StatusNotFound: true, http.StatusMethodNotAllowed: true}

// sseFallback is tried over HTTP when neither era answered: when the legacy handshake's POST
// of initialize was refused with 400, 404 or 405 (h) and the run may fall back
// (Config.SSEFallback), a GET of the URL that opens an SSE stream whose first event is
// `endpoint` means the server speaks the HTTP+SSE transport of 2024-11-05; the run then goes on
// over it (e.cfg.Transport becomes sse) and the legacy handshake is done there. It returns the
// legacy target (nil when none), the notes, and why the run cannot go on ("" when it can).
func (e *env) sseFallback(ctx context.Context, h *legacyHandshake) (*target, []string, string) {
	if !e.cfg.SSEFallback || e.cfg.Transport != harness.TransportHTTP || h == nil || h.ex == nil || h.ex.HTTP == nil ||
		!sseRefusals[h.ex.HTTP.Status] {
		return nil, nil, ""
	}
	status := h.ex.HTTP.Status
	e.cfg.Transport = harness.TransportSSE
	t, err := e.dial(ctx, revisions.Oldest().ID)
	if err != nil {
		e.cfg.Transport = harness.TransportHTTP
		return nil, []string{"no HTTP+SSE transport: " + err.Error()}, ""
	}
	first, why := firstSSEEvent(ctx, t, e.cfg.StartupTimeout)
	e.release(t)
	if first == nil || first.SSE.Event != "endpoint" {
		e.cfg.Transport = harness.TransportHTTP
		return nil, []string{fmt.Sprintf("no HTTP+SSE transport: initialize was refused with HTTP %d, and the GET of the URL %s", status, why)}, ""
	}
	note := fmt.Sprintf("HTTP+SSE transport (%s) detected: initialize was refused with HTTP %d and a GET of the URL opened an SSE stream whose first event is endpoint (basic/transports#Backwards Compatibility)", revisions.Oldest().ID, status)
	tg, more, _, abort := e.detectLegacy(ctx, nil)
	return tg, []string{note, more}, abort
}

// firstSSEEvent waits, bounded by wait, for the first event of the SSE stream of t, an HTTP+SSE
// connection; when none comes it returns nil and what the GET got instead.
func firstSSEEvent(ctx context.Context, t client.Conn, wait time.Duration) (*harness.Frame, string) {
	s, ok := t.SSEStream()
	if !ok {
		return nil, "was not made"
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	f := s.WaitFrame(wctx, 0, func(f *harness.Frame) bool { return f.SSE != nil || f.HTTP != nil })
	switch {
	case f == nil:
		if _, err := s.Ended(); err != nil {
			return nil, "failed: " + err.Error()
		}
		return nil, fmt.Sprintf("sent no event within %s", wait)
	case f.SSE == nil && f.Problem != "":
		return nil, "opened an SSE stream that ended without any event"
	case f.SSE == nil:
		return nil, fmt.Sprintf("answered HTTP %d with Content-Type %q, not an SSE stream", f.HTTP.Status, f.HTTP.Headers.Get("Content-Type"))
	case f.SSE.Event != "endpoint":
		return f, fmt.Sprintf("opened an SSE stream whose first event is %q, not endpoint", eventName(f.SSE.Event))
	}
	return f, ""
}

// eventName is the SSE event type of a dispatched event: "message" when the event field was absent.
func eventName(ev string) string {
	if ev == "" {
		return "message"
	}
	return ev
}
