package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func (w *session) note(ex *harness.Exchange) {
	if ex == nil {
		return
	}
	w.exchanges = append(w.exchanges, ex)
	w.last = ex
	if ex.Sent != nil {
		w.seqs[ex.Sent.Seq] = true
	}
	for _, f := range ex.Frames {
		w.seqs[f.Seq] = true
	}
	if ex.Response != nil {
		w.seqs[ex.Response.Seq] = true
	}
	// A concluded absence is reviewed after the run (env.reviewAbsences): a stdio reply that came
	// after all turns the verdict resting on it untestable.
	var nr *harness.NoReplyError
	var te *harness.TimeoutError
	switch {
	case ex.Sent == nil || ex.Response != nil:
	case errors.As(ex.Err, &nr):
		w.absent = append(w.absent, absence{conn: ex.Sent.Conn, key: sentKey(ex.Sent), after: w.env.Recorder().Len(), flag: "--quiet-window"})
	case errors.As(ex.Err, &te) && errors.Is(te.Err, context.DeadlineExceeded):
		te.Flag = w.opts.timeoutFlag(te.Waited)
		w.absent = append(w.absent, absence{conn: ex.Sent.Conn, key: sentKey(ex.Sent), after: w.env.Recorder().Len(), flag: "--timeout"})
	}
}

// frames returns the seqs of every frame the scenario exchanged, including everything seen on
// the connections it opened itself.
func (w *session) frames() []int {
	own := map[int]bool{}
	for _, t := range w.own {
		own[t.Conn()] = true
	}
	if len(own) > 0 {
		for _, f := range w.env.Recorder().Frames() {
			if own[f.Conn] {
				w.seqs[f.Seq] = true
			}
		}
	}
	out := make([]int, 0, len(w.seqs))
	for seq := range w.seqs {
		out = append(out, seq)
	}
	sort.Ints(out)
	return out
}

// undeclared ends a scenario that needs a capability, extension or feature the server's
// DiscoverResult (or InitializeResult) does not declare: na with reason, or untestable naming
// DISC-001 (target.capsUnknown) when no DiscoverResult said what the server declares.
func (w *session) undeclared(reason string) error {
	if why := w.t.CapsUnknown; why != "" {
		return skip(reports.Untestable, why)
	}
	return skip(reports.NA, reason)
}

// responseMessage parses the last exchange's response, or returns a Mismatch saying none came.
func (w *session) responseMessage() (*harness.Message, error) {
	if w.last == nil {
		return nil, fmt.Errorf("no request was sent before this step")
	}
	if w.last.Response == nil {
		actual := "no response"
		if w.last.Err != nil {
			actual = noResponse(w.last.Err)
		} else if w.last.HTTP != nil {
			actual = fmt.Sprintf("HTTP %d without a JSON-RPC response", w.last.HTTP.Status)
			for _, f := range w.last.Frames {
				if len(bytes.TrimSpace(f.Raw)) > 0 {
					actual += " (body: " + short(f.Raw) + ")"
					break
				}
			}
		}
		return nil, &Mismatch{Expected: "a JSON-RPC response", Actual: actual, Frames: w.lastSeqs()}
	}
	msg, _ := harness.ParseMessage(w.last.Response.Body())
	return msg, nil
}

func (w *session) lastSeqs() []int {
	if w.last == nil {
		return nil
	}
	var out []int
	if w.last.Sent != nil {
		out = append(out, w.last.Sent.Seq)
	}
	for _, f := range w.last.Frames {
		out = append(out, f.Seq)
	}
	return out
}

func (w *session) lastHTTP() (*harness.HTTPMeta, error) {
	if w.last == nil || w.last.HTTP == nil {
		return nil, fmt.Errorf("no HTTP reply to check (transport %s)", w.opts.Transport)
	}
	return w.last.HTTP, nil
}

// harmless is a request every server of the revision answers with a result: server/discover
// (2026-07-28) or ping (legacy).
func (w *session) harmless() string {
	if w.t.Modern {
		return "server/discover"
	}
	return "ping"
}

