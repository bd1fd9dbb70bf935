package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Logging (server/utilities/logging, deprecated in 2026-07-28 but still specified), the
// extension framework (basic/versioning#Extension Negotiation, extensions/overview, the tasks
// extension) and deprecated or removed features (deprecated, changelog).

const (
	// loggingFixtureTool is the official conformance fixture tool that logs while it runs.
	loggingFixtureTool = "test_tool_with_logging"
	// tasksExtensionID is the identifier of the official tasks extension.
	tasksExtensionID = "io.modelcontextprotocol/tasks"
	// subscriptionIDMeta is the `_meta` key that tags the notifications of a listen subscription.
	subscriptionIDMeta = "io.modelcontextprotocol/subscriptionId"
	// unknownExtensionID and unknownCapability are the client extension and capability no
	// server knows (EXT-004).
	unknownExtensionID = "com.example.mcpconform/unknown-extension"
	unknownCapability  = "mcpconformUnknownCapability"
)

// logLevels ranks the LoggingLevel values (RFC 5424 severities, least severe first).
var logLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// removedMethods are the requests of earlier revisions that 2026-07-28 no longer defines in the
// core protocol (changelog#Major changes 4, 5 and 6). They are sent with no params but `_meta`,
// so that no header the tasks extension derives from a param (Mcp-Name from taskId) is due.
// tasks/get and tasks/cancel belong to the tasks extension and are skipped when the server
// advertises it.
var removedMethods = []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}

// extensionID matches an extension identifier: a `_meta` key (basic/index#_meta) whose prefix
// is mandatory: dot-separated labels (a letter first, a letter or digit last, letters, digits
// and hyphens between), a slash, then a name that, unless empty, starts and ends with an
// alphanumeric and has only alphanumerics, hyphens, underscores and dots between.
var extensionID = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// registerLogextSteps binds the steps of logging, extensions and deprecations (LOG, EXT, DEP).
func registerLogextSteps(sc *godog.ScenarioContext) {
	// Setup.
	step(sc, `^the server advertises the "([^"]+)" extension$`, func(ctx context.Context, id string) error {
		w := worldOf(ctx)
		if _, ok := w.serverExtensions()[id]; !ok {
			return w.setSkip(reports.NA, fmt.Sprintf("the server does not advertise the %q extension", id))
		}
		return nil
	})
	step(sc, `^the server serves no handshake-era revision$`, wc(func(ctx context.Context, w *world) error {
		if legacy := w.legacyRevisions(); len(legacy) > 0 {
			return w.setSkip(reports.NA, "the server also serves "+strings.Join(legacy, ", ")+": an existing implementation, which may keep a deprecated feature during its deprecation window (only new implementations are asked not to adopt it)")
		}
		return nil
	}))

	// Send.
	step(sc, `^the client calls the logging fixture tool, if listed, without a log level$`, wc(func(ctx context.Context, w *world) error {
		return w.callLoggingTool(ctx, "", false, false)
	}))
	step(sc, `^the client calls the logging fixture tool with log level "([^"]+)"$`, func(ctx context.Context, level string) error {
		return worldOf(ctx).callLoggingTool(ctx, level, true, false)
	})
	step(sc, `^the client calls the logging fixture tool, if listed, with log level "([^"]+)" while a listen stream is open$`, func(ctx context.Context, level string) error {
		return worldOf(ctx).callLoggingTool(ctx, level, false, true)
	})
	step(sc, `^the client sends a list request with the log level "([^"]+)"$`, func(ctx context.Context, level string) error {
		w := worldOf(ctx)
		_, known := logLevels[level]
		return w.sendParams(ctx, w.listOrDiscover(), nil, map[string]any{logLevelMeta: level}, !known)
	})
	step(sc, `^the client sends a list request declaring an unknown extension and an unknown capability$`, wc(func(ctx context.Context, w *world) error {
		caps := map[string]any{
			"extensions":      map[string]any{unknownExtensionID: map[string]any{}},
			"experimental":    map[string]any{"mcpconform": map[string]any{}},
			unknownCapability: map[string]any{},
		}
		return w.sendParams(ctx, w.listOrDiscover(), nil, map[string]any{harness.MetaClientCapabilities: caps}, false)
	}))
	step(sc, `^the client sends each method that `+regexp.QuoteMeta(revisions.Modern().ID)+` removed$`, wc(sendRemovedMethods))
	step(sc, `^the client opens the endpoint as a deprecated HTTP\+SSE client would$`, wc(openLegacySSE))

	// Observe.
	step(sc, `^no log message in this run went to a request that did not ask for log messages$`, registerSweep("LOG-001", checkLogUnasked))
	step(sc, `^every log message in this run is at or above the level its request asked for$`, registerSweep("LOG-002", checkLogLevels))
	step(sc, `^every log message in this run travelled with the response of the request that asked for it$`, registerSweep("LOG-003", checkLogStreams))
	step(sc, `^every log message the server sent in this run has a known level and data$`, registerSweep("LOG-005", checkLogShape))
	step(sc, `^every extension identifier the server advertises has a prefix and a valid name$`, wc(func(ctx context.Context, w *world) error {
		return w.judgeExtensions(func(id string, v json.RawMessage) string {
			if !extensionID.MatchString(id) {
				return fmt.Sprintf("extension identifier %q (want prefix/name, e.g. com.example/my-extension)", id)
			}
			return ""
		}, "extension identifiers that follow the _meta key rules with a prefix")
	}))
	step(sc, `^every extension the server advertises has a settings object$`, wc(func(ctx context.Context, w *world) error {
		return w.judgeExtensions(func(id string, v json.RawMessage) string {
			if !isJSONObject(v) {
				return fmt.Sprintf("extension %q has settings %s", id, short(v))
			}
			return ""
		}, "an object (possibly empty) as each extension's settings")
	}))
	step(sc, `^no result in this run has a shape of an extension its request did not declare$`, registerSweep("EXT-003", checkExtensionShapes))
	step(sc, `^no task handle in this run went to a request that did not declare the tasks extension$`, registerSweep("EXT-005", checkTaskHandles))
	step(sc, `^the server adopts none of the deprecated Logging, Roots and Sampling features$`, registerSweep("DEP-001", checkDeprecatedFeatures))
	step(sc, `^the endpoint did not answer as a deprecated HTTP\+SSE server$`, wc(judgeLegacySSE))
	step(sc, `^each removed method was refused with method-not-found$`, wc(judgeRemovedMethods))
	step(sc, `^no message in this run uses the removed URL elicitation completion$`, registerSweep("DEP-004", checkElicitationComplete))
}

