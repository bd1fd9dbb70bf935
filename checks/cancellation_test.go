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

// TestCancelledAfterCompleteProgressIsTheRace: a request that reported progress equal to its
// total before the cancellation was sent had finished its work: its response after the
// cancellation is the race the spec allows (#Timing Considerations), not evidence; progress
// short of the total, or complete only after the cancellation, leaves the mismatch.
func TestCancelledAfterCompleteProgressIsTheRace(t *testing.T) {
	prog := func(seq int, progress string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Method: "notifications/progress",
			Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":` + progress + `,"total":100}}`)}
	}
	resp := &harness.Frame{Seq: 9}
	cancel := &harness.Frame{Seq: 6}
	c := func(frames ...*harness.Frame) *client.Cancelled {
		return &client.Cancelled{Long: &harness.Exchange{Sent: &harness.Frame{Seq: 1}, Response: resp, Frames: append(frames, resp)}, Cancel: cancel, Running: true}
	}
	why, m := CancelledUnanswered(c(prog(2, "0"), prog(4, "50"), prog(5, "100")))
	assert.Contains(t, why, "frame 5")
	assert.Nil(t, m)
	_, m = CancelledUnanswered(c(prog(2, "0"), prog(4, "50")))
	assert.NotNil(t, m, "still working when cancelled")
	_, m = CancelledUnanswered(c(prog(2, "0"), prog(7, "100")))
	assert.NotNil(t, m, "complete only after the cancellation")
}
