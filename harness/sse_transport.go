package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrSSEClosed is wrapped by the errors of requests that the HTTP+SSE transport can no longer
// answer because its SSE stream (the GET) ended or never opened.
var ErrSSEClosed = errors.New("the SSE stream of the HTTP+SSE transport is closed")

// SSEConfig configures a connection over the deprecated HTTP+SSE transport of 2024-11-05
// (basic/transports#HTTP with SSE of that revision).
//
// URL is the SSE endpoint the client GETs (http or https). Header holds the user's --header
// values, sent on the GET and every POST and recorded as Redacted. OpenHeader holds headers
// sent on the GET only (a test's Origin), after the defaults and before the user's. Recorder,
// MaxFrame, QuietWindow, Client and Answer are as in HTTPConfig.
type SSEConfig struct {
	URL         string
	Header      http.Header
	OpenHeader  http.Header
	Recorder    *Recorder
	MaxFrame    int
	QuietWindow time.Duration
	Client      *http.Client
	Answer      AnswerFunc
}

// SSE is one connection over the HTTP+SSE transport: a GET of the SSE endpoint opens an event
// stream whose first event should be `endpoint`, with the URI (resolved against the GET's URL)
// every client message is POSTed to; the server's messages (responses, notifications, requests)
// come as `message` events on that one stream. Send POSTs one message and, for a request, waits
// for the event whose id answers it; events are correlated like stdio lines (a response by id,
// a notification with the pending request it names or, on a connection one scenario owns, the
// single pending request; else Unsolicited). Every frame is recorded: the GET and its reply
// (the first event carries the HTTP status and headers), each event (ReplyTo is the GET's
// Seq), each POST and its HTTP reply (the body, ReplyTo the POST's Seq). The reading is
// lenient, so that rules judge what the server did: events before `endpoint` are recorded and
// delivered, and any event name is read as a message. Safe for concurrent use.
type SSE struct {
	cfg     SSEConfig
	url     *url.URL
	rec     *Recorder
	conn    int
	answers answerHook
	client  *http.Client
	own     *http.Transport
	cancel  context.CancelFunc

	ready     chan struct{} // closed once the endpoint is known or never will be
	readyOnce sync.Once
	done      chan struct{} // closed once the GET stream ended

	mu          sync.Mutex
	frames      []*Frame
	pending     []*waiter
	sentMethods map[string]string
	unsolicited []*Frame
	grew        chan struct{}
	endpoint    *url.URL
	endpointErr error // why there is no endpoint
	deadErr     error // why the stream ended
	shared      bool
	closed      bool
}

// DialSSE checks cfg and opens the SSE stream (a GET with Accept: text/event-stream) in the
// background; the stream lives until Close or until ctx ends. It errors only on a bad URL. The
// first Send waits (bounded by its own context) for the endpoint event.
func DialSSE(ctx context.Context, cfg SSEConfig) (*SSE, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("sse: bad URL %q: %w", cfg.URL, err)
	}
	if u.Scheme = strings.ToLower(u.Scheme); (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("sse: URL must be absolute http:// or https://, got %q", cfg.URL)
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
	s := &SSE{cfg: cfg, url: u, rec: cfg.Recorder, conn: cfg.Recorder.NewConn(), ready: make(chan struct{}),
		done: make(chan struct{}), sentMethods: map[string]string{}, grew: make(chan struct{})}
	s.answers.set(cfg.Answer)
	s.client, s.own = newHTTPClient(cfg.Client)
	sctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	go s.listen(sctx)
	return s, nil
}

// Name returns "sse".
func (s *SSE) Name() string { return TransportSSE }

// Conn returns the connection number stamped on this connection's frames.
func (s *SSE) Conn() int { return s.conn }

// URL returns the SSE endpoint's URL (the one the client GETs).
func (s *SSE) URL() string { return s.url.String() }

// SetAnswer makes s answer every request the server sends on the stream with fn (nil: leave
// them unanswered): the response is POSTed to the endpoint URI like any client message.
func (s *SSE) SetAnswer(fn AnswerFunc) { s.answers.set(fn) }

