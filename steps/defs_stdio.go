package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Notification methods that only travel on a subscriptions/listen stream (2026-07-28 schema).
var listenMethods = map[string]bool{
	"notifications/subscriptions/acknowledged": true,
	"notifications/tools/list_changed":         true,
	"notifications/prompts/list_changed":       true,
	"notifications/resources/list_changed":     true,
	"notifications/resources/updated":          true,
}

// metaSubscriptionID is the _meta key naming the subscription a notification belongs to.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// triggerToolChange is the fixture tool of the "everything" servers that publishes a tools
// list change to the open subscriptions.
const triggerToolChange = "test_trigger_tool_change"

// recognisedModern are the error codes by which a dual-era client recognises a 2026-07-28
// server (basic/transports/stdio#Backward Compatibility).
var recognisedModern = map[int64]bool{
	harness.CodeHeaderMismatch: true, harness.CodeMissingRequiredClientCapability: true, harness.CodeUnsupportedProtocolVersion: true,
}

// stdioScenario is the state the stdio and versioning steps keep in a scenario's world.
type stdioScenario struct {
	mu sync.Mutex
	// listens are the subscriptions/listen requests the scenario opened, in order; listenFrom
	// is the index in the connection's frames where the first was sent.
	listens    []*openListen
	listenFrom int
	// cancelFrame is the index in the connection's frames of the client's first
	// notifications/cancelled, cancelledAt the number of frames once the quiet window after
	// the cancellations had passed (STDIO-008).
	cancelFrame, cancelledAt int
	// pipelined are the ids of the requests sent without waiting (STDIO-005).
	pipelined []json.RawMessage
	// session is the legacy session opened on a dual-era server (VER-007/008/009).
	session *legacySession
}

// openListen is a subscriptions/listen request kept in flight by a goroutine.
type openListen struct {
	id     json.RawMessage
	cancel context.CancelFunc
	done   chan struct{}
	ex     *harness.Exchange
}

// legacySession is a legacy handshake made on a fresh connection of the modern target.
type legacySession struct {
	version   string
	sessionID string // HTTP Mcp-Session-Id, when the server issued one
}

