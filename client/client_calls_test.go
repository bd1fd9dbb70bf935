package client

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// subscriptions/listen exists in the modern revision only: a legacy target never sends it (a
// 2025-11-25 run sent it for HTTP-006 and then judged the reply against the legacy schema).
func TestNoListenOnALegacyTarget(t *testing.T) {
	s := targetSession(harness.TransportHTTP, revisions.LatestLegacy().ID)
	called := false
	require.NoError(t, s.HoldListen(context.Background(), func(context.Context) error { called = true; return nil }, 0))
	require.True(t, called, "the rest of the scenario still runs")
	require.Empty(t, s.Own, "no connection was opened for a listen stream")
}
