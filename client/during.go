package client

import (
	"bytes"
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
	conn, mark := w.Conn.Conn(), []byte(`"`+token+`"`)
	started := make(chan struct{})
	var once sync.Once
	// The observer stays registered for the rest of the run; after the first match it only
	// compares a connection number.
	w.Env.Recorder().OnFrame(func(f *harness.Frame) {
		if f.Conn == conn && f.Dir == harness.DirServerToClient && bytes.Contains(f.Raw, []byte(`"notifications/progress"`)) && bytes.Contains(f.Raw, mark) {
			once.Do(func() { close(started) })
		}
	})
	lctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	done := make(chan *harness.Exchange, 1)
	go func() {
		ex, _ := w.Conn.Send(lctx, long)
		done <- ex
	}()
	d := &During{}
	timer := time.NewTimer(w.Timeout())
	defer timer.Stop()
	select {
	case <-started:
		d.Running = true
		sctx, scancel := context.WithTimeout(ctx, w.Timeout())
		d.Second, _ = w.Conn.Send(sctx, second)
		scancel()
		d.Long = <-done
	case d.Long = <-done:
	case <-timer.C:
		cancel()
		d.Long = <-done
	}
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
