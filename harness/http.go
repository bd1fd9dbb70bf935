package harness

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// Redacted replaces the values of user-supplied headers (HTTPConfig.Header) in recorded frames.
const Redacted = "[redacted]"

// ErrStreamEnded is wrapped by the Exchange.Err of an HTTP request whose SSE response stream
// closed before carrying the response.
var ErrStreamEnded = errors.New("SSE stream ended without the response")

// HTTPConfig configures a Streamable HTTP endpoint (basic/transports/streamable-http).
//
// URL is the MCP endpoint (http or https). Header holds the user's --header values: sent on
// every request (overriding a scenario header of the same name, and not removed by
// Request.Omit), and recorded as Redacted. Recorder receives every frame (nil = a private one).
// MaxFrame caps the bytes kept per body or SSE event (0 = DefaultMaxFrame). QuietWindow is how
// long a stream is read after its response, or after the last event when no response is
// expected (0 = DefaultQuietWindow). Client is the HTTP client to start from (nil = a new one);
// its CheckRedirect is replaced so redirects are never followed, and an *http.Transport is
// cloned so each HTTP has its own connection pool.
type HTTPConfig struct {
	URL         string
	Header      http.Header
	Recorder    *Recorder
	MaxFrame    int
	QuietWindow time.Duration
	Client      *http.Client
	// Answer, when set, answers the requests the server sends on SSE streams (see SetAnswer).
	Answer AnswerFunc
	// Batches reads a JSON body or SSE event that is a JSON-RPC batch (ParseBatch) as the
	// messages it holds (see StdioConfig.Batches).
	Batches bool
}

// StreamEnd tells why the reading of an HTTP response body stopped.
type StreamEnd string

// Reasons the reading of a response body stopped: the server closed it (EndEOF), QuietWindow
// passed without an event after the response or, when none was expected, after the last event
// (EndQuiet; the stream was still open), the request context ended (EndContext), or a read
// error (EndError).
const (
	EndEOF     StreamEnd = "eof"
	EndQuiet   StreamEnd = "quiet"
	EndContext StreamEnd = "context"
	EndError   StreamEnd = "error"
)

// StreamInfo describes how an HTTP response body was read. SSE is set for a text/event-stream
// body; Events counts its dispatched events, EventsAfterResponse those after the response event,
// Comments its comment lines (keep-alives). End is why reading stopped and AfterResponse the
// time from the response event to then (zero when no response event came). These feed checks
// such as "the final response ends the SSE stream" (streamable-http#Receiving Messages).
type StreamInfo struct {
	SSE                 bool
	Events              int
	EventsAfterResponse int
	Comments            int
	End                 StreamEnd
	AfterResponse       time.Duration
}

// HTTP is a Streamable HTTP endpoint: every Send is a POST of one JSON-RPC message, answered by
// a JSON body or an SSE stream scoped to that request (basic/transports/streamable-http). It
// implements Transport and is safe for concurrent use. Redirects are not followed and bodies are
// not decompressed, so the recorded status, headers and bytes are the server's own.
type HTTP struct {
	cfg     HTTPConfig
	url     *url.URL
	rec     *Recorder
	conn    int
	answers answerHook  // the answers to the server's requests (SetAnswer)
	batches atomic.Bool // read a batch body or event as its messages (HTTPConfig.Batches, SetBatches)
	client  *http.Client
	own     *http.Transport

	mu     sync.Mutex
	frames []*Frame
	// sess is the legacy session this connection holds since a successful initialize
	// (2025-11-25 basic/transports#Session Management); zero before one.
	sess Session
	// shared marks a connection the runner shares between scenarios (SetShared).
	shared bool
}

// Session is the legacy session an HTTP connection holds after a successful initialize: Open
// once initialize got a result, ID the Mcp-Session-Id the server assigned in its reply ("" when
// it assigned none) and Version the protocolVersion the result negotiated. Every later request on
// the connection carries both (see SendStream), unless it opts out (WithoutSession).
type Session struct {
	Open    bool
	ID      string
	Version string
}

