package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Conn is one connection to the server under test as the client sees it: the transport, the
// frames it recorded and, when it has them, the child process behind it (stdio) or the
// Streamable HTTP endpoint. This file is the only code that names the concrete transports
// (harness.Stdio, harness.HTTP); everything else asks Process or Endpoint.
type Conn interface {
	harness.Transport
	// Frames returns the frames of this connection, in order.
	Frames() []*harness.Frame
	// Shared reports whether the connection is the one a target's scenarios share.
	Shared() bool
	// SetShared marks the connection as the one a target's scenarios share.
	SetShared()
	// Process returns the child process of a stdio connection; ok is false on HTTP.
	Process() (p Process, ok bool)
	// Endpoint returns the Streamable HTTP endpoint; ok is false on stdio.
	Endpoint() (e Endpoint, ok bool)
	// SSEStream returns the stream of an HTTP+SSE connection (2024-11-05); ok is false on
	// every other transport.
	SSEStream() (s SSEStream, ok bool)
	// SetAnswerer makes the connection answer the requests the server sends the client with
	// a (Dial starts a handshake-era connection with PingOnly, any other with no answers).
	SetAnswerer(a Answerer)
	// SetRevision tells the connection the revision it speaks once that is settled (a legacy
	// handshake negotiated it): at a revision with JSON-RPC batches it reads the server's
	// (revisions.AllowsBatches), at any other it reads an array as no message.
	SetRevision(rev string)
}

// Process is the server process behind a stdio connection: its frames, the frames that
// answered nothing, its stderr, and its exit.
type Process interface {
	Conn() int
	Pid() int
	Frames() []*harness.Frame
	Unsolicited() []*harness.Frame
	WaitFrame(ctx context.Context, from int, match func(*harness.Frame) bool) *harness.Frame
	Exited() <-chan struct{}
	IsDead() bool
	CloseStdin() error
	WaitExit(timeout time.Duration) bool
	ExitCode() (int, bool)
	ShutdownStep() harness.ShutdownStep
	StderrTail() string
	StderrInvalidUTF8() bool
}

// Endpoint is the HTTP side of a Streamable HTTP connection: a POST whose SSE reply is read
// and described, and any other HTTP request (GET, DELETE) to the endpoint.
type Endpoint interface {
	Conn() int
	URL() string
	Session() harness.Session
	SendStream(ctx context.Context, req harness.Request) (*harness.Exchange, harness.StreamInfo)
	Do(ctx context.Context, method string, header http.Header, body []byte) (*harness.Exchange, error)
	OpenStream(ctx context.Context, method string, header http.Header, omit []string, body []byte) *harness.Stream
}

// SSEStream is the client side of an HTTP+SSE connection (2024-11-05 basic/transports#HTTP
// with SSE): the SSE endpoint's URL, the endpoint URI its endpoint event named, whether the
// stream ended, and the server frames that answered no request.
type SSEStream interface {
	Conn() int
	URL() string
	Endpoint(ctx context.Context) (*url.URL, error)
	Ended() (bool, error)
	Unsolicited() []*harness.Frame
	WaitFrame(ctx context.Context, from int, match func(*harness.Frame) bool) *harness.Frame
}

var (
	_ Process   = (*harness.Stdio)(nil)
	_ Endpoint  = (*harness.HTTP)(nil)
	_ SSEStream = (*harness.SSE)(nil)
)

// DialConfig is what Dial needs to open a connection: the transport and its target, the
// recorder every frame goes to, and the limits.
type DialConfig struct {
	Transport     string            // harness.TransportStdio, harness.TransportHTTP or harness.TransportSSE
	Command       []string          // stdio: the server's argv, run without a shell
	URL           string            // http: the Streamable HTTP endpoint; sse: the SSE endpoint
	Header        http.Header       // http, sse: headers sent on every request (--header)
	Recorder      *harness.Recorder // where every frame of the connection is recorded
	MaxFrame      int               // the bytes kept per frame (0 = harness default)
	QuietWindow   time.Duration     // how long to wait before concluding nothing more arrives
	ShutdownGrace time.Duration     // stdio: wait per shutdown step (0 = harness default)
	// Revision is the revision the connection is opened for ("" when not known yet). A
	// connection opened for a revision that allows JSON-RPC batches reads the server's
	// (revisions.AllowsBatches). A connection opened for a handshake-era revision answers the
	// server's ping (PingOnly);
	// any other answers nothing: 2026-07-28 has no server-to-client requests (MSG-012 judges
	// one), and an answer there would be the suite's own invalid frame.
	Revision string
}

