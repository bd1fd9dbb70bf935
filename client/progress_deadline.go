package client

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
)

// ProgressTimeoutCap bounds how far progress notifications may stretch a request's deadline:
// at most ProgressTimeoutCap times the request's own wait (--timeout, so 60 s at the default
// 10 s). basic/lifecycle#Timeouts (2025-11-25; basic/patterns/cancellation at 2026-07-28) lets
// a client reset its timeout clock on each progress notification for the request and asks it
// to enforce a maximum timeout all the same.
const ProgressTimeoutCap = 6

// requestContext returns the context to wait for req's reply in: wait after now when req
// sets no `_meta.progressToken`; otherwise wait after the latest notifications/progress that
// carries req's token (the same JSON value, so "1" does not match 1) on the scenario's
// connection, and never more than ProgressTimeoutCap*wait after now. A long-running tool that
// reports progress is thus not cut off by --timeout, and one that goes silent still is. The
// cancel function releases the timer and the frame observer; call it when the reply is in.
func (w *Session) requestContext(ctx context.Context, req harness.Request, wait time.Duration) (context.Context, context.CancelFunc) {
	tok := requestProgressToken(req.Raw)
	if tok == "" || req.Notification || w.Conn == nil {
		return context.WithTimeout(ctx, wait)
	}
	cctx, cancel := context.WithTimeout(ctx, ProgressTimeoutCap*wait)
	var mu sync.Mutex
	idle := time.AfterFunc(wait, cancel)
	conn := w.Conn.Conn()
	remove := w.Env.Recorder().OnFrame(func(f *harness.Frame) {
		if f.Conn != conn || f.Dir != harness.DirServerToClient || f.Method != "notifications/progress" {
			return
		}
		if progressNotificationToken(f.Raw) != tok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if cctx.Err() == nil {
			idle.Reset(wait)
		}
	})
	return cctx, func() {
		remove()
		mu.Lock()
		idle.Stop()
		mu.Unlock()
		cancel()
	}
}

// requestProgressToken returns the canonical form (harness.IDKey: "1" and 1 stay distinct) of a
// request's `params._meta.progressToken`, or "" when it has none, it is null, or raw is not a
// JSON object.
func requestProgressToken(raw []byte) string {
	var m struct {
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return tokenKey(m.Params.Meta.ProgressToken)
}

// progressNotificationToken returns the canonical form of a notifications/progress frame's
// `params.progressToken`, or "".
func progressNotificationToken(raw []byte) string {
	var m struct {
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	return tokenKey(m.Params.ProgressToken)
}

// tokenKey is harness.IDKey for a progress token, "" for a null one.
func tokenKey(raw json.RawMessage) string {
	if k := harness.IDKey(raw); k != "null" {
		return k
	}
	return ""
}
