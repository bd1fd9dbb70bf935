package checks

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

func sseEv(seq int, event, data string) *harness.Frame {
	return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Raw: []byte(data), SSE: &harness.SSEMeta{Event: event}}
}

func ssePost(seq int, method string) *harness.Frame {
	return &harness.Frame{Seq: seq, Dir: harness.DirClientToServer, Method: method, HTTP: &harness.HTTPMeta{Method: http.MethodPost}}
}

func sseReply(seq, to, status int) *harness.Frame {
	return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, ReplyTo: to, Raw: []byte("Accepted"), HTTP: &harness.HTTPMeta{Status: status}}
}

func TestSSEEndpointFirst(t *testing.T) {
	get := &harness.Frame{Seq: 1, Dir: harness.DirClientToServer, HTTP: &harness.HTTPMeta{Method: http.MethodGet}}
	for _, ep := range []string{"/messages?sessionId=1", "http://127.0.0.1:9/messages/abc", "messages"} {
		why, m := SSEEndpointFirst([]*harness.Frame{get, sseEv(2, "endpoint", ep)})
		assert.Empty(t, why)
		assert.Nil(t, m, ep)
	}
	_, m := SSEEndpointFirst([]*harness.Frame{get, sseEv(2, "", `{"jsonrpc":"2.0","method":"notifications/message"}`), sseEv(3, "endpoint", "/m")})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, `"message" event came first`)
	_, m = SSEEndpointFirst([]*harness.Frame{get, sseEv(2, "endpoint", "http://[::1")})
	require.NotNil(t, m, "data that is no URI")
	why, _ := SSEEndpointFirst([]*harness.Frame{get})
	assert.NotEmpty(t, why, "no event: untestable")
}

func TestSSEPostsAccepted(t *testing.T) {
	ok := []*harness.Frame{ssePost(3, "initialize"), sseReply(4, 3, 202), sseEv(5, "message", "{}"), ssePost(6, "notifications/initialized"), sseReply(7, 6, 200)}
	why, m := SSEPostsAccepted(ok)
	assert.Empty(t, why)
	assert.Nil(t, m, "202 and 200 are both 2xx")
	bad := append(ok, ssePost(8, "ping"), sseReply(9, 8, 500))
	_, m = SSEPostsAccepted(bad)
	require.NotNil(t, m)
	assert.Equal(t, []int{8, 9}, m.Frames)
	why, _ = SSEPostsAccepted([]*harness.Frame{ssePost(3, "initialize")})
	assert.NotEmpty(t, why, "no reply recorded: untestable")
}

func TestSSEMessageEvents(t *testing.T) {
	frames := []*harness.Frame{sseEv(2, "endpoint", "/m"), sseEv(5, "message", `{"jsonrpc":"2.0","id":1,"result":{}}`), sseEv(6, "", `{"jsonrpc":"2.0","id":2,"result":{}}`)}
	why, m := SSEMessageEvents(frames)
	assert.Empty(t, why)
	assert.Nil(t, m, "an event without an event field is a message event")
	_, m = SSEMessageEvents(append(frames, sseEv(7, "response", `{"jsonrpc":"2.0","id":3,"result":{}}`)))
	require.NotNil(t, m)
	assert.Equal(t, []int{7}, m.Frames)
	_, m = SSEMessageEvents(append(frames, sseEv(8, "message", `not json`)))
	require.NotNil(t, m)
	why, _ = SSEMessageEvents(frames[:1])
	assert.NotEmpty(t, why)
}

func TestSSEOriginRefused(t *testing.T) {
	for _, st := range []int{403, 400, 401} {
		why, m := SSEOriginRefused(&harness.Frame{Seq: 2, HTTP: &harness.HTTPMeta{Status: st}}, "https://evil.example", []int{1, 2})
		assert.Empty(t, why)
		assert.Nil(t, m, "%d", st)
	}
	opened := sseEv(2, "endpoint", "/m")
	opened.HTTP = &harness.HTTPMeta{Status: 200}
	_, m := SSEOriginRefused(opened, "https://evil.example", []int{1, 2})
	require.NotNil(t, m)
	why, _ := SSEOriginRefused(nil, "https://evil.example", nil)
	assert.NotEmpty(t, why)
}
