package runner

import (
	"context"
	"time"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/steps"
)

// IDs is the run's side of Env.
func (s *suiteRun) IDs() *harness.IDs { return &s.env.ids }

// Recorder is the run's side of Env.
func (s *suiteRun) Recorder() *harness.Recorder { return s.env.rec }

// Dial is the run's side of Env.
func (s *suiteRun) Dial(ctx context.Context, rev string) (client.Conn, error) {
	return s.env.dialFresh(ctx, rev)
}

// Shared is the run's side of Env.
func (s *suiteRun) Shared(ctx context.Context) (client.Conn, error) { return s.sharedConn(ctx) }

// SetRev is the run's side of Env.
func (s *suiteRun) SetRev(conn int, rev string) { s.env.setRev(conn, rev) }

// Startup is the run's side of Env.
func (s *suiteRun) Startup() time.Duration { return s.env.startup }

// ReplyRequest is the run's side of Env.
func (s *suiteRun) ReplyRequest(f *harness.Frame) *harness.Frame { return s.env.replyRequest(f) }

// ConnRev is the run's side of Env.
func (s *suiteRun) ConnRev(conn int) string {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	return s.env.connRev[conn]
}

// Conns is the run's side of Env.
func (s *suiteRun) Conns() []client.Conn {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	return append([]client.Conn(nil), s.env.conns...)
}

func (t *target) view() client.Target {
	return client.Target{Revision: t.revision, Modern: t.modern, Caps: t.caps, CapsUnknown: t.capsUnknown,
		Supported: t.supported, Negotiated: t.negotiated}
}

func (c Config) options() client.Options {
	return client.Options{Transport: c.Transport, URL: c.URL, Timeout: c.Timeout, StartupTimeout: c.StartupTimeout,
		QuietWindow: c.QuietWindow, FixtureMap: c.FixtureMap, CallTools: c.CallTools, Schemas: c.Schemas}
}

func newSession(s *suiteRun) *client.Session {
	return client.NewSession(s, s.t.view(), s.env.cfg.options())
}

// scenarioWorld returns the world of a new scenario (or Outline row, when outlineRow) of the
// run s.
func scenarioWorld(s *suiteRun, outlineRow bool) *steps.World {
	return steps.NewWorld(newSession(s), &s.t.once, outlineRow)
}