// Header names of a legacy session (2025-11-25 basic/transports#Session Management and
// #Protocol Version Header).
const HeaderSessionID = "Mcp-Session-Id"

// WithoutSession is the Request.Omit (or DoOmit omit) list of a request that tests the absence
// of the session headers: neither Mcp-Session-Id nor MCP-Protocol-Version is sent on it.
var WithoutSession = []string{HeaderSessionID, HeaderProtocolVersion}

// NewHTTP checks cfg (the URL must be absolute http or https) and returns the endpoint. No
// connection is made until the first request.
func NewHTTP(cfg HTTPConfig) (*HTTP, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("http: bad URL %q: %w", cfg.URL, err)
	}
	if u.Scheme = strings.ToLower(u.Scheme); (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("http: URL must be absolute http:// or https://, got %q", cfg.URL)
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.QuietWindow <= 0 {
		cfg.QuietWindow = DefaultQuietWindow
	}
	if cfg.Recorder == nil {
		cfg.Recorder = NewRecorder(time.Now())
	}
	cfg.Header = cfg.Header.Clone()
	h := &HTTP{cfg: cfg, url: u, rec: cfg.Recorder, conn: cfg.Recorder.NewConn()}
	h.answers.set(cfg.Answer)
	h.batches.Store(cfg.Batches)
	h.client, h.own = newHTTPClient(cfg.Client)
	return h, nil
}

// newHTTPClient returns a client that never follows redirects and, when possible, has a
// connection pool of its own (which it also returns for closing).
func newHTTPClient(base *http.Client) (*http.Client, *http.Transport) {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var own *http.Transport
	switch t := c.Transport.(type) {
	case nil:
		own = http.DefaultTransport.(*http.Transport).Clone()
		own.DisableCompression = true
	case *http.Transport:
		own = t.Clone()
	}
	if own != nil {
		// A connection idle longer than this is never reused (net/http checks the age when it
		// takes a connection from the pool). Servers close idle keep-alive connections on a
		// timer of their own (Node's default is 5 s), and a POST written on a connection the
		// server closed at that moment fails with EOF and is not retried, which would read as
		// the server dropping the request. One second stays under every common server default.
		own.IdleConnTimeout = idleConnTimeout
		c.Transport = own
	}
	return c, own
}

// idleConnTimeout is how long a pooled connection to the server may sit idle before the
// client closes it rather than reuse it (see newHTTPClient).
const idleConnTimeout = time.Second

// Session returns the legacy session h holds (Open is false before a successful initialize).
func (h *HTTP) Session() Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sess
}

// SetShared marks h as shared between scenarios by the runner (see Stdio.SetShared).
func (h *HTTP) SetShared() {
	h.mu.Lock()
	h.shared = true
	h.mu.Unlock()
}

// Shared reports whether h was marked shared between scenarios.
func (h *HTTP) Shared() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.shared
}

// Fresh returns a copy of h with a new connection pool (so its first request opens a new TCP
// connection) and a new connection number; it holds no session and is not shared.
func (h *HTTP) Fresh() *HTTP {
	n := &HTTP{cfg: h.cfg, url: h.url, rec: h.rec, conn: h.rec.NewConn()}
	n.answers.set(h.cfg.Answer)
	n.client, n.own = newHTTPClient(h.cfg.Client)
	return n
}

// Name returns "http".
func (h *HTTP) Name() string { return TransportHTTP }

// Conn returns the connection number stamped on this endpoint's frames.
func (h *HTTP) Conn() int { return h.conn }

// URL returns the endpoint URL.
func (h *HTTP) URL() string { return h.url.String() }

// Frames returns every frame of this endpoint so far, both directions, in order.
func (h *HTTP) Frames() []*Frame {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*Frame(nil), h.frames...)
}

// Close closes the idle connections of h's pool. It is idempotent; h stays usable.
func (h *HTTP) Close() error {
	if h.own != nil {
		h.own.CloseIdleConnections()
	}
	return nil
}

// Send POSTs req.Raw (see SendStream) and returns the exchange and its Err.
func (h *HTTP) Send(ctx context.Context, req Request) (*Exchange, error) {
	ex, _ := h.SendStream(ctx, req)
	return ex, ex.Err
}

