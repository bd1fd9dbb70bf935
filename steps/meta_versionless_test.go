package steps

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestVersionlessRequestOnDualEraStdio: META-001 on stdio. A dual-era server that answers the
// request without a protocol version with its legacy path's error (-32601) is na with the
// reason; a result still fails; -32602 passes; over HTTP (the header names the version) the
// legacy error fails.
func TestVersionlessRequestOnDualEraStdio(t *testing.T) {
	modern := revisions.Modern().ID
	legacy := revisions.LatestLegacy().ID
	reply := func(transport, body string) *World {
		w, _ := targetWorld(client.Target{Revision: modern, Modern: true, Supported: []string{modern, legacy}}, client.Options{Transport: transport})
		w.Last = &harness.Exchange{Sent: &harness.Frame{Seq: 1}, Response: &harness.Frame{Seq: 2, Raw: []byte(body)}}
		return w
	}
	methodNotFound := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`
	w := reply(harness.TransportStdio, methodNotFound)
	require.ErrorIs(t, versionlessRefused(context.Background(), w), ErrSkip)
	assert.Equal(t, reports.NA, w.Skip.Verdict)
	assert.Contains(t, w.Skip.Reason, "dual-era")

	var m *client.Mismatch
	w = reply(harness.TransportStdio, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":[]}}`)
	require.True(t, errors.As(versionlessRefused(context.Background(), w), &m))
	w = reply(harness.TransportHTTP, methodNotFound)
	require.True(t, errors.As(versionlessRefused(context.Background(), w), &m))
	w = reply(harness.TransportStdio, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no version"}}`)
	require.NoError(t, versionlessRefused(context.Background(), w))
}
