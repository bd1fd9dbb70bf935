package judge

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// The endpoint event of HTTP+SSE carries a URI, not a message: MSG-002 (a message is UTF-8
// without a byte order mark) does not judge it, and judges the message events of the stream.
func TestSSEEndpointEventIsNoMessage(t *testing.T) {
	ev := func(seq int, event, data string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Transport: harness.TransportSSE, Conn: 1,
			Raw: []byte(data), SSE: &harness.SSEMeta{Event: event}}
	}
	bom := "\xef\xbb\xbf"
	o := judgeRule(t, "MSG-002", []*harness.Frame{ev(1, "endpoint", bom+"/messages?sessionId=1")})
	require.Nil(t, o.Mismatch)
	require.Zero(t, o.Judged)
	o = judgeRule(t, "MSG-002", []*harness.Frame{ev(1, "endpoint", "/messages?sessionId=1"), ev(2, "message", bom+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)})
	require.NotNil(t, o.Mismatch, "a message event with a byte order mark")
}
