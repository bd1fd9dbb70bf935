package checks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// serverFrame is a server-to-client frame with seq and body.
func serverFrame(seq int, body string) *harness.Frame {
	return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Raw: []byte(body)}
}

// TestNoticesAfter: only the server's notifications after the seq, in order; requests,
// responses, client frames and malformed bodies are skipped.
func TestNoticesAfter(t *testing.T) {
	frames := []*harness.Frame{
		serverFrame(1, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"early"}}`),
		serverFrame(2, `{"jsonrpc":"2.0","id":1,"result":{}}`),
		{Seq: 3, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
		serverFrame(4, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`),
		serverFrame(5, `not json`),
		serverFrame(6, `{"jsonrpc":"2.0","id":"s1","method":"ping"}`),
		serverFrame(7, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`),
	}
	got := NoticesAfter(frames, 2)
	require.Len(t, got, 2)
	assert.Equal(t, 4, got[0].Seq)
	assert.Equal(t, "notifications/resources/updated", got[0].Method)
	assert.JSONEq(t, `"test://a"`, string(got[0].Params["uri"]))
	assert.Equal(t, "notifications/tools/list_changed", got[1].Method)
	assert.Nil(t, got[1].Params)
}

// TestLogLevelKept: messages at or above the level pass, as does none at all; one below fails
// citing its frame; a level that is not a LoggingLevel is LOG-005's and is skipped.
func TestLogLevelKept(t *testing.T) {
	note := func(seq int, level string) Notice {
		return Notice{Seq: seq, Method: "notifications/message", Params: map[string]json.RawMessage{"level": json.RawMessage(`"` + level + `"`)}}
	}
	assert.Nil(t, LogLevelKept("error", nil))
	assert.Nil(t, LogLevelKept("error", []Notice{note(3, "error"), note(4, "emergency"), note(5, "verbose")}))
	m := LogLevelKept("error", []Notice{note(3, "critical"), note(8, "info"), note(9, "debug")})
	require.NotNil(t, m)
	assert.Equal(t, []int{8}, m.Frames)
	assert.Contains(t, m.Actual, `"info"`)
	assert.Nil(t, LogLevelKept("debug", []Notice{note(3, "debug")}))
}