// registerStdioSteps binds the steps of stdio transport and versioning (STDIO, VER).
func registerStdioSteps(sc *godog.ScenarioContext) {
	// STDIO-003.
	step(sc, `^everything the server processes of this run wrote to stderr so far is UTF-8 text$`, wc(stderrIsUTF8))

	// STDIO-004.
	step(sc, `^every message the server wrote to stdout in this run is a response, a notification of an in-flight request or one of an open subscription$`,
		askJudge("STDIO-004"))

	// STDIO-005.
	step(sc, `^the client keeps a subscriptions/listen request open, if the server accepts one$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		st := w.stdioState
		if !w.s.t.modern {
			return nil // no long-lived request before 2026-07-28
		}
		_, err := st.openListen(ctx, w, false)
		return err
	})
	step(sc, `^the client sends (\d+) requests without waiting for the responses$`, func(ctx context.Context, n int) error {
		w := worldOf(ctx)
		return w.stdioState.pipeline(ctx, w, n)
	})
	step(sc, `^each of those requests is answered exactly once, with its own id$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.expectPipelined(ctx, w)
	})

	// STDIO-007.
	step(sc, `^no server process of this run ended the session while requests were in flight$`, wc(noLostRequests))

	// STDIO-008 and STDIO-010.
	step(sc, `^the client opens a subscriptions/listen request for tool list changes and it is acknowledged$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		_, err := w.stdioState.openListen(ctx, w, true)
		return err
	})
	step(sc, `^the client opens two subscriptions/listen requests for tool list changes$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		st := w.stdioState
		for i := 0; i < 2; i++ {
			if _, err := st.openListen(ctx, w, true); err != nil {
				return err
			}
		}
		return nil
	})
	step(sc, `^the client cancels (?:that subscriptions/listen request|the open subscriptions/listen requests)$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.cancelListens(ctx, w)
	})
	step(sc, `^the client triggers a tool list change, if the server has the fixture tool for it$`, func(ctx context.Context) error {
		return triggerToolListChange(ctx, worldOf(ctx))
	})
	step(sc, `^nothing more arrived for the cancelled request after a quiet window$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.expectNothingAfterCancel(w)
	})
	step(sc, `^every subscription notification carried the subscriptionId of an open subscription$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.expectSubscriptionIDs(w)
	})

	// VER-003 and VER-004.
	step(sc, `^a modern-only server answered it with a JSON-RPC error and is still running$`, wc(expectInitializeRejected))
	step(sc, `^a modern-only server's error names the protocol versions it supports$`, wc(expectInitializeNamesVersions))

	// VER-007, VER-008 and VER-009.
	step(sc, `^a dual-era session is opened with a legacy initialize$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.openSession(ctx, w)
	})
	step(sc, `^the client sends a legacy list request for a declared capability in that session$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.sendLegacyList(ctx, w)
	})
	step(sc, `^a dual-era server's reply is a `+regexp.QuoteMeta(revisions.Modern().ID)+` result of its method$`, wc(func(ctx context.Context, w *world) error {
		dual, err := dualEra(ctx, w)
		if err != nil {
			return err
		}
		if !dual {
			return w.setSkip(reports.NA, "the server answers no initialize: it is not dual-era")
		}
		return expectModernResult(ctx, w)
	}))
	step(sc, `^the modern request was served as `+regexp.QuoteMeta(revisions.Modern().ID)+` or refused with an error$`, wc(func(ctx context.Context, w *world) error {
		// The connection carries both eras now: no one schema fits all its frames.
		w.s.env.setRev(w.conn.Conn(), "")
		if msg, err := w.responseMessage(); err == nil && msg.Kind == harness.KindError {
			return nil // the server does not serve both eras on one process: allowed
		}
		if err := expectModernResult(ctx, w); err != nil {
			var m *Mismatch
			if errors.As(err, &m) {
				m.Expected = "inside a legacy session, a request with modern _meta is served as " + revisions.Modern().ID + " or refused with an error"
				m.Grade = reports.Info
			}
			return err
		}
		return nil
	}))
	step(sc, `^the reply is a result of the negotiated legacy revision$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.expectLegacyResult(w, "")
	})
	step(sc, `^the legacy session still works after the modern request$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.stdioState.expectLegacyResult(w, reports.Info)
	})

	// VER-010.
	step(sc, `^the reply to the era probe is a DiscoverResult or a recognised modern error$`, wc(expectProbeAnswer))
}

// ---------------------------------------------------------------------------------------------
// STDIO-003: stderr.

