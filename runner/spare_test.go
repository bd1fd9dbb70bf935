package runner

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestFreshProcessStartedAhead: over stdio the second fresh connection of a revision is the
// process started while the first was in use, the third is started while the second is, a
// revision has its own, and the run's end closes the one no scenario took and counts it.
func TestFreshProcessStartedAhead(t *testing.T) {
	e := &env{cfg: Config{Transport: harness.TransportStdio, Command: []string{"cat"}, StartupTimeout: time.Second,
		Timeout: time.Second, QuietWindow: 100 * time.Millisecond, MaxFrame: 1 << 20, ShutdownGrace: time.Second},
		rec: harness.NewRecorder(time.Now()), rules: map[string]catalog.Rule{}, connRev: map[int]string{}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	modern, legacy := revisions.Modern().ID, revisions.LatestLegacy().ID

	first, err := e.dialFresh(ctx, modern)
	require.NoError(t, err)
	ahead := e.pendingAhead(t, modern)
	second, err := e.dialFresh(ctx, modern)
	require.NoError(t, err)
	assert.Equal(t, ahead.Conn(), second.Conn(), "the second fresh connection is the process started ahead")
	assert.NotEqual(t, first.Conn(), second.Conn())
	third := e.pendingAhead(t, modern)
	assert.NotEqual(t, second.Conn(), third.Conn(), "another process is started ahead while the second is in use")

	other, err := e.dialFresh(ctx, legacy)
	require.NoError(t, err)
	assert.NotEqual(t, third.Conn(), other.Conn(), "a revision does not take another's process")
	legacyAhead := e.pendingAhead(t, legacy)

	var procs []client.Process
	for _, c := range []client.Conn{first, second, third, other, legacyAhead} {
		p, ok := c.Process()
		require.True(t, ok)
		procs = append(procs, p)
	}
	e.closeAll()
	assert.Equal(t, 2, e.unusedAhead, "one process per revision was started ahead and not taken")
	assert.Equal(t, 5, e.processes)
	for _, p := range procs {
		require.True(t, p.WaitExit(5*time.Second), "process %d still runs after the run's end", p.Pid())
		assert.ErrorIs(t, syscall.Kill(p.Pid(), 0), syscall.ESRCH)
	}
	e.startAhead(modern)
	assert.Equal(t, 5, e.processes, "nothing is started ahead once the run is over")
}

// TestFreshHTTPConnectionNotStartedAhead: over HTTP a fresh connection costs nothing to open
// and none is started ahead.
func TestFreshHTTPConnectionNotStartedAhead(t *testing.T) {
	e := &env{cfg: Config{Transport: harness.TransportHTTP, URL: "http://127.0.0.1:1/mcp", Timeout: time.Second,
		QuietWindow: 100 * time.Millisecond, MaxFrame: 1 << 20}, rec: harness.NewRecorder(time.Now()), connRev: map[int]string{}}
	_, err := e.dialFresh(context.Background(), revisions.Modern().ID)
	require.NoError(t, err)
	e.spares.mu.Lock()
	assert.Empty(t, e.spares.pending)
	e.spares.mu.Unlock()
	e.closeAll()
	assert.Zero(t, e.unusedAhead)
}

// pendingAhead waits for the process started ahead for rev to come up and returns it.
func (e *env) pendingAhead(t *testing.T, rev string) client.Conn {
	t.Helper()
	e.spares.mu.Lock()
	s := e.spares.pending[rev]
	e.spares.mu.Unlock()
	require.NotNil(t, s, "no process was started ahead for %s", rev)
	select {
	case <-s.ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("the process started ahead for %s did not come up", rev)
	}
	require.NoError(t, s.err)
	return s.conn
}
