package steps

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// replied sets w's last exchange to a malformed tools/call answered with reply.
func replied(w *world, reply string) {
	w.last = &harness.Exchange{
		Sent:     &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"x"}}`)},
		Response: &harness.Frame{Seq: 2, Raw: []byte(reply)},
	}
}

// TOOL-014 asks for a protocol error; -32602 is what JSON-RPC's meaning asks for, so another
// code is info (the TypeScript SDKs answer -32603 and were warned), a result still a warning.
func TestTOOL014GradesTheErrorCode(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	replied(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad arguments"}}`)
	require.NoError(t, responseJSONRPCError(context.Background(), w))

	replied(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Invalid arguments"}}`)
	var m *Mismatch
	require.ErrorAs(t, responseJSONRPCError(context.Background(), w), &m)
	require.Equal(t, reports.Info, m.Grade)

	replied(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`)
	require.ErrorAs(t, responseJSONRPCError(context.Background(), w), &m)
	require.Empty(t, m.Grade, "a result is graded by the rule's level (warn)")
}
