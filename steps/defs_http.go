package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// httpState is what the Streamable HTTP steps of one scenario keep besides the world: how each
// SSE reply they read ended, the requests they sent at once, and the listen stream they held.
type httpState struct {
	mu         sync.Mutex
	streams    map[*harness.Exchange]harness.StreamInfo
	concurrent []*harness.Exchange
	listen     *listenRun
	oldInit    *harness.Exchange // the initialize asking for 2025-03-26 (VER-006)
}

// listenRun is one subscriptions/listen request held open by the suite: the exchange (frames
// up to the moment the suite closed it), how its reading ended, and whether the server closed
// the stream itself before the suite did.
type listenRun struct {
	ex           *harness.Exchange
	info         harness.StreamInfo
	serverClosed bool
	hold         time.Duration
}

// Names of the Streamable HTTP checks that look at SSE traffic.
const (
	progressMeta     = "progressToken"
	logLevelMeta     = "io.modelcontextprotocol/logLevel"
	listenMethod     = "subscriptions/listen"
	foreignOrigin    = "http://evil.example"
	unknownPrompt    = "mcpconform-no-such-prompt"
	noSSEInThisRun   = "the server answered no request of this run with an SSE stream, so there is no stream to judge"
	noListenDeclared = "the server does not offer subscriptions/listen"
)