// Endpoint waits, bounded by ctx, for the endpoint event and returns the URI it named,
// resolved against the SSE endpoint's URL. It errors when the stream ended or never opened
// before one came, when its data is no URI, or when ctx ended first.
func (s *SSE) Endpoint(ctx context.Context) (*url.URL, error) {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, &TimeoutError{What: "the endpoint event on the SSE stream of " + s.url.String(), Err: ctx.Err()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.endpoint == nil {
		return nil, s.endpointErr
	}
	u := *s.endpoint
	return &u, nil
}

// Frames returns every frame of this connection so far, both directions, in order.
func (s *SSE) Frames() []*Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Frame(nil), s.frames...)
}

// Unsolicited returns the server messages that were attributed to no request (see SSE).
func (s *SSE) Unsolicited() []*Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Frame(nil), s.unsolicited...)
}

// SetShared marks s as shared between scenarios: its server messages that are not responses
// are attributed to a request only when they name it.
func (s *SSE) SetShared() {
	s.mu.Lock()
	s.shared = true
	s.mu.Unlock()
}

// Shared reports whether s was marked shared between scenarios.
func (s *SSE) Shared() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shared
}

// Ended reports whether the SSE stream has ended, and why (nil while it is open).
func (s *SSE) Ended() (bool, error) {
	select {
	case <-s.done:
		s.mu.Lock()
		defer s.mu.Unlock()
		return true, s.deadErr
	default:
		return false, nil
	}
}

// Close ends the SSE stream (the server sees the client disconnect) and closes the idle
// connections. It is idempotent; later Sends fail with ErrTransportClosed.
func (s *SSE) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	t := time.NewTimer(5 * time.Second)
	select {
	case <-s.done:
	case <-t.C:
	}
	t.Stop()
	if s.own != nil {
		s.own.CloseIdleConnections()
	}
	return nil
}

// record stamps f with the connection, records it and keeps it among the connection's frames.
func (s *SSE) record(f *Frame) int {
	f.Transport, f.Conn = TransportSSE, s.conn
	s.rec.Record(f)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames = append(s.frames, f)
	close(s.grew)
	s.grew = make(chan struct{})
	return len(s.frames)
}

