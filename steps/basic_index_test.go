package steps

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// MSG-009 needs a response to judge: silence (or an HTTP error without a JSON-RPC body) is no
// evidence, so the case is na, never a pass.
func TestMSG009WithoutAResponseIsNoPass(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	w.Last = &harness.Exchange{Sent: &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0",`)}}
	require.ErrorIs(t, responseHasNoNullID(context.Background(), w), ErrSkip)
	require.Equal(t, reports.NA, w.Skip.Verdict)

	w = clientWorld(harness.TransportStdio, revisions.Modern().ID)
	w.Last = &harness.Exchange{Sent: &harness.Frame{Seq: 1}, Response: &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)}}
	require.NoError(t, responseHasNoNullID(context.Background(), w))
}

// MSG-014/MSG-015 grade by the party at fault: silence on stdio (the suite wrote what a stdio
// client must not write) and a 4xx without JSON-RPC over HTTP are warnings; a 2xx without an
// error, and a wrong answer, fail.
func TestMalformedInputGrading(t *testing.T) {
	sent := &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0",`)}
	cases := []struct {
		name  string
		ex    *harness.Exchange
		grade reports.Verdict
		ok    bool
	}{
		{"stdio silence", &harness.Exchange{Sent: sent}, reports.Warn, false},
		{"http 400 text/plain", &harness.Exchange{Sent: sent, HTTP: &harness.HTTPMeta{Status: 400}}, reports.Warn, false},
		{"http 200 without error", &harness.Exchange{Sent: sent, HTTP: &harness.HTTPMeta{Status: 200}}, "", false},
		{"wrong code", &harness.Exchange{Sent: sent, Response: &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`)}}, "", false},
		{"parse error", &harness.Exchange{Sent: sent, Response: &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`)}}, "", true},
	}
	for _, tc := range cases {
		w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
		w.Last = tc.ex
		err := w.expectMalformedAnswered(-32700)
		if tc.ok {
			require.NoError(t, err, tc.name)
			continue
		}
		var m *client.Mismatch
		require.ErrorAs(t, err, &m, tc.name)
		require.Equal(t, tc.grade, m.Grade, tc.name)
	}
}
