package client

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

// Note records ex as the scenario's last exchange and its frames' seqs as the scenario's; a
// request concluded unanswered (harness.NoReplyError, or a harness.TimeoutError at its deadline)
// is added to Absent for the runner's review of late replies. A nil ex is ignored.
func (w *Session) Note(ex *harness.Exchange) {
	if ex == nil {
		return
	}
	w.Exchanges = append(w.Exchanges, ex)
	w.Last = ex
	if ex.Sent != nil {
		w.Seqs[ex.Sent.Seq] = true
	}
	for _, f := range ex.Frames {
		w.Seqs[f.Seq] = true
	}
	if ex.Response != nil {
		w.Seqs[ex.Response.Seq] = true
	}
	// A concluded absence is reviewed after the run (the runner's lateReplies): a stdio reply
	// that came after all turns the verdict resting on it untestable.
	var nr *harness.NoReplyError
	var te *harness.TimeoutError
	switch {
	case ex.Sent == nil || ex.Response != nil:
	case errors.As(ex.Err, &nr):
		w.Absent = append(w.Absent, Absence{Conn: ex.Sent.Conn, Key: sentKey(ex.Sent), After: w.Env.Recorder().Len(), Flag: "--quiet-window"})
	case errors.As(ex.Err, &te) && errors.Is(te.Err, context.DeadlineExceeded):
		te.Flag = w.Opts.timeoutFlag(te.Waited)
		flag := te.Flag
		if flag == "" {
			flag = "--timeout" // a wait no flag bounded: the request's own deadline
		}
		w.Absent = append(w.Absent, Absence{Conn: ex.Sent.Conn, Key: sentKey(ex.Sent), After: w.Env.Recorder().Len(), Flag: flag})
	}
}

// Frames returns the seqs of every frame the scenario exchanged, including everything seen on
// the connections it opened itself.
func (w *Session) Frames() []int {
	own := map[int]bool{}
	for _, t := range w.Own {
		own[t.Conn()] = true
	}
	if len(own) > 0 {
		for _, f := range w.Env.Recorder().Frames() {
			if own[f.Conn] {
				w.Seqs[f.Seq] = true
			}
		}
	}
	out := make([]int, 0, len(w.Seqs))
	for seq := range w.Seqs {
		out = append(out, seq)
	}
	sort.Ints(out)
	return out
}

// Undeclared ends a scenario that needs a capability, extension or feature the server's
// DiscoverResult (or InitializeResult) does not declare: na with reason, or untestable naming
// DISC-001 (Target.CapsUnknown) when no DiscoverResult said what the server declares.
func (w *Session) Undeclared(reason string) error {
	if why := w.Target.CapsUnknown; why != "" {
		return skip(reports.Untestable, why)
	}
	return skip(reports.NA, reason)
}

// ResponseMessage parses the last exchange's response, or returns a Mismatch saying none came.
func (w *Session) ResponseMessage() (*harness.Message, error) {
	if w.Last == nil {
		return nil, fmt.Errorf("no request was sent before this step")
	}
	if w.Last.Response == nil {
		actual := "no response"
		if w.Last.Err != nil {
			actual = noResponse(w.Last.Err)
		} else if w.Last.HTTP != nil {
			actual = fmt.Sprintf("HTTP %d without a JSON-RPC response", w.Last.HTTP.Status)
			for _, f := range w.Last.Frames {
				if len(bytes.TrimSpace(f.Raw)) > 0 {
					actual += " (body: " + Short(f.Raw) + ")"
					break
				}
			}
		}
		return nil, &Mismatch{Expected: "a JSON-RPC response", Actual: actual, Frames: w.LastSeqs()}
	}
	msg, _ := harness.ParseMessage(w.Last.Response.Body())
	return msg, nil
}

