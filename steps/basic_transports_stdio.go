package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("basic-transports-stdio", registerBasicTransportsStdioSteps) }

// registerBasicTransportsStdioSteps binds the steps that only
// features/basic-transports-stdio.feature uses.
func registerBasicTransportsStdioSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client closes the server's standard input$`, wc(closeStdin))

	// Observe.
	step(sc, `^the client waits up to (\d+) seconds for the server to exit$`, waitForExit)
	step(sc, `^the server exits within (\d+) seconds$`, exitsWithinSeconds)
	// STDIO-002 is the judge's alone (judge/stdio.go: checkStdoutPurity sees every stdout line of
	// every process, this scenario's included, and grades a blank line or a trailing CR warn):
	// a step of its own that failed those lines hid the judge's grade, since the judge only
	// turns a passed result.
	step(sc, `^every line the server wrote to stdout is a JSON-RPC message$`, AskJudge("STDIO-002"))
	step(sc, `^no message the server wrote was split over several lines$`, wc(noMessageSplitOverLines))

	// STDIO-003.
	step(sc, `^everything the server processes of this run wrote to stderr so far is UTF-8 text$`, wc(stderrIsUTF8))

	// STDIO-004.
	step(sc, `^every message the server wrote to stdout in this run is a response, a notification of an in-flight request or one of an open subscription$`,
		AskJudge("STDIO-004"))

	// STDIO-005.
	step(sc, `^the client keeps a subscriptions/listen request open, if the server accepts one$`, keepListenOpen)
	step(sc, `^the client sends (\d+) requests without waiting for the responses$`, sendWithoutWaiting)
	step(sc, `^each of those requests is answered exactly once, with its own id$`, eachAnsweredOnce)

	// STDIO-007.
	step(sc, `^no server process of this run ended the session while requests were in flight$`, wc(noLostRequests))

	// STDIO-008 and STDIO-010.
	step(sc, `^the client opens a subscriptions/listen request for tool list changes and it is acknowledged$`, openToolListListen)
	step(sc, `^the client opens two subscriptions/listen requests for tool list changes$`, openTwoToolListListens)
	// STDIO-008 judges what follows the cancellation, so it waits a quiet window before the
	// change it triggers; STDIO-010 is done with its subscriptions and does not wait.
	step(sc, `^the client cancels that subscriptions/listen request$`, func(ctx context.Context) error {
		w := WorldOf(ctx)
		return stdioOf(w).cancelListens(ctx, w, true)
	})
	step(sc, `^the client cancels the open subscriptions/listen requests$`, func(ctx context.Context) error {
		w := WorldOf(ctx)
		return stdioOf(w).cancelListens(ctx, w, false)
	})
	step(sc, `^the client triggers a tool list change, if the server has the fixture tool for it$`, func(ctx context.Context) error {
		return triggerToolListChange(ctx, WorldOf(ctx))
	})
	step(sc, `^nothing more arrived for the cancelled request after a quiet window$`, nothingAfterCancel)
	step(sc, `^every subscription notification carried the subscriptionId of an open subscription$`, notificationsCarrySubscriptionID)
}

func closeStdin(ctx context.Context, w *World) error {
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	return s.CloseStdin()
}

func waitForExit(ctx context.Context, secs int) error {
	s, err := WorldOf(ctx).Stdio()
	if err != nil {
		return err
	}
	s.WaitExit(time.Duration(secs) * time.Second)
	return nil
}

func exitsWithinSeconds(ctx context.Context, secs int) error {
	w := WorldOf(ctx)
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	if !s.WaitExit(time.Duration(secs) * time.Second) {
		return &client.Mismatch{Expected: fmt.Sprintf("the server process to exit within %ds of stdin EOF", secs), Actual: "still running"}
	}
	return nil
}

func noMessageSplitOverLines(ctx context.Context, w *World) error {
	return w.stdoutProblems(func(p string) bool { return strings.HasPrefix(p, harness.ProblemSplit) },
		"each message on a single line")
}

