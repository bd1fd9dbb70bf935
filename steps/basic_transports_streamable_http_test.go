package steps

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// refusedNotification is a notification POSTed and answered with HTTP status and body.
func refusedNotification(status int, body string) *harness.Exchange {
	return &harness.Exchange{
		Sent:   &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/mcpconform_unknown","params":42}`)},
		Frames: []*harness.Frame{{Seq: 2, Raw: []byte(body)}},
		HTTP:   &harness.HTTPMeta{Status: status},
	}
}

// HTTP-003 judges the status of a refused notification and that a body is an error: an error
// body with "id": null is MSG-009's (one habit, one failing rule), a non-null id is still
// HTTP-003's, and a 2xx error still fails.
func TestHTTP003LeavesTheNullIDToMSG009(t *testing.T) {
	w := clientWorld(harness.TransportHTTP, revisions.Modern().ID)
	judge := func(ex *harness.Exchange) error {
		w.Exchanges = []*harness.Exchange{ex}
		return judgeRefusedNotifications(context.Background(), w)
	}
	require.NoError(t, judge(refusedNotification(400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad"}}`)))
	require.NoError(t, judge(refusedNotification(400, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"bad"}}`)))
	var m *client.Mismatch
	require.ErrorAs(t, judge(refusedNotification(400, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad"}}`)), &m)
	require.Empty(t, m.Grade)
	require.ErrorAs(t, judge(refusedNotification(200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad"}}`)), &m)
	require.Empty(t, m.Grade)
}

// HTTP-024 (and the other listen-stream rules) on a refused subscriptions/listen: SUB-001 fails
// the refusal, and the stream rules are untestable naming it, as on stdio.
func TestListenStreamRulesLeaveARefusalToSUB001(t *testing.T) {
	for _, status := range []int{400, 200} {
		w := clientWorld(harness.TransportHTTP, revisions.Modern().ID)
		reply := &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unsupported filter"}}`)}
		w.Listen = &client.ListenRun{Ex: &harness.Exchange{
			Sent:     &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}`)},
			Frames:   []*harness.Frame{reply},
			Response: reply,
			HTTP:     &harness.HTTPMeta{Status: status, Headers: http.Header{"Content-Type": {"application/json"}}},
		}}
		require.ErrorIs(t, w.listenStaysOpen(), ErrSkip)
		require.Equal(t, reports.Untestable, w.Skip.Verdict)
		require.Contains(t, w.Skip.Reason, "SUB-001")
	}
}