// LastSeqs returns the seqs of the last exchange's frames: the request sent, then every frame
// read for it; nil before any exchange.
func (w *Session) LastSeqs() []int {
	if w.Last == nil {
		return nil
	}
	var out []int
	if w.Last.Sent != nil {
		out = append(out, w.Last.Sent.Seq)
	}
	for _, f := range w.Last.Frames {
		out = append(out, f.Seq)
	}
	return out
}

// LastHTTP returns the HTTP status and headers of the last exchange's reply, or an error when
// there is none (no exchange yet, or a stdio connection).
func (w *Session) LastHTTP() (*harness.HTTPMeta, error) {
	if w.Last == nil || w.Last.HTTP == nil {
		return nil, fmt.Errorf("no HTTP reply to check (transport %s)", w.Opts.Transport)
	}
	return w.Last.HTTP, nil
}

// Harmless is a request every server of the revision answers with a result: server/discover
// (2026-07-28) or ping (legacy).
func (w *Session) Harmless() string {
	if w.Target.Modern {
		return "server/discover"
	}
	return "ping"
}

// Stdio returns the child process behind the scenario's connection, or an error when the
// connection is not stdio (basic/transports#stdio).
func (w *Session) Stdio() (Process, error) {
	s, ok := w.Conn.Process()
	if !ok {
		return nil, fmt.Errorf("this step needs a stdio connection")
	}
	return s, nil
}

// Timeout returns the deadline for the next request: for the first request on a freshly
// started process the startup window (--startup-timeout: a process started while others
// start, or a cold npx, is not blamed for a slow first reply; a reply that proves absence comes
// by a sentinel, not by this deadline), the request timeout otherwise.
func (w *Session) Timeout() time.Duration {
	cfg := w.Opts
	if w.Fresh && cfg.Transport == harness.TransportStdio {
		return cfg.StartupTimeout
	}
	return cfg.Timeout
}

// Send sends req on the scenario's connection and notes the exchange (Note). It waits
// Timeout for a reply (measured from the latest progress notification for req's progress
// token, if it set one: requestContext), or the quiet window plus --timeout for a notification; on stdio an
// intentionally malformed request gets a sentinel (Harmless; also on HTTP+SSE, whose replies share one stream) that proves a missing reply. It
// errors when there is no connection, the request would change a shared session's state
// (GuardShared), the transport gave no exchange, or ctx ended; a missing reply is no error.
func (w *Session) Send(ctx context.Context, req harness.Request) error {
	if w.Conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	if err := GuardShared(w.Conn, req); err != nil {
		return err
	}
	if req.Notification {
		req.ID = nil
	}
	wait := w.Timeout()
	if req.Notification {
		wait = w.Opts.QuietWindow + w.Opts.Timeout // the transport returns after the quiet window
	}
	if req.Intentional && !req.Notification && (w.Conn.Name() == harness.TransportStdio || w.Conn.Name() == harness.TransportSSE) {
		// A server may rightly ignore malformed input: absence is proved by a sentinel.
		req.Sentinel = w.sentinel()
	}
	cctx, cancel := w.requestContext(ctx, req, wait)
	defer cancel()
	ex, err := w.Conn.Send(cctx, req)
	if ex == nil {
		if err == nil {
			err = fmt.Errorf("transport returned no exchange")
		}
		return err
	}
	if ex.Response != nil {
		w.Fresh = false
	}
	w.LastID = req.ID
	w.Note(ex)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// SendMethod sends a default request for method: on a modern target a request with the
// default `_meta` for version v (the modern revision when v is ""), on a legacy target a plain
// request. id, when nil, is a fresh integer. edit may change the HTTP headers (and returns
// names to omit); such requests are marked intentional.
func (w *Session) SendMethod(ctx context.Context, method, v string, id json.RawMessage, edit func(http.Header) []string) error {
	c := Call{Method: method, Version: v}
	if id != nil {
		c.ID = id
	}
	req := w.Build(c)
	if edit != nil {
		req.Omit = edit(req.Header)
		req.Intentional = true
	}
	return w.Send(ctx, req)
}

// SendList sends the list request of the first capability of ListMethods the server declares,
// as SendMethod with version v; when it declares none the scenario ends as Undeclared.
func (w *Session) SendList(ctx context.Context, v string) error {
	for _, lm := range ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			return w.SendMethod(ctx, lm.Method, v, nil, nil)
		}
	}
	return w.Undeclared("the server declares none of the tools, resources and prompts capabilities")
}

