package client

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// TestPostedResponsesPairsAnswersWithTheirReplies: the client's POSTed responses (results and
// errors, not requests or notifications) are paired with the reply frames to their POST; one
// whose reply has not come is counted pending.
func TestPostedResponsesPairsAnswersWithTheirReplies(t *testing.T) {
	post := func(seq int, raw string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirClientToServer, Raw: []byte(raw), HTTP: &harness.HTTPMeta{Method: http.MethodPost}}
	}
	reply := func(seq, to int) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, ReplyTo: to, HTTP: &harness.HTTPMeta{Status: 202}}
	}
	frames := []*harness.Frame{
		post(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`), reply(2, 1),
		post(3, `{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`),
		post(4, `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		post(5, `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"declined"}}`), reply(6, 5), reply(7, 4),
	}
	posts, pending := postedResponses(frames)
	require.Len(t, posts, 2)
	assert.Equal(t, 3, posts[0].Sent.Seq)
	assert.Empty(t, posts[0].Reply)
	assert.Equal(t, 5, posts[1].Sent.Seq)
	require.Len(t, posts[1].Reply, 1)
	assert.Equal(t, 6, posts[1].Reply[0].Seq)
	assert.Equal(t, 1, pending)
}
