package steps

import (
	"context"
	"testing"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDualEraServerIsNotNew: DEP-001 and the other adoption rules judge only servers that
// serve no handshake-era revision; a server whose initialize negotiated one in the same run
// is an existing implementation even when its DiscoverResult lists no legacy version.
func TestDualEraServerIsNotNew(t *testing.T) {
	modern := revisions.Modern().ID
	legacy := revisions.LatestLegacy().ID
	w, _ := targetWorld(client.Target{Revision: modern, Modern: true, Supported: []string{modern}, Negotiated: []string{legacy}}, client.Options{})
	require.ErrorIs(t, servesNoHandshakeEra(context.Background(), w), ErrSkip)
	assert.Equal(t, reports.NA, w.Skip.Verdict)
	assert.Contains(t, w.Skip.Reason, legacy)
	w, _ = targetWorld(client.Target{Revision: modern, Modern: true, Supported: []string{modern, legacy}, Negotiated: []string{legacy}}, client.Options{})
	assert.Equal(t, []string{legacy}, w.legacyRevisions(), "listed and negotiated count once")
	w, _ = targetWorld(client.Target{Revision: modern, Modern: true, Supported: []string{modern}}, client.Options{})
	require.NoError(t, servesNoHandshakeEra(context.Background(), w))
}