// headers builds the headers of a request: caller's (minus omit), the defaults the caller
// neither sets nor omits, then the user's, which replace any of the same name.
func (s *SSE) headers(caller http.Header, omit []string, defaults [][2]string) http.Header {
	out := http.Header{}
	for k, vs := range caller {
		if !omits(omit, k) {
			out[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
	for _, d := range defaults {
		if out.Get(d[0]) == "" && !omits(omit, d[0]) {
			out.Set(d[0], d[1])
		}
	}
	for k, vs := range s.cfg.Header {
		out[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	return out
}

// recorded is the copy of sent headers that goes into a frame, user values redacted.
func (s *SSE) recorded(sent http.Header) http.Header {
	rec := sent.Clone()
	for k := range s.cfg.Header {
		if vs := rec.Values(k); len(vs) > 0 {
			red := make([]string, len(vs))
			for i := range red {
				red[i] = Redacted
			}
			rec[http.CanonicalHeaderKey(k)] = red
		}
	}
	return rec
}

// listen opens the SSE stream and reads it until it ends.
func (s *SSE) listen(ctx context.Context) {
	hdr := s.headers(s.cfg.OpenHeader, nil, [][2]string{{"Accept", "text/event-stream"}, {"User-Agent", "mcp-conform"}})
	get := &Frame{Dir: DirClientToServer, HTTP: &HTTPMeta{Method: http.MethodGet, Headers: s.recorded(hdr)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url.String(), nil)
	if err != nil {
		s.end(fmt.Errorf("%w: GET %s: %v", ErrSSEClosed, s.url, err))
		return
	}
	req.Header = hdr
	s.record(get)
	resp, err := s.client.Do(req)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		s.end(fmt.Errorf("%w: GET %s: %v", ErrSSEClosed, s.url, err))
		return
	}
	defer resp.Body.Close()
	meta := &HTTPMeta{Status: resp.StatusCode, Headers: resp.Header.Clone()}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode/100 != 2 || mt != "text/event-stream" {
		raw, size, _ := readCapped(resp.Body, s.cfg.MaxFrame)
		s.record(&Frame{Dir: DirServerToClient, Raw: raw, Size: size, Truncated: size > len(raw), HTTP: meta, ReplyTo: get.Seq})
		s.end(fmt.Errorf("%w: GET %s answered HTTP %d with Content-Type %q, not an SSE stream", ErrSSEClosed, s.url, resp.StatusCode, resp.Header.Get("Content-Type")))
		return
	}
	rd := NewSSEReader(resp.Body, s.cfg.MaxFrame)
	for {
		ev, err := rd.Next()
		if err != nil {
			if left, ok := rd.Leftover(); ok {
				s.deliver(left, meta, true)
				meta = nil
			}
			why := "the server closed it"
			if ctx.Err() != nil {
				why = "the client closed it"
			} else if !errors.Is(err, io.EOF) {
				why = err.Error()
			}
			if meta != nil {
				// No event at all: the reply's status and headers still go on record.
				s.record(&Frame{Dir: DirServerToClient, HTTP: meta, ReplyTo: get.Seq, Problem: "SSE stream ended without any event"})
			}
			s.end(fmt.Errorf("%w (%s)", ErrSSEClosed, why))
			return
		}
		s.deliver(ev, meta, false)
		meta = nil
	}
}

// end records why the stream ended and fails every pending request.
func (s *SSE) end(err error) {
	s.mu.Lock()
	s.deadErr = err
	if s.endpoint == nil && s.endpointErr == nil {
		s.endpointErr = fmt.Errorf("no endpoint event on the SSE stream of %s: %w", s.url, err)
	}
	for _, w := range s.pending {
		w.finished = true
		w.ex.Err = fmt.Errorf("%w before answering %s (id %s)", err, methodName(w.method), idText(w.id))
		close(w.done)
	}
	s.pending = nil
	s.mu.Unlock()
	s.readyOnce.Do(func() { close(s.ready) })
	close(s.done)
}

// deliver records one event of the stream and hands it to the request it answers or
// accompanies. The first endpoint event sets the endpoint; leftover is an event the stream cut.
func (s *SSE) deliver(ev SSEEvent, meta *HTTPMeta, leftover bool) {
	// No ReplyTo: the stream carries the replies to every POST of the connection, each
	// attributed by its id (like a stdio line), not to the GET that opened it.
	f := &Frame{Dir: DirServerToClient, Raw: []byte(ev.Data), Size: ev.Size, Truncated: ev.Truncated, HTTP: meta,
		SSE: &SSEMeta{Event: ev.Event, ID: ev.ID, HasID: ev.HasID, Retry: ev.Retry}, Problem: ev.Problem}
	if leftover {
		s.record(f)
		return
	}
	s.mu.Lock()
	if ev.Event == "endpoint" && s.endpoint == nil && s.endpointErr == nil {
		u, err := s.url.Parse(ev.Data)
		if err != nil || ev.Data == "" {
			s.endpointErr = fmt.Errorf("the endpoint event's data %q is not a URI", ev.Data)
		} else {
			s.endpoint = u
		}
		s.mu.Unlock()
		s.record(f)
		s.readyOnce.Do(func() { close(s.ready) })
		return
	}
	msg, problems := classifyEvent(ev)
	if !ev.Truncated && ev.Data != "" {
		msg, problems = repairFrame(f, f.Raw, msg, problems)
	}
	f.Problem = strings.Join(problems, "; ")
	var resp, target *waiter
	if msg != nil && isResponseShaped(msg) {
		key := responseKey(msg)
		if s.pending, resp = claimPending(s.pending, key); resp != nil {
			f.Method = resp.method
		} else {
			f.Method = s.sentMethods[key]
		}
	} else {
		if msg != nil {
			f.Method = msg.Method
		}
		target = s.accompanied(msg)
	}
	s.mu.Unlock()
	if resp == nil && !s.rec.Admit(f) {
		return
	}
	s.record(f)
	s.mu.Lock()
	defer s.mu.Unlock()
	if msg != nil && msg.Kind == KindRequest {
		go s.answer(msg)
	}
	switch {
	case resp != nil:
		resp.ex.Frames = append(resp.ex.Frames, f)
		resp.ex.Response = f
		resp.finished = true
		close(resp.done)
	case target != nil && !target.finished && !target.claimed:
		target.ex.Frames = append(target.ex.Frames, f)
	default:
		s.unsolicited = append(s.unsolicited, f)
	}
}

// accompanied is Stdio.accompanied over s's pending requests; s.mu must be held.
func (s *SSE) accompanied(msg *Message) *waiter {
	for _, w := range s.pending {
		if w.corr.Names(msg) {
			return w
		}
	}
	if !s.shared && len(s.pending) == 1 {
		return s.pending[0]
	}
	return nil
}

// answer POSTs the response to the server's request msg, if the hook gives one.
func (s *SSE) answer(msg *Message) {
	raw := s.answers.response(msg)
	if raw == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	_, _ = s.Send(ctx, Request{Raw: raw, Method: msg.Method, Notification: true, NoQuiet: true})
}

// Send POSTs req.Raw to the endpoint URI (waiting for the endpoint event first, bounded by
// ctx) with Content-Type: application/json, req.Header minus req.Omit and the user's headers.
// For a request it waits for the response event with its id, the end of ctx, or the end of the
// stream; a POST answered with a status other than 2xx ends the wait at once (the message was
// not accepted; a response that came first is kept). For a notification it waits QuietWindow
// (unless NoQuiet) and returns the events read meanwhile. Exchange.HTTP holds the status and
// headers of the POST's reply. A request with a Sentinel is followed by it, as on stdio: once the
// sentinel is answered, QuietWindow more without a reply settles the request with a
// NoReplyError. The returned error is the Exchange's Err.
func (s *SSE) Send(ctx context.Context, req Request) (*Exchange, error) {
	ex := &Exchange{}
	fail := func(err error) (*Exchange, error) {
		ex.Err = err
		return ex, err
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("%s (id %s) not sent: %w", methodName(req.Method), idText(req.ID), err))
	}
	ep, err := s.Endpoint(ctx)
	if err != nil {
		return fail(fmt.Errorf("%s (id %s) not sent: %w", methodName(req.Method), idText(req.ID), err))
	}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return fail(ErrTransportClosed)
	case s.deadErr != nil:
		err := fmt.Errorf("%w before answering %s (id %s)", s.deadErr, methodName(req.Method), idText(req.ID))
		s.mu.Unlock()
		return fail(err)
	}
	var w *waiter
	if !req.Notification {
		w = &waiter{key: IDKey(req.ID), method: req.Method, id: req.ID, ex: ex, done: make(chan struct{}), sent: time.Now(),
			corr: CorrelationOf(req.Raw, IDKey(req.ID))}
		s.pending = append(s.pending, w)
		if w.key != "" {
			s.sentMethods[w.key] = req.Method
		}
	}
	s.mu.Unlock()

	mark, err := s.post(ctx, ep, req, ex)
	if err == nil && ex.HTTP != nil && ex.HTTP.Status/100 != 2 {
		err = fmt.Errorf("%s (id %s): the POST to %s answered HTTP %d: the message was not accepted", methodName(req.Method), idText(req.ID), ep, ex.HTTP.Status)
	}
	switch {
	case w != nil && err != nil:
		s.settle(w, err, nil)
		<-w.done
		return ex, ex.Err
	case err != nil:
		return fail(err)
	case req.Notification && req.NoQuiet:
		return ex, nil
	case req.Notification:
		return s.quiet(ctx, ex, mark)
	case req.Sentinel != nil:
		return s.awaitOrSentinel(ctx, w, *req.Sentinel)
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		s.settle(w, nil, ctx.Err())
		<-w.done
	}
	return ex, ex.Err
}

// post records and sends the POST of req to ep and records its reply; it returns the number
// of connection frames up to and including the POST.
func (s *SSE) post(ctx context.Context, ep *url.URL, req Request, ex *Exchange) (int, error) {
	hdr := s.headers(req.Header, req.Omit, [][2]string{{"Content-Type", "application/json"}, {"User-Agent", "mcp-conform"}})
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.String(), bytes.NewReader(req.Raw))
	if err != nil {
		return 0, fmt.Errorf("POST %s: %w", ep, err)
	}
	hreq.Header = hdr
	ex.Sent = &Frame{Dir: DirClientToServer, Raw: bytes.Clone(req.Raw), Method: req.Method, Intentional: req.Intentional,
		Sentinel: req.sentinel, HTTP: &HTTPMeta{Method: http.MethodPost, Headers: s.recorded(hdr)}}
	mark := s.record(ex.Sent)
	resp, err := s.client.Do(hreq)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		return mark, fmt.Errorf("POST %s: %w", ep, err)
	}
	defer resp.Body.Close()
	ex.HTTP = &HTTPMeta{Status: resp.StatusCode, Headers: resp.Header.Clone()}
	raw, size, _ := readCapped(resp.Body, s.cfg.MaxFrame)
	s.record(&Frame{Dir: DirServerToClient, Raw: raw, Size: size, Truncated: size > len(raw), HTTP: ex.HTTP, ReplyTo: ex.Sent.Seq})
	return mark, nil
}

// awaitOrSentinel is Stdio.awaitOrSentinel on the one stream of s: a request whose reply may
// rightly never come (deliberately malformed) is followed by sentinel; QuietWindow after the
// sentinel's response, w is settled as absent (NoReplyError).
func (s *SSE) awaitOrSentinel(ctx context.Context, w *waiter, sentinel Request) (*Exchange, error) {
	sctx, cancel := context.WithCancel(ctx)
	sentinel.sentinel = true
	answered, sent := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sent)
		if ex, _ := s.Send(sctx, sentinel); ex.Response != nil {
			close(answered)
		}
	}()
	defer func() { cancel(); <-sent }()
	select {
	case <-w.done:
		t := time.NewTimer(s.cfg.QuietWindow)
		defer t.Stop()
		select {
		case <-sent:
		case <-t.C:
		}
	case <-ctx.Done():
		s.settle(w, nil, ctx.Err())
	case <-answered:
		t := time.NewTimer(s.cfg.QuietWindow)
		defer t.Stop()
		select {
		case <-w.done:
		case <-ctx.Done():
			s.settle(w, nil, ctx.Err())
		case <-t.C:
			s.settle(w, &NoReplyError{What: waiterWhat(w), Sentinel: fmt.Sprintf("%s (id %s)", methodName(sentinel.Method), idText(sentinel.ID)), Window: s.cfg.QuietWindow}, nil)
		}
	}
	<-w.done
	return w.ex, w.ex.Err
}