// expand replaces the DocString placeholders: $id (a fresh integer id), $params (the default
// params of the revision: `{"_meta":{...}}` or `{}`), $meta, $harmless and $version.
func (w *Session) expand(doc string) (string, json.RawMessage) {
	var id json.RawMessage
	if strings.Contains(doc, "$id") {
		id = json.RawMessage(strconv.FormatInt(w.Env.IDs().Next(), 10))
		doc = strings.ReplaceAll(doc, "$id", string(id))
	}
	params, meta := "{}", "{}"
	if w.Target.Modern {
		m, _ := json.Marshal(harness.ModernMeta(revisions.Modern().ID))
		meta = string(m)
		params = `{"_meta":` + meta + `}`
	}
	r := strings.NewReplacer("$params", params, "$meta", meta, "$harmless", w.Harmless(), "$version", w.Target.Revision)
	return r.Replace(doc), id
}

// SendDoc sends a feature's DocString doc, placeholders expanded (expand), as a request of the
// target's era, first opening a session of its own on a fresh legacy HTTP connection
// (inSession). malformed marks bytes that are invalid on purpose; otherwise a DocString that
// is not JSON is the feature's bug. notification marks a message for which no reply is awaited.
func (w *Session) SendDoc(ctx context.Context, doc string, malformed, notification bool) error {
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
	return w.Send(ctx, w.buildRaw(raw, id, method, malformed, notification))
}

// Initialize sends the legacy initialize request for protocol version v (InitializeCall,
// 2025-11-25 basic/lifecycle#Initialization) and records the attempt in Inits; it errors only
// as Send does, not when the server refuses.
func (w *Session) Initialize(ctx context.Context, v string) error {
	if err := w.Send(ctx, w.InitializeCall(v)); err != nil {
		return err
	}
	w.Inits = append(w.Inits, InitAttempt{Requested: v, Ex: w.Last})
	return nil
}

// StateRequest builds a request for method with params; on a modern target params gets the
// default `_meta` with meta's entries set over it.
func (w *Session) StateRequest(method string, params, meta map[string]any) harness.Request {
	if !w.Target.Modern {
		meta = nil // the extra _meta keys are modern ones
	}
	if len(params) == 0 {
		params = nil
	}
	return w.Build(Call{Method: method, Params: params, Meta: meta})
}

// SendParams sends method with params (nil: none) as a request of the revision under test: on
// a modern target with the default `_meta` plus extraMeta, on a legacy target with extraMeta
// (if any) as `_meta`. intentional marks a request that is invalid on purpose.
func (w *Session) SendParams(ctx context.Context, method string, params, extraMeta map[string]any, intentional bool) error {
	return w.Send(ctx, w.Build(Call{Method: method, Params: params, Meta: extraMeta, Intentional: intentional}))
}

// LastResult returns the result object of the last response, nil when it is not a result.
func (w *Session) LastResult() map[string]json.RawMessage {
	if w.Last == nil || w.Last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.Last.Response.Body())
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	var res map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &res)
	return res
}

// listed returns the entries of the array member of the last result (tools, resources, ...).
func (w *Session) listed(member string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	_ = json.Unmarshal(w.LastResult()[member], &out)
	return out
}

// Declares reports whether the server declared capability (a key of Target.Caps: "tools",
// "resources", ...) in its DiscoverResult or InitializeResult.
func (w *Session) Declares(capability string) bool {
	_, ok := w.Target.Caps[capability]
	return ok
}