// listOrDiscover is the list method of the first declared capability, or server/discover.
func (w *world) listOrDiscover() string {
	for _, lm := range listMethods {
		if w.declares(lm.capability) {
			return lm.method
		}
	}
	return harmless(w)
}

// legacyRevisions returns the handshake-era revisions the server's discover result lists.
func (w *world) legacyRevisions() []string {
	var out []string
	for _, v := range w.s.t.supported {
		if revisions.IsLegacy(v) {
			out = append(out, v)
		}
	}
	return out
}

// serverExtensions returns capabilities.extensions of the server's discover result.
func (w *world) serverExtensions() map[string]json.RawMessage {
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(w.s.t.caps["extensions"], &ext)
	return ext
}

// judgeExtensions applies judge to each extension of a fresh discover result (na when the
// server advertises none).
func (w *world) judgeExtensions(judge func(id string, v json.RawMessage) string, expected string) error {
	res := w.lastResult()
	if res == nil {
		if _, err := w.responseMessage(); err != nil {
			return err
		}
		return &Mismatch{Expected: "a DiscoverResult", Actual: "an error", Frames: w.lastSeqs()}
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(res["capabilities"], &caps)
	raw, ok := caps["extensions"]
	if !ok {
		return w.setSkip(reports.NA, "the server advertises no extensions")
	}
	var ext map[string]json.RawMessage
	if json.Unmarshal(raw, &ext) != nil {
		return &Mismatch{Expected: "capabilities.extensions to be an object", Actual: short(raw), Frames: w.lastSeqs()}
	}
	if len(ext) == 0 {
		return w.setSkip(reports.NA, "the server advertises no extensions")
	}
	ids := make([]string, 0, len(ext))
	for id := range ext {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if bad := judge(id, ext[id]); bad != "" {
			return &Mismatch{Expected: expected, Actual: bad, Frames: w.lastSeqs()}
		}
	}
	return nil
}

// callLoggingTool calls the fixture tool test_tool_with_logging (or its --fixture-map alias)
// with `_meta` logLevel level ("" for none). required makes a missing tool, an undeclared tools
// capability or a call the policy forbids end the scenario as untestable; otherwise the step
// does nothing then, and the run-wide check judges what the run shows. duringListen holds a
// subscriptions/listen stream open (HTTP) while the tool runs.
func (w *world) callLoggingTool(ctx context.Context, level string, required, duringListen bool) error {
	skip := func(why string) error {
		if required {
			return w.setSkip(reports.Untestable, why)
		}
		return nil
	}
	if !w.declares("tools") {
		return skip(fmt.Sprintf("no tool %q: the server declares no tools", w.s.env.fixtureName(loggingFixtureTool)))
	}
	lt, err := w.listAll(ctx, "tools/list", "tools")
	if err != nil {
		if _, refused := err.(*listRefused); refused {
			return skip("tools/list failed: " + err.Error())
		}
		return err
	}
	name := w.s.env.fixtureName(loggingFixtureTool)
	var tool map[string]any
	for _, t := range lt.Items {
		if t["name"] == name {
			tool = t
		}
	}
	if tool == nil {
		return skip(fmt.Sprintf("no tool %q", name))
	}
	if ok, why := w.s.env.mayCall(tool); !ok {
		return skip(why)
	}
	meta := map[string]any{}
	if !w.s.t.modern {
		// Handshake-era revisions set the level per session (logging/setLevel), which would
		// change what every later scenario of the shared session receives: no level is asked.
		level, duringListen = "", false
	}
	if level != "" {
		meta[logLevelMeta] = level
	}
	call := func(ctx context.Context) error {
		return w.sendParams(ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, meta, false)
	}
	if duringListen && w.s.env.cfg.Transport == harness.TransportHTTP {
		return w.holdListen(ctx, call, w.listenHold())
	}
	return call(ctx)
}

// logEvent is one notifications/message of the run and the requests it may belong to.
type logEvent struct {
	f      *harness.Frame
	params map[string]json.RawMessage
	level  string
	// carriers are the requests whose response stream it may travel on: on HTTP the request
	// whose reply carried it, on stdio every request (but subscriptions/listen) in flight on
	// its connection when it arrived.
	carriers []logCarrier
	// stray says why the message travelled on no request's response stream ("" when it did).
	stray string
}

// logCarrier is a request that may carry a log message.
type logCarrier struct {
	seq    int
	method string
	level  string
	asked  bool
}

// logEvents attributes every notifications/message among frames to the requests whose
// response stream it travelled on.
func logEvents(frames []*harness.Frame) []logEvent {
	bySeq := map[int]*logCarrier{}
	inflight := map[int]map[string]*logCarrier{}
	var out []logEvent
	for _, f := range frames {
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil {
			continue
		}
		if f.Dir == harness.DirClientToServer {
			if msg.Kind != harness.KindRequest {
				continue
			}
			meta := requestMeta(msg.Params)
			c := &logCarrier{seq: f.Seq, method: msg.Method}
			if raw, ok := meta[logLevelMeta]; ok {
				c.asked = true
				_ = json.Unmarshal(raw, &c.level)
			}
			bySeq[f.Seq] = c
			if f.Transport == harness.TransportStdio {
				if inflight[f.Conn] == nil {
					inflight[f.Conn] = map[string]*logCarrier{}
				}
				inflight[f.Conn][harness.IDKey(msg.ID)] = c
			}
			continue
		}
		if (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID {
			delete(inflight[f.Conn], harness.IDKey(msg.ID))
			continue
		}
		if msg.Kind != harness.KindNotification || msg.Method != "notifications/message" {
			continue
		}
		ev := logEvent{f: f}
		_ = json.Unmarshal(msg.Params, &ev.params)
		_ = json.Unmarshal(ev.params["level"], &ev.level)
		var pm map[string]json.RawMessage
		_ = json.Unmarshal(ev.params["_meta"], &pm)
		_, tagged := pm[subscriptionIDMeta]
		switch {
		case tagged:
			ev.stray = "tagged with " + subscriptionIDMeta + " as a notification of a listen subscription"
		case f.Transport == harness.TransportHTTP:
			c := bySeq[f.ReplyTo]
			switch {
			case c == nil:
				ev.stray = "on an HTTP reply that answers no JSON-RPC request (a GET stream)"
			case c.method == listenMethod:
				ev.stray = fmt.Sprintf("on the subscriptions/listen stream opened by frame %d", c.seq)
			default:
				ev.carriers = []logCarrier{*c}
			}
		default:
			for _, c := range inflight[f.Conn] {
				if c.method != listenMethod {
					ev.carriers = append(ev.carriers, *c)
				}
			}
			sort.Slice(ev.carriers, func(i, j int) bool { return ev.carriers[i].seq < ev.carriers[j].seq })
			if len(ev.carriers) == 0 {
				ev.stray = "while no request was in flight on the connection (after the response it could belong to, or unsolicited)"
			}
		}
		out = append(out, ev)
	}
	return out
}

func carrierSeqs(ev logEvent) []int {
	out := make([]int, 0, len(ev.carriers)+1)
	for _, c := range ev.carriers {
		out = append(out, c.seq)
	}
	return append(out, ev.f.Seq)
}

// checkLogUnasked is LOG-001: a log message on the stream of requests none of which set
// `_meta` logLevel.
func checkLogUnasked(frames []*harness.Frame) *Mismatch {
	for _, ev := range logEvents(frames) {
		if ev.stray != "" || len(ev.carriers) == 0 {
			continue
		}
		asked := false
		var methods []string
		for _, c := range ev.carriers {
			asked = asked || c.asked
			methods = append(methods, fmt.Sprintf("%s (frame %d)", c.method, c.seq))
		}
		if !asked {
			return &Mismatch{Expected: "notifications/message only for a request whose _meta sets " + logLevelMeta,
				Actual: fmt.Sprintf("frame %d %s for %s, which did not ask for log messages", ev.f.Seq, short(ev.f.Raw), strings.Join(methods, ", ")),
				Frames: carrierSeqs(ev)}
		}
	}
	return nil
}

// checkLogLevels is LOG-002: a log message below the level its request asked for (the lowest
// level asked among the requests that may carry it).
func checkLogLevels(frames []*harness.Frame) *Mismatch {
	for _, ev := range logEvents(frames) {
		got, known := logLevels[ev.level]
		if !known {
			continue // LOG-005 judges the level itself
		}
		floor, floorName := len(logLevels), ""
		for _, c := range ev.carriers {
			if r, ok := logLevels[c.level]; c.asked && ok && r < floor {
				floor, floorName = r, c.level
			}
		}
		if floorName != "" && got < floor {
			return &Mismatch{Expected: fmt.Sprintf("log messages at level %s or above", floorName),
				Actual: fmt.Sprintf("frame %d at level %s: %s", ev.f.Seq, ev.level, short(ev.f.Raw)), Frames: carrierSeqs(ev)}
		}
	}
	return nil
}

// checkLogStreams is LOG-003: a log message on a listen stream, a GET stream, tagged as a
// subscription's notification, or (stdio) while no request was in flight.
func checkLogStreams(frames []*harness.Frame) *Mismatch {
	for _, ev := range logEvents(frames) {
		if ev.stray != "" {
			seqs := []int{ev.f.Seq}
			if ev.f.ReplyTo != 0 {
				seqs = []int{ev.f.ReplyTo, ev.f.Seq}
			}
			return &Mismatch{Expected: "notifications/message only on the response stream of the request that set the log level, before its response",
				Actual: fmt.Sprintf("frame %d %s", ev.f.Seq, ev.stray), Frames: seqs}
		}
	}
	return nil
}

// checkLogShape is LOG-005: params with a LoggingLevel level, a data member and, if present,
// a string logger.
func checkLogShape(frames []*harness.Frame) *Mismatch {
	for _, ev := range logEvents(frames) {
		bad := ""
		_, known := logLevels[ev.level]
		switch {
		case ev.params == nil:
			bad = "params is not an object"
		case !known:
			bad = "level " + short(ev.params["level"]) + " is not a LoggingLevel"
		case ev.params["data"] == nil:
			bad = "no data member"
		}
		if lg, ok := ev.params["logger"]; ok && bad == "" {
			var s string
			if json.Unmarshal(lg, &s) != nil {
				bad = "logger " + short(lg) + " is not a string"
			}
		}
		if bad != "" {
			return &Mismatch{Expected: "log messages with a LoggingLevel level and data (logger optional, a string)",
				Actual: fmt.Sprintf("frame %d: %s", ev.f.Seq, bad), Frames: []int{ev.f.Seq}}
		}
	}
	return nil
}

// responseRequests pairs each server response among frames with the request it answers (HTTP:
// the request of its reply; stdio: the last request with its id on its connection) and calls
// judge with both, stopping at the first Mismatch.
func responseRequests(frames []*harness.Frame, judge func(resp *harness.Frame, res map[string]json.RawMessage, req *harness.Message) *Mismatch) *Mismatch {
	bySeq := map[int]*harness.Message{}
	byID := map[int]map[string]*harness.Message{}
	for _, f := range frames {
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil {
			continue
		}
		if f.Dir == harness.DirClientToServer {
			if msg.Kind == harness.KindRequest {
				bySeq[f.Seq] = msg
				if byID[f.Conn] == nil {
					byID[f.Conn] = map[string]*harness.Message{}
				}
				byID[f.Conn][harness.IDKey(msg.ID)] = msg
			}
			continue
		}
		if msg.Kind != harness.KindResult {
			continue
		}
		req := byID[f.Conn][harness.IDKey(msg.ID)]
		if f.Transport == harness.TransportHTTP {
			req = bySeq[f.ReplyTo]
		}
		if req == nil {
			continue
		}
		var res map[string]json.RawMessage
		if json.Unmarshal(msg.Result, &res) != nil {
			continue
		}
		if m := judge(f, res, req); m != nil {
			return m
		}
	}
	return nil
}

// clientExtensions returns the extensions a request's clientCapabilities declare.
func clientExtensions(req *harness.Message) map[string]json.RawMessage {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(requestMeta(req.Params)[harness.MetaClientCapabilities], &caps)
	return caps.Extensions
}

// checkExtensionShapes is EXT-003: a result whose resultType is outside the core set (or that
// carries a task handle) answering a request that declared no extension at all.
func checkExtensionShapes(frames []*harness.Frame) *Mismatch {
	return responseRequests(frames, func(resp *harness.Frame, res map[string]json.RawMessage, req *harness.Message) *Mismatch {
		if len(clientExtensions(req)) > 0 {
			return nil
		}
		var rt string
		_ = json.Unmarshal(res["resultType"], &rt)
		_, task := res["task"]
		if rt == "" || rt == "complete" || rt == "input_required" {
			if !task {
				return nil
			}
		}
		return &Mismatch{Expected: "core results (resultType complete or input_required) for a request that declared no extension",
			Actual: fmt.Sprintf("frame %d answers %s with resultType %q: %s", resp.Seq, req.Method, rt, short(resp.Raw)), Frames: []int{resp.Seq}}
	})
}

// checkTaskHandles is EXT-005: a task handle (resultType "task") answering a request whose
// clientCapabilities did not declare io.modelcontextprotocol/tasks.
func checkTaskHandles(frames []*harness.Frame) *Mismatch {
	return responseRequests(frames, func(resp *harness.Frame, res map[string]json.RawMessage, req *harness.Message) *Mismatch {
		var rt string
		_ = json.Unmarshal(res["resultType"], &rt)
		if _, declared := clientExtensions(req)[tasksExtensionID]; rt != "task" || declared {
			return nil
		}
		return &Mismatch{Expected: "a task handle only for a request that declared the " + tasksExtensionID + " extension",
			Actual: fmt.Sprintf("frame %d answers %s, which did not declare it, with a task: %s", resp.Seq, req.Method, short(resp.Raw)), Frames: []int{resp.Seq}}
	})
}

// checkDeprecatedFeatures is DEP-001 (judged only for servers that serve 2026-07-28 alone):
// a DiscoverResult declaring `logging`, or an input request for sampling or roots.
func checkDeprecatedFeatures(frames []*harness.Frame) *Mismatch {
	for _, f := range frames {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil || msg.Kind != harness.KindResult {
			continue
		}
		var res struct {
			Capabilities  map[string]json.RawMessage `json:"capabilities"`
			InputRequests map[string]struct {
				Method string `json:"method"`
			} `json:"inputRequests"`
		}
		if json.Unmarshal(msg.Result, &res) != nil {
			continue
		}
		if _, ok := res.Capabilities["logging"]; ok && f.Method == "server/discover" {
			return &Mismatch{Expected: "a new " + revisions.Modern().ID + " implementation not to adopt the deprecated Logging feature",
				Actual: fmt.Sprintf("frame %d declares the logging capability", f.Seq), Frames: []int{f.Seq}}
		}
		for key, ir := range res.InputRequests {
			if ir.Method == "sampling/createMessage" || ir.Method == "roots/list" {
				return &Mismatch{Expected: "a new " + revisions.Modern().ID + " implementation not to adopt the deprecated Sampling and Roots features",
					Actual: fmt.Sprintf("frame %d asks for input %q with %s", f.Seq, key, ir.Method), Frames: []int{f.Seq}}
			}
		}
	}
	return nil
}

// checkElicitationComplete is DEP-004: notifications/elicitation/complete, or a URL-mode
// elicitation carrying elicitationId (in an input request or a server request), under
// 2026-07-28.
func checkElicitationComplete(frames []*harness.Frame) *Mismatch {
	type elicit struct {
		Method string `json:"method"`
		Params struct {
			Mode          string          `json:"mode"`
			ElicitationID json.RawMessage `json:"elicitationId"`
		} `json:"params"`
	}
	urlWithID := func(e elicit) bool {
		return e.Method == "elicitation/create" && e.Params.Mode == "url" && e.Params.ElicitationID != nil
	}
	for _, f := range frames {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil {
			continue
		}
		bad := ""
		switch msg.Kind {
		case harness.KindNotification:
			if msg.Method == "notifications/elicitation/complete" {
				bad = "the removed notifications/elicitation/complete"
			}
		case harness.KindRequest:
			var e elicit
			if json.Unmarshal(f.Raw, &e) == nil && urlWithID(e) {
				bad = "a URL elicitation request with the removed elicitationId"
			}
		case harness.KindResult:
			var res struct {
				InputRequests map[string]elicit `json:"inputRequests"`
			}
			_ = json.Unmarshal(msg.Result, &res)
			for key, e := range res.InputRequests {
				if urlWithID(e) {
					bad = fmt.Sprintf("input request %q: a URL elicitation with the removed elicitationId", key)
				}
			}
		}
		if bad != "" {
			return &Mismatch{Expected: "no URL elicitation completion signal under " + revisions.Modern().ID + " (the client retries instead)",
				Actual: fmt.Sprintf("frame %d: %s", f.Seq, bad), Frames: []int{f.Seq}}
		}
	}
	return nil
}

// logextState is what the send steps of a scenario leave for its assertion steps.
type logextState struct {
	removed   []removedOutcome
	legacySSE *harness.Exchange
}

// removedOutcome is one removed method's exchange (DEP-003).
type removedOutcome struct {
	method string
	ex     *harness.Exchange
}

// sendRemovedMethods sends each removed method as a 2026-07-28 request (tasks/get and
// tasks/cancel only when the server does not advertise the tasks extension).
func sendRemovedMethods(ctx context.Context, w *world) error {
	_, tasks := w.serverExtensions()[tasksExtensionID]
	var outs []removedOutcome
	for _, method := range removedMethods {
		if tasks && (method == "tasks/get" || method == "tasks/cancel") {
			continue
		}
		if err := w.sendParams(ctx, method, nil, nil, false); err != nil {
			return err
		}
		outs = append(outs, removedOutcome{method: method, ex: w.last})
	}
	w.logext.removed = outs
	return nil
}

// judgeRemovedMethods checks that each removed method got -32601 (HTTP: status 404). A server
// that also serves handshake-era revisions and answers one of them otherwise is noted (info):
// such a server implements the method for its legacy clients.
func judgeRemovedMethods(ctx context.Context, w *world) error {
	outs := w.logext.removed
	if len(outs) == 0 {
		return fmt.Errorf("feature bug: no removed method was sent")
	}
	for _, o := range outs {
		actual := "no response"
		var msg *harness.Message
		if o.ex.Response != nil {
			msg, _ = harness.ParseMessage(o.ex.Response.Raw)
		}
		switch {
		case msg == nil:
		case msg.Kind == harness.KindError && msg.Error.Code == -32601:
			if o.ex.HTTP == nil || o.ex.HTTP.Status == http.StatusNotFound {
				continue
			}
			actual = fmt.Sprintf("error -32601 with HTTP status %d", o.ex.HTTP.Status)
		default:
			actual = describe(msg)
		}
		m := &Mismatch{Expected: fmt.Sprintf("%s, removed in %s, to be refused with -32601 (HTTP 404)", o.method, revisions.Modern().ID),
			Actual: actual, Frames: exchangeSeqs(o.ex)}
		if legacy := w.legacyRevisions(); len(legacy) > 0 {
			m.Grade = reports.Info
			m.Actual += " (the server also serves " + strings.Join(legacy, ", ") + ")"
		}
		return m
	}
	return nil
}

// openLegacySSE GETs the endpoint as a 2024-11-05 HTTP+SSE client opens its stream: Accept:
// text/event-stream and no MCP headers, on a connection of its own whose frames no run-wide
// rule judges (an `endpoint` event is not a JSON-RPC message).
func openLegacySSE(ctx context.Context, w *world) error {
	if w.s.env.cfg.Transport != harness.TransportHTTP {
		return w.setSkip(reports.NA, "the HTTP+SSE transport concerns HTTP servers only")
	}
	t, err := w.s.env.dial(ctx, "")
	if err != nil {
		return fmt.Errorf("cannot open a connection for the HTTP+SSE probe: %w", err)
	}
	w.own = append(w.own, t)
	h, ok := t.(*harness.HTTP)
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := http.Header{}
	hdr.Set("Accept", "text/event-stream")
	cctx, cancel := context.WithTimeout(ctx, w.timeout()+w.s.env.cfg.QuietWindow)
	defer cancel()
	ex, _ := h.Do(cctx, http.MethodGet, hdr, nil)
	if ex == nil {
		return fmt.Errorf("transport returned no reply")
	}
	w.note(ex)
	w.logext.legacySSE = ex
	return ctx.Err()
}

// judgeLegacySSE is DEP-002: the GET opened an SSE stream whose first event is `endpoint`.
func judgeLegacySSE(ctx context.Context, w *world) error {
	ex := w.logext.legacySSE
	if ex == nil {
		return fmt.Errorf("feature bug: the endpoint was not opened")
	}
	for _, f := range ex.Frames {
		if f.Dir == harness.DirServerToClient && f.SSE != nil {
			if f.SSE.Event == "endpoint" {
				return &Mismatch{Expected: "no deprecated HTTP+SSE transport (GET answered with an endpoint event) in a new implementation",
					Actual: fmt.Sprintf("an SSE stream whose first event is endpoint: %s", short(f.Raw)), Frames: exchangeSeqs(ex)}
			}
			break
		}
	}
	return nil
}
