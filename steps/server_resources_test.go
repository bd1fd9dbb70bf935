package steps

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// readExchange is a resources/read of uri answered with reply.
func readExchange(t *testing.T, seq int, uri, reply string) *harness.Exchange {
	t.Helper()
	sent, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq, "method": "resources/read", "params": map[string]any{"uri": uri}})
	require.NoError(t, err)
	return &harness.Exchange{Sent: &harness.Frame{Seq: seq, Raw: sent, Method: "resources/read"}, Response: &harness.Frame{Seq: seq + 1, Raw: []byte(reply)}}
}

// RES-008: every probe is no RFC 3986 URI; a result to one fails, except the resource of a
// repaired URI (a space percent-encoded, as the TypeScript SDK's URL parser does), which is
// info; an error for each passes.
func TestRES008GradesWhatTheServerServed(t *testing.T) {
	const refused = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid URI"}}`
	served := func(uri string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"` + uri + `","text":"t"}]}}`
	}
	for _, c := range []struct {
		name  string
		reads [][2]string // uri, reply
		want  reports.Verdict
	}{
		{"every probe refused", [][2]string{{"not a uri", refused}, {"test://template/%zz/data", refused}, {"test://template/a b/data", refused}}, reports.Pass},
		{"space repaired", [][2]string{{"not a uri", refused}, {"test://template/a b/data", served("test://template/a%20b/data")}}, reports.Info},
		{"%zz served as is", [][2]string{{"test://template/a b/data", served("test://template/a%20b/data")}, {"test://template/%zz/data", served("test://template/%zz/data")}}, reports.Fail},
		{"%zz reinterpreted", [][2]string{{"test://template/%zz/data", served("test://template/%25zz/data")}}, reports.Fail},
		{"space served under another URI", [][2]string{{"test://template/a b/data", served("test://static-text")}}, reports.Fail},
		{"no scheme served", [][2]string{{"not a uri", served("test://static-text")}}, reports.Fail},
		{"no contents", [][2]string{{"test://template/a b/data", `{"jsonrpc":"2.0","id":1,"result":{"contents":[]}}`}}, reports.Fail},
	} {
		w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
		for i, r := range c.reads {
			resOf(w).reads = append(resOf(w).reads, readExchange(t, 10*i+1, r[0], r[1]))
		}
		err := eachThoseReadsFailedError(context.Background(), w)
		if c.want == reports.Pass {
			require.NoError(t, err, c.name)
			continue
		}
		var m *client.Mismatch
		require.ErrorAs(t, err, &m, c.name)
		got := m.Grade
		if got == "" {
			got = reports.Fail
		}
		require.Equal(t, c.want, got, "%s: %s", c.name, m.Actual)
	}
}