// Dial opens a new connection: a new child process (stdio) or a new HTTP client with its own
// connection pool (http). It errors when the process cannot start, the HTTP configuration is
// invalid, or the transport is unknown.
func Dial(ctx context.Context, cfg DialConfig) (Conn, error) {
	switch cfg.Transport {
	case harness.TransportStdio:
		s, err := harness.StartStdio(ctx, harness.StdioConfig{
			Argv: cfg.Command, MaxFrame: cfg.MaxFrame, Recorder: cfg.Recorder, QuietWindow: cfg.QuietWindow,
			ShutdownGrace: cfg.ShutdownGrace, Answer: cfg.answer(), Batches: revisions.AllowsBatches(cfg.Revision),
		})
		if err != nil {
			return nil, err
		}
		return stdioConn{s}, nil
	case harness.TransportHTTP:
		h, err := harness.NewHTTP(harness.HTTPConfig{
			URL: cfg.URL, Header: cfg.Header, Recorder: cfg.Recorder, MaxFrame: cfg.MaxFrame, QuietWindow: cfg.QuietWindow,
			Answer: cfg.answer(), Batches: revisions.AllowsBatches(cfg.Revision),
		})
		if err != nil {
			return nil, err
		}
		return httpConn{h}, nil
	case harness.TransportSSE:
		h, err := harness.DialSSE(ctx, harness.SSEConfig{
			URL: cfg.URL, Header: cfg.Header, Recorder: cfg.Recorder, MaxFrame: cfg.MaxFrame, QuietWindow: cfg.QuietWindow,
			Answer: cfg.answer(),
		})
		if err != nil {
			return nil, err
		}
		return sseConn{h}, nil
	}
	return nil, fmt.Errorf("unknown transport %q", cfg.Transport)
}

// answer returns the answer hook a new connection starts with (see DialConfig.Revision).
func (cfg DialConfig) answer() harness.AnswerFunc {
	if revisions.IsLegacy(cfg.Revision) {
		return Respond(PingOnly)
	}
	return nil
}

// Wrap makes a Conn of t: a stdio process, an HTTP endpoint, or any other Transport (a test's
// fake), which has neither and no frames of its own.
func Wrap(t harness.Transport) Conn {
	switch x := t.(type) {
	case Conn:
		return x
	case *harness.Stdio:
		return stdioConn{x}
	case *harness.HTTP:
		return httpConn{x}
	case *harness.SSE:
		return sseConn{x}
	}
	return &plainConn{Transport: t}
}

type stdioConn struct{ *harness.Stdio }

func (c stdioConn) Process() (Process, bool)     { return c.Stdio, true }
func (c stdioConn) Endpoint() (Endpoint, bool)   { return nil, false }
func (c stdioConn) SSEStream() (SSEStream, bool) { return nil, false }
func (c stdioConn) SetAnswerer(a Answerer)       { c.Stdio.SetAnswer(Respond(a)) }
func (c stdioConn) SetRevision(rev string)       { c.Stdio.SetBatches(revisions.AllowsBatches(rev)) }

type httpConn struct{ *harness.HTTP }

func (c httpConn) Process() (Process, bool)     { return nil, false }
func (c httpConn) Endpoint() (Endpoint, bool)   { return c.HTTP, true }
func (c httpConn) SSEStream() (SSEStream, bool) { return nil, false }
func (c httpConn) SetAnswerer(a Answerer)       { c.HTTP.SetAnswer(Respond(a)) }
func (c httpConn) SetRevision(rev string)       { c.HTTP.SetBatches(revisions.AllowsBatches(rev)) }

type sseConn struct{ *harness.SSE }

func (c sseConn) Process() (Process, bool)     { return nil, false }
func (c sseConn) Endpoint() (Endpoint, bool)   { return nil, false }
func (c sseConn) SSEStream() (SSEStream, bool) { return c.SSE, true }
func (c sseConn) SetAnswerer(a Answerer)       { c.SSE.SetAnswer(Respond(a)) }
func (c sseConn) SetRevision(string)           {} // HTTP+SSE is 2024-11-05's, which has no batches

type plainConn struct {
	harness.Transport
	shared bool
}

func (c *plainConn) Frames() []*harness.Frame     { return nil }
func (c *plainConn) Shared() bool                 { return c.shared }
func (c *plainConn) SetShared()                   { c.shared = true }
func (c *plainConn) Process() (Process, bool)     { return nil, false }
func (c *plainConn) Endpoint() (Endpoint, bool)   { return nil, false }
func (c *plainConn) SSEStream() (SSEStream, bool) { return nil, false }
func (c *plainConn) SetAnswerer(Answerer)         {}
func (c *plainConn) SetRevision(string)           {}