// registerHTTPSteps binds the steps of Streamable HTTP transport (HTTP, ERR-010, VER-005/006).
func registerHTTPSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client calls the fixture tool "([^"]+)" asking for progress$`, func(ctx context.Context, tool string) error {
		return worldOf(ctx).callTool(ctx, tool, true, false)
	})
	step(sc, `^the client calls the fixture tool "([^"]+)" asking for progress and log messages$`, func(ctx context.Context, tool string) error {
		return worldOf(ctx).callTool(ctx, tool, true, true)
	})
	step(sc, `^the client calls the fixture tool "([^"]+)" without progress token or log level$`, func(ctx context.Context, tool string) error {
		return worldOf(ctx).callTool(ctx, tool, false, false)
	})
	step(sc, `^the client sends (\d+) requests at once, some calling the fixture tool "([^"]+)" with progress$`, func(ctx context.Context, n int, tool string) error {
		return worldOf(ctx).sendAtOnce(ctx, n, tool)
	})
	step(sc, `^the client opens a subscriptions/listen stream and holds it$`, wc(func(ctx context.Context, w *world) error {
		return w.holdListen(ctx, nil, w.listenHold())
	}))
	step(sc, `^the client opens a subscriptions/listen stream and closes it after the first event$`, wc(func(ctx context.Context, w *world) error {
		return w.holdListen(ctx, nil, 0)
	}))
	step(sc, `^the client opens a subscriptions/listen stream and, while it is open, calls the fixture tool "([^"]+)" asking for progress and log messages$`, func(ctx context.Context, tool string) error {
		w := worldOf(ctx)
		return w.holdListen(ctx, func(ctx context.Context) error { return w.callTool(ctx, tool, true, true) }, w.listenHold())
	})
	step(sc, `^the client sends the intentionally invalid notification:$`, func(ctx context.Context, doc *godog.DocString) error {
		return worldOf(ctx).sendDoc(ctx, doc.Content, true, true)
	})
	step(sc, `^the client sends a harmless request with a foreign Origin header$`, wc(func(ctx context.Context, w *world) error {
		if why := nonLoopback(w.s.env.cfg.URL); why != "" {
			return w.setSkip(reports.Untestable, why)
		}
		return w.sendMethod(ctx, harmless(w), "", nil, func(h http.Header) []string { h.Set("Origin", foreignOrigin); return nil })
	}))
	step(sc, `^the client sends requests that a modern server refuses with a 4xx status$`, wc(sendRefusable))
	step(sc, `^the client POSTs a legacy-shaped initialize without MCP request headers$`, wc(func(ctx context.Context, w *world) error {
		return w.sendLegacyShaped(ctx, w.initializeCall(revisions.LatestLegacy().ID))
	}))
	step(sc, `^the client POSTs a legacy-shaped ping without MCP-Protocol-Version$`, wc(func(ctx context.Context, w *world) error {
		return w.sendLegacyShaped(ctx, w.build(call{Method: "ping", Era: eraPlain}))
	}))
	step(sc, `^the client asks with a legacy-shaped initialize whether the server negotiates `+regexp.QuoteMeta(revisions.HeaderlessDefault().ID)+`$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		st := w.http
		ping := w.last
		if err := w.sendLegacyShaped(ctx, w.initializeCall(revisions.HeaderlessDefault().ID)); err != nil {
			return err
		}
		st.mu.Lock()
		st.oldInit = w.last
		st.mu.Unlock()
		w.last = ping
		return nil
	})

	// Observe: SSE streams over the whole run (package judge; na when the run had none).
	step(sc, `^every SSE event the server sent in this run carries one JSON-RPC message$`, askJudge("HTTP-006"))
	step(sc, `^every notification on a request's SSE stream in this run relates to that request$`, askJudge("HTTP-007"))
	step(sc, `^no SSE stream of this run carries a JSON-RPC request$`, askJudge("HTTP-008"))
	step(sc, `^every SSE response of this run has the header X-Accel-Buffering: no$`, askJudge("HTTP-010"))
	step(sc, `^no reply in this run carries the response to another request$`, askJudge("HTTP-012"))
	step(sc, `^no event follows the response on any SSE stream of this run$`, askJudge("HTTP-009"))
	step(sc, `^every 4xx reply to a well-formed modern request in this run carries a JSON-RPC error$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		n := 0
		for _, ex := range w.exchanges {
			if ex.HTTP != nil && refusable(ex.HTTP.Status) {
				n++
			}
		}
		if n == 0 {
			return w.setSkip(reports.NA, "the server refused none of the requests with 400 or 404")
		}
		return askJudge("ERR-010")(ctx)
	})

	// Observe: this scenario.
	step(sc, `^every SSE stream in this scenario ended right after its response$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.streamsEnded(w.http)
	})
	step(sc, `^each of those requests got its own response on its own POST$`, func(ctx context.Context) error {
		st := worldOf(ctx).http
		for _, ex := range st.concurrent {
			if ex.Response == nil {
				actual := "no response"
				if ex.Err != nil {
					actual += ": " + ex.Err.Error()
				}
				return &Mismatch{Expected: "the response to " + ex.Sent.Method + " on the reply to its own POST", Actual: actual, Frames: exchangeSeqs(ex)}
			}
		}
		return nil
	})
	step(sc, `^the listen reply is an SSE stream that opens with the acknowledgement and stays open$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.listenStaysOpen(w.http)
	})
	step(sc, `^the listen stream carried no notifications/progress or notifications/message$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		st := w.http
		lr, err := w.listenOffered(st)
		if err != nil {
			return err
		}
		for _, f := range lr.ex.Frames {
			if msg, err := harness.ParseMessage(f.Raw); err == nil && msg.Kind == harness.KindNotification &&
				(msg.Method == "notifications/progress" || msg.Method == "notifications/message") {
				return &Mismatch{Expected: "request-scoped notifications only on the stream of their request", Actual: msg.Method + " on the listen stream: " + short(f.Raw), Frames: []int{f.Seq}}
			}
		}
		return nil
	})
	step(sc, `^any keep-alive on the listen stream is an SSE comment$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		st := w.http
		lr, err := w.listenOffered(st)
		if err != nil {
			return err
		}
		for _, f := range lr.ex.Frames {
			if f.SSE == nil || len(bytes.TrimSpace(f.Raw)) == 0 && f.Problem == "" {
				continue
			}
			if _, err := harness.ParseMessage(f.Raw); err != nil {
				return &Mismatch{Expected: "keep-alives sent as SSE comment lines (\":\")", Actual: "an event whose data is no JSON-RPC message: " + short(f.Raw), Frames: []int{f.Seq}}
			}
		}
		return nil
	})
	step(sc, `^every notification the server refused in this scenario got an HTTP error status and any body is an error without id$`, wc(judgeRefusedNotifications))
	step(sc, `^a JSON-RPC error body of the 403 reply, if any, has no id$`, wc(func(ctx context.Context, w *world) error {
		h, err := w.lastHTTP()
		if err != nil {
			return err
		}
		if h.Status != http.StatusForbidden {
			return w.setSkip(reports.NA, fmt.Sprintf("the server answered the foreign Origin with HTTP %d, not 403 (judged by HTTP-018)", h.Status))
		}
		for _, f := range w.last.Frames {
			msg, err := harness.ParseMessage(f.Raw)
			if err != nil || msg.Kind == harness.KindInvalid {
				continue // no JSON-RPC body: the permission is not used
			}
			if msg.HasID {
				return &Mismatch{Expected: "a JSON-RPC error without id in the 403 body", Actual: "a body with \"id\": " + string(msg.ID), Frames: w.lastSeqs()}
			}
			if msg.Kind != harness.KindError {
				return &Mismatch{Expected: "a JSON-RPC error without id in the 403 body", Actual: describe(msg), Frames: w.lastSeqs()}
			}
		}
		return nil
	}))
	step(sc, `^the legacy-shaped POST was refused with HTTP 400 unless the server also speaks a legacy revision$`, wc(judgeLegacyShaped))
	step(sc, `^the server refused the ping with HTTP 400 or serves it while supporting a revision older than `+regexp.QuoteMeta(revisions.VersionHeaderSince().ID)+`$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return judgeHeaderless(w, w.http)
	})
}