// SendStream POSTs req.Raw to the endpoint with Content-Type: application/json and Accept:
// application/json, text/event-stream (unless req.Header sets them or req.Omit names them),
// req.Header and the user's headers, records both directions, and reads the answer:
//
//   - application/json (media type, parameters ignored): one server frame with the body; it is
//     the Response when it is a JSON object shaped like a response (whatever its id).
//   - text/event-stream: one server frame per event, the first carrying the HTTP status and
//     headers. The Response is the event whose id matches req.ID, or an error without id (or with
//     id null). Reading goes on after it until the stream closes or QuietWindow passes without an
//     event, and for a request until the response (or ctx) before that; a notification's stream
//     is read until it closes or goes quiet.
//   - anything else (an empty 202 included): one server frame with the body, and, for a request,
//     the Problem "unexpected Content-Type ..."; a body that is nonetheless a JSON-RPC response
//     is still the Response, so the scenario sees what the server said.
//
// User-Agent is "mcp-conform" unless set or omitted. The recorded headers are those given to
// net/http, which adds Host and Content-Length itself. Exchange.HTTP holds the status and headers, Exchange.Frames every server frame of the answer.
// Err is set when the request failed, ctx ended before the response, or the stream ended without
// it (ErrStreamEnded); a non-2xx status alone is not an error.
func (h *HTTP) SendStream(ctx context.Context, req Request) (*Exchange, StreamInfo) {
	hdr := h.compose(req.Header, req.Omit, true)
	if req.Method != "initialize" {
		h.carrySession(hdr, req.Omit)
	}
	ex, info := h.roundTrip(ctx, rtSpec{
		httpMethod:   http.MethodPost,
		header:       hdr,
		body:         req.Raw,
		rpcMethod:    req.Method,
		id:           req.ID,
		isRequest:    !req.Notification,
		intentional:  req.Intentional,
		batch:        newBatchWant(req.Batch),
		batchMethods: batchMethods(req),
	})
	if req.Method == "initialize" {
		h.openSession(ex)
	}
	return ex, info
}

// carrySession adds the session's headers to hdr, the headers of a request on h: a legacy
// session goes on under the id its initialize reply assigned and the version it negotiated, so
// every later request on this connection carries Mcp-Session-Id and MCP-Protocol-Version
// (2025-11-25 basic/transports#Session Management, #Protocol Version Header), the deliberately
// malformed ones included. A header the caller sets itself (a wrong value on purpose) or omits
// (WithoutSession) is left as the caller made it. A request the caller marks as modern (its
// MCP-Protocol-Version is the modern revision, which has no sessions) carries no session id.
func (h *HTTP) carrySession(hdr http.Header, omit []string) {
	h.mu.Lock()
	sess := h.sess
	h.mu.Unlock()
	if !sess.Open {
		return
	}
	if v := hdr.Get(HeaderProtocolVersion); v != "" && v == revisions.Modern().ID && v != sess.Version {
		return
	}
	if hdr.Get(HeaderProtocolVersion) == "" && !omits(omit, HeaderProtocolVersion) && sess.Version != "" {
		hdr.Set(HeaderProtocolVersion, sess.Version)
	}
	if hdr.Get(HeaderSessionID) == "" && !omits(omit, HeaderSessionID) && sess.ID != "" {
		hdr.Set(HeaderSessionID, sess.ID)
	}
}

