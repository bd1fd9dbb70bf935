package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
)

// During is what SendDuring observed: the exchange of the long request, the exchange of the
// request sent while it ran (nil when it was not sent), and Running, whether the server showed
// it was working on the long request (a notifications/progress with its token) before the
// second request went out.
type During struct {
	Long    *harness.Exchange
	Second  *harness.Exchange
	Running bool
}

// SendDuring sends long, a request that set progress token token, and, as soon as the server
// sends a notifications/progress carrying that token on the scenario's connection (proof that
// the request is in flight: progress comes before the response), sends second on the same
// connection. When long is answered, or --timeout passes, without such a notification, second
// is not sent and Running is false. Both exchanges are noted; it errors as Send does.
func (w *Session) SendDuring(ctx context.Context, long harness.Request, token string, second harness.Request) (*During, error) {
	if w.Conn == nil {
		return nil, fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	d := &During{}
	d.Long, d.Running = w.whileInFlight(ctx, long, token, func(done <-chan *harness.Exchange, _ context.CancelFunc) *harness.Exchange {
		sctx, scancel := context.WithTimeout(ctx, w.Timeout())
		d.Second, _ = w.Conn.Send(sctx, second)
		scancel()
		return <-done
	})
	for _, ex := range []*harness.Exchange{d.Long, d.Second} {
		if ex != nil {
			w.Note(ex)
		}
	}
	if d.Long == nil {
		return d, fmt.Errorf("transport returned no exchange")
	}
	if d.Second != nil {
		w.Fresh = false
		w.LastID = second.ID
	}
	return d, ctx.Err()
}

// whileInFlight sends long, a request that set progress token token, on the scenario's
// connection and returns its exchange. As soon as the server sends a notifications/progress
// carrying that token (the request is in flight: progress comes before the response) it calls
// inFlight, which returns long's exchange from done, or calls abandon to stop waiting for it
// first; running is then true. When long is answered, or --timeout passes, without such a
// notification, inFlight is not called.
func (w *Session) whileInFlight(ctx context.Context, long harness.Request, token string,
	inFlight func(done <-chan *harness.Exchange, abandon context.CancelFunc) *harness.Exchange) (ex *harness.Exchange, running bool) {
	started, unwatch := w.progressSeen(token)
	defer unwatch()
	lctx, cancel := w.requestContext(ctx, long, w.Timeout())
	defer cancel()
	done := make(chan *harness.Exchange, 1)
	go func() {
		ex, _ := w.Conn.Send(lctx, long)
		done <- ex
	}()
	timer := time.NewTimer(w.Timeout())
	defer timer.Stop()
	select {
	case <-started:
		return inFlight(done, cancel), true
	case ex = <-done:
	case <-timer.C:
		cancel()
		ex = <-done
	}
	return ex, false
}

// progressSeen returns a channel closed when the server sends, on the scenario's connection, a
// notifications/progress carrying token, and the function that stops watching.
func (w *Session) progressSeen(token string) (<-chan struct{}, func()) {
	conn, key := w.Conn.Conn(), harness.IDKey(mustJSON(token))
	started := make(chan struct{})
	var once sync.Once
	remove := w.Env.Recorder().OnFrame(func(f *harness.Frame) {
		if f.Conn == conn && f.Dir == harness.DirServerToClient && f.Method == "notifications/progress" && progressNotificationToken(f.Raw) == key {
			once.Do(func() { close(started) })
		}
	})
	return started, remove
}

// Cancelled is what CancelDuring observed: the exchange of the cancelled request (its Response
// nil when none came), the cancellation frame (nil when it was not sent), the sentinel's
// exchange, and Running, whether the request was provably in flight when it was cancelled.
type Cancelled struct {
	Long     *harness.Exchange
	Cancel   *harness.Frame
	Sentinel *harness.Exchange
	Running  bool
}

// CancelDuring sends long, a request that set progress token token, and, as soon as the server
// sends a notifications/progress carrying that token (the request is in flight), a
// notifications/cancelled naming it, then a harmless request on the same connection as the
// sentinel: once the sentinel is answered, one quiet window later (--quiet-window, DESIGN
// "Absence is proved by a sentinel") a response to long that has not come is taken as not
// coming, and the wait for it ends. Without such a notification before long is answered (or
// --timeout) nothing is cancelled and Running is false. The exchanges are noted.
func (w *Session) CancelDuring(ctx context.Context, long harness.Request, token string) (*Cancelled, error) {
	if w.Conn == nil {
		return nil, fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	c := &Cancelled{}
	c.Long, c.Running = w.whileInFlight(ctx, long, token, func(done <-chan *harness.Exchange, abandon context.CancelFunc) *harness.Exchange {
		n := w.Build(Call{Method: "notifications/cancelled", Notification: true,
			Params: map[string]any{"requestId": long.ID, "reason": "conformance test: the client cancelled the request"}})
		n.ID, n.NoQuiet = nil, true
		sctx, scancel := context.WithTimeout(ctx, w.Timeout())
		if ex, _ := w.Conn.Send(sctx, n); ex != nil {
			c.Cancel = ex.Sent
			w.Note(ex)
		}
		c.Sentinel, _ = w.Conn.Send(sctx, w.Build(Call{Method: w.Harmless()}))
		scancel()
		quiet := time.NewTimer(w.Opts.QuietWindow)
		defer quiet.Stop()
		select {
		case ex := <-done:
			return ex
		case <-quiet.C:
			abandon()
			return <-done
		}
	})
	for _, ex := range []*harness.Exchange{c.Long, c.Sentinel} {
		if ex != nil {
			w.Note(ex)
		}
	}
	if c.Long == nil {
		return c, fmt.Errorf("transport returned no exchange")
	}
	w.Fresh = false
	return c, ctx.Err()
}