// refusable reports whether status is one a modern server refuses a request with and whose
// body a dual-era client inspects before falling back (400, 404).
func refusable(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound
}

// callTool sends a tools/call of tool (a fixture name: the call is harmless), asking for
// progress with a fresh string progressToken and, when logs is set, for log messages at level
// debug, and keeps how its reply stream ended.
func (w *world) callTool(ctx context.Context, tool string, progress, logs bool) error {
	id := w.s.env.ids.Next()
	meta := map[string]any{}
	if progress {
		meta[progressMeta] = fmt.Sprintf("mcpconform-progress-%d", id)
	}
	if logs && w.s.t.modern {
		meta[logLevelMeta] = "debug"
	}
	c := w.fixtureToolCall(tool, nil, meta)
	c.ID = id
	req := w.build(c)
	return w.sendStream(ctx, req, w.http)
}

// sendStream is world.send over HTTP keeping how the reply was read (SSE or not, how it ended).
func (w *world) sendStream(ctx context.Context, req harness.Request, st *httpState) error {
	h, ok := w.conn.(*harness.HTTP)
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	ex, info := h.SendStream(cctx, req)
	st.mu.Lock()
	st.streams[ex] = info
	st.mu.Unlock()
	w.lastID = req.ID
	w.note(ex)
	return ctx.Err()
}

