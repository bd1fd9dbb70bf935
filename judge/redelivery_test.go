package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-conform/mcp-conform/harness"
)

// TestMSG013TakesARedeliveredEventForTheSameResponse: the response event a resumed stream
// replays (same SSE id, same bytes) is the one response, redelivered; a second response with
// another event id is still a second response.
func TestMSG013TakesARedeliveredEventForTheSameResponse(t *testing.T) {
	req := &harness.Frame{Seq: 1, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)}
	resp := func(seq int, id string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Raw: []byte(`{"jsonrpc":"2.0","id":7,"result":{}}`),
			SSE: &harness.SSEMeta{ID: id, HasID: true, Retry: -1}}
	}
	o := judgeRule(t, "MSG-013", []*harness.Frame{req, resp(2, "3-3"), resp(3, "3-3")})
	assert.Nil(t, o.Mismatch)
	o = judgeRule(t, "MSG-013", []*harness.Frame{req, resp(2, "3-3"), resp(3, "3-4")})
	assert.NotNil(t, o.Mismatch)
}