func (w *session) stdio() (Process, error) {
	s, ok := w.conn.Process()
	if !ok {
		return nil, fmt.Errorf("this step needs a stdio connection")
	}
	return s, nil
}

// timeout returns the deadline for the next request: for the first request on a freshly
// started process the startup window (--startup-timeout: a process started while others
// start, or a cold npx, is not blamed for a slow first reply; a reply that proves absence comes
// by a sentinel, not by this deadline), the request timeout otherwise.
func (w *session) timeout() time.Duration {
	cfg := w.opts
	if w.fresh && cfg.Transport == harness.TransportStdio {
		return cfg.StartupTimeout
	}
	return cfg.Timeout
}

func (w *session) send(ctx context.Context, req harness.Request) error {
	if w.conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	if err := guardShared(w.conn, req); err != nil {
		return err
	}
	if req.Notification {
		req.ID = nil
	}
	wait := w.timeout()
	if req.Notification {
		wait = w.opts.QuietWindow + w.opts.Timeout // the transport returns after the quiet window
	}
	if req.Intentional && !req.Notification && w.conn.Name() == harness.TransportStdio {
		// A server may rightly ignore malformed input: absence is proved by a sentinel.
		sentinel := w.build(call{Method: w.harmless()})
		req.Sentinel = &sentinel
	}
	cctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ex, err := w.conn.Send(cctx, req)
	if ex == nil {
		if err == nil {
			err = fmt.Errorf("transport returned no exchange")
		}
		return err
	}
	if ex.Response != nil {
		w.fresh = false
	}
	w.lastID = req.ID
	w.note(ex)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// sendMethod sends a default request for method: on a modern target a request with the
// default `_meta` for version v (the modern revision when v is ""), on a legacy target a plain
// request. id, when nil, is a fresh integer. edit may change the HTTP headers (and returns
// names to omit); such requests are marked intentional.
func (w *session) sendMethod(ctx context.Context, method, v string, id json.RawMessage, edit func(http.Header) []string) error {
	c := call{Method: method, Version: v}
	if id != nil {
		c.ID = id
	}
	req := w.build(c)
	if edit != nil {
		req.Omit = edit(req.Header)
		req.Intentional = true
	}
	return w.send(ctx, req)
}

func (w *session) sendList(ctx context.Context, v string) error {
	for _, lm := range listMethods {
		if _, ok := w.t.Caps[lm.capability]; ok {
			return w.sendMethod(ctx, lm.method, v, nil, nil)
		}
	}
	return w.undeclared("the server declares none of the tools, resources and prompts capabilities")
}

// expand replaces the DocString placeholders: $id (a fresh integer id), $params (the default
// params of the revision: `{"_meta":{...}}` or `{}`), $meta, $harmless and $version.
func (w *session) expand(doc string) (string, json.RawMessage) {
	var id json.RawMessage
	if strings.Contains(doc, "$id") {
		id = json.RawMessage(strconv.FormatInt(w.env.IDs().Next(), 10))
		doc = strings.ReplaceAll(doc, "$id", string(id))
	}
	params, meta := "{}", "{}"
	if w.t.Modern {
		m, _ := json.Marshal(harness.ModernMeta(revisions.Modern().ID))
		meta = string(m)
		params = `{"_meta":` + meta + `}`
	}
	r := strings.NewReplacer("$params", params, "$meta", meta, "$harmless", w.harmless(), "$version", w.t.Revision)
	return r.Replace(doc), id
}

func (w *session) sendDoc(ctx context.Context, doc string, malformed, notification bool) error {
	if err := w.inSession(ctx); err != nil {
		return err
	}
	text, id := w.expand(doc)
	raw := []byte(strings.TrimSpace(text))
	var method string
	if msg, err := harness.ParseMessage(raw); err == nil {
		method = msg.Method
		if msg.HasID && id == nil {
			id = msg.ID
		}
	} else if !malformed {
		return fmt.Errorf("feature bug: DocString is not JSON: %v", err)
	}
	return w.send(ctx, w.buildRaw(raw, id, method, malformed, notification))
}

func (w *session) initialize(ctx context.Context, v string) error {
	if err := w.send(ctx, w.initializeCall(v)); err != nil {
		return err
	}
	w.inits = append(w.inits, initAttempt{requested: v, ex: w.last})
	return nil
}

// stateRequest builds a request for method with params; on a modern target params gets the
// default `_meta` with meta's entries set over it.
func (w *session) stateRequest(method string, params, meta map[string]any) harness.Request {
	if !w.t.Modern {
		meta = nil // the extra _meta keys are modern ones
	}
	if len(params) == 0 {
		params = nil
	}
	return w.build(call{Method: method, Params: params, Meta: meta})
}

// sendParams sends method with params (nil: none) as a request of the revision under test: on
// a modern target with the default `_meta` plus extraMeta, on a legacy target with extraMeta
// (if any) as `_meta`. intentional marks a request that is invalid on purpose.
func (w *session) sendParams(ctx context.Context, method string, params, extraMeta map[string]any, intentional bool) error {
	return w.send(ctx, w.build(call{Method: method, Params: params, Meta: extraMeta, Intentional: intentional}))
}

// lastResult returns the result object of the last response, nil when it is not a result.
func (w *session) lastResult() map[string]json.RawMessage {
	if w.last == nil || w.last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.last.Response.Body())
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	var res map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &res)
	return res
}