func stderrIsUTF8(ctx context.Context, w *world) error {
	for _, t := range w.own {
		_ = t.Close() // the scenario's own process: shut down, its stderr read to the end
	}
	w.s.env.mu.Lock()
	conns := append([]harness.Transport{}, w.s.env.conns...)
	w.s.env.mu.Unlock()
	for _, t := range conns {
		if s, ok := t.(*harness.Stdio); ok && s.StderrInvalidUTF8() {
			tail := s.StderrTail()
			if !utf8.ValidString(tail) {
				tail = strings.ToValidUTF8(tail, "\uFFFD")
			}
			if len(tail) > 160 {
				tail = "..." + tail[len(tail)-157:]
			}
			return &Mismatch{Expected: "UTF-8 text on stderr (basic/transports/stdio: the server may log UTF-8 strings there)",
				Actual: fmt.Sprintf("bytes that are not UTF-8 on the stderr of server process %d (connection %d); tail: %q", s.Pid(), s.Conn(), tail)}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// STDIO-004: what stdout may carry.

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ---------------------------------------------------------------------------------------------
// STDIO-005: requests in flight together.

func (st *stdioScenario) pipeline(ctx context.Context, w *world, n int) error {
	if w.conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	method := harmless(w)
	reqs := make([]harness.Request, n)
	for i := range reqs {
		// Integer and string ids alternate: correlation must keep them apart.
		var id any = w.s.env.ids.Next()
		if i%2 == 1 {
			id = fmt.Sprintf("pipelined-%d", w.s.env.ids.Next())
		}
		reqs[i] = w.build(call{Method: method, ID: id})
		st.pipelined = append(st.pipelined, reqs[i].ID)
	}
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	exs := make([]*harness.Exchange, n)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exs[i], _ = w.conn.Send(cctx, reqs[i])
		}()
	}
	wg.Wait()
	for _, ex := range exs {
		if ex != nil && ex.Response != nil {
			w.fresh = false
		}
		w.note(ex)
	}
	return ctx.Err()
}

func (st *stdioScenario) expectPipelined(ctx context.Context, w *world) error {
	s, err := w.stdio()
	if err != nil {
		return err
	}
	quiet(ctx, w.s.env.cfg.QuietWindow, s)
	answers := map[string][]int{}
	for _, f := range s.Frames() {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		if msg, err := harness.ParseMessage(f.Raw); err == nil && (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID {
			k := harness.IDKey(msg.ID)
			answers[k] = append(answers[k], f.Seq)
		}
	}
	var missing, twice []string
	for _, id := range st.pipelined {
		switch got := answers[harness.IDKey(id)]; {
		case len(got) == 0:
			missing = append(missing, harness.IDKey(id))
		case len(got) > 1:
			twice = append(twice, harness.IDKey(id))
		}
	}
	open := ""
	if len(st.listens) > 0 {
		open = " while a subscriptions/listen request was in flight"
	}
	switch {
	case len(missing) > 0:
		return &Mismatch{Expected: fmt.Sprintf("a response to each of the %d requests sent without waiting%s", len(st.pipelined), open),
			Actual: fmt.Sprintf("no response with id %s", strings.Join(missing, ", ")), Frames: w.lastSeqs()}
	case len(twice) > 0:
		return &Mismatch{Expected: "exactly one response per request id", Actual: "several responses with id " + strings.Join(twice, ", "), Frames: w.lastSeqs()}
	}
	return nil
}

// quiet waits the quiet window (or until ctx ends or the server dies): the time the suite
// gives a server to show that nothing more arrives.
func quiet(ctx context.Context, d time.Duration, s *harness.Stdio) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.Exited():
	}
}

// ---------------------------------------------------------------------------------------------
// Listen requests (STDIO-005, STDIO-008, STDIO-010).

