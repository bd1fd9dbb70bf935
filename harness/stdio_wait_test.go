package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStdioWaitFrame(t *testing.T) {
	// The child writes one notification per line it reads, then lingers until stdin closes.
	script := `while read l; do echo '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'"$l"'"}}'; done`
	s, err := StartStdio(context.Background(), StdioConfig{Argv: []string{"sh", "-c", script}, ShutdownGrace: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })

	want := func(data string) func(*Frame) bool {
		return func(f *Frame) bool {
			m, err := ParseMessage(f.Raw)
			return err == nil && m.Method == "notifications/message" && strings.Contains(string(f.Raw), data)
		}
	}
	// Nothing yet: the wait ends with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	assert.Nil(t, s.WaitFrame(ctx, 0, want("one")))
	cancel()

	go func() {
		_, _ = s.Send(withTimeout(t, 5*time.Second), Request{Raw: []byte("one"), Notification: true, Intentional: true})
	}()
	f := s.WaitFrame(withTimeout(t, 5*time.Second), 0, want("one"))
	require.NotNil(t, f)
	mark := len(s.Frames())

	go func() {
		_, _ = s.Send(withTimeout(t, 5*time.Second), Request{Raw: []byte("two"), Notification: true, Intentional: true})
	}()
	assert.NotNil(t, s.WaitFrame(withTimeout(t, 5*time.Second), mark, want("two")))
	// Frames before from are not looked at.
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.Nil(t, s.WaitFrame(ctx, len(s.Frames()), want("one")))

	// Once the child is gone the wait returns at once.
	require.NoError(t, s.CloseStdin())
	require.True(t, s.WaitExit(5*time.Second))
	assert.Nil(t, s.WaitFrame(withTimeout(t, 5*time.Second), len(s.Frames()), want("three")))
}
