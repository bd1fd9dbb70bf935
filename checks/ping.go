package checks

import (
	"encoding/json"
	"sort"
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
	var extra []string
	for k := range res {
		if k != "_meta" {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return &client.Mismatch{Expected: "an empty result to ping" + what + " (only _meta allowed)", Actual: "result members " + strings.Join(extra, ", "), Frames: frames}
	}
	return nil
}