// openListen sends a subscriptions/listen request for tool list changes that stays in flight
// in a goroutine, and waits (bounded by the request timeout) for its acknowledgement. required
// makes a refused listen end the scenario as untestable; otherwise it returns nil, nil.
func (st *stdioScenario) openListen(ctx context.Context, w *world, required bool) (*openListen, error) {
	s, err := w.stdio()
	if err != nil {
		return nil, err
	}
	req := w.build(call{Method: "subscriptions/listen", Era: eraModern, ID: fmt.Sprintf("listen-%d", w.s.env.ids.Next()),
		Params: map[string]any{"notifications": map[string]any{"toolsListChanged": true}}})
	idRaw := req.ID
	mark := len(s.Frames())
	lctx, cancel := context.WithCancel(ctx)
	l := &openListen{id: idRaw, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.ex, _ = w.conn.Send(lctx, req)
	}()
	st.mu.Lock()
	if len(st.listens) == 0 {
		st.listenFrom = mark
	}
	st.listens = append(st.listens, l)
	st.mu.Unlock()
	key := harness.IDKey(idRaw)
	wctx, wcancel := context.WithTimeout(ctx, w.timeout())
	defer wcancel()
	f := s.WaitFrame(wctx, mark, func(f *harness.Frame) bool {
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil {
			return false
		}
		if (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID {
			return harness.IDKey(msg.ID) == key
		}
		return msg.Kind == harness.KindNotification && msg.Method == "notifications/subscriptions/acknowledged" && subscriptionOf(msg) == key
	})
	if f != nil {
		w.fresh = false
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	msg, _ := harness.ParseMessage(rawOf(f))
	switch {
	case f == nil && s.IsDead():
		return nil, fmt.Errorf("the server exited while a subscriptions/listen request was open")
	case f == nil, msg == nil, msg.Kind == harness.KindNotification:
		// Acknowledged, or silent: either way the request is in flight.
		return l, nil
	}
	st.mu.Lock()
	st.listens = st.listens[:len(st.listens)-1]
	st.mu.Unlock()
	<-l.done
	w.note(l.ex)
	if !required {
		return nil, nil
	}
	what := "was answered at once, so nothing stayed in flight"
	if msg.Kind == harness.KindError {
		what = "was refused with " + describe(msg) + " (see SUB-001)"
	}
	return nil, w.setSkip(reports.Untestable, "the rule needs a request that stays in flight; subscriptions/listen "+what)
}

func rawOf(f *harness.Frame) []byte {
	if f == nil {
		return nil
	}
	return f.Raw
}

// subscriptionOf returns the IDKey of a notification's _meta subscriptionId, "" when absent.
func subscriptionOf(msg *harness.Message) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return ""
	}
	if v, ok := p.Meta[metaSubscriptionID]; ok {
		return harness.IDKey(v)
	}
	return ""
}

// cancelListens sends notifications/cancelled for every open listen, each followed by the quiet
// window the transport waits after a notification.
func (st *stdioScenario) cancelListens(ctx context.Context, w *world) error {
	s, err := w.stdio()
	if err != nil {
		return err
	}
	st.mu.Lock()
	listens := append([]*openListen{}, st.listens...)
	st.mu.Unlock()
	st.cancelFrame = -1
	for _, l := range listens {
		cancel := w.build(call{Method: "notifications/cancelled", Era: eraPlain, Notification: true, Params: map[string]any{
			"requestId": l.id, "reason": "mcp-conform: the scenario is done with this subscription",
		}})
		if err := w.send(ctx, cancel); err != nil {
			return err
		}
		if st.cancelFrame < 0 {
			for i, f := range s.Frames() {
				if f == w.last.Sent {
					st.cancelFrame = i
				}
			}
		}
	}
	st.cancelledAt = len(s.Frames())
	return nil
}

// stopListens ends the goroutines of the listens still waiting for a response.
func (st *stdioScenario) stopListens() {
	st.mu.Lock()
	listens := st.listens
	st.listens = nil
	st.mu.Unlock()
	for _, l := range listens {
		l.cancel()
		<-l.done
	}
}

// triggerToolListChange calls the fixture tool test_trigger_tool_change when the server
// declares tools; an error (the tool does not exist) is no failure of these rules. The quiet
// window then lets notifications published after the result arrive.
func triggerToolListChange(ctx context.Context, w *world) error {
	if _, ok := w.s.t.caps["tools"]; !ok {
		return nil
	}
	s, err := w.stdio()
	if err != nil {
		return err
	}
	c := w.fixtureToolCall(triggerToolChange, nil, nil)
	c.Era = eraModern
	req := w.build(c)
	cctx, cancel := context.WithTimeout(ctx, w.timeout())
	defer cancel()
	ex, _ := w.conn.Send(cctx, req)
	w.note(ex)
	quiet(ctx, w.s.env.cfg.QuietWindow, s)
	return ctx.Err()
}