// sendAtOnce sends n modern requests concurrently: calls of tool with progress (answered with an
// SSE stream by servers that stream progress), server/discover and list requests.
func (w *world) sendAtOnce(ctx context.Context, n int, tool string) error {
	h, ok := w.conn.(*harness.HTTP)
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	methods := []string{"tools/call", harmless(w)}
	for _, lm := range listMethods {
		if _, ok := w.s.t.caps[lm.capability]; ok {
			methods = append(methods, lm.method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		id := w.s.env.ids.Next()
		method := methods[i%len(methods)]
		c := call{Method: method}
		if method == "tools/call" {
			c = w.fixtureToolCall(tool, nil, map[string]any{progressMeta: fmt.Sprintf("mcpconform-progress-%d", id)})
		}
		c.ID, c.Era = id, eraModern
		reqs[i] = w.build(c)
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	st := w.http
	exs := make([]*harness.Exchange, n)
	infos := make([]harness.StreamInfo, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			exs[i], infos[i] = h.SendStream(cctx, reqs[i])
		}()
	}
	close(start)
	wg.Wait()
	st.mu.Lock()
	for i, ex := range exs {
		st.streams[ex] = infos[i]
		st.concurrent = append(st.concurrent, ex)
	}
	st.mu.Unlock()
	for _, ex := range exs {
		w.note(ex)
	}
	return ctx.Err()
}

// streamsEnded checks HTTP-009 for the SSE replies of this scenario: each was closed by the
// server right after the response (within the quiet window), then the run-wide part.
func (w *world) streamsEnded(st *httpState) error {
	n := 0
	for _, ex := range w.exchanges {
		info, ok := st.streams[ex]
		if !ok || !info.SSE || ex.Response == nil {
			continue
		}
		n++
		if info.End != harness.EndEOF || info.EventsAfterResponse > 0 {
			actual := fmt.Sprintf("the stream was still open %s after the response", w.s.env.cfg.QuietWindow)
			if info.EventsAfterResponse > 0 {
				actual = fmt.Sprintf("%d events after the response", info.EventsAfterResponse)
			}
			return &Mismatch{Expected: "the final response to end the SSE stream", Actual: actual, Frames: exchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return w.setSkip(reports.NA, "the server answered none of this scenario's requests with an SSE stream")
	}
	return nil
}

// listenHold is how long the suite keeps a subscriptions/listen stream open to see that the
// server keeps it open too.
func (w *world) listenHold() time.Duration {
	return max(time.Second, 2*w.s.env.cfg.QuietWindow)
}

// holdListen POSTs subscriptions/listen on a connection of its own and, once the first event
// arrives, runs during (when not nil) and then keeps the stream open for hold before closing
// it. Reading always ends: at the request timeout when no event comes, when the server closes
// the stream, or when the suite closes it.
func (w *world) holdListen(ctx context.Context, during func(context.Context) error, hold time.Duration) error {
	t, err := w.s.env.dial(ctx, w.s.t.revision)
	if err != nil {
		return fmt.Errorf("cannot open a connection for the listen stream: %w", err)
	}
	w.own = append(w.own, t)
	h, ok := t.(*harness.HTTP)
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	filter := map[string]any{}
	if _, ok := w.s.t.caps["tools"]; ok {
		filter["toolsListChanged"] = true
	}
	req := w.build(call{Method: listenMethod, Era: eraModern, Params: map[string]any{"notifications": filter}})

	first := make(chan struct{})
	var once sync.Once
	conn := h.Conn()
	// The observer stays registered for the rest of the run; after the first event it only
	// compares a connection number.
	w.s.env.rec.OnFrame(func(f *harness.Frame) {
		if f.Conn == conn && f.Dir == harness.DirServerToClient {
			once.Do(func() { close(first) })
		}
	})
	lctx, cancel := context.WithTimeout(ctx, 2*w.timeout()+hold)
	defer cancel()
	type result struct {
		ex   *harness.Exchange
		info harness.StreamInfo
	}
	done := make(chan result, 1)
	go func() {
		ex, info := h.SendStream(lctx, req)
		done <- result{ex, info}
	}()
	var res result
	ended := false
	timer := time.NewTimer(w.timeout())
	defer timer.Stop()
	select {
	case <-first:
	case res = <-done:
		ended = true
	case <-timer.C:
		cancel()
	}
	var duringErr error
	if !ended {
		if during != nil {
			duringErr = during(ctx)
		}
		holdTimer := time.NewTimer(hold)
		defer holdTimer.Stop()
		select {
		case res = <-done:
			ended = true
		case <-holdTimer.C:
		}
		cancel()
		if !ended {
			res = <-done
		}
	}
	lr := &listenRun{ex: res.ex, info: res.info, serverClosed: res.info.End == harness.EndEOF, hold: hold}
	st := w.http
	st.mu.Lock()
	st.listen = lr
	st.mu.Unlock()
	w.note(res.ex)
	if duringErr != nil {
		return duringErr
	}
	return ctx.Err()
}

// listenOffered returns the held listen stream, or ends the scenario as na when the server
// does not offer subscriptions/listen (-32601 or 404).
func (w *world) listenOffered(st *httpState) (*listenRun, error) {
	lr := st.listen
	if lr == nil || lr.ex == nil {
		return nil, fmt.Errorf("feature bug: no subscriptions/listen stream was opened")
	}
	if lr.ex.HTTP == nil {
		return nil, &Mismatch{Expected: "an HTTP reply to subscriptions/listen", Actual: fmt.Sprint(lr.ex.Err), Frames: exchangeSeqs(lr.ex)}
	}
	if lr.ex.HTTP.Status == http.StatusNotFound {
		return nil, w.setSkip(reports.NA, noListenDeclared+" (HTTP 404)")
	}
	if lr.ex.Response != nil {
		if msg, err := harness.ParseMessage(lr.ex.Response.Raw); err == nil && msg.Kind == harness.KindError && msg.Error.Code == -32601 {
			return nil, w.setSkip(reports.NA, noListenDeclared+" (-32601)")
		}
	}
	return lr, nil
}

// listenStaysOpen checks HTTP-024 on the held listen stream.
func (w *world) listenStaysOpen(st *httpState) error {
	lr, err := w.listenOffered(st)
	if err != nil {
		return err
	}
	ex := lr.ex
	seqs := exchangeSeqs(ex)
	ct := ex.HTTP.Headers.Get("Content-Type")
	if ex.HTTP.Status != http.StatusOK || mediaType(ct) != "text/event-stream" {
		return &Mismatch{Expected: "HTTP 200 with an SSE stream (text/event-stream)", Actual: fmt.Sprintf("HTTP %d with Content-Type %q", ex.HTTP.Status, ct), Frames: seqs}
	}
	var firstMsg *harness.Message
	for _, f := range ex.Frames {
		if msg, err := harness.ParseMessage(f.Raw); err == nil {
			firstMsg = msg
			break
		}
	}
	if firstMsg == nil || firstMsg.Method != "notifications/subscriptions/acknowledged" {
		actual := "no event"
		if firstMsg != nil {
			actual = describe(firstMsg)
			if firstMsg.Method != "" {
				actual = firstMsg.Method
			}
		}
		return &Mismatch{Expected: "the stream to open with notifications/subscriptions/acknowledged", Actual: actual, Frames: seqs}
	}
	switch lr.info.End {
	case harness.EndContext:
		return nil
	case harness.EndEOF:
		actual := "the server closed the stream"
		if ex.Response != nil {
			actual += " after a subscriptions/listen response"
		}
		return &Mismatch{Expected: fmt.Sprintf("the listen stream still open after %s", lr.hold), Actual: actual, Frames: seqs}
	}
	return &Mismatch{Expected: fmt.Sprintf("the listen stream still open after %s", lr.hold), Actual: fmt.Sprintf("reading ended (%s): %v", lr.info.End, ex.Err), Frames: seqs}
}

// sendRefusable sends requests a 2026-07-28 server refuses with 400 or 404: an unknown method,
// a missing Mcp-Method header, an unsupported protocol version and, when prompts are declared,
// prompts/get of a prompt that does not exist.
func sendRefusable(ctx context.Context, w *world) error {
	unknown := `{"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}`
	if err := w.sendDoc(ctx, unknown, false, false); err != nil {
		return err
	}
	if err := w.sendMethod(ctx, "server/discover", "", nil, func(h http.Header) []string { h.Del(harness.HeaderMethod); return []string{harness.HeaderMethod} }); err != nil {
		return err
	}
	if err := w.sendMethod(ctx, "server/discover", revisions.Future, nil, nil); err != nil {
		return err
	}
	if _, ok := w.s.t.caps["prompts"]; ok {
		doc := `{"jsonrpc":"2.0","id":$id,"method":"prompts/get","params":{"name":"` + unknownPrompt + `","_meta":$meta}}`
		if err := w.sendDoc(ctx, doc, false, false); err != nil {
			return err
		}
	}
	return nil
}

// judgeRefusedNotifications checks HTTP-003 over the notifications of the scenario.
func judgeRefusedNotifications(ctx context.Context, w *world) error {
	refused := 0
	for _, ex := range w.exchanges {
		if ex.Sent == nil || ex.HTTP == nil {
			continue
		}
		if sent, err := harness.ParseMessage(ex.Sent.Raw); err != nil || sent.Kind != harness.KindNotification {
			continue
		}
		status := ex.HTTP.Status
		var body *harness.Message
		var raw []byte
		for _, f := range ex.Frames {
			if len(bytes.TrimSpace(f.Raw)) > 0 {
				raw = f.Raw
				body, _ = harness.ParseMessage(f.Raw)
				break
			}
		}
		isRPC := body != nil && body.Kind != harness.KindInvalid
		switch {
		case status == http.StatusAccepted:
			continue // accepted (HTTP-002 judges the empty body)
		case status >= 400 && status < 600:
			refused++
			if isRPC && (body.Kind != harness.KindError || body.HasID) {
				actual := describe(body)
				if body.HasID {
					actual += " with \"id\": " + string(body.ID)
				}
				m := &Mismatch{Expected: "a refusal body that is a JSON-RPC error without id", Actual: actual, Frames: exchangeSeqs(ex)}
				if body.Kind == harness.KindError && harness.IDKey(body.ID) == "null" {
					// JSON-RPC 2.0 writes null where no id could be read (DESIGN.md "Verdicts").
					m.Grade = reports.Warn
				}
				return m
			}
		case status >= 200 && status < 300:
			if isRPC && body.Kind == harness.KindError {
				return &Mismatch{Expected: "an HTTP error status (4xx/5xx) for a refused notification", Actual: fmt.Sprintf("HTTP %d with %s", status, short(raw)), Frames: exchangeSeqs(ex)}
			}
		default:
			return &Mismatch{Expected: "202 Accepted or an HTTP error status", Actual: fmt.Sprintf("HTTP %d", status), Frames: exchangeSeqs(ex)}
		}
	}
	if refused == 0 {
		return w.setSkip(reports.NA, "the server accepted every notification the suite sent, so no refusal could be judged")
	}
	return nil
}

// nonLoopback returns why the Origin rules cannot be judged on target, or "" when its host is a
// loopback address (a server reached there is a local one that must refuse foreign origins).
func nonLoopback(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "cannot parse the target URL: " + err.Error()
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("the target %s is not a loopback address: which origins a remote server trusts is its deployment's choice, so the suite cannot tell a valid Origin from an invalid one", host)
}

// sendLegacyShaped POSTs raw the way a 2025-06-18..2025-11-25 client opens (no
// MCP-Protocol-Version, no Mcp-Method) on a connection of its own whose frames are validated
// against the legacy schema, so they do not count as modern traffic.
func (w *world) sendLegacyShaped(ctx context.Context, req harness.Request) error {
	t, err := w.s.env.dial(ctx, revisions.LatestLegacy().ID)
	if err != nil {
		return fmt.Errorf("cannot open a connection: %w", err)
	}
	w.own = append(w.own, t)
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	req.Header = http.Header{}
	ex, _ := t.Send(cctx, req)
	if ex == nil || ex.HTTP == nil {
		if ex != nil && ex.Err != nil {
			return ex.Err
		}
		return fmt.Errorf("no HTTP reply to the legacy-shaped POST")
	}
	w.lastID = req.ID
	w.note(ex)
	return ctx.Err()
}

// legacyVersions returns the known legacy revisions the server lists in supportedVersions.
func (w *world) legacyVersions() []string {
	var out []string
	for _, v := range w.s.t.supported {
		if revisions.IsLegacy(v) {
			out = append(out, v)
		}
	}
	return out
}

// servedAsLegacy returns the legacy result of the last exchange: a 2xx reply whose response is
// a JSON-RPC result; nil otherwise.
func (w *world) servedAsLegacy() *harness.Message {
	if w.last == nil || w.last.HTTP == nil || w.last.HTTP.Status/100 != 2 || w.last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.last.Response.Raw)
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	return msg
}

// judgeLegacyShaped checks VER-005: a modern-only server refuses the legacy-shaped initialize
// with 400. A server that serves it with a legacy InitializeResult speaks a legacy revision
// (versioning#Compatibility Matrix, Legacy client / Dual-era server) and passes; any other
// answer fails, unless supportedVersions names a legacy revision (then that era's rules judge
// it).
func judgeLegacyShaped(ctx context.Context, w *world) error {
	h, err := w.lastHTTP()
	if err != nil {
		return err
	}
	if h.Status == http.StatusBadRequest {
		return nil
	}
	if msg := w.servedAsLegacy(); msg != nil {
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(msg.Result, &ir) == nil && revisions.IsLegacy(ir.ProtocolVersion) {
			return nil
		}
	}
	if legacy := w.legacyVersions(); len(legacy) > 0 {
		return w.setSkip(reports.NA, fmt.Sprintf("the server also speaks %s and answered HTTP %d; legacy-era rules judge that answer", strings.Join(legacy, ", "), h.Status))
	}
	return &Mismatch{Expected: "HTTP 400 for an initialize without MCP-Protocol-Version and Mcp-Method", Actual: fmt.Sprintf("HTTP %d (%s)", h.Status, lastBody(w)), Frames: w.lastSeqs()}
}

// lastBody returns the start of the last reply's body, or "no body".
func lastBody(w *world) string {
	for _, f := range w.last.Frames {
		if len(bytes.TrimSpace(f.Raw)) > 0 {
			return short(f.Raw)
		}
	}
	return "no body"
}

// headerRequired reports whether revision v (known) has clients send MCP-Protocol-Version on
// every request (revisions.Revision.VersionHeader).
func headerRequired(v string) bool {
	r, _ := revisions.Lookup(v)
	return r.VersionHeader
}

// judgeHeaderless grades VER-006: a POST without MCP-Protocol-Version may be served as
// 2025-03-26 only by a server that supports clients older than 2025-06-18 (it lists 2025-03-26
// or 2024-11-05 in supportedVersions, or negotiates 2025-03-26 on initialize); otherwise it is
// refused with 400 (HDR-001). Serving it without such support, or answering it any other way,
// is reported as information. The last exchange is the ping.
func judgeHeaderless(w *world, st *httpState) error {
	h, err := w.lastHTTP()
	if err != nil {
		return err
	}
	if h.Status == http.StatusBadRequest {
		return nil
	}
	if w.servedAsLegacy() == nil {
		return &Mismatch{Expected: "HTTP 400, or the request served as " + revisions.HeaderlessDefault().ID + "", Actual: fmt.Sprintf("HTTP %d", h.Status), Frames: w.lastSeqs()}
	}
	for _, v := range w.legacyVersions() {
		if !headerRequired(v) {
			return nil
		}
	}
	if ex := st.oldInit; ex != nil && ex.Response != nil {
		if msg, err := harness.ParseMessage(ex.Response.Raw); err == nil && msg.Kind == harness.KindResult {
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(msg.Result, &ir) == nil && revisions.Known(ir.ProtocolVersion) && !headerRequired(ir.ProtocolVersion) {
				return nil
			}
		}
	}
	seqs := w.lastSeqs()
	if st.oldInit != nil {
		seqs = append(seqs, exchangeSeqs(st.oldInit)...)
	}
	headerless := strings.Join(revisions.HeaderlessIDs(), " or ")
	return &Mismatch{Expected: "a request without MCP-Protocol-Version served only by a server supporting " + headerless,
		Actual: "served, while supportedVersions lists " + strings.Join(w.s.t.supported, ", ") + " and initialize does not negotiate " + revisions.HeaderlessDefault().ID, Frames: seqs}
}
