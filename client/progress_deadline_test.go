package client

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// progressFrame records, on s's recorder, a notifications/progress on connection 1 carrying
// the JSON token tok.
func progressFrame(s *Session, tok string) {
	s.Env.Recorder().Record(&harness.Frame{Conn: 1, Dir: harness.DirServerToClient, Method: "notifications/progress",
		Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":1}}`)})
}

// TestRequestContextWithoutTokenIsTheTimeout: a request without a progress token waits
// exactly its wait, and the observer list is left as it was.
func TestRequestContextWithoutTokenIsTheTimeout(t *testing.T) {
	s, _ := scriptSession(nil)
	req := harness.Request{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)}
	before := time.Now()
	ctx, cancel := s.requestContext(context.Background(), req, time.Minute)
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok)
	require.WithinDuration(t, before.Add(time.Minute), dl, time.Second)
}

// TestRequestContextStretchesOnItsOwnProgress: progress notifications carrying the request's
// token keep the wait open past its length (basic/lifecycle#Timeouts); the cap bounds it;
// silence after the last one ends it one wait later.
func TestRequestContextStretchesOnItsOwnProgress(t *testing.T) {
	t.Parallel()
	s, _ := scriptSession(nil)
	const wait = 2 * time.Second
	req := harness.Request{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p-1"}}}`)}
	start := time.Now()
	ctx, cancel := s.requestContext(context.Background(), req, wait)
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok)
	require.WithinDuration(t, start.Add(ProgressTimeoutCap*wait), dl, time.Second, "the cap bounds every stretch")
	for range 2 {
		time.Sleep(wait * 6 / 10) // the server's pace: 1.2 s between progress notifications
		progressFrame(s, `"p-1"`)
	}
	require.NoError(t, ctx.Err(), "2.4 s after the start, 1.2 s after the last progress, the 2 s wait still runs")
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a silent server's request must end one wait after its last progress")
	}
	require.Less(t, time.Since(start), ProgressTimeoutCap*wait)
}

// TestRequestContextIgnoresOtherTokens: progress for another token, or for the same digits as
// another JSON type (1 is not "1"), does not stretch the wait.
func TestRequestContextIgnoresOtherTokens(t *testing.T) {
	t.Parallel()
	s, _ := scriptSession(nil)
	const wait = 300 * time.Millisecond
	req := harness.Request{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"1"}}}`)}
	start := time.Now()
	ctx, cancel := s.requestContext(context.Background(), req, wait)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(wait / 10):
				progressFrame(s, `1`)
				progressFrame(s, `"2"`)
			}
		}
	}()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("progress for other tokens kept the request open")
	}
	require.Less(t, time.Since(start), ProgressTimeoutCap*wait, "ended by the idle wait, not the cap")
}
