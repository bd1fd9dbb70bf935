package steps

import (
	"context"
	"fmt"
	"sync"
	"time"

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
func httpOf(w *world) *httpState {
	return stateOf(w, func() *httpState { return &httpState{} })
}

// listenRun is one subscriptions/listen request held open by the suite: the exchange (frames
// up to the moment the suite closed it), how its reading ended, and whether the server closed
// the stream itself before the suite did.
type listenRun struct {
	ex           *harness.Exchange
	info         harness.StreamInfo
	serverClosed bool
	hold         time.Duration
}

// Names of the Streamable HTTP checks that look at SSE traffic.
const (
	progressMeta     = "progressToken"
	logLevelMeta     = "io.modelcontextprotocol/logLevel"
	listenMethod     = "subscriptions/listen"
	foreignOrigin    = "http://evil.example"
	unknownPrompt    = "mcpconform-no-such-prompt"
	noSSEInThisRun   = "the server answered no request of this run with an SSE stream, so there is no stream to judge"
	noListenDeclared = "the server does not offer subscriptions/listen, which SUB-001 judges"
)

// listenHold is how long the suite keeps a subscriptions/listen stream open to see that the
// server keeps it open too.
func (w *session) listenHold() time.Duration {
	return max(time.Second, 2*w.opts.QuietWindow)
}

// holdListen POSTs subscriptions/listen on a connection of its own and, once the first event
// arrives, runs during (when not nil) and then keeps the stream open for hold before closing
// it. Reading always ends: at the request timeout when no event comes, when the server closes
// the stream, or when the suite closes it.
func (w *session) holdListen(ctx context.Context, during func(context.Context) error, hold time.Duration) error {
	if !w.t.Modern {
		// subscriptions/listen is a method of the modern revision only: a legacy target
		// (HTTP-006 holds since 2025-03-26) gets the rest of the scenario without it.
		if during != nil {
			return during(ctx)
		}
		return nil
	}
	t, err := w.env.Dial(ctx, w.t.Revision)
	if err != nil {
		return fmt.Errorf("cannot open a connection for the listen stream: %w", err)
	}
	w.own = append(w.own, t)
	h, ok := t.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	filter := map[string]any{}
	if _, ok := w.t.Caps["tools"]; ok {
		filter["toolsListChanged"] = true
	}
	req := w.build(call{Method: listenMethod, Era: eraModern, Params: map[string]any{"notifications": filter}})

	first := make(chan struct{})
	var once sync.Once
	conn := h.Conn()
	// The observer stays registered for the rest of the run; after the first event it only
	// compares a connection number.
	w.env.Recorder().OnFrame(func(f *harness.Frame) {
		if f.Conn == conn && f.Dir == harness.DirServerToClient {
			once.Do(func() { close(first) })
		}
	})
	lctx, cancel := context.WithTimeout(ctx, 2*w.timeout()+hold)
	defer cancel()
	type result struct {
		ex   *harness.Exchange
		info harness.StreamInfo
	}
	done := make(chan result, 1)
	go func() {
		ex, info := h.SendStream(lctx, req)
		done <- result{ex, info}
	}()
	var res result
	ended := false
	timer := time.NewTimer(w.timeout())
	defer timer.Stop()
	select {
	case <-first:
	case res = <-done:
		ended = true
	case <-timer.C:
		cancel()
	}
	var duringErr error
	if !ended {
		if during != nil {
			duringErr = during(ctx)
		}
		holdTimer := time.NewTimer(hold)
		defer holdTimer.Stop()
		select {
		case res = <-done:
			ended = true
		case <-holdTimer.C:
		}
		cancel()
		if !ended {
			res = <-done
		}
	}
	lr := &listenRun{ex: res.ex, info: res.info, serverClosed: res.info.End == harness.EndEOF, hold: hold}
	w.streamsMu.Lock()
	w.listen = lr
	w.streamsMu.Unlock()
	w.note(res.ex)
	if duringErr != nil {
		return duringErr
	}
	return ctx.Err()
}