func (st *stdioScenario) expectNothingAfterCancel(w *world) error {
	s, err := w.stdio()
	if err != nil {
		return err
	}
	if len(st.listens) == 0 {
		return fmt.Errorf("feature bug: no subscriptions/listen request was opened")
	}
	keys := map[string]bool{}
	for _, l := range st.listens {
		keys[harness.IDKey(l.id)] = true
	}
	// A response is never due once the client cancelled (the subscription was idle, so none was
	// on its way); a notification inside the quiet window after the cancellation may have been
	// written before the server read it, later ones may not.
	frames := s.Frames()
	for i := st.cancelFrame + 1; st.cancelFrame >= 0 && i < len(frames); i++ {
		f := frames[i]
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil {
			continue
		}
		hit := ""
		switch {
		case (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID && keys[harness.IDKey(msg.ID)]:
			hit = "a response to it (" + describe(msg) + ")"
		case i < st.cancelledAt:
		case msg.Kind == harness.KindNotification && keys[subscriptionOf(msg)]:
			hit = msg.Method + " for its subscription, a quiet window after the cancellation"
		case msg.Kind == harness.KindNotification && msg.Method == "notifications/cancelled" && keys[requestIDOf(msg)]:
			hit = "notifications/cancelled for it, a quiet window after the cancellation"
		}
		if hit != "" {
			return &Mismatch{Expected: "no message for the subscriptions/listen request after the client cancelled it",
				Actual: fmt.Sprintf("frame %d: %s", f.Seq, hit), Frames: []int{f.Seq}}
		}
	}
	return nil
}

func requestIDOf(msg *harness.Message) string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return ""
	}
	return harness.IDKey(p.RequestID)
}

