package client

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/schemas"
)

// Session is the client's state in one scenario: the target it speaks to, the options of the
// run, the connection it talks over and every exchange it made. world embeds it; it moves to
// package client as Session.
type Session struct {
	Env    Env
	Target Target
	Opts   Options

	Conn      Conn
	Own       []Conn
	Fresh     bool
	Exchanges []*harness.Exchange
	Last      *harness.Exchange
	LastID    json.RawMessage
	Inits     []initAttempt
	Seqs      map[int]bool
	// Absent are the replies this scenario concluded would not come, by a sentinel.
	Absent []Absence

	// streamsMu guards how each SSE reply was read, the requests sent at once and the listen
	// stream held (Streamable HTTP).
	streamsMu  sync.Mutex
	Streams    map[*harness.Exchange]harness.StreamInfo
	Concurrent []*harness.Exchange
	Listen     *ListenRun
}

// Target is what the client knows of the (revision, transport) under test: the revision, its
// era, the capabilities the server declared (read-only: the map is shared by every scenario
// of the target), why they are unknown when they are, the versions a modern server advertised
// and the legacy revisions initialize negotiated in the same run.
type Target struct {
	Revision    string
	Modern      bool
	Caps        map[string]json.RawMessage
	CapsUnknown string
	Supported   []string
	Negotiated  []string
}

// Options are the run's settings the client applies: the transport and endpoint, the
// timeouts, the fixture names and --call-tools policy, and the schemas replies are validated
// against.
type Options struct {
	Transport      string
	URL            string
	Timeout        time.Duration
	StartupTimeout time.Duration
	QuietWindow    time.Duration
	FixtureMap     map[string]string
	CallTools      string
	Schemas        *schemas.Set
}

// Env is what a session needs from the run: request ids, the recorder, connections (a new
// one, the target's shared one, every one so far with the revision it was opened for), how
// long the server took to start, and the request a reply answers.
type Env interface {
	// IDs returns the run's request id counter.
	IDs() *harness.IDs
	// Recorder returns the run's frame recorder.
	Recorder() *harness.Recorder
	// Dial opens a new connection whose frames are validated against revision rev.
	Dial(ctx context.Context, rev string) (Conn, error)
	// Shared returns the target's shared connection (restarting a dead stdio server).
	Shared(ctx context.Context) (Conn, error)
	// SetRev records the revision connection conn's frames are validated against.
	SetRev(conn int, rev string)
	// ConnRev returns the revision connection conn was opened for.
	ConnRev(conn int) string
	// Conns returns every connection opened so far, in order.
	Conns() []Conn
	// Startup returns how long the server took to answer its first request.
	Startup() time.Duration
	// ReplyRequest returns the request frame the reply f answers, nil when none.
	ReplyRequest(f *harness.Frame) *harness.Frame
}

// NewSession returns the client state of a new scenario: it speaks to target t of the run env
// with the run's options o, and has made no exchange yet.
func NewSession(env Env, t Target, o Options) *Session {
	return &Session{Env: env, Target: t, Opts: o, Seqs: map[int]bool{},
		Streams: map[*harness.Exchange]harness.StreamInfo{}}
}

// OverHTTP reports whether the session speaks Streamable HTTP (basic/transports#Streamable
// HTTP): a rule whose expectation differs by transport asks this, never the concrete
// connection.
func (w *Session) OverHTTP() bool { return w.Opts.Transport == harness.TransportHTTP }

// OverStdio reports whether the session speaks stdio (basic/transports#stdio).
func (w *Session) OverStdio() bool { return w.Opts.Transport == harness.TransportStdio }
