package steps

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// testEnv is the run as a step test sees it (client.Env): a recorder, the connections the test
// opened with their revisions, and no server to dial.
type testEnv struct {
	ids     harness.IDs
	rec     *harness.Recorder
	conns   []client.Conn
	connRev map[int]string
}

func (e *testEnv) IDs() *harness.IDs                          { return &e.ids }
func (e *testEnv) Recorder() *harness.Recorder                { return e.rec }
func (e *testEnv) SetRev(conn int, rev string)                { e.connRev[conn] = rev }
func (e *testEnv) ConnRev(conn int) string                    { return e.connRev[conn] }
func (e *testEnv) Conns() []client.Conn                       { return e.conns }
func (e *testEnv) Startup() time.Duration                     { return 0 }
func (e *testEnv) ReplyRequest(*harness.Frame) *harness.Frame { return nil }
func (e *testEnv) Dial(context.Context, string) (client.Conn, error) {
	return nil, errors.New("a step test dials no server")
}
func (e *testEnv) Shared(context.Context) (client.Conn, error) {
	if len(e.conns) == 0 {
		return nil, errors.New("a step test has no shared connection")
	}
	return e.conns[0], nil
}

// targetWorld returns the world of a scenario on target t with options o, over the
// connections conns (none when nil), recording into a recorder of its own.
func targetWorld(t client.Target, o client.Options, conns ...client.Conn) (*World, *testEnv) {
	e := &testEnv{rec: harness.NewRecorder(time.Now()), conns: conns, connRev: map[int]string{}}
	for _, c := range conns {
		e.connRev[c.Conn()] = t.Revision
	}
	return NewWorld(client.NewSession(e, t, o), &sync.Map{}, false), e
}

// clientWorld is a world on a target of revision rev over transport, with no connection and
// test_echo mapped to echo.
func clientWorld(transport, rev string) *World {
	w, _ := targetWorld(client.Target{Revision: rev, Modern: revisions.IsModern(rev)},
		client.Options{Transport: transport, FixtureMap: map[string]string{"test_echo": "echo"}})
	return w
}
