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

// TestPreInitializedTraffic: a ping request and log messages before initialized pass, a list
// change notification or a sampling request does not; traffic after initialized is not judged.
func TestPreInitializedTraffic(t *testing.T) {
	frame := func(seq int, dir harness.Direction, raw string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: dir, Raw: []byte(raw)}
	}
	c, s := harness.DirClientToServer, harness.DirServerToClient
	base := []*harness.Frame{
		frame(1, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		frame(2, s, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`),
		frame(3, s, `{"jsonrpc":"2.0","id":1,"result":{}}`),
		frame(4, s, `{"jsonrpc":"2.0","id":"s1","method":"ping"}`),
		frame(5, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`),
		frame(6, s, `{"jsonrpc":"2.0","id":2,"result":{}}`),
	}
	initialized := frame(7, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	after := frame(8, s, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	m, ok := PreInitializedTraffic(append(append([]*harness.Frame{}, base...), initialized, after))
	assert.True(t, ok)
	assert.Nil(t, m)
	_, ok = PreInitializedTraffic(base)
	assert.False(t, ok, "no initialized: nothing to judge")
	for _, raw := range []string{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, `{"jsonrpc":"2.0","id":"s2","method":"sampling/createMessage","params":{}}`} {
		frames := append(append([]*harness.Frame{}, base...), frame(9, s, raw), initialized)
		m, ok = PreInitializedTraffic(frames)
		assert.True(t, ok)
		if assert.NotNil(t, m, raw) {
			assert.Equal(t, []int{1, 9, 7}, m.Frames)
		}
	}
}
