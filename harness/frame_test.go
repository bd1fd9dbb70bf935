package harness

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecorderByteBudgetSamplesTheRest: once the kept frames hold the byte budget, frames that
// answer no request are counted; the 1st, 2nd, 4th, ... of them are kept as a sample while
// the sample fits in SampleBudget, and the byte total never grows past budget plus sample.
func TestRecorderByteBudgetSamplesTheRest(t *testing.T) {
	rec := NewRecorder(time.Now())
	rec.SetByteLimit(10 << 10)
	line := bytes.Repeat([]byte("x"), 1<<10)
	kept, seen := 0, 3000
	var keptBytes int
	for range seen {
		f := &Frame{Dir: DirServerToClient, Raw: line}
		if rec.Admit(f) {
			rec.Record(f)
			kept++
			keptBytes += len(f.Raw)
		}
	}
	assert.Equal(t, 10, kept-rec.Sampled(), "the budget holds ten 1 KiB frames")
	assert.Equal(t, seen-10, rec.Dropped())
	// Drops 1 to 16, then 32, 64, ..., 2048 are sampled: 23 of them, 23 KiB, within
	// SampleBudget.
	assert.Equal(t, 23, rec.Sampled())
	assert.LessOrEqual(t, keptBytes, 10<<10+SampleBudget)
	var marked int
	for _, f := range rec.Frames() {
		if f.Sampled {
			marked++
		}
	}
	assert.Equal(t, rec.Sampled(), marked, "every sampled frame is marked")

	// The sample itself is bounded: frames too large for what is left of SampleBudget are
	// counted only.
	big := bytes.Repeat([]byte("y"), SampleBudget)
	before := rec.Sampled()
	for range 5000 {
		f := &Frame{Dir: DirServerToClient, Raw: big}
		if rec.Admit(f) {
			rec.Record(f)
		}
	}
	assert.Equal(t, before, rec.Sampled(), "no megabyte frame fits in the rest of the sample budget")
}

// TestRecorderSampleKeepsARareMethod: amid a flood of one notification past the limits, the
// first frames of another method are still kept, so a subscription's acknowledgement sent
// during a log flood reaches its scenario.
func TestRecorderSampleKeepsARareMethod(t *testing.T) {
	rec := NewRecorder(time.Now())
	rec.SetLimit(1)
	admit := func(method string) bool {
		f := &Frame{Dir: DirServerToClient, Raw: []byte(`{"jsonrpc":"2.0","method":"` + method + `"}`), Method: method}
		if !rec.Admit(f) {
			return false
		}
		rec.Record(f)
		return true
	}
	require.True(t, admit("notifications/message"))
	for range 10000 {
		admit("notifications/message")
	}
	assert.True(t, admit("notifications/subscriptions/acknowledged"))
	assert.False(t, admit("notifications/message"), "the 10001st drop of the flooding method is only counted")
}

// TestRecorderCountLimitAdmits: below both limits every frame is admitted and nothing is
// counted as dropped; past the count limit, with bytes to spare, the first 16 drops are kept
// as the sample and the 17th is only counted.
func TestRecorderCountLimitAdmits(t *testing.T) {
	rec := NewRecorder(time.Now())
	rec.SetLimit(3)
	for range 3 {
		f := &Frame{Dir: DirServerToClient, Raw: []byte(`{}`)}
		require.True(t, rec.Admit(f))
		rec.Record(f)
	}
	assert.Zero(t, rec.Dropped())
	for i := range 16 {
		f := &Frame{Dir: DirServerToClient, Raw: []byte(`{}`)}
		assert.True(t, rec.Admit(f), "drop %d is sampled", i+1)
		assert.True(t, f.Sampled)
	}
	f := &Frame{Dir: DirServerToClient, Raw: []byte(`{}`)}
	assert.False(t, rec.Admit(f), "the 17th is only counted")
	assert.False(t, f.Sampled)
	assert.Equal(t, 17, rec.Dropped())
}

// TestOnFrameRemove: a removed observer sees no later frame; the others still do; removing
// twice is harmless.
func TestOnFrameRemove(t *testing.T) {
	r := NewRecorder(time.Now())
	var a, b int
	removeA := r.OnFrame(func(*Frame) { a++ })
	r.OnFrame(func(*Frame) { b++ })
	r.Record(&Frame{Raw: []byte(`{}`)})
	removeA()
	removeA()
	r.Record(&Frame{Raw: []byte(`{}`)})
	require.Equal(t, 1, a)
	require.Equal(t, 2, b)
}