// settle ends w without a response unless one settled it first: with err, or with a
// TimeoutError for the context error ctxErr.
func (s *SSE) settle(w *waiter, err, ctxErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.claimed || w.finished {
		return
	}
	for i, p := range s.pending {
		if p == w {
			s.pending = append(s.pending[:i], s.pending[i+1:]...)
			break
		}
	}
	w.finished = true
	if err == nil {
		err = &TimeoutError{What: waiterWhat(w), Err: ctxErr, Waited: time.Since(w.sent)}
	}
	w.ex.Err = err
	close(w.done)
}

// quiet waits QuietWindow after a notification and collects the stream's events read
// meanwhile.
func (s *SSE) quiet(ctx context.Context, ex *Exchange, mark int) (*Exchange, error) {
	t := time.NewTimer(s.cfg.QuietWindow)
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.done:
	}
	t.Stop()
	s.mu.Lock()
	for _, f := range s.frames[mark:] {
		if f.Dir == DirServerToClient && f.SSE != nil {
			ex.Frames = append(ex.Frames, f)
		}
	}
	s.mu.Unlock()
	return ex, nil
}

// WaitFrame waits until a server frame for which match returns true is among the connection's
// frames from index from on (an index into Frames), and returns it; nil when ctx ends or the
// stream ended without one.
func (s *SSE) WaitFrame(ctx context.Context, from int, match func(*Frame) bool) *Frame {
	ended := false
	for {
		s.mu.Lock()
		for i := max(from, 0); i < len(s.frames); i++ {
			if f := s.frames[i]; f.Dir == DirServerToClient && match(f) {
				s.mu.Unlock()
				return f
			}
		}
		from = len(s.frames)
		grew := s.grew
		s.mu.Unlock()
		if ended {
			return nil
		}
		select {
		case <-grew:
		case <-ctx.Done():
			return nil
		case <-s.done:
			ended = true
		}
	}
}
