package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

func pingExchange(reply string) *harness.Exchange {
	ex := &harness.Exchange{Sent: &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}}
	if reply != "" {
		ex.Response = &harness.Frame{Seq: 2, Dir: harness.DirServerToClient, Raw: []byte(reply)}
	}
	return ex
}

// TestEmptyPingResult: {} and a result with only _meta pass; members, an error or silence fail.
func TestEmptyPingResult(t *testing.T) {
	assert.Nil(t, EmptyPingResult(pingExchange(`{"jsonrpc":"2.0","id":1,"result":{}}`), "", nil))
	assert.Nil(t, EmptyPingResult(pingExchange(`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"x":1}}}`), "", nil))
	for reply, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{"status":"ok"}}`:               "result members status",
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`: "-32601",
		"": "no response",
	} {
		m := EmptyPingResult(pingExchange(reply), " sent while a tool ran", []int{9})
		require.NotNil(t, m, reply)
		assert.Contains(t, m.Actual, want)
		assert.Contains(t, m.Expected, "while a tool ran")
		assert.Equal(t, 9, m.Frames[len(m.Frames)-1])
	}
	assert.NotNil(t, EmptyPingResult(nil, "", []int{3}))
}
