package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// TestCancelledUnanswered: silence after the cancellation passes, a later response is a
// mismatch; a response before it, or a request never shown in flight, has nothing to judge.
func TestCancelledUnanswered(t *testing.T) {
	f := func(seq int) *harness.Frame { return &harness.Frame{Seq: seq} }
	why, m := CancelledUnanswered(&client.Cancelled{Long: &harness.Exchange{Sent: f(1)}, Cancel: f(3), Running: true})
	assert.Empty(t, why)
	assert.Nil(t, m)
	why, m = CancelledUnanswered(&client.Cancelled{Long: &harness.Exchange{Sent: f(1), Response: f(5)}, Cancel: f(3), Running: true})
	assert.Empty(t, why)
	require.NotNil(t, m)
	assert.Equal(t, []int{1, 3, 5}, m.Frames)
	why, m = CancelledUnanswered(&client.Cancelled{Long: &harness.Exchange{Sent: f(1), Response: f(2)}, Cancel: f(3), Running: true})
	assert.Contains(t, why, "before the cancellation")
	assert.Nil(t, m)
	why, _ = CancelledUnanswered(&client.Cancelled{Long: &harness.Exchange{Sent: f(1), Response: f(2)}})
	assert.Contains(t, why, "no progress")
}
