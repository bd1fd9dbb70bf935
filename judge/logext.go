package judge

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// Run-wide rules of logging, extensions and deprecated features: LOG-001/002/003/005,
// EXT-003/005, DEP-001/004.

const (
	tasksExtensionID   = "io.modelcontextprotocol/tasks"
	subscriptionIDMeta = "io.modelcontextprotocol/subscriptionId"
)

// logLevels are the LoggingLevel values by severity.
var logLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// logEvent is one notifications/message of the run and the requests it may belong to.
type logEvent struct {
	f      *Frame
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

// logTracker attributes every notifications/message to the requests whose response stream it
// travelled on, frame by frame.
type logTracker struct {
	bySeq    map[int]*logCarrier
	inflight map[int]map[string]*logCarrier
}

func newLogTracker() *logTracker {
	return &logTracker{bySeq: map[int]*logCarrier{}, inflight: map[int]map[string]*logCarrier{}}
}

// observe notes f and returns the log event it is, nil when it is none.
func (t *logTracker) observe(f *Frame) *logEvent {
	if f.NotJSON {
		return nil
	}
	msg := f.Msg
	if !f.FromServer() {
		if msg.Kind != harness.KindRequest {
			return nil
		}
		meta := requestMeta(msg.Params)
		c := &logCarrier{seq: f.Seq, method: msg.Method}
		if raw, ok := meta[logLevelMeta]; ok {
			c.asked = true
			_ = json.Unmarshal(raw, &c.level)
		}
		t.bySeq[f.Seq] = c
		if f.Transport != harness.TransportHTTP { // stdio, and the one stream of HTTP+SSE
			if t.inflight[f.Conn] == nil {
				t.inflight[f.Conn] = map[string]*logCarrier{}
			}
			t.inflight[f.Conn][harness.IDKey(msg.ID)] = c
		}
		return nil
	}
	if (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && msg.HasID {
		delete(t.inflight[f.Conn], harness.IDKey(msg.ID))
		return nil
	}
	if msg.Kind != harness.KindNotification || msg.Method != "notifications/message" {
		return nil
	}
	ev := &logEvent{f: f}
	_ = json.Unmarshal(msg.Params, &ev.params)
	_ = json.Unmarshal(ev.params["level"], &ev.level)
	var pm map[string]json.RawMessage
	_ = json.Unmarshal(ev.params["_meta"], &pm)
	_, tagged := pm[subscriptionIDMeta]
	switch {
	case tagged:
		ev.stray = "tagged with " + subscriptionIDMeta + " as a notification of a listen subscription"
	case f.Transport == harness.TransportHTTP:
		c := t.bySeq[f.ReplyTo]
		switch {
		case c == nil:
			ev.stray = "on an HTTP reply that answers no JSON-RPC request (a GET stream)"
		case c.method == listenMethod:
			ev.stray = fmt.Sprintf("on the subscriptions/listen stream opened by frame %d", c.seq)
		default:
			ev.carriers = []logCarrier{*c}
		}
	default:
		for _, c := range t.inflight[f.Conn] {
			if c.method != listenMethod {
				ev.carriers = append(ev.carriers, *c)
			}
		}
		sort.Slice(ev.carriers, func(i, j int) bool { return ev.carriers[i].seq < ev.carriers[j].seq })
		if len(ev.carriers) == 0 {
			ev.stray = "while no request was in flight on the connection (after the response it could belong to, or unsolicited)"
		}
	}
	return ev
}

func carrierSeqs(ev *logEvent) []int {
	out := make([]int, 0, len(ev.carriers)+1)
	for _, c := range ev.carriers {
		out = append(out, c.seq)
	}
	return append(out, ev.f.Seq)
}

// logRule is a check over the log events: judge returns whether the event is a subject and the
// mismatch, if any; the first mismatch is kept.
type logRule struct {
	t     *logTracker
	judge func(ev *logEvent) (bool, *Mismatch)
	n     int
	m     *Mismatch
}

func logCheck(judge func(ev *logEvent) (bool, *Mismatch)) func(Deps) Check {
	return func(Deps) Check { return &logRule{t: newLogTracker(), judge: judge} }
}

func (c *logRule) Observe(f *Frame) {
	ev := c.t.observe(f)
	if ev == nil {
		return
	}
	subject, m := c.judge(ev)
	if subject {
		c.n++
	}
	if m != nil && c.m == nil {
		c.m = m
	}
}

func (c *logRule) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// checkLogUnasked is LOG-001: a log message on the stream of requests none of which set
// `_meta` logLevel.
var checkLogUnasked = logCheck(func(ev *logEvent) (bool, *Mismatch) {
	if ev.stray != "" || len(ev.carriers) == 0 {
		return false, nil
	}
	asked := false
	var methods []string
	for _, c := range ev.carriers {
		asked = asked || c.asked
		methods = append(methods, fmt.Sprintf("%s (frame %d)", c.method, c.seq))
	}
	if asked {
		return true, nil
	}
	return true, &Mismatch{Expected: "notifications/message only for a request whose _meta sets " + logLevelMeta,
		Actual: fmt.Sprintf("frame %d %s for %s, which did not ask for log messages", ev.f.Seq, short(ev.f.Raw), strings.Join(methods, ", ")),
		Frames: carrierSeqs(ev)}
})

// checkLogLevels is LOG-002: a log message below the level its request asked for (the lowest
// level asked among the requests that may carry it).
var checkLogLevels = logCheck(func(ev *logEvent) (bool, *Mismatch) {
	got, known := logLevels[ev.level]
	if !known {
		return false, nil // LOG-005 judges the level itself
	}
	floor, floorName := len(logLevels), ""
	for _, c := range ev.carriers {
		if r, ok := logLevels[c.level]; c.asked && ok && r < floor {
			floor, floorName = r, c.level
		}
	}
	if floorName == "" {
		return false, nil
	}
	if got < floor {
		return true, &Mismatch{Expected: fmt.Sprintf("log messages at level %s or above", floorName),
			Actual: fmt.Sprintf("frame %d at level %s: %s", ev.f.Seq, ev.level, short(ev.f.Raw)), Frames: carrierSeqs(ev)}
	}
	return true, nil
})

// checkLogStreams is LOG-003: a log message on a listen stream, a GET stream, tagged as a
// subscription's notification, or (stdio) while no request was in flight.
var checkLogStreams = logCheck(func(ev *logEvent) (bool, *Mismatch) {
	if ev.stray == "" {
		return true, nil
	}
	seqs := []int{ev.f.Seq}
	if ev.f.ReplyTo != 0 {
		seqs = []int{ev.f.ReplyTo, ev.f.Seq}
	}
	return true, &Mismatch{Expected: "notifications/message only on the response stream of the request that set the log level, before its response",
		Actual: fmt.Sprintf("frame %d %s", ev.f.Seq, ev.stray), Frames: seqs}
})

// checkLogShape is LOG-005: params with a LoggingLevel level, a data member and, if present,
// a string logger.
var checkLogShape = logCheck(func(ev *logEvent) (bool, *Mismatch) {
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
	if bad == "" {
		return true, nil
	}
	return true, &Mismatch{Expected: "log messages with a LoggingLevel level and data (logger optional, a string)",
		Actual: fmt.Sprintf("frame %d: %s", ev.f.Seq, bad), Frames: []int{ev.f.Seq}}
})

// answered returns the result of a server result message and the request it answers (HTTP:
// the request of its reply; stdio: the latest request with its id on its connection); ok is
// false otherwise.
func answered(f *Frame) (map[string]json.RawMessage, *harness.Message, bool) {
	if !f.FromServer() || f.NotJSON || f.Msg.Kind != harness.KindResult || f.Request == nil {
		return nil, nil, false
	}
	req := f.Request
	if req.NotJSON || req.Msg.Kind != harness.KindRequest {
		return nil, nil, false
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(f.Msg.Result, &res) != nil {
		return nil, nil, false
	}
	return res, req.Msg, true
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
var checkExtensionShapes = each(func(f *Frame) (bool, *Mismatch) {
	res, req, ok := answered(f)
	if !ok || len(clientExtensions(req)) > 0 {
		return false, nil
	}
	var rt string
	_ = json.Unmarshal(res["resultType"], &rt)
	_, task := res["task"]
	if (rt == "" || rt == "complete" || rt == "input_required") && !task {
		return true, nil
	}
	return true, &Mismatch{Expected: "core results (resultType complete or input_required) for a request that declared no extension",
		Actual: fmt.Sprintf("frame %d answers %s with resultType %q: %s", f.Seq, req.Method, rt, short(f.Raw)), Frames: []int{f.Seq}}
})

// checkTaskHandles is EXT-005: a task handle (resultType "task") answering a request whose
// clientCapabilities did not declare io.modelcontextprotocol/tasks.
var checkTaskHandles = each(func(f *Frame) (bool, *Mismatch) {
	res, req, ok := answered(f)
	if !ok {
		return false, nil
	}
	var rt string
	_ = json.Unmarshal(res["resultType"], &rt)
	if _, declared := clientExtensions(req)[tasksExtensionID]; rt != "task" || declared {
		return true, nil
	}
	return true, &Mismatch{Expected: "a task handle only for a request that declared the " + tasksExtensionID + " extension",
		Actual: fmt.Sprintf("frame %d answers %s, which did not declare it, with a task: %s", f.Seq, req.Method, short(f.Raw)), Frames: []int{f.Seq}}
})

// checkDeprecatedFeatures is DEP-001 (judged only for servers that serve 2026-07-28 alone):
// a DiscoverResult declaring `logging`, or an input request for sampling or roots.
var checkDeprecatedFeatures = each(func(f *Frame) (bool, *Mismatch) {
	if !f.FromServer() || f.NotJSON || f.Msg.Kind != harness.KindResult {
		return false, nil
	}
	var res struct {
		Capabilities  map[string]json.RawMessage `json:"capabilities"`
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	if json.Unmarshal(f.Msg.Result, &res) != nil {
		return false, nil
	}
	if _, ok := res.Capabilities["logging"]; ok && f.Method == "server/discover" {
		return true, &Mismatch{Expected: "a new " + revisions.Modern().ID + " implementation not to adopt the deprecated Logging feature",
			Actual: fmt.Sprintf("frame %d declares the logging capability", f.Seq), Frames: []int{f.Seq}}
	}
	keys := make([]string, 0, len(res.InputRequests))
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if ir := res.InputRequests[key]; ir.Method == "sampling/createMessage" || ir.Method == "roots/list" {
			return true, &Mismatch{Expected: "a new " + revisions.Modern().ID + " implementation not to adopt the deprecated Sampling and Roots features",
				Actual: fmt.Sprintf("frame %d asks for input %q with %s", f.Seq, key, ir.Method), Frames: []int{f.Seq}}
		}
	}
	return true, nil
})

// checkElicitationComplete is DEP-004: notifications/elicitation/complete, or a URL-mode
// elicitation carrying elicitationId (in an input request or a server request), under
// 2026-07-28.
var checkElicitationComplete = each(func(f *Frame) (bool, *Mismatch) {
	if !f.FromServer() || f.NotJSON {
		return false, nil
	}
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
	bad := ""
	msg := f.Msg
	switch msg.Kind {
	case harness.KindNotification:
		if msg.Method == "notifications/elicitation/complete" {
			bad = "the removed notifications/elicitation/complete"
		}
	case harness.KindRequest:
		var e elicit
		if json.Unmarshal(f.Body(), &e) == nil && urlWithID(e) {
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
	default:
		return false, nil
	}
	if bad == "" {
		return true, nil
	}
	return true, &Mismatch{Expected: "no URL elicitation completion signal under " + revisions.Modern().ID + " (the client retries instead)",
		Actual: fmt.Sprintf("frame %d: %s", f.Seq, bad), Frames: []int{f.Seq}}
})
