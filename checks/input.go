package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// InputCapability maps each request a server makes of the client to the client capability it
// needs (2025-11-25 client/sampling, client/elicitation, client/roots).
var InputCapability = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

// ServerRequests returns the requests (method and id, not notifications) among frames that
// the server sent, in order (nil frames skipped).
func ServerRequests(frames []*harness.Frame) []*harness.Frame {
	var out []*harness.Frame
	for _, f := range frames {
		if f == nil || f.Dir != harness.DirServerToClient {
			continue
		}
		if msg, err := harness.ParseMessage(f.Body()); err == nil && msg.Kind == harness.KindRequest {
			out = append(out, f)
		}
	}
	return out
}

// UndeclaredRequests grades LEG-006 (2025-11-25 basic/lifecycle#Operation): the server makes
// no sampling, elicitation or roots request of a client that did not declare that
// capability. declared are the client capabilities sent in initialize; frames are the
// scenario's. It owns only requests of a capability not declared at all: an elicitation mode
// or a sampling feature the client did not declare, under a declared capability, is
// INPUT-001's or INPUT-008's.
func UndeclaredRequests(declared map[string]json.RawMessage, frames []*harness.Frame) *client.Mismatch {
	for _, f := range ServerRequests(frames) {
		msg, _ := harness.ParseMessage(f.Body())
		need, ok := InputCapability[msg.Method]
		if !ok {
			continue
		}
		if _, has := declared[need]; !has {
			return &client.Mismatch{
				Expected: "no " + msg.Method + " request, since the client did not declare " + need,
				Actual:   fmt.Sprintf("frame %d: %s", f.Seq, client.Short(f.Body())),
				Frames:   []int{f.Seq},
			}
		}
	}
	return nil
}

// EveryCallAnswered grades INPUT-011 (client/elicitation#Error Handling): each tools/call
// whose elicitation the client declined or cancelled still gets a JSON-RPC response, a result
// (isError allowed) or an error, and no HTTP 5xx. exchanges are the calls. It returns the
// first call left without one.
func EveryCallAnswered(exchanges []*harness.Exchange) *client.Mismatch {
	for _, ex := range exchanges {
		seqs := []int{}
		for _, f := range ex.Frames {
			seqs = append(seqs, f.Seq)
		}
		if ex.HTTP != nil && ex.HTTP.Status >= 500 {
			return &client.Mismatch{Expected: "a response to the tools/call whose elicitation was declined or cancelled",
				Actual: fmt.Sprintf("HTTP %d", ex.HTTP.Status), Frames: seqs}
		}
		if ex.Response == nil {
			return &client.Mismatch{Expected: "a response to the tools/call whose elicitation was declined or cancelled",
				Actual: "no response came", Frames: seqs}
		}
		msg, err := harness.ParseMessage(ex.Response.Body())
		if err != nil || (msg.Kind != harness.KindResult && msg.Kind != harness.KindError) {
			return &client.Mismatch{Expected: "a JSON-RPC result or error answering the tools/call",
				Actual: client.Short(ex.Response.Body()), Frames: seqs}
		}
	}
	return nil
}

// AnsweredElicitations counts the elicitation/create requests among frames.
func AnsweredElicitations(frames []*harness.Frame) int {
	return len(requestsOf(frames, "elicitation/create"))
}
