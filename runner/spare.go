package runner

import (
	"context"
	"sync"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// spare is a stdio server process started ahead of need for one revision: the next scenario
// of that revision that needs a fresh process takes it instead of waiting for a server to
// start (a Node server takes a few hundred milliseconds), and another is started while that
// scenario runs. ready is closed once conn or err is set.
type spare struct {
	ready chan struct{}
	conn  client.Conn
	err   error
}

// spares holds the processes started ahead of need, at most one per revision, and what became
// of them, for the run's notes.
type spares struct {
	mu      sync.Mutex
	pending map[string]*spare // by revision
	closed  bool              // the run is over: a process that comes up now is closed at once
	wg      sync.WaitGroup    // the starts under way
	started int               // processes started ahead of need
	taken   int               // of which a scenario took
	failed  int               // of which did not start
}

// dialFresh opens the fresh connection a scenario of revision rev asked for. Over stdio it
// takes the process started ahead for rev when there is one (waiting for it to come up, or for
// ctx), else starts one now; either way it then starts the next one ahead. Other transports
// dial at once: an HTTP connection costs nothing to open.
func (e *env) dialFresh(ctx context.Context, rev string) (client.Conn, error) {
	if e.cfg.Transport != harness.TransportStdio {
		return e.dial(ctx, rev)
	}
	sp := &e.spares
	sp.mu.Lock()
	s := sp.pending[rev]
	delete(sp.pending, rev)
	sp.mu.Unlock()
	var t client.Conn
	var err error
	if s != nil {
		select {
		case <-s.ready:
			t, err = s.conn, s.err
		case <-ctx.Done():
			return nil, ctx.Err() // the process, once up, is closed with the others (closeAll)
		}
		if err == nil {
			sp.mu.Lock()
			sp.taken++
			sp.mu.Unlock()
		}
	}
	if s == nil || err != nil {
		t, err = e.dial(ctx, rev)
	}
	if err == nil {
		e.startAhead(rev)
	}
	return t, err
}

// startAhead starts a server process for revision rev in the background, unless one is
// pending already or the run is over. It is started outside any scenario's context: a
// scenario ending does not end it, closeAll does.
func (e *env) startAhead(rev string) {
	sp := &e.spares
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.closed || sp.pending[rev] != nil {
		return
	}
	if sp.pending == nil {
		sp.pending = map[string]*spare{}
	}
	s := &spare{ready: make(chan struct{})}
	sp.pending[rev] = s
	sp.started++
	sp.wg.Add(1)
	go func() {
		defer sp.wg.Done()
		s.conn, s.err = e.dial(context.Background(), rev)
		if s.err != nil {
			sp.mu.Lock()
			sp.failed++
			sp.mu.Unlock()
		}
		close(s.ready)
	}()
}

// stopAhead ends the starting of processes ahead of need and waits for the starts under way,
// so that closeAll then closes every process the run started. It returns how many were
// started ahead and never taken.
func (e *env) stopAhead() int {
	sp := &e.spares
	sp.mu.Lock()
	sp.closed = true
	sp.mu.Unlock()
	sp.wg.Wait()
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.started - sp.taken - sp.failed
}
