package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestNoResponseCardSaysHowLongItWaited: a card's "no response" for a request that timed out
// says how long it waited and the flag that bounded it (when one did), without stuttering.
func TestNoResponseCardSaysHowLongItWaited(t *testing.T) {
	for _, tc := range []struct {
		waited time.Duration
		want   string
	}{
		{10 * time.Second, "no response within 10s (--timeout) to ping (id 7)"},
		{60*time.Second + 3*time.Millisecond, "no response within 1m0s (--startup-timeout) to ping (id 7)"},
		{3 * time.Second, "no response within 3s to ping (id 7)"},
	} {
		s := targetSession(harness.TransportStdio, revisions.Modern().ID)
		s.Opts.Timeout, s.Opts.StartupTimeout = 10*time.Second, time.Minute
		sent := &harness.Frame{Seq: 4, Conn: 2, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)}
		s.Note(&harness.Exchange{Sent: sent, Err: &harness.TimeoutError{What: "ping (id 7)", Err: context.DeadlineExceeded, Waited: tc.waited}})
		_, err := s.ResponseMessage()
		var m *Mismatch
		require.True(t, errors.As(err, &m), "%v", err)
		require.Equal(t, tc.want, m.Actual)
		require.Equal(t, tc.want, DescribeExchange(s.Last))
	}
}