func (st *stdioScenario) expectSubscriptionIDs(w *world) error {
	s, err := w.stdio()
	if err != nil {
		return err
	}
	if len(st.listens) == 0 {
		return fmt.Errorf("feature bug: no subscriptions/listen request was opened")
	}
	keys := map[string]bool{}
	var names []string
	for _, l := range st.listens {
		keys[harness.IDKey(l.id)] = true
		names = append(names, harness.IDKey(l.id))
	}
	sort.Strings(names)
	seen := 0
	frames := s.Frames()
	for _, f := range frames[min(st.listenFrom, len(frames)):] {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil || msg.Kind != harness.KindNotification || !listenMethods[msg.Method] {
			continue
		}
		seen++
		switch sub := subscriptionOf(msg); {
		case sub == "":
			return &Mismatch{Expected: "_meta io.modelcontextprotocol/subscriptionId on every notification of a subscription",
				Actual: fmt.Sprintf("frame %d: %s without a subscriptionId (open subscriptions: %s)", f.Seq, msg.Method, strings.Join(names, ", ")), Frames: []int{f.Seq}}
		case !keys[sub]:
			return &Mismatch{Expected: "a subscriptionId naming one of the open subscriptions " + strings.Join(names, ", "),
				Actual: fmt.Sprintf("frame %d: %s with subscriptionId %s", f.Seq, msg.Method, sub), Frames: []int{f.Seq}}
		}
	}
	if seen == 0 {
		return w.setSkip(reports.Untestable, "no notification arrived on the subscriptions/listen streams (not even an acknowledgement; see SUB-002)")
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// STDIO-007: the server ending the session.

// noLostRequests looks at every stdio process of the target so far: one that ended the session
// itself (exited, or closed stdout, before the client closed its stdin) may do so, but requests
// left unanswered were lost, and closing stdout without exiting is not what the permission
// describes.
func noLostRequests(ctx context.Context, w *world) error {
	e := w.s.env
	e.mu.Lock()
	var procs []*harness.Stdio
	for _, t := range e.conns {
		if s, ok := t.(*harness.Stdio); ok && e.connRev[s.Conn()] == w.s.t.revision {
			procs = append(procs, s)
		}
	}
	e.mu.Unlock()
	for _, s := range procs {
		code, exited := s.ExitCode()
		if !exited && !s.IsDead() {
			continue
		}
		step := s.ShutdownStep()
		if exited && step != harness.StepNone {
			continue // the client shut it down
		}
		if !exited {
			return &Mismatch{Expected: "a server that ends the session closes stdout and exits",
				Actual: fmt.Sprintf("server process %d closed its stdout but kept running", s.Pid())}
		}
		if lost, seqs := unanswered(s.Frames()); len(lost) > 0 {
			return &Mismatch{Expected: "a server that ends the session itself does so with no request in flight",
				Actual: fmt.Sprintf("server process %d exited (code %d) with %d request(s) unanswered: %s", s.Pid(), code, len(lost), strings.Join(lost, ", ")), Frames: seqs}
		}
	}
	return nil
}

// unanswered returns the method and id of each request of frames that got no response.
func unanswered(frames []*harness.Frame) ([]string, []int) {
	type req struct {
		what string
		seq  int
	}
	open := map[string]req{}
	var order []string
	for _, f := range frames {
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil || !msg.HasID {
			continue
		}
		k := harness.IDKey(msg.ID)
		switch {
		case f.Dir == harness.DirClientToServer && msg.Kind == harness.KindRequest:
			open[k] = req{what: fmt.Sprintf("%s (id %s)", msg.Method, k), seq: f.Seq}
			order = append(order, k)
		case f.Dir == harness.DirServerToClient && (msg.Kind == harness.KindResult || msg.Kind == harness.KindError):
			delete(open, k)
		}
	}
	var lost []string
	var seqs []int
	for _, k := range order {
		if r, ok := open[k]; ok {
			lost = append(lost, r.what)
			seqs = append(seqs, r.seq)
			delete(open, k)
		}
	}
	return lost, seqs
}

// ---------------------------------------------------------------------------------------------
// VER-003, VER-004: initialize on a modern-only server.

// initializeReply returns the reply to the scenario's initialize, or an outcome: na when the
// server answered with a result (it is dual-era; VER-007/VER-008 judge that side). The
// connection then carries a legacy session, and its frames are validated as such.
func initializeReply(w *world) (*harness.Message, error) {
	if len(w.inits) == 0 {
		return nil, fmt.Errorf("feature bug: no initialize was sent")
	}
	ex := w.inits[len(w.inits)-1].ex
	if ex.Response == nil {
		return nil, nil
	}
	msg, _ := harness.ParseMessage(ex.Response.Raw)
	if msg.Kind == harness.KindResult {
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		rev := ""
		if json.Unmarshal(msg.Result, &ir) == nil && revisions.IsLegacy(ir.ProtocolVersion) {
			rev = ir.ProtocolVersion
		}
		w.s.env.setRev(ex.Sent.Conn, rev)
		return nil, w.setSkip(reports.NA, "the server answered initialize with a result: it also speaks a legacy revision (dual-era)")
	}
	return msg, nil
}

func expectInitializeRejected(ctx context.Context, w *world) error {
	msg, err := initializeReply(w)
	if err != nil {
		return err
	}
	s, err := w.stdio()
	if err != nil {
		return err
	}
	if msg == nil {
		actual := "no response"
		if w.last.Err != nil {
			actual += ": " + w.last.Err.Error()
		}
		if code, exited := s.ExitCode(); exited {
			actual = fmt.Sprintf("the server exited (code %d) without answering", code)
		}
		return &Mismatch{Expected: "a JSON-RPC error in reply to initialize", Actual: actual, Frames: w.lastSeqs()}
	}
	if msg.Kind != harness.KindError {
		return &Mismatch{Expected: "a JSON-RPC error in reply to initialize", Actual: describe(msg), Frames: w.lastSeqs()}
	}
	if s.WaitExit(w.s.env.cfg.QuietWindow) {
		code, _ := s.ExitCode()
		return &Mismatch{Expected: "the server to keep running after rejecting initialize", Actual: fmt.Sprintf("it exited (code %d)", code), Frames: w.lastSeqs()}
	}
	return nil
}

func expectInitializeNamesVersions(ctx context.Context, w *world) error {
	msg, err := initializeReply(w)
	if err != nil {
		return err
	}
	if msg == nil || msg.Kind != harness.KindError {
		why := "no response"
		if msg != nil {
			why = describe(msg)
		}
		return w.setSkip(reports.NA, "the server returned no error to initialize ("+why+"; judged by VER-004 on stdio)")
	}
	var want []string
	for _, v := range w.s.t.supported {
		if revisions.IsModern(v) || !revisions.Known(v) {
			want = append(want, v)
		}
	}
	if len(want) == 0 {
		want = []string{revisions.Modern().ID}
	}
	text := msg.Error.Message + " " + string(msg.Error.Data)
	var missing []string
	for _, v := range want {
		if !strings.Contains(text, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return &Mismatch{Expected: "the error to initialize names the supported version(s) " + strings.Join(want, ", ") + " in its message or data",
			Actual: fmt.Sprintf("%s, data %s", describe(msg), orNone(short(msg.Error.Data))), Frames: w.lastSeqs()}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// VER-007, VER-008, VER-009: both eras on a dual-era server.

// openSession makes the legacy handshake on the scenario's fresh connection, whose frames are
// then validated against the negotiated revision (a scenario that also sends modern requests
// there takes the connection out of validation, see servedModernOrRefused).
func (st *stdioScenario) openSession(ctx context.Context, w *world) error {
	if w.conn == nil || !w.fresh {
		return fmt.Errorf("feature bug: a legacy session needs a fresh connection")
	}
	w.s.env.setRev(w.conn.Conn(), "")
	if err := w.initialize(ctx, revisions.LatestLegacy().ID); err != nil {
		return err
	}
	ex := w.last
	if ex.Response == nil {
		return w.setSkip(reports.NA, "the server did not answer initialize: it speaks no legacy revision")
	}
	msg, _ := harness.ParseMessage(ex.Response.Raw)
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if msg.Kind != harness.KindResult || json.Unmarshal(msg.Result, &ir) != nil || !revisions.Known(ir.ProtocolVersion) || revisions.IsModern(ir.ProtocolVersion) {
		return w.setSkip(reports.NA, "the server rejected initialize ("+describe(msg)+"): it is not dual-era")
	}
	st.session = &legacySession{version: ir.ProtocolVersion}
	w.s.env.setRev(w.conn.Conn(), ir.ProtocolVersion)
	if ex.HTTP != nil {
		st.session.sessionID = ex.HTTP.Headers.Get("Mcp-Session-Id")
	}
	return w.send(ctx, w.build(call{Method: "notifications/initialized", Era: eraPlain, Notification: true, Headers: st.legacyHeader(w)}))
}

func (st *stdioScenario) legacyHeader(w *world) http.Header {
	if w.s.env.cfg.Transport != harness.TransportHTTP {
		return nil
	}
	h := harness.LegacyHeaders(st.session.version)
	if st.session.sessionID != "" {
		h.Set("Mcp-Session-Id", st.session.sessionID)
	}
	return h
}

func (st *stdioScenario) sendLegacyList(ctx context.Context, w *world) error {
	if st.session == nil {
		return fmt.Errorf("feature bug: no legacy session was opened")
	}
	for _, lm := range listMethods {
		if _, ok := w.s.t.caps[lm.capability]; ok {
			return w.send(ctx, w.build(call{Method: lm.method, Era: eraPlain, Headers: st.legacyHeader(w)}))
		}
	}
	return w.setSkip(reports.NA, "the server declares none of the tools, resources and prompts capabilities")
}

// dualEra reports whether the server also speaks a legacy revision: its DiscoverResult lists
// one, or, failing that, it answers initialize on a connection of its own.
func dualEra(ctx context.Context, w *world) (bool, error) {
	for _, v := range w.s.t.supported {
		if revisions.IsLegacy(v) {
			return true, nil
		}
	}
	t, err := w.s.env.dial(ctx, "")
	if err != nil {
		return false, fmt.Errorf("cannot start a connection to try initialize: %w", err)
	}
	w.own = append(w.own, t)
	cctx, cancel := context.WithTimeout(ctx, min(w.s.env.cfg.StartupTimeout, w.s.env.cfg.Timeout+2*w.s.env.startup))
	defer cancel()
	h, err := harness.Initialize(cctx, t, &w.s.env.ids, revisions.LatestLegacy().ID)
	if err != nil || !revisions.Known(h.Version) || revisions.IsModern(h.Version) {
		return false, ctx.Err()
	}
	w.s.env.setRev(t.Conn(), h.Version)
	return true, nil
}

// modernMembers returns the members of a result that only 2026-07-28 results have (resultType,
// ttlMs, cacheScope, _meta serverInfo): whether a request was served under that revision shows
// in them. Whether each is right is judged by the rules about them (RT-*, CACHE-*, META-*).
func modernMembers(result json.RawMessage) []string {
	var r struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return nil
	}
	_ = json.Unmarshal(result, &r)
	var out []string
	for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	if _, ok := r.Meta[harness.MetaServerInfo]; ok {
		out = append(out, "_meta "+harness.MetaServerInfo)
	}
	return out
}

// expectModernResult checks that the last reply is a result served under 2026-07-28 (it has
// members only that revision's results have).
func expectModernResult(ctx context.Context, w *world) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	want := "a " + revisions.Modern().ID + " result (resultType, ttlMs, cacheScope or _meta serverInfo) to a request carrying modern _meta"
	if msg.Kind != harness.KindResult {
		return &Mismatch{Expected: want, Actual: describe(msg), Frames: w.lastSeqs()}
	}
	if len(modernMembers(msg.Result)) == 0 {
		return &Mismatch{Expected: want, Actual: "a result with none of them, served as a legacy revision: " + short(msg.Raw), Frames: w.lastSeqs()}
	}
	return nil
}

// expectLegacyResult checks that the last reply is a result of the legacy session (its schema
// is judged by SCHEMA-001 of the negotiated revision, or by the legacy rules); grade, when set,
// overrides the rule's verdict.
func (st *stdioScenario) expectLegacyResult(w *world, grade reports.Verdict) error {
	if st.session == nil {
		return fmt.Errorf("feature bug: no legacy session was opened")
	}
	msg, err := w.responseMessage()
	if err != nil {
		var m *Mismatch
		if errors.As(err, &m) {
			m.Grade = grade
		}
		return err
	}
	if msg.Kind != harness.KindResult {
		return &Mismatch{Expected: "a " + st.session.version + " result to a request without _meta in the legacy session", Actual: describe(msg), Frames: w.lastSeqs(), Grade: grade}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// VER-010: the stdio probe.

func expectProbeAnswer(ctx context.Context, w *world) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	const want = "a DiscoverResult or a recognised modern error (-32020, -32021, or -32022 with data.supported)"
	switch msg.Kind {
	case harness.KindResult:
		var dr struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(msg.Result, &dr) != nil || dr.SupportedVersions == nil {
			return &Mismatch{Expected: want + ": a result with a supportedVersions list", Actual: "a result without it: " + short(msg.Raw), Frames: w.lastSeqs()}
		}
		return nil
	case harness.KindError:
		if !recognisedModern[msg.Error.Code] {
			return &Mismatch{Expected: want, Actual: describe(msg) + ", which a dual-era client reads as a legacy server", Frames: w.lastSeqs()}
		}
		if msg.Error.Code == harness.CodeUnsupportedProtocolVersion {
			var data struct {
				Supported []string `json:"supported"`
			}
			if json.Unmarshal(msg.Error.Data, &data) != nil || len(data.Supported) == 0 {
				return &Mismatch{Expected: want, Actual: "error -32022 without a data.supported list: " + short(msg.Raw), Frames: w.lastSeqs()}
			}
		}
		return nil
	}
	return &Mismatch{Expected: want, Actual: describe(msg), Frames: w.lastSeqs()}
}