// ServerExtensions returns capabilities.extensions of the server's discover result.
func (w *Session) ServerExtensions() map[string]json.RawMessage {
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(w.Target.Caps["extensions"], &ext)
	return ext
}

// ListAll follows nextCursor from the first page of method (tools/list, prompts/list,
// resources/list, resources/templates/list) on the scenario's connection and collects the
// array member of each page (tools, prompts, resources, resourceTemplates). It returns a
// *ListMalformed when a page is not a valid page (member missing or not an array of objects,
// nextCursor not a string) or a cursor repeats, one graded untestable when the traversal
// reaches maxListPages without a repeat, and a
// *ListRefused when a page gets an error or no response. Every exchange is noted (Note).
func (w *Session) ListAll(ctx context.Context, method, member string) (*ListTraversal, error) {
	lt := &ListTraversal{Method: method}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > maxListPages {
			return lt, &ListMalformed{Rule: PageRule, Mismatch: &Mismatch{Expected: fmt.Sprintf("%s to end within the %d pages the suite follows", method, maxListPages),
				Actual: fmt.Sprintf("page %d still has a new nextCursor; the list could not be read to its end", maxListPages),
				Grade:  reports.Untestable, Frames: w.LastSeqs()}}
		}
		var params map[string]any
		if page > 1 {
			params = map[string]any{"cursor": cursor}
			lt.Cursors = append(lt.Cursors, cursor)
		}
		if err := w.SendParams(ctx, method, params, nil, false); err != nil {
			return lt, err
		}
		lt.Frames = append(lt.Frames, w.LastSeqs()...)
		msg, err := w.ResponseMessage()
		if err != nil || msg.Kind != harness.KindResult {
			actual := "no response"
			if err == nil {
				actual = Describe(msg)
			}
			return lt, &ListRefused{Method: method, Page: page, Actual: actual, Frames: w.LastSeqs()}
		}
		lt.Pages++
		var members map[string]json.RawMessage
		if err := json.Unmarshal(msg.Result, &members); err != nil {
			return lt, &ListMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: method + " result to be an object", Actual: Short(msg.Result), Frames: w.LastSeqs()}}
		}
		var scope string
		_ = json.Unmarshal(members["cacheScope"], &scope) // its shape is the schema's to judge
		lt.Scopes = append(lt.Scopes, scope)
		var items []json.RawMessage
		if err := json.Unmarshal(members[member], &items); err != nil || members[member] == nil {
			return lt, &ListMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: fmt.Sprintf("%s page %d to have a %q array", method, page, member),
				Actual: Short(msg.Result), Frames: w.LastSeqs()}}
		}
		for i, raw := range items {
			var obj map[string]any
			if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
				return lt, &ListMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: fmt.Sprintf("every %s entry to be an object", member),
					Actual: fmt.Sprintf("page %d entry %d is %s", page, i, Short(raw)), Frames: w.LastSeqs()}}
			}
			lt.Items = append(lt.Items, obj)
			lt.Raw = append(lt.Raw, raw)
			lt.ItemFrames = append(lt.ItemFrames, w.LastSeqs())
		}
		next := members["nextCursor"]
		if next == nil {
			return lt, nil
		}
		if err := json.Unmarshal(next, &cursor); err != nil || !IsJSONString(next) { // null is no string
			return lt, &ListMalformed{Rule: PageRule, Mismatch: &Mismatch{Expected: "nextCursor to be a string", Actual: "nextCursor " + Short(next), Frames: w.LastSeqs()}}
		}
		if seen[cursor] {
			return lt, &ListMalformed{Rule: PageRule, Mismatch: &Mismatch{Expected: method + " to end (every nextCursor new)",
				Actual: fmt.Sprintf("page %d repeats cursor %s", page, strconv.Quote(cursor)), Frames: w.LastSeqs()}}
		}
		seen[cursor] = true
	}
}

