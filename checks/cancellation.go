package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/harness"

	"github.com/mcp-conform/mcp-conform/client"
)

// CancelledUnanswered grades CANC-001 (basic/patterns/cancellation#Behavior Requirements: a
// server that receives a cancellation should not send a response for the cancelled request) on
// what client.Session.CancelDuring observed. why is set when there is nothing to judge: the
// request was never provably in flight, or its response came before the cancellation was sent
// (the race the spec allows). A response after the cancellation is a mismatch.
func CancelledUnanswered(c *client.Cancelled) (why string, m *client.Mismatch) {
	switch {
	case c == nil || c.Long == nil || !c.Running:
		return "the request reported no progress before its response, so it could not be cancelled while provably in flight", nil
	case c.Cancel == nil:
		return "the cancellation could not be sent", nil
	case c.Long.Response == nil:
		return "", nil
	case c.Long.Response.Seq < c.Cancel.Seq:
		return fmt.Sprintf("the response (frame %d) came before the cancellation was sent", c.Long.Response.Seq), nil
	}
	if done := completedBefore(c.Long.Frames, c.Cancel.Seq); done != 0 {
		return fmt.Sprintf("the request reported its work complete (progress equal to total, frame %d) before the cancellation was sent: its response after it is the race the spec allows", done), nil
	}
	return "", &client.Mismatch{Expected: "no response to a request after the client cancelled it",
		Actual: fmt.Sprintf("the response (frame %d) after notifications/cancelled (frame %d)", c.Long.Response.Seq, c.Cancel.Seq),
		Frames: []int{c.Long.Sent.Seq, c.Cancel.Seq, c.Long.Response.Seq}}
}

// completedBefore returns the seq of a notifications/progress among frames, before seq before,
// whose progress equals its total (the work reported complete), or 0 when there is none.
func completedBefore(frames []*harness.Frame, before int) int {
	for _, f := range frames {
		if f.Seq >= before || f.Dir != harness.DirServerToClient || f.Method != "notifications/progress" {
			continue
		}
		var n struct {
			Params struct {
				Progress *float64 `json:"progress"`
				Total    *float64 `json:"total"`
			} `json:"params"`
		}
		if json.Unmarshal(f.Raw, &n) == nil && n.Params.Progress != nil && n.Params.Total != nil && *n.Params.Progress == *n.Params.Total {
			return f.Seq
		}
	}
	return 0
}
