package checks

import (
	"encoding/json"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// EmptyPingResult grades LEG-008 (basic/utilities/ping#Behavior Requirements: the receiver
// answers a ping promptly with an empty response) on the exchange of one ping: a result whose
// object holds nothing but, optionally, `_meta`. No response within the request timeout, an
// error or a result with other members is a mismatch; what citing adds to the frames (the
// exchange's own come first).
func EmptyPingResult(ex *harness.Exchange, what string, cite []int) *client.Mismatch {
	var frames []int
	if ex != nil {
		frames = ExchangeSeqs(ex)
	}
	frames = append(frames, cite...)
	msg := client.ResponseOf(ex)
	switch {
	case msg == nil:
		return &client.Mismatch{Expected: "an empty result to ping" + what + ", promptly", Actual: "no response within --timeout", Frames: frames}
	case msg.Kind != harness.KindResult:
		return &client.Mismatch{Expected: "an empty result to ping" + what, Actual: client.Describe(msg), Frames: frames}
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(msg.Result, &res) != nil || res == nil {
		return &client.Mismatch{Expected: "an empty result object to ping" + what, Actual: "result " + string(msg.Result), Frames: frames}
	}
	if extra := nonMetaMembers(res); len(extra) > 0 {
		return &client.Mismatch{Expected: "an empty result to ping" + what + " (only _meta allowed)", Actual: "result members " + strings.Join(extra, ", "), Frames: frames}
	}
	return nil
}

// PreInitializedTraffic grades LEG-005 (basic/lifecycle#Initialization: before the client's
// notifications/initialized the server should send no request but ping and no message but
// logging) on frames, the frames of one connection in order, from its initialize request to
// the initialized notification the client sent after a sentinel had been answered. Server
// requests other than ping and notifications other than notifications/message are a defect;
// responses are the answers to the client's own requests. ok is false when frames hold no
// initialize or no initialized notification (nothing to judge).
func PreInitializedTraffic(frames []*harness.Frame) (m *client.Mismatch, ok bool) {
	start, end := -1, -1
	for i, f := range frames {
		if f.Dir != harness.DirClientToServer {
			continue
		}
		msg, _ := harness.ParseMessage(f.Body())
		switch {
		case msg == nil:
		case msg.Method == "initialize" && start < 0:
			start = i
		case msg.Method == "notifications/initialized" && start >= 0 && end < 0:
			end = i
		}
	}
	if start < 0 || end < 0 {
		return nil, false
	}
	for _, f := range frames[start:end] {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, _ := harness.ParseMessage(f.Body())
		if msg == nil {
			continue // not a message: the framing rules'
		}
		bad := ""
		switch {
		case msg.Kind == harness.KindRequest && msg.Method != "ping":
			bad = "request " + msg.Method
		case msg.Kind == harness.KindNotification && msg.Method != "notifications/message":
			bad = "notification " + msg.Method
		}
		if bad != "" {
			return &client.Mismatch{Expected: "no request but ping and no notification but log messages before notifications/initialized",
				Actual: bad + " before the client sent notifications/initialized",
				Frames: []int{frames[start].Seq, f.Seq, frames[end].Seq}}, true
		}
	}
	return nil, true
}
