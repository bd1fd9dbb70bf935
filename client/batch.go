package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// SendBatch sends calls, built as Build builds each (requests and notifications), as one
// JSON-RPC batch on the scenario's connection (harness.Request.Batch), and waits, bounded by the
// timeout, for a response to each request: w.Last is the exchange, its Responses those
// responses in the order of the requests among calls (nil where none came). It refuses a target whose revision has no batches (revisions.AllowsBatches): a
// batch there is a probe's malformed message, sent as such.
func (w *Session) SendBatch(ctx context.Context, calls []Call) error {
	if w.Conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	if !revisions.AllowsBatches(w.Target.Revision) {
		return fmt.Errorf("feature bug: revision %s has no JSON-RPC batches (tag the scenario with the revisions that have them)", w.Target.Revision)
	}
	var raws [][]byte
	var ids []json.RawMessage
	req := harness.Request{}
	for i, c := range calls {
		r := w.Build(c)
		if err := GuardShared(w.Conn, r); err != nil {
			return err
		}
		if i == 0 {
			req.Header, req.Omit = r.Header, r.Omit
		}
		raws = append(raws, r.Raw)
		if !c.Notification {
			ids = append(ids, r.ID)
		}
	}
	req.Raw, req.Batch, req.Notification = harness.BuildBatch(raws), ids, len(ids) == 0
	if w.Conn.Name() == harness.TransportStdio && len(ids) > 0 {
		// A silent server is concluded by a sentinel written after the batch, not by the
		// timeout (go-sdk over stdio cost the run 10 s).
		req.Sentinel = w.sentinel()
	}
	return w.Send(ctx, req)
}
