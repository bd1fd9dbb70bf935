package client

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
)

// OpenSSEWithOrigin opens a new HTTP+SSE connection whose GET of the SSE endpoint carries
// `Origin: origin`, waits up to Timeout for the reply to the GET (its first server frame), closes
// the connection, and returns that frame (nil when none came) with the seqs of the
// connection's frames, which the scenario notes. It errors when the session does not speak
// HTTP+SSE or the connection cannot be made.
func (w *Session) OpenSSEWithOrigin(ctx context.Context, origin string) (*harness.Frame, []int, error) {
	if w.Opts.Transport != harness.TransportSSE {
		return nil, nil, fmt.Errorf("feature bug: an HTTP+SSE rule on transport %s", w.Opts.Transport)
	}
	s, err := harness.DialSSE(ctx, harness.SSEConfig{URL: w.Opts.URL, OpenHeader: http.Header{"Origin": {origin}},
		Recorder: w.Env.Recorder(), QuietWindow: w.Opts.QuietWindow})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	wctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	first := s.WaitFrame(wctx, 0, func(f *harness.Frame) bool { return f.HTTP != nil })
	var seqs []int
	for _, f := range s.Frames() {
		seqs = append(seqs, f.Seq)
		w.Seqs[f.Seq] = true
	}
	return first, seqs, nil
}

// SettleStream waits the quiet window on a connection whose server messages all share one
// stream (a stdio process, an HTTP+SSE stream), so that what the server sends after the last
// reply (a notification a trigger caused) is recorded before the scenario judges; the end of
// the process or stream, or of ctx, ends the wait early. On Streamable HTTP it does nothing
// (the streams the scenario holds are settled by SettleHeld).
func (w *Session) SettleStream(ctx context.Context) {
	var ended <-chan struct{}
	if p, ok := w.Conn.Process(); ok {
		ended = p.Exited()
	} else if _, ok := w.Conn.SSEStream(); !ok {
		return
	}
	t := time.NewTimer(w.Opts.QuietWindow)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-ended:
	}
}