func keepListenOpen(ctx context.Context) error {
	w := WorldOf(ctx)
	st := stdioOf(w)
	if !w.Target.Modern {
		return nil // no long-lived request before 2026-07-28
	}
	_, err := st.openListen(ctx, w, false)
	return err
}

func sendWithoutWaiting(ctx context.Context, n int) error {
	w := WorldOf(ctx)
	return stdioOf(w).pipeline(ctx, w, n)
}

func eachAnsweredOnce(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).expectPipelined(ctx, w)
}

func openToolListListen(ctx context.Context) error {
	w := WorldOf(ctx)
	_, err := stdioOf(w).openListen(ctx, w, true)
	return err
}

func openTwoToolListListens(ctx context.Context) error {
	w := WorldOf(ctx)
	st := stdioOf(w)
	for i := 0; i < 2; i++ {
		if _, err := st.openListen(ctx, w, true); err != nil {
			return err
		}
	}
	return nil
}

func nothingAfterCancel(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).expectNothingAfterCancel(w)
}

func notificationsCarrySubscriptionID(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).expectSubscriptionIDs(w)
}

func (w *World) stdoutProblems(match func(string) bool, expected string) error {
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	for _, f := range s.Frames() {
		if f.Dir == harness.DirServerToClient && f.Problem != "" && match(f.Problem) && !harness.IsBatchReply(f.Raw) {
			return &client.Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s: %s", f.Seq, f.Problem, client.Short(f.Raw)), Frames: []int{f.Seq}}
		}
	}
	return nil
}

// triggerToolChange is the fixture tool of the "everything" servers that publishes a tools
// list change to the open subscriptions.
const triggerToolChange = "test_trigger_tool_change"

// ---------------------------------------------------------------------------------------------
// STDIO-003: stderr.