// listed returns the entries of the array member of the last result (tools, resources, ...).
func (w *session) listed(member string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	_ = json.Unmarshal(w.lastResult()[member], &out)
	return out
}

func (w *session) declares(capability string) bool {
	_, ok := w.t.Caps[capability]
	return ok
}

// serverExtensions returns capabilities.extensions of the server's discover result.
func (w *session) serverExtensions() map[string]json.RawMessage {
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(w.t.Caps["extensions"], &ext)
	return ext
}

// listAll follows nextCursor from the first page of method (tools/list, prompts/list,
// resources/list, resources/templates/list) on the scenario's connection and collects the
// array member of each page (tools, prompts, resources, resourceTemplates). It returns a
// *listMalformed when a page is not a valid page (member missing or not an array of objects,
// nextCursor not a string) or a cursor repeats, one graded untestable when the traversal
// reaches maxListPages without a repeat, and a
// *listRefused when a page gets an error or no response. Every frame is noted in the world.
func (w *session) listAll(ctx context.Context, method, member string) (*listTraversal, error) {
	lt := &listTraversal{Method: method}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > maxListPages {
			return lt, &listMalformed{Rule: pageRule, Mismatch: &Mismatch{Expected: fmt.Sprintf("%s to end within the %d pages the suite follows", method, maxListPages),
				Actual: fmt.Sprintf("page %d still has a new nextCursor; the list could not be read to its end", maxListPages),
				Grade:  reports.Untestable, Frames: w.lastSeqs()}}
		}
		var params map[string]any
		if page > 1 {
			params = map[string]any{"cursor": cursor}
			lt.Cursors = append(lt.Cursors, cursor)
		}
		if err := w.sendParams(ctx, method, params, nil, false); err != nil {
			return lt, err
		}
		lt.Frames = append(lt.Frames, w.lastSeqs()...)
		msg, err := w.responseMessage()
		if err != nil || msg.Kind != harness.KindResult {
			actual := "no response"
			if err == nil {
				actual = describe(msg)
			}
			return lt, &listRefused{Method: method, Page: page, Actual: actual, Frames: w.lastSeqs()}
		}
		lt.Pages++
		var members map[string]json.RawMessage
		if err := json.Unmarshal(msg.Result, &members); err != nil {
			return lt, &listMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: method + " result to be an object", Actual: short(msg.Result), Frames: w.lastSeqs()}}
		}
		var scope string
		_ = json.Unmarshal(members["cacheScope"], &scope) // its shape is the schema's to judge
		lt.Scopes = append(lt.Scopes, scope)
		var items []json.RawMessage
		if err := json.Unmarshal(members[member], &items); err != nil || members[member] == nil {
			return lt, &listMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: fmt.Sprintf("%s page %d to have a %q array", method, page, member),
				Actual: short(msg.Result), Frames: w.lastSeqs()}}
		}
		for i, raw := range items {
			var obj map[string]any
			if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
				return lt, &listMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: fmt.Sprintf("every %s entry to be an object", member),
					Actual: fmt.Sprintf("page %d entry %d is %s", page, i, short(raw)), Frames: w.lastSeqs()}}
			}
			lt.Items = append(lt.Items, obj)
			lt.Raw = append(lt.Raw, raw)
			lt.ItemFrames = append(lt.ItemFrames, w.lastSeqs())
		}
		next := members["nextCursor"]
		if next == nil {
			return lt, nil
		}
		if err := json.Unmarshal(next, &cursor); err != nil || !isJSONString(next) { // null is no string
			return lt, &listMalformed{Rule: pageRule, Mismatch: &Mismatch{Expected: "nextCursor to be a string", Actual: "nextCursor " + short(next), Frames: w.lastSeqs()}}
		}
		if seen[cursor] {
			return lt, &listMalformed{Rule: pageRule, Mismatch: &Mismatch{Expected: method + " to end (every nextCursor new)",
				Actual: fmt.Sprintf("page %d repeats cursor %s", page, strconv.Quote(cursor)), Frames: w.lastSeqs()}}
		}
		seen[cursor] = true
	}
}