// ListenHold is how long the suite keeps a subscriptions/listen stream open to see that the
// server keeps it open too.
func (w *Session) ListenHold() time.Duration {
	return max(time.Second, 2*w.Opts.QuietWindow)
}

// HoldListen POSTs subscriptions/listen on a connection of its own and, once the first event
// arrives, runs during (when not nil) and then keeps the stream open for hold before closing
// it. Reading always ends: at the request timeout when no event comes, when the server closes
// the stream, or when the suite closes it.
func (w *Session) HoldListen(ctx context.Context, during func(context.Context) error, hold time.Duration) error {
	if !w.Target.Modern {
		// subscriptions/listen is a method of the modern revision only: a legacy target
		// (HTTP-006 holds since 2025-03-26) gets the rest of the scenario without it.
		if during != nil {
			return during(ctx)
		}
		return nil
	}
	t, err := w.Env.Dial(ctx, w.Target.Revision)
	if err != nil {
		return fmt.Errorf("cannot open a connection for the listen stream: %w", err)
	}
	w.Own = append(w.Own, t)
	h, ok := t.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	filter := map[string]any{}
	if _, ok := w.Target.Caps["tools"]; ok {
		filter["toolsListChanged"] = true
	}
	req := w.Build(Call{Method: ListenMethod, Era: EraModern, Params: map[string]any{"notifications": filter}})

	first := make(chan struct{})
	var once sync.Once
	conn := h.Conn()
	// The observer stays registered for the rest of the run; after the first event it only
	// compares a connection number.
	w.Env.Recorder().OnFrame(func(f *harness.Frame) {
		if f.Conn == conn && f.Dir == harness.DirServerToClient {
			once.Do(func() { close(first) })
		}
	})
	lctx, cancel := context.WithTimeout(ctx, 2*w.Timeout()+hold)
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
	timer := time.NewTimer(w.Timeout())
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
	lr := &ListenRun{Ex: res.ex, Info: res.info, serverClosed: res.info.End == harness.EndEOF, Hold: hold}
	w.streamsMu.Lock()
	w.Listen = lr
	w.streamsMu.Unlock()
	w.Note(res.ex)
	if duringErr != nil {
		return duringErr
	}
	return ctx.Err()
}

// SendLegacyShaped POSTs raw the way a 2025-06-18..2025-11-25 client opens (no
// MCP-Protocol-Version, no Mcp-Method) on a connection of its own whose frames are validated
// against the legacy schema, so they do not count as modern traffic.
func (w *Session) SendLegacyShaped(ctx context.Context, req harness.Request) error {
	t, err := w.Env.Dial(ctx, revisions.LatestLegacy().ID)
	if err != nil {
		return fmt.Errorf("cannot open a connection: %w", err)
	}
	w.Own = append(w.Own, t)
	cctx, cancel := context.WithTimeout(ctx, w.Timeout())
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
	w.LastID = req.ID
	w.Note(ex)
	return ctx.Err()
}

// DualEra reports whether the server also speaks a legacy revision: its DiscoverResult lists
// one or initialize negotiated one in this run (Target.Negotiated), or, failing that, it
// answers initialize on a connection of its own.
func (w *Session) DualEra(ctx context.Context) (bool, error) {
	for _, v := range append(append([]string(nil), w.Target.Supported...), w.Target.Negotiated...) {
		if revisions.IsLegacy(v) {
			return true, nil
		}
	}
	t, err := w.Env.Dial(ctx, "")
	if err != nil {
		return false, fmt.Errorf("cannot start a connection to try initialize: %w", err)
	}
	w.Own = append(w.Own, t)
	cctx, cancel := context.WithTimeout(ctx, min(w.Opts.StartupTimeout, w.Opts.Timeout+2*w.Env.Startup()))
	defer cancel()
	h, err := harness.Initialize(cctx, t, w.Env.IDs(), revisions.LatestLegacy().ID)
	if err != nil || !revisions.Known(h.Version) || revisions.IsModern(h.Version) {
		return false, ctx.Err()
	}
	w.Env.SetRev(t.Conn(), h.Version)
	return true, nil
}

