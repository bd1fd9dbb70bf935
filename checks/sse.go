package checks

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// sseEvents returns the events the server sent on the SSE stream of an HTTP+SSE connection,
// in order, from its frames (the POST replies, which carry no SSE meta, left out).
func sseEvents(frames []*harness.Frame) []*harness.Frame {
	var out []*harness.Frame
	for _, f := range frames {
		if f.Dir == harness.DirServerToClient && f.SSE != nil {
			out = append(out, f)
		}
	}
	return out
}

// eventType is the type of a dispatched SSE event: "message" when it had no `event` field.
func eventType(f *harness.Frame) string {
	if f.SSE.Event == "" {
		return "message"
	}
	return f.SSE.Event
}

// SSEEndpointFirst judges SSE-001 (2024-11-05 basic/transports#HTTP with SSE: when a client
// connects, the server sends an `endpoint` event containing a URI) on the frames of one
// HTTP+SSE connection: the first event of its stream is `endpoint` and its data a URI
// reference. It returns why the rule cannot be judged when the stream carried no event.
func SSEEndpointFirst(frames []*harness.Frame) (untestable string, m *client.Mismatch) {
	evs := sseEvents(frames)
	if len(evs) == 0 {
		return "the SSE stream carried no event", nil
	}
	first := evs[0]
	if eventType(first) != "endpoint" {
		return "", &client.Mismatch{Expected: "the first event of the SSE stream to be endpoint, naming the URI to POST messages to",
			Actual: fmt.Sprintf("frame %d: a %q event came first: %s", first.Seq, eventType(first), client.Short(first.Raw)), Frames: []int{first.Seq}}
	}
	if _, err := url.Parse(string(first.Raw)); err != nil || len(first.Raw) == 0 {
		return "", &client.Mismatch{Expected: "the endpoint event's data to be a URI",
			Actual: fmt.Sprintf("frame %d: endpoint data %q", first.Seq, first.Raw), Frames: []int{first.Seq}}
	}
	return "", nil
}

// SSEPostsAccepted judges SSE-002 (2024-11-05 basic/transports#HTTP with SSE: the server
// provides an HTTP POST endpoint for clients to send messages) on the frames of one HTTP+SSE
// connection: every POST whose reply was recorded got a 2xx status. It returns why the rule
// cannot be judged when no POST got a reply.
func SSEPostsAccepted(frames []*harness.Frame) (untestable string, m *client.Mismatch) {
	posts := map[int]*harness.Frame{}
	for _, f := range frames {
		if f.Dir == harness.DirClientToServer && f.HTTP != nil && f.HTTP.Method == "POST" {
			posts[f.Seq] = f
		}
	}
	judged := 0
	for _, f := range frames {
		p := posts[f.ReplyTo]
		if f.Dir != harness.DirServerToClient || p == nil || f.HTTP == nil || f.HTTP.Status == 0 {
			continue
		}
		judged++
		if f.HTTP.Status/100 != 2 {
			return "", &client.Mismatch{Expected: "every message POSTed to the endpoint URI accepted with a 2xx status",
				Actual: fmt.Sprintf("frame %d: the POST of %s (frame %d) answered HTTP %d: %s", f.Seq, describeSent(p), p.Seq, f.HTTP.Status, client.Short(f.Raw)),
				Frames: []int{p.Seq, f.Seq}}
		}
	}
	if judged == 0 {
		return "no POST to the endpoint URI got an HTTP reply", nil
	}
	return "", nil
}

// describeSent names a client message: its method, or "a response" for one without.
func describeSent(f *harness.Frame) string {
	if f.Method != "" {
		return f.Method
	}
	return "a message"
}

// SSEMessageEvents judges SSE-003 (2024-11-05 basic/transports#HTTP with SSE: server messages
// are sent as SSE `message` events, the message JSON-encoded in the event data) on the frames of
// one HTTP+SSE connection: every event but the first endpoint event is a `message` event whose
// data is one JSON object. It returns why the rule cannot be judged when no such event came.
func SSEMessageEvents(frames []*harness.Frame) (untestable string, m *client.Mismatch) {
	judged, skipped := 0, false
	for _, f := range sseEvents(frames) {
		if !skipped && eventType(f) == "endpoint" {
			skipped = true // the endpoint event, judged by SSE-001
			continue
		}
		if f.Truncated {
			continue
		}
		judged++
		var obj map[string]json.RawMessage
		switch {
		case eventType(f) != "message":
			return "", &client.Mismatch{Expected: "every server message on the SSE stream sent as a message event",
				Actual: fmt.Sprintf("frame %d: a %q event: %s", f.Seq, eventType(f), client.Short(f.Raw)), Frames: []int{f.Seq}}
		case json.Unmarshal(f.Raw, &obj) != nil:
			return "", &client.Mismatch{Expected: "the data of every message event to be the JSON message",
				Actual: fmt.Sprintf("frame %d: message event data %s", f.Seq, client.Short(f.Raw)), Frames: []int{f.Seq}}
		}
	}
	if judged == 0 {
		return "no server message came on the SSE stream", nil
	}
	return "", nil
}

// SSEOriginRefused judges SSE-004 (2024-11-05 basic/transports#Security Warning: servers MUST
// validate the Origin header on all incoming connections) on first, the first server frame of
// a GET of the SSE endpoint that carried the foreign origin: the server opens no stream for it,
// so the reply is not a 2xx event stream (the revision names no status for the refusal). It
// returns why the rule cannot be judged when the GET got no reply (first nil).
func SSEOriginRefused(first *harness.Frame, origin string, seqs []int) (untestable string, m *client.Mismatch) {
	if first == nil || first.HTTP == nil {
		return "the GET of the SSE endpoint with Origin " + origin + " got no reply in time", nil
	}
	if first.HTTP.Status/100 == 2 && first.SSE != nil {
		return "", &client.Mismatch{Expected: "a GET of the SSE endpoint with Origin " + origin + " refused",
			Actual: fmt.Sprintf("frame %d: HTTP %d and an SSE stream whose first event is %q: %s", first.Seq, first.HTTP.Status, eventType(first), client.Short(first.Raw)),
			Frames: seqs}
	}
	return "", nil
}
