package checks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

func serverFrame(seq int, raw string) *harness.Frame {
	return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Raw: []byte(raw)}
}

// TestUndeclaredRequests: LEG-006 fails a request of a capability not declared at all, lets a
// declared one (whatever its mode: INPUT-001's) and a ping through.
func TestUndeclaredRequests(t *testing.T) {
	frames := []*harness.Frame{
		{Seq: 1, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)},
		serverFrame(2, `{"jsonrpc":"2.0","id":5,"method":"ping"}`),
		serverFrame(3, `{"jsonrpc":"2.0","id":6,"method":"elicitation/create","params":{"mode":"url"}}`),
		serverFrame(4, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`),
	}
	assert.Nil(t, UndeclaredRequests(map[string]json.RawMessage{"elicitation": json.RawMessage(`{}`)}, frames))
	m := UndeclaredRequests(map[string]json.RawMessage{}, frames)
	require.NotNil(t, m)
	assert.Equal(t, []int{3}, m.Frames)
	assert.Contains(t, m.Expected, "did not declare elicitation")
	frames = append(frames, serverFrame(5, `{"jsonrpc":"2.0","id":7,"method":"roots/list"}`))
	m = UndeclaredRequests(map[string]json.RawMessage{"elicitation": json.RawMessage(`{}`)}, frames)
	require.NotNil(t, m)
	assert.Equal(t, []int{5}, m.Frames)
}

// TestEveryCallAnswered: a result, an isError result or a JSON-RPC error pass; no response
// and HTTP 5xx fail.
func TestEveryCallAnswered(t *testing.T) {
	sent := &harness.Frame{Seq: 1, Dir: harness.DirClientToServer}
	ex := func(resp string, status int) *harness.Exchange {
		e := &harness.Exchange{Sent: sent, Frames: []*harness.Frame{sent}}
		if resp != "" {
			e.Response = serverFrame(2, resp)
			e.Frames = append(e.Frames, e.Response)
		}
		if status != 0 {
			e.HTTP = &harness.HTTPMeta{Status: status}
		}
		return e
	}
	assert.Nil(t, EveryCallAnswered([]*harness.Exchange{
		ex(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`, 200),
		ex(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"declined"}}`, 0),
	}))
	assert.NotNil(t, EveryCallAnswered([]*harness.Exchange{ex("", 0)}))
	m := EveryCallAnswered([]*harness.Exchange{ex("", 500)})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "HTTP 500")
	assert.Equal(t, 1, AnsweredElicitations([]*harness.Frame{serverFrame(3, `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`)}))
}