// SendBare sends an HTTP request without body (GET, DELETE) to the endpoint with the
// MCP-Protocol-Version of the revision under test (and Accept: text/event-stream for GET).
func (w *Session) SendBare(ctx context.Context, method string) error {
	h, ok := w.Conn.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := http.Header{}
	if method == http.MethodGet {
		hdr.Set("Accept", "text/event-stream")
	}
	hdr.Set(harness.HeaderProtocolVersion, w.Target.Revision)
	if method == http.MethodDelete && h.Session().Open {
		if err := refuseShared(w.Conn, "an HTTP DELETE, which ends the session,"); err != nil {
			return err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, w.Timeout()+w.Opts.QuietWindow)
	defer cancel()
	ex, err := h.Do(cctx, method, hdr, nil)
	if ex == nil || ex.HTTP == nil {
		if err == nil {
			err = fmt.Errorf("transport returned no reply")
		}
		return err
	}
	w.LastID = nil
	w.Note(ex)
	return ctx.Err()
}

// SendStream is Send over HTTP keeping how the reply was read (SSE or not, how it ended).
func (w *Session) SendStream(ctx context.Context, req harness.Request) error {
	h, ok := w.Conn.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	if err := GuardShared(w.Conn, req); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	ex, info := h.SendStream(cctx, req)
	w.streamsMu.Lock()
	w.Streams[ex] = info
	w.streamsMu.Unlock()
	w.LastID = req.ID
	w.Note(ex)
	return ctx.Err()
}

// SendAtOnce sends n modern requests concurrently: calls of tool with progress (answered with an
// SSE stream by servers that stream progress), server/discover and list requests.
func (w *Session) SendAtOnce(ctx context.Context, n int, tool string) error {
	h, ok := w.Conn.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	methods := []string{"tools/call", w.Harmless()}
	for _, lm := range ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			methods = append(methods, lm.Method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		id := w.Env.IDs().Next()
		method := methods[i%len(methods)]
		c := Call{Method: method}
		if method == "tools/call" {
			c = w.FixtureToolCall(tool, nil, map[string]any{ProgressMeta: fmt.Sprintf("mcpconform-progress-%d", id)})
		}
		c.ID, c.Era = id, EraModern
		reqs[i] = w.Build(c)
	}
	cctx, cancel := context.WithTimeout(ctx, w.Timeout())
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
		w.Streams[ex] = infos[i]
		w.Concurrent = append(w.Concurrent, ex)
	}
	w.streamsMu.Unlock()
	for _, ex := range exs {
		w.Note(ex)
	}
	return ctx.Err()
}

// SendConcurrently sends n requests at once on the scenario's connection, each with a fresh id:
// the harmless request and the declared list requests in turn.
func (w *Session) SendConcurrently(ctx context.Context, n int) error {
	if w.Conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	methods := []string{w.Harmless()}
	for _, lm := range ListMethods {
		if w.Declares(lm.Capability) {
			methods = append(methods, lm.Method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		reqs[i] = w.Build(Call{Method: methods[i%len(methods)]})
	}
	exs := make([]*harness.Exchange, n)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, w.Timeout())
			defer cancel()
			exs[i], _ = w.Conn.Send(cctx, reqs[i])
		}(i)
	}
	wg.Wait()
	for i, ex := range exs {
		if ex == nil {
			return fmt.Errorf("transport returned no exchange for request %d", i)
		}
		w.Note(ex)
	}
	w.LastID = reqs[n-1].ID
	return ctx.Err()
}

// sentinel builds the harmless request written after one whose reply may never come, on the
// same stdio or HTTP+SSE stream (harness.Request.Sentinel): its answer proves the server read
// what came before.
func (w *Session) sentinel() *harness.Request {
	r := w.Build(Call{Method: w.Harmless()})
	return &r
}