func stderrIsUTF8(ctx context.Context, w *World) error {
	for _, t := range w.Own {
		_ = t.Close() // the scenario's own process: shut down, its stderr read to the end
	}
	conns := w.Env.Conns()
	for _, t := range conns {
		if s, ok := t.Process(); ok && s.StderrInvalidUTF8() {
			tail := s.StderrTail()
			if !utf8.ValidString(tail) {
				tail = strings.ToValidUTF8(tail, "\uFFFD")
			}
			if len(tail) > 160 {
				tail = "..." + tail[len(tail)-157:]
			}
			return &client.Mismatch{Expected: "UTF-8 text on stderr (basic/transports/stdio: the server may log UTF-8 strings there)",
				Actual: fmt.Sprintf("bytes that are not UTF-8 on the stderr of server process %d (connection %d); tail: %q", s.Pid(), s.Conn(), tail)}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// STDIO-005: requests in flight together.

func (st *stdioScenario) pipeline(ctx context.Context, w *World, n int) error {
	if w.Conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	method := w.Harmless()
	reqs := make([]harness.Request, n)
	for i := range reqs {
		// Integer and string ids alternate: correlation must keep them apart.
		var id any = w.Env.IDs().Next()
		if i%2 == 1 {
			id = fmt.Sprintf("pipelined-%d", w.Env.IDs().Next())
		}
		reqs[i] = w.Build(client.Call{Method: method, ID: id})
		st.pipelined = append(st.pipelined, reqs[i].ID)
	}
	cctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	exs := make([]*harness.Exchange, n)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			exs[i], _ = w.Conn.Send(cctx, reqs[i])
		}()
	}
	wg.Wait()
	for _, ex := range exs {
		if ex != nil && ex.Response != nil {
			w.Fresh = false
		}
		w.Note(ex)
	}
	return ctx.Err()
}

func (st *stdioScenario) expectPipelined(ctx context.Context, w *World) error {
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	quiet(ctx, w.Opts.QuietWindow, s)
	answers := map[string][]int{}
	for _, f := range s.Frames() {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		if msg, err := harness.ParseMessage(f.Body()); err == nil && (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID {
			// Keyed without the id's JSON type: a response repeating the id as "7" for 7 answers
			// the request, and the type is MSG-003's to judge.
			k := harness.LooseIDKey(harness.IDKey(msg.ID))
			answers[k] = append(answers[k], f.Seq)
		}
	}
	var missing, twice []string
	for _, id := range st.pipelined {
		switch got := answers[harness.LooseIDKey(harness.IDKey(id))]; {
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
		return &client.Mismatch{Expected: fmt.Sprintf("a response to each of the %d requests sent without waiting%s", len(st.pipelined), open),
			Actual: fmt.Sprintf("no response with id %s", strings.Join(missing, ", ")), Frames: w.LastSeqs()}
	case len(twice) > 0:
		return &client.Mismatch{Expected: "exactly one response per request id", Actual: "several responses with id " + strings.Join(twice, ", "), Frames: w.LastSeqs()}
	}
	return nil
}

// quiet waits the quiet window (or until ctx ends or the server dies): the time the suite
// gives a server to show that nothing more arrives.
func quiet(ctx context.Context, d time.Duration, s client.Process) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-s.Exited():
	}
}

// cancelListens sends notifications/cancelled for every open listen; with wait, the quiet
// window the transport waits after a notification follows the last one.
func (st *stdioScenario) cancelListens(ctx context.Context, w *World, wait bool) error {
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	st.mu.Lock()
	listens := append([]*openListen{}, st.listens...)
	st.mu.Unlock()
	st.cancelFrame = -1
	for i, l := range listens {
		cancel := w.Build(client.Call{Method: "notifications/cancelled", Era: client.EraPlain, Notification: true, Params: map[string]any{
			"requestId": l.id, "reason": "mcp-conform: the scenario is done with this subscription",
		}})
		// One quiet window after the last cancellation covers them all.
		cancel.NoQuiet = !wait || i < len(listens)-1
		if err := w.Send(ctx, cancel); err != nil {
			return err
		}
		if st.cancelFrame < 0 {
			for i, f := range s.Frames() {
				if f == w.Last.Sent {
					st.cancelFrame = i
				}
			}
		}
	}
	st.cancelledAt = len(s.Frames())
	return nil
}

// triggerToolListChange calls the fixture tool test_trigger_tool_change when the server
// declares tools; an error (the tool does not exist) is no failure of these rules. The quiet
// window then lets notifications published after the result arrive.
func triggerToolListChange(ctx context.Context, w *World) error {
	name := w.Opts.FixtureName(triggerToolChange)
	if why := w.Target.CapsUnknown; why != "" {
		stdioOf(w).untriggered = why
		return nil
	}
	if _, ok := w.Target.Caps["tools"]; !ok {
		stdioOf(w).untriggered = fmt.Sprintf("the server declares no tools, so no tool list change could be triggered (fixture tool %q; "+undeclaredToolsJudge+")", name)
		return nil
	}
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	c := w.FixtureToolCall(triggerToolChange, nil, nil)
	c.Era = client.EraModern
	req := w.Build(c)
	cctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	ex, _ := w.Conn.Send(cctx, req)
	w.Note(ex)
	stdioOf(w).untriggered = ""
	switch msg := client.ResponseOf(ex); {
	case msg == nil:
		// The call travels while the subscriptions/listen is in flight: a request left
		// unanswered then is STDIO-005's.
		stdioOf(w).untriggered = fmt.Sprintf("no tool list change could be triggered: the fixture tool %q got %s (STDIO-005 judges requests left unanswered while a subscriptions/listen is in flight)", name, client.DescribeExchange(ex))
	case msg.Kind != harness.KindResult:
		stdioOf(w).untriggered = fmt.Sprintf("no tool list change could be triggered: the fixture tool %q got %s", name, client.DescribeExchange(ex))
	}
	quiet(ctx, w.Opts.QuietWindow, s)
	return ctx.Err()
}

func (st *stdioScenario) expectNothingAfterCancel(w *World) error {
	s, err := w.Stdio()
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
		msg, err := harness.ParseMessage(f.Body())
		if err != nil {
			continue
		}
		hit := ""
		switch {
		case (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID && keys[harness.IDKey(msg.ID)]:
			hit = "a response to it (" + client.Describe(msg) + ")"
		case i < st.cancelledAt:
		case msg.Kind == harness.KindNotification && keys[subscriptionOf(msg)]:
			hit = msg.Method + " for its subscription, a quiet window after the cancellation"
		case msg.Kind == harness.KindNotification && msg.Method == "notifications/cancelled" && keys[requestIDOf(msg)]:
			hit = "notifications/cancelled for it, a quiet window after the cancellation"
		}
		if hit != "" {
			return &client.Mismatch{Expected: "no message for the subscriptions/listen request after the client cancelled it",
				Actual: fmt.Sprintf("frame %d: %s", f.Seq, hit), Frames: []int{f.Seq}}
		}
	}
	if st.untriggered != "" {
		// Without a change to listen for, silence after the cancellation proves nothing.
		return w.SetSkip(reports.Untestable, st.untriggered)
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

func (st *stdioScenario) expectSubscriptionIDs(w *World) error {
	s, err := w.Stdio()
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
		msg, err := harness.ParseMessage(f.Body())
		if err != nil || msg.Kind != harness.KindNotification || !harness.IsListenNotification(msg.Method) {
			continue
		}
		seen++
		switch sub := subscriptionOf(msg); {
		case sub == "":
			return &client.Mismatch{Expected: "_meta io.modelcontextprotocol/subscriptionId on every notification of a subscription",
				Actual: fmt.Sprintf("frame %d: %s without a subscriptionId (open subscriptions: %s)", f.Seq, msg.Method, strings.Join(names, ", ")), Frames: []int{f.Seq}}
		case !keys[sub]:
			return &client.Mismatch{Expected: "a subscriptionId naming one of the open subscriptions " + strings.Join(names, ", "),
				Actual: fmt.Sprintf("frame %d: %s with subscriptionId %s", f.Seq, msg.Method, sub), Frames: []int{f.Seq}}
		}
	}
	if seen == 0 {
		return w.SetSkip(reports.Untestable, "no notification arrived on the subscriptions/listen streams (not even an acknowledgement; see SUB-002)")
	}
	if st.untriggered != "" {
		// The acknowledgements alone do not show how a change reaches two subscriptions.
		return w.SetSkip(reports.Untestable, st.untriggered)
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// STDIO-007: the server ending the session.

// noLostRequests looks at every stdio process of the target so far: one that ended the session
// itself (exited, or closed stdout, before the client closed its stdin) may do so, but requests
// left unanswered were lost, and closing stdout without exiting is not what the permission
// describes.
func noLostRequests(ctx context.Context, w *World) error {
	var procs []client.Process
	for _, t := range w.Env.Conns() {
		if s, ok := t.Process(); ok && w.Env.ConnRev(s.Conn()) == w.Target.Revision {
			procs = append(procs, s)
		}
	}
	for _, s := range procs {
		code, exited := s.ExitCode()
		if !exited && !s.IsDead() {
			continue
		}
		if !exited {
			// Stdout closed: the exit that follows (a server ending the session, or one another
			// scenario's client is shutting down) is awaited, bounded by --timeout, before a
			// process is called one that closed stdout but kept running.
			s.WaitExit(w.Opts.Timeout)
			code, exited = s.ExitCode()
		}
		step := s.ShutdownStep()
		if exited && step != harness.StepNone {
			continue // the client shut it down
		}
		if !exited {
			return &client.Mismatch{Expected: "a server that ends the session closes stdout and exits",
				Actual: fmt.Sprintf("server process %d closed its stdout but kept running", s.Pid())}
		}
		if lost, seqs := unanswered(s.Frames()); len(lost) > 0 {
			return &client.Mismatch{Expected: "a server that ends the session itself does so with no request in flight",
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
		msg, err := harness.ParseMessage(f.Body())
		if err != nil || !msg.HasID {
			continue
		}
		k := harness.IDKey(msg.ID)
		switch {
		case f.Dir == harness.DirClientToServer && msg.Kind == harness.KindRequest && !f.Sentinel:
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