// openSession records the session an initialize exchange opened: a result with a
// protocolVersion (any 2xx status) opens it, under the Mcp-Session-Id of the reply when there is
// one. A failed initialize leaves the connection's session as it was.
func (h *HTTP) openSession(ex *Exchange) {
	if ex == nil || ex.Response == nil || ex.HTTP == nil || ex.HTTP.Status/100 != 2 {
		return
	}
	msg, err := ParseMessage(ex.Response.Body())
	if err != nil || msg.Kind != KindResult {
		return
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(msg.Result, &ir) != nil || ir.ProtocolVersion == "" {
		return
	}
	h.mu.Lock()
	h.sess = Session{Open: true, ID: ex.HTTP.Headers.Get(HeaderSessionID), Version: ir.ProtocolVersion}
	h.mu.Unlock()
}

func omits(omit []string, name string) bool {
	for _, o := range omit {
		if strings.EqualFold(o, name) {
			return true
		}
	}
	return false
}

// Do sends an arbitrary HTTP request (GET, DELETE, a POST with odd headers) to the endpoint
// with exactly header plus the user's headers and, on a connection that holds a session, the
// session's headers (see DoOmit).
func (h *HTTP) Do(ctx context.Context, method string, header http.Header, body []byte) (*Exchange, error) {
	return h.DoOmit(ctx, method, header, nil, body)
}

// DoOmit is Do leaving out the header names in omit (WithoutSession: none of the session's
// headers). It records both directions like Send and reads the answer: a JSON body as one
// frame, an SSE stream until it closes or QuietWindow passes without an event, bounded by ctx.
// The first response-shaped message is the Response. The returned error is the Exchange's Err
// (transport failures only).
func (h *HTTP) DoOmit(ctx context.Context, method string, header http.Header, omit []string, body []byte) (*Exchange, error) {
	hdr := h.compose(header, omit, false)
	h.carrySession(hdr, omit)
	ex, _ := h.roundTrip(ctx, rtSpec{
		httpMethod:  method,
		header:      hdr,
		body:        body,
		anyResponse: true,
	})
	return ex, ex.Err
}

// rtSpec is one request of roundTrip. isRequest says a JSON-RPC response is expected (wait for
// it; flag unexpected content types); anyResponse takes the first response-shaped message as the
// Response whatever its id.
type rtSpec struct {
	httpMethod  string
	header      http.Header
	body        []byte
	rpcMethod   string
	id          json.RawMessage
	isRequest   bool
	anyResponse bool
	intentional bool
	// began is when the request was sent (set by roundTrip), for TimeoutError.Waited.
	began time.Time
	// held, when set, is the background reading of a stream (OpenStream): told of the reply's
	// status and headers and of every frame recorded, and its quiet window is armed only once
	// the caller releases it (Stream.Close).
	held *Stream
	// batch, for a POST of a batch of requests (Request.Batch), is what it waits for, and
	// batchMethods the method of each of those requests.
	batch        batchWant
	batchMethods []string
}

// compose builds the headers to send: the transport defaults (when defaults is set and the
// caller neither sets nor omits them), the caller's headers minus omit, then the user's
// headers, which replace any caller header of the same name. Names keep the caller's spelling.
func (h *HTTP) compose(caller http.Header, omit []string, defaults bool) http.Header {
	out := http.Header{}
	named := func(hd http.Header, name string) bool {
		for k := range hd {
			if strings.EqualFold(k, name) {
				return true
			}
		}
		return false
	}
	omitted := func(name string) bool {
		for _, o := range omit {
			if strings.EqualFold(o, name) {
				return true
			}
		}
		return false
	}
	for k, vs := range caller {
		if !omitted(k) {
			out[k] = append(out[k], vs...)
		}
	}
	if defaults {
		for _, d := range [][2]string{
			{"Content-Type", "application/json"},
			{"Accept", "application/json, text/event-stream"},
		} {
			if !named(caller, d[0]) && !omitted(d[0]) {
				out.Set(d[0], d[1])
			}
		}
	}
	if !named(caller, "User-Agent") && !named(h.cfg.Header, "User-Agent") {
		if omitted("User-Agent") {
			out["User-Agent"] = []string{""} // net/http then sends none
		} else {
			out.Set("User-Agent", "mcp-conform")
		}
	}
	for k, vs := range h.cfg.Header {
		for o := range out {
			if strings.EqualFold(o, k) {
				delete(out, o)
			}
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// recordedHeader is the copy of sent headers that goes into a frame: user header values
// replaced by Redacted, an empty User-Agent (meaning "none") left out.
func (h *HTTP) recordedHeader(sent http.Header) http.Header {
	rec := http.Header{}
	for k, vs := range sent {
		if strings.EqualFold(k, "User-Agent") && len(vs) == 1 && vs[0] == "" {
			continue
		}
		vals := append([]string(nil), vs...)
		for u := range h.cfg.Header {
			if strings.EqualFold(u, k) {
				for i := range vals {
					vals[i] = Redacted
				}
			}
		}
		rec[k] = vals
	}
	return rec
}

func (h *HTTP) record(f *Frame) {
	f.Transport, f.Conn = TransportHTTP, h.conn
	h.rec.Record(f)
	h.mu.Lock()
	h.frames = append(h.frames, f)
	h.mu.Unlock()
}

// roundTrip sends one HTTP request and reads its answer (see SendStream and Do).
func (h *HTTP) roundTrip(ctx context.Context, sp rtSpec) (*Exchange, StreamInfo) {
	ex := &Exchange{}
	if sp.batch != nil {
		ex.Responses = make([]*Frame, len(sp.batch))
	}
	var info StreamInfo
	var body io.Reader = http.NoBody
	if len(sp.body) > 0 {
		body = bytes.NewReader(sp.body)
	}
	hreq, err := http.NewRequestWithContext(ctx, sp.httpMethod, h.url.String(), body)
	if err != nil {
		ex.Err = fmt.Errorf("%s %s: %w", sp.httpMethod, h.url, err)
		return ex, info
	}
	hreq.Header = sp.header
	if err := ctx.Err(); err != nil {
		ex.Err = fmt.Errorf("%s %s not sent: %w", sp.httpMethod, h.url, err)
		info.End = EndContext
		return ex, info
	}
	ex.Sent = &Frame{Dir: DirClientToServer, Raw: bytes.Clone(sp.body), Method: sp.rpcMethod,
		Intentional: sp.intentional, HTTP: &HTTPMeta{Method: sp.httpMethod, Headers: h.recordedHeader(sp.header)}}
	h.record(ex.Sent)

	sp.began = time.Now()
	resp, err := h.client.Do(hreq)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // it repeats the method and URL said here
		}
		ex.Err = fmt.Errorf("%s %s: %w", sp.httpMethod, h.url, err)
		info.End = EndError
		if ctx.Err() != nil {
			info.End = EndContext
		}
		return ex, info
	}
	defer resp.Body.Close()
	ex.HTTP = &HTTPMeta{Status: resp.StatusCode, Headers: resp.Header.Clone()}
	if sp.held != nil {
		sp.held.headed(ex)
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch mt {
	case "text/event-stream":
		info = h.readSSE(ctx, sp, resp.Body, ex)
	case "application/json":
		h.readBody(ctx, sp, resp.Body, ex, &info, true, "")
	default:
		problem := ""
		if sp.isRequest {
			problem = fmt.Sprintf("unexpected Content-Type %q for a request (want application/json or text/event-stream)", ct)
		}
		h.readBody(ctx, sp, resp.Body, ex, &info, false, problem)
	}
	return ex, info
}

// readBody reads a whole (non-SSE) body, bounded by MaxFrame, into one frame.
func (h *HTTP) readBody(ctx context.Context, sp rtSpec, body io.Reader, ex *Exchange, info *StreamInfo, isJSON bool, problem string) {
	raw, size, err := readCapped(body, h.cfg.MaxFrame)
	f := &Frame{Dir: DirServerToClient, Raw: raw, Size: size, Truncated: size > len(raw), HTTP: ex.HTTP, ReplyTo: ex.Sent.Seq}
	var problems []string
	if problem != "" {
		problems = append(problems, problem)
	}
	var msg *Message
	switch {
	case !isJSON && (size == 0 || f.Truncated || raw[0] != '{'):
	case !isJSON:
		// Still read a JSON-RPC reply sent with the wrong type, so the scenario sees it.
		msg, _ = classifyMessage(raw)
	case f.Truncated:
		problems = append(problems, fmt.Sprintf("body exceeds --max-frame (%d bytes)", h.cfg.MaxFrame))
	case size == 0:
		problems = append(problems, "empty application/json body")
	default:
		var ps []string
		msg, ps = classifyMessage(raw)
		msg, ps = repairFrame(f, raw, msg, ps)
		problems = append(problems, ps...)
	}
	members := h.batchOf(f, msg)
	switch {
	case members != nil:
		problems = strings.Split(batchProblem(strings.Join(problems, "; ")), "; ")
		if r := takeResponses(f, members, true, sp, ex); r != nil {
			ex.Response = r
		}
		h.answerAll(members)
	case msg != nil && sp.batch != nil:
		f.Method = msg.Method
		if r := takeResponses(f, []*Message{msg}, false, sp, ex); r != nil {
			ex.Response = r
		}
	case msg != nil && isResponseShaped(msg):
		f.Method = sp.rpcMethod
		ex.Response = f
	case msg != nil:
		f.Method = msg.Method
	}
	f.Problem = strings.Join(problems, "; ")
	info.End = EndEOF
	if err != nil {
		info.End = EndError
		if ctx.Err() != nil {
			info.End = EndContext
		}
		ex.Err = fmt.Errorf("reading the response body: %w", err)
	}
	h.record(f)
	ex.Frames = append(ex.Frames, f)
}

// readCapped reads r to its end keeping at most max bytes; size is the real length.
func readCapped(r io.Reader, max int) (kept []byte, size int, err error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, int64(max)))
	size = int(n)
	if err == nil && n == int64(max) {
		var rest int64
		rest, err = io.Copy(io.Discard, r)
		size += int(rest)
	}
	return buf.Bytes(), size, err
}

// readSSE reads an SSE response body into frames (see SendStream).
func (h *HTTP) readSSE(ctx context.Context, sp rtSpec, body io.ReadCloser, ex *Exchange) StreamInfo {
	info := StreamInfo{SSE: true}
	type item struct {
		ev  SSEEvent
		err error
	}
	rd := NewSSEReader(body, h.cfg.MaxFrame)
	events := make(chan item)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			ev, err := rd.Next()
			select {
			case events <- item{ev, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()

	var quiet *time.Timer
	var quietC <-chan time.Time
	armQuiet := func() {
		if quiet == nil {
			quiet = time.NewTimer(h.cfg.QuietWindow)
			quietC = quiet.C
		} else {
			quiet.Reset(h.cfg.QuietWindow)
		}
	}
	release, released := sp.held.released(), sp.held == nil
	if !sp.isRequest && released {
		armQuiet()
	}
	var respAt time.Time
	var readErr error
loop:
	for {
		select {
		case it := <-events:
			if it.err != nil {
				if ev, ok := rd.Leftover(); ok {
					f := h.sseFrame(ev, ex)
					f.Raw, f.Size = []byte(ev.Data), ev.Size
					h.record(f)
					ex.Frames = append(ex.Frames, f)
				}
				info.End = EndEOF
				if !errors.Is(it.err, io.EOF) {
					info.End, readErr = EndError, it.err
					if ctx.Err() != nil {
						info.End = EndContext
					}
				}
				break loop
			}
			info.Events++
			f := h.sseFrame(it.ev, ex)
			resp, answerable := h.classifySSE(f, it.ev, sp, ex)
			isResp := resp != nil
			if !isResp && !h.rec.Admit(f) {
				continue
			}
			h.record(f)
			ex.Frames = append(ex.Frames, f)
			if sp.held != nil {
				sp.held.saw(f)
			}
			h.answerAll(answerable) // after the requests are recorded, so the answers follow them
			switch {
			case isResp:
				ex.Response = resp
				respAt = time.Now()
				armQuiet()
			case ex.Response != nil:
				info.EventsAfterResponse++
				armQuiet()
			case !sp.isRequest && released:
				armQuiet()
			}
		case <-release:
			release, released = nil, true
			armQuiet()
		case <-quietC:
			info.End = EndQuiet
			break loop
		case <-ctx.Done():
			info.End = EndContext
			break loop
		}
	}
	close(stop)
	body.Close()
	wg.Wait()
	if quiet != nil {
		quiet.Stop()
	}
	info.Comments = rd.Comments()
	if !respAt.IsZero() {
		info.AfterResponse = time.Since(respAt)
	}

	if len(ex.Frames) == 0 {
		f := h.sseFrame(SSEEvent{Retry: -1}, ex)
		if info.End == EndEOF && sp.isRequest {
			f.Problem = "SSE stream ended without any event"
		}
		h.record(f)
		ex.Frames = append(ex.Frames, f)
	}
	if sp.isRequest && ex.Response == nil {
		what := fmt.Sprintf("%s (id %s)", methodName(sp.rpcMethod), idText(sp.id))
		if sp.batch != nil {
			what = sp.batch.what() + ": no response to ids " + sp.batch.missing(ex.Responses)
		}
		switch info.End {
		case EndContext:
			ex.Err = &TimeoutError{What: what + " on the SSE stream", Err: ctx.Err(), Waited: time.Since(sp.began)}
		case EndError:
			ex.Err = fmt.Errorf("reading the SSE stream for %s: %w", what, readErr)
		default:
			ex.Err = fmt.Errorf("%w: %s", ErrStreamEnded, what)
		}
	}
	return info
}

// classifySSE classifies f, the frame of SSE event ev in the answer to sp: it sets f's Method,
// Problem, Content and Repairs, and returns the frame that is the response sp waits for (nil
// when f brings none, or not the last one a batch request waits for) and the server's
// requests f carries, to be answered once f is recorded (one message, or a batch's members on
// a connection that reads batches).
func (h *HTTP) classifySSE(f *Frame, ev SSEEvent, sp rtSpec, ex *Exchange) (resp *Frame, answerable []*Message) {
	msg, problems := classifyEvent(ev)
	if !ev.Truncated && ev.Data != "" {
		msg, problems = repairFrame(f, f.Raw, msg, problems)
	}
	defer func() { f.Problem = strings.Join(problems, "; ") }()
	if members := h.batchOf(f, msg); members != nil {
		problems = strings.Split(batchProblem(strings.Join(problems, "; ")), "; ")
		if resp = takeResponses(f, members, true, sp, ex); ex.Response != nil {
			resp = nil
		}
		return resp, members
	}
	if msg == nil {
		return nil, nil
	}
	if sp.batch != nil {
		f.Method = msg.Method
		if resp = takeResponses(f, []*Message{msg}, false, sp, ex); ex.Response != nil {
			resp = nil
		}
		return resp, []*Message{msg}
	}
	if !isResponseShaped(msg) {
		f.Method = msg.Method
		return nil, []*Message{msg}
	}
	key := responseKey(msg)
	if ex.Response == nil && (sp.anyResponse || (sp.id != nil && key == IDKey(sp.id)) || ((key == "" || key == "null") && msg.Kind != KindResult)) {
		f.Method = sp.rpcMethod
		return f, nil
	}
	return nil, nil
}

// sseFrame returns the server frame of an SSE event; the first frame of a response carries the
// HTTP status and headers.
func (h *HTTP) sseFrame(ev SSEEvent, ex *Exchange) *Frame {
	f := &Frame{Dir: DirServerToClient, Raw: []byte(ev.Data), Size: ev.Size, Truncated: ev.Truncated,
		SSE: &SSEMeta{Event: ev.Event, ID: ev.ID, HasID: ev.HasID, Retry: ev.Retry}, Problem: ev.Problem, ReplyTo: ex.Sent.Seq}
	if len(ex.Frames) == 0 {
		f.HTTP = ex.HTTP
	}
	return f
}

// classifyEvent parses an SSE event's data as one JSON-RPC message (streamable-http: each event's
// data is one message) and returns it with the event's problems and the message's.
func classifyEvent(ev SSEEvent) (*Message, []string) {
	var problems []string
	if ev.Problem != "" {
		problems = strings.Split(ev.Problem, "; ")
	}
	if ev.Truncated {
		return nil, problems
	}
	if ev.Data == "" {
		// An event with empty data carries no message: the priming event 2025-11-25 recommends
		// (an id for resumption and no data) is no framing problem (streamable-http#Receiving
		// Messages: events without a message are allowed).
		return nil, problems
	}
	msg, ps := classifyMessage([]byte(ev.Data))
	for _, p := range ps {
		dup := false
		for _, q := range problems {
			dup = dup || q == p
		}
		if !dup {
			problems = append(problems, p)
		}
	}
	return msg, problems
}

// repairFrame reads f past the wire defects of raw (Repaired) when msg, its strict parse, is
// nil or invalid: on success f gets Content and Repairs, and the repaired message is returned
// with the problems other than the ones the repair read past (its defects are MSG-001's and
// MSG-002's, not the framing's). Otherwise msg and problems are returned unchanged.
func repairFrame(f *Frame, raw []byte, msg *Message, problems []string) (*Message, []string) {
	if msg != nil && msg.Kind != KindInvalid {
		return msg, problems
	}
	content, reps, m := Repaired(raw)
	if m == nil {
		return msg, problems
	}
	f.Content, f.Repairs = content, reps
	var left []string
	for _, p := range problems {
		if p != "invalid UTF-8" && !strings.HasPrefix(p, "not a JSON-RPC message") {
			left = append(left, p)
		}
	}
	return m, left
}

// classifyMessage parses raw as one JSON-RPC message. It returns the message when raw is one
// JSON object (even an invalid message) and the framing problems found.
func classifyMessage(raw []byte) (*Message, []string) {
	m, err := ParseMessage(raw)
	switch {
	case err != nil && m.Problem == "invalid UTF-8":
		return nil, []string{"invalid UTF-8"}
	case err != nil:
		return nil, []string{"not a JSON-RPC message: " + err.Error()}
	case m.Kind == KindInvalid:
		return m, []string{"not a JSON-RPC message: " + m.Problem}
	}
	return m, nil
}

// Request header names of the Streamable HTTP transport (2026-07-28
// basic/transports/streamable-http#Request Metadata). Names are case-insensitive; ModernHeaders
// and LegacyHeaders store them under their canonical form, so http.Header.Get finds them.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// ModernHeaders builds the 2026-07-28 request headers for the JSON-RPC message body
// (streamable-http#Standard Request Headers): MCP-Protocol-Version from
// params._meta["io.modelcontextprotocol/protocolVersion"], Mcp-Method from method, and Mcp-Name
// from params.name (tools/call, prompts/get) or params.uri (resources/read). A header is left
// out when its source is absent or not a string. The Mcp-Name value goes through
// EncodeHeaderValue (the spec allows the base64 sentinel only there and in Mcp-Param-*); the
// others are sent verbatim. A body that is not a JSON object yields an empty header set.
func ModernHeaders(body []byte) http.Header {
	h := http.Header{}
	var top, params, meta map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return h
	}
	_ = json.Unmarshal(top["params"], &params) // params or _meta of the wrong shape: headers
	_ = json.Unmarshal(params["_meta"], &meta) // from what is there
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if v, ok := str(meta["io.modelcontextprotocol/protocolVersion"]); ok {
		h.Set(HeaderProtocolVersion, v)
	}
	method, ok := str(top["method"])
	if !ok {
		return h
	}
	h.Set(HeaderMethod, method)
	var name string
	switch method {
	case "tools/call", "prompts/get":
		name, ok = str(params["name"])
	case "resources/read":
		name, ok = str(params["uri"])
	default:
		ok = false
	}
	if ok {
		h.Set(HeaderName, EncodeHeaderValue(name))
	}
	return h
}

// LegacyHeaders returns the request headers of the 2025-06-18 .. 2025-11-25 Streamable HTTP
// transport: only MCP-Protocol-Version (none when version is "", as before negotiation).
func LegacyHeaders(protocolVersion string) http.Header {
	h := http.Header{}
	if protocolVersion != "" {
		h.Set(HeaderProtocolVersion, protocolVersion)
	}
	return h
}

// EncodeHeaderValue returns v as an HTTP header value per streamable-http#Value Encoding: as is
// when every byte is printable ASCII (0x20-0x7E), it has no leading or trailing space and it
// does not itself look like the sentinel; otherwise "=?base64?" + standard base64 of the UTF-8
// bytes + "?=".
func EncodeHeaderValue(v string) string {
	plain := !strings.HasPrefix(v, " ") && !strings.HasSuffix(v, " ") &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] <= 0x7e
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