// listenHold is how long the suite keeps a subscriptions/listen stream open to see that the
// server keeps it open too.
func (w *session) listenHold() time.Duration {
	return max(time.Second, 2*w.opts.QuietWindow)
}

// holdListen POSTs subscriptions/listen on a connection of its own and, once the first event
// arrives, runs during (when not nil) and then keeps the stream open for hold before closing
// it. Reading always ends: at the request timeout when no event comes, when the server closes
// the stream, or when the suite closes it.
func (w *session) holdListen(ctx context.Context, during func(context.Context) error, hold time.Duration) error {
	if !w.t.Modern {
		// subscriptions/listen is a method of the modern revision only: a legacy target
		// (HTTP-006 holds since 2025-03-26) gets the rest of the scenario without it.
		if during != nil {
			return during(ctx)
		}
		return nil
	}
	t, err := w.env.Dial(ctx, w.t.Revision)
	if err != nil {
		return fmt.Errorf("cannot open a connection for the listen stream: %w", err)
	}
	w.own = append(w.own, t)
	h, ok := t.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	filter := map[string]any{}
	if _, ok := w.t.Caps["tools"]; ok {
		filter["toolsListChanged"] = true
	}
	req := w.build(call{Method: listenMethod, Era: eraModern, Params: map[string]any{"notifications": filter}})

	first := make(chan struct{})
	var once sync.Once
	conn := h.Conn()
	// The observer stays registered for the rest of the run; after the first event it only
	// compares a connection number.
	w.env.Recorder().OnFrame(func(f *harness.Frame) {
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
	w.streamsMu.Lock()
	w.listen = lr
	w.streamsMu.Unlock()
	w.note(res.ex)
	if duringErr != nil {
		return duringErr
	}
	return ctx.Err()
}

// sendLegacyShaped POSTs raw the way a 2025-06-18..2025-11-25 client opens (no
// MCP-Protocol-Version, no Mcp-Method) on a connection of its own whose frames are validated
// against the legacy schema, so they do not count as modern traffic.
func (w *session) sendLegacyShaped(ctx context.Context, req harness.Request) error {
	t, err := w.env.Dial(ctx, revisions.LatestLegacy().ID)
	if err != nil {
		return fmt.Errorf("cannot open a connection: %w", err)
	}
	w.own = append(w.own, t)
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	req.Header = http.Header{}
	req.Omit = append(req.Omit, harness.WithoutSession...) // the rule is about their absence
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

// dualEra reports whether the server also speaks a legacy revision: its DiscoverResult lists
// one or initialize negotiated one in this run (target.negotiated), or, failing that, it
// answers initialize on a connection of its own.
func (w *session) dualEra(ctx context.Context) (bool, error) {
	for _, v := range append(append([]string(nil), w.t.Supported...), w.t.Negotiated...) {
		if revisions.IsLegacy(v) {
			return true, nil
		}
	}
	t, err := w.env.Dial(ctx, "")
	if err != nil {
		return false, fmt.Errorf("cannot start a connection to try initialize: %w", err)
	}
	w.own = append(w.own, t)
	cctx, cancel := context.WithTimeout(ctx, min(w.opts.StartupTimeout, w.opts.Timeout+2*w.env.Startup()))
	defer cancel()
	h, err := harness.Initialize(cctx, t, w.env.IDs(), revisions.LatestLegacy().ID)
	if err != nil || !revisions.Known(h.Version) || revisions.IsModern(h.Version) {
		return false, ctx.Err()
	}
	w.env.SetRev(t.Conn(), h.Version)
	return true, nil
}

// sendBare sends an HTTP request without body (GET, DELETE) to the endpoint with the
// MCP-Protocol-Version of the revision under test (and Accept: text/event-stream for GET).
func (w *session) sendBare(ctx context.Context, method string) error {
	h, ok := w.conn.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := http.Header{}
	if method == http.MethodGet {
		hdr.Set("Accept", "text/event-stream")
	}
	hdr.Set(harness.HeaderProtocolVersion, w.t.Revision)
	if method == http.MethodDelete && h.Session().Open {
		if err := refuseShared(w.conn, "an HTTP DELETE, which ends the session,"); err != nil {
			return err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout()+w.opts.QuietWindow)
	defer cancel()
	ex, err := h.Do(cctx, method, hdr, nil)
	if ex == nil || ex.HTTP == nil {
		if err == nil {
			err = fmt.Errorf("transport returned no reply")
		}
		return err
	}
	w.lastID = nil
	w.note(ex)
	return ctx.Err()
}

// sendStream is world.send over HTTP keeping how the reply was read (SSE or not, how it ended).
func (w *session) sendStream(ctx context.Context, req harness.Request) error {
	h, ok := w.conn.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	if err := guardShared(w.conn, req); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	ex, info := h.SendStream(cctx, req)
	w.streamsMu.Lock()
	w.streams[ex] = info
	w.streamsMu.Unlock()
	w.lastID = req.ID
	w.note(ex)
	return ctx.Err()
}

// sendAtOnce sends n modern requests concurrently: calls of tool with progress (answered with an
// SSE stream by servers that stream progress), server/discover and list requests.
func (w *session) sendAtOnce(ctx context.Context, n int, tool string) error {
	h, ok := w.conn.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	methods := []string{"tools/call", w.harmless()}
	for _, lm := range listMethods {
		if _, ok := w.t.Caps[lm.capability]; ok {
			methods = append(methods, lm.method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		id := w.env.IDs().Next()
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
	w.streamsMu.Lock()
	for i, ex := range exs {
		w.streams[ex] = infos[i]
		w.concurrent = append(w.concurrent, ex)
	}
	w.streamsMu.Unlock()
	for _, ex := range exs {
		w.note(ex)
	}
	return ctx.Err()
}

// sendConcurrently sends n requests at once on the scenario's connection, each with a fresh id:
// the harmless request and the declared list requests in turn.
func (w *session) sendConcurrently(ctx context.Context, n int) error {
	if w.conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	methods := []string{w.harmless()}
	for _, lm := range listMethods {
		if w.declares(lm.capability) {
			methods = append(methods, lm.method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		reqs[i] = w.build(call{Method: methods[i%len(methods)]})
	}
	exs := make([]*harness.Exchange, n)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, w.timeout())
			defer cancel()
			exs[i], _ = w.conn.Send(cctx, reqs[i])
		}(i)
	}
	wg.Wait()
	for i, ex := range exs {
		if ex == nil {
			return fmt.Errorf("transport returned no exchange for request %d", i)
		}
		w.note(ex)
	}
	w.lastID = reqs[n-1].ID
	return ctx.Err()
}
