package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestLatestCounterOffer: offering the newest legacy revision passes; offering an older one
// while a newer one is listed or echoed is a mismatch naming it; a newer one the server does
// not support (neither listed nor echoed) is no evidence against it.
func TestLatestCounterOffer(t *testing.T) {
	legacy := revisions.LegacyIDs()
	require.GreaterOrEqual(t, len(legacy), 2)
	newest, older := legacy[0], legacy[1]
	assert.Empty(t, NewerLegacy(newest))
	assert.Equal(t, []string{newest}, NewerLegacy(older))
	assert.Nil(t, LatestCounterOffer(newest, []string{revisions.Modern().ID, newest}, nil, nil))
	assert.Nil(t, LatestCounterOffer(older, []string{older}, nil, nil), "a server of the older revision only")
	m := LatestCounterOffer(older, nil, []string{newest}, []int{4, 5})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, newest+" (echoed to initialize)")
	assert.Equal(t, []int{4, 5}, m.Frames)
	m = LatestCounterOffer(older, []string{revisions.Modern().ID, newest}, nil, nil)
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "advertised by server/discover")
}
