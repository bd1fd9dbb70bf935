package steps

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestCAP007GradesByTheSentenceThatGovernsTheProbe: a probe of an undeclared feature answered
// with another error than -32601 is a warning only on 2026-07-28 Streamable HTTP, whose
// "does not implement the requested RPC method" sentence it cites; on 2026-07-28 stdio and on a
// handshake revision no sentence makes it normative, so it is info, and it never cites the
// completion page.
func TestCAP007GradesByTheSentenceThatGovernsTheProbe(t *testing.T) {
	for _, c := range []struct {
		transport, rev string
		grade          reports.Verdict
		cites          string
	}{
		{harness.TransportHTTP, revisions.Modern().ID, "", "streamable-http#Protocol Version Header"},
		{harness.TransportStdio, revisions.Modern().ID, reports.Info, "MethodNotFoundError"},
		{harness.TransportHTTP, revisions.LatestLegacy().ID, reports.Info, "basic/lifecycle#Operation"},
		{harness.TransportStdio, revisions.LatestLegacy().ID, reports.Info, "basic/lifecycle#Operation"},
	} {
		w := clientWorld(c.transport, c.rev)
		ex := &harness.Exchange{Sent: &harness.Frame{Method: "prompts/list"}, Response: &harness.Frame{Raw: []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`)},
			HTTP: &harness.HTTPMeta{Status: 404}}
		st := &stateWorld{probes: []*harness.Exchange{ex}, probeCaps: []string{"prompts"}}
		var m *client.Mismatch
		require.True(t, errors.As(w.expectMethodNotFound(st), &m), c.transport+" "+c.rev)
		require.Equal(t, c.grade, m.Grade, c.transport+" "+c.rev)
		require.Contains(t, m.Expected, c.cites)
		require.NotContains(t, m.Expected, "completion")
	}
}
