// Package client is mcp-conform's MCP client, the one way the suite talks to a server under
// test: a scenario's Session (its target, the run's options and its exchanges), the Conn
// interface over the harness transports (Dial, Wrap), the request builder (Call, Build), the
// sends (Send, SendParams, SendDoc, ...), the one pager (ListAll) and the fixture names and
// --call-tools policy (FixtureTools, Options.MayCall).
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
// run, the connection it talks over and every exchange it made. The scenario's World (package
// steps) embeds it.
type Session struct {
	Env    Env     // what the session needs from the run
	Target Target  // the (revision, transport) under test
	Opts   Options // the run's settings

	Conn      Conn                // the connection requests go to: the shared one or a fresh one
	Own       []Conn              // the connections the scenario opened; the runner releases them
	Fresh     bool                // Conn was opened for this scenario and has had no response yet
	Exchanges []*harness.Exchange // every exchange noted, in order
	Last      *harness.Exchange   // the last exchange noted, nil before any
	LastID    json.RawMessage     // the id of the last request sent, nil for none
	Inits     []InitAttempt       // the legacy initialize requests sent (Initialize)
	Seqs      map[int]bool        // seqs of the frames the scenario exchanged (see Frames)
	// Absent are the replies this scenario concluded would not come, by a sentinel or at the
	// request's deadline (Note).
	Absent []Absence

	// streamsMu guards how each SSE reply was read, the requests sent at once and the listen
	// stream held (Streamable HTTP).
	streamsMu  sync.Mutex
	Streams    map[*harness.Exchange]harness.StreamInfo // how each SSE reply was read
	Concurrent []*harness.Exchange                      // the requests SendAtOnce sent, in order
	Listen     *ListenRun                               // HoldListen's stream, nil before
	Held       []*HeldStream                            // the GET streams OpenGET opened, in order
	Dropped    []*DroppedStream                         // the POST streams PostAndDrop dropped, in order
}

// Target is what the client knows of the (revision, transport) under test: the revision, its
// era, the capabilities the server declared (read-only: the map is shared by every scenario
// of the target), why they are unknown when they are, the versions a modern server advertised
// and the legacy revisions initialize negotiated in the same run.
type Target struct {
	Revision    string                     // the revision id under test ("2025-11-25")
	Modern      bool                       // the revision is of the modern (2026-07-28) era
	Caps        map[string]json.RawMessage // capabilities by name, as the server declared them
	CapsUnknown string                     // why Caps is unknown (no DiscoverResult), "" when known
	Supported   []string                   // the versions a modern server's DiscoverResult advertised
	Negotiated  []string                   // the legacy revisions initialize negotiated in this run
}

// Options are the run's settings the client applies: the transport and endpoint, the
// timeouts, the fixture names and --call-tools policy, and the schemas replies are validated
// against.
type Options struct {
	Transport      string            // harness.TransportStdio or harness.TransportHTTP
	URL            string            // the Streamable HTTP endpoint ("" on stdio)
	Timeout        time.Duration     // bounds each request (--timeout)
	StartupTimeout time.Duration     // bounds a fresh process's first reply (--startup-timeout)
	QuietWindow    time.Duration     // wait before concluding nothing more comes (--quiet-window)
	FixtureMap     map[string]string // fixture name -> the server's name for it (--fixture-map)
	CallTools      string            // --call-tools: CallFixtures (also ""), CallReadOnly, CallAll
	Schemas        *schemas.Set      // the MCP schemas replies are validated against
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
