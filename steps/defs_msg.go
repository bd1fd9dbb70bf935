package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// registerMsgSteps binds the steps of messages, error codes, _meta keys, resultType (MSG, META-008..010, RT, ERR).
func registerMsgSteps(sc *godog.ScenarioContext) {
	// Provocation: traffic for the run-wide rules to judge.
	step(sc, `^the client exercises the server's declared features$`, wc(func(ctx context.Context, w *world) error {
		return w.oncePerTarget("exercise", func() error { return exerciseFeatures(ctx, w) })
	}))
	step(sc, `^the client provokes the errors a client can provoke without side effects$`, wc(func(ctx context.Context, w *world) error {
		return w.oncePerTarget("provoke", func() error { return provokeErrors(ctx, w) })
	}))
	step(sc, `^the client round-trips non-ASCII text through the echo fixture tool, if the server offers one$`, wc(echoNonASCII))
	step(sc, `^the client sends (\d+) harmless requests at once$`, func(ctx context.Context, n int) error {
		return worldOf(ctx).sendConcurrently(ctx, n)
	})
	step(sc, `^every request of this scenario got a response carrying its id$`, wc(func(ctx context.Context, w *world) error {
		return w.expectResponseEach()
	}))

	// Run-wide rules (steps/sweep.go).
	step(sc, `^every JSON object the server sent in this run is a JSON-RPC 2\.0 message$`, registerSweep("MSG-001", checkJSONRPC))
	step(sc, `^every message the server sent in this run is UTF-8 without a byte order mark$`, registerSweep("MSG-002", checkUTF8))
	step(sc, `^no response the server sent in this run has both result and error$`, registerSweep("MSG-004", checkResultXorError))
	step(sc, `^every result the server sent in this run is a JSON object$`, registerSweep("MSG-005", checkResultObject))
	step(sc, `^every error the server sent in this run has an integer code and a string message$`, registerSweep("MSG-007", checkErrorObject))
	step(sc, `^no notification the server sent in this run has an id$`, registerSweep("MSG-010", checkNotificationIDs))
	step(sc, `^the server sent no request in this run$`, registerSweep("MSG-012", checkNoServerRequests))
	step(sc, `^no response the server sent in this run repeats an answered id or carries an id the client never sent$`, registerSweep("MSG-013", checkResponseIDs))
	step(sc, `^every error message the server sent in this run is one short line$`, registerSweep("MSG-017", checkErrorMessages))
	step(sc, `^every _meta key the server sent in this run is a valid key name$`, registerSweep("META-008", checkMetaKeyNames))
	step(sc, `^no _meta key the server sent in this run is an undefined key under a reserved prefix$`, registerSweep("META-009", checkReservedMetaKeys))
	step(sc, `^every trace context value in the server's _meta in this run follows the W3C syntax$`, registerSweep("META-010", checkTraceContext))
	step(sc, `^every input_required result the server sent in this run is an InputRequiredResult$`, registerSweep("RT-003", checkInputRequired))
	step(sc, `^every resultType the server sent in this run is complete or input_required$`, registerSweep("RT-004", checkResultTypes))
	step(sc, `^the server sent no error code in -32020\.\.-32099 that the specification does not define$`, registerSweep("ERR-001", checkReservedCodes))
	step(sc, `^every -32020, -32021 and -32022 error the server sent in this run has its defined meaning$`, registerSweep("ERR-002", checkDefinedCodes))
	step(sc, `^the server sent no error code in the legacy range -32000\.\.-32019 in this run$`, registerSweep("ERR-003", checkLegacyRange))
	step(sc, `^the server sent no -32002 error in this run$`, registerSweep("ERR-004", checkNoCode(-32002, "-32002 (resource not found of "+revisions.LatestLegacy().ID+" and earlier; a missing resource is -32602 now)")))
	step(sc, `^the server sent no -32042 error in this run$`, registerSweep("ERR-005", checkNoCode(-32042, "-32042 (URL elicitation required of "+revisions.LatestLegacy().ID+")")))
	step(sc, `^every other error code the server sent in this run lies outside the JSON-RPC reserved range$`, registerSweep("ERR-006", checkApplicationCodes))
}

// ---------------------------------------------------------------------------------------------
// Provocation.

// Names that no server offers: the unknown-name errors they provoke have no side effects.
const (
	unknownToolName   = "mcpconform_no_such_tool"
	unknownPromptName = "mcpconform_no_such_prompt"
	unknownURI        = "mcpconform://no-such-resource"
	invalidCursor     = "mcpconform-invalid-cursor"
	nonASCIIText      = "héllo 世界 🚀"
)

// traceMeta is a valid W3C trace context the client sends, so that a server propagating trace
// context has a reason to emit its own.
var traceMeta = map[string]any{
	"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
	"tracestate":  "mcpconform=t61rcWkgMzE",
	"baggage":     "mcpconform.run=1",
}

// sendParams sends method with params (nil: none) as a request of the revision under test: on
// a modern target with the default `_meta` plus extraMeta, on a legacy target with extraMeta
// (if any) as `_meta`. intentional marks a request that is invalid on purpose.
func (w *world) sendParams(ctx context.Context, method string, params, extraMeta map[string]any, intentional bool) error {
	n := w.s.env.ids.Next()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	var meta map[string]any
	if w.s.t.modern {
		meta = harness.ModernMeta(revisions.Modern().ID)
	}
	if len(extraMeta) > 0 && meta == nil {
		meta = map[string]any{}
	}
	for k, v := range extraMeta {
		meta[k] = v
	}
	if meta != nil {
		p["_meta"] = meta
	}
	if params == nil && meta == nil {
		p = nil
	}
	req := harness.Request{Raw: harness.BuildRequest(n, method, p), ID: json.RawMessage(strconv.FormatInt(n, 10)),
		Method: method, Intentional: intentional}
	w.headers(&req, w.s.t.modern)
	return w.send(ctx, req)
}

// lastResult returns the result object of the last response, nil when it is not a result.
func (w *world) lastResult() map[string]json.RawMessage {
	if w.last == nil || w.last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.last.Response.Raw)
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	var res map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &res)
	return res
}

// listed returns the entries of the array member of the last result (tools, resources, ...).
func (w *world) listed(member string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	_ = json.Unmarshal(w.lastResult()[member], &out)
	return out
}

func (w *world) declares(capability string) bool {
	_, ok := w.s.t.caps[capability]
	return ok
}

func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// exerciseFeatures sends the side-effect-free traffic every server can take: discovery (with
// a W3C trace context in `_meta` on a modern target), each declared list, a read of the first
// listed resource, a get of the first prompt without required arguments, and a call of the
// fixture tool test_simple_text with a progress token. Errors and timeouts are recorded, not
// judged: the run-wide rules judge the frames.
func exerciseFeatures(ctx context.Context, w *world) error {
	if w.s.t.modern {
		if err := w.sendParams(ctx, "server/discover", nil, traceMeta, false); err != nil {
			return err
		}
	} else if err := w.sendMethod(ctx, "ping", "", nil, nil); err != nil {
		return err
	}
	if w.declares("tools") {
		if err := w.sendMethod(ctx, "tools/list", "", nil, nil); err != nil {
			return err
		}
		for _, t := range w.listed("tools") {
			if stringOf(t["name"]) == "test_simple_text" {
				n := w.s.env.ids.Next()
				token := map[string]any{"progressToken": "mcpconform-progress-" + strconv.FormatInt(n, 10)}
				if err := w.sendParams(ctx, "tools/call", map[string]any{"name": "test_simple_text", "arguments": map[string]any{}}, token, false); err != nil {
					return err
				}
			}
		}
	}
	if w.declares("resources") {
		if err := w.sendMethod(ctx, "resources/list", "", nil, nil); err != nil {
			return err
		}
		if rs := w.listed("resources"); len(rs) > 0 && stringOf(rs[0]["uri"]) != "" {
			if err := w.sendParams(ctx, "resources/read", map[string]any{"uri": stringOf(rs[0]["uri"])}, nil, false); err != nil {
				return err
			}
		}
		if err := w.sendMethod(ctx, "resources/templates/list", "", nil, nil); err != nil {
			return err
		}
	}
	if w.declares("prompts") {
		if err := w.sendMethod(ctx, "prompts/list", "", nil, nil); err != nil {
			return err
		}
		for _, p := range w.listed("prompts") {
			var args []struct {
				Required bool `json:"required"`
			}
			_ = json.Unmarshal(p["arguments"], &args)
			required := false
			for _, a := range args {
				required = required || a.Required
			}
			if name := stringOf(p["name"]); name != "" && !required {
				return w.sendParams(ctx, "prompts/get", map[string]any{"name": name}, nil, false)
			}
		}
	}
	return nil
}

// provokeErrors sends the requests that must fail without touching anything: an unknown
// method, params that are not an object, and for each declared capability an unknown name or
// URI, an invalid pagination cursor, a tools/call without name; on a modern target also a
// request without `_meta` and one with an unsupported protocol version.
func provokeErrors(ctx context.Context, w *world) error {
	type probe struct {
		method      string
		params      map[string]any
		intentional bool
	}
	probes := []probe{{method: "mcpconform/nonexistent", params: map[string]any{}}}
	if w.declares("tools") {
		probes = append(probes,
			probe{method: "tools/call", params: map[string]any{"name": unknownToolName, "arguments": map[string]any{}}},
			probe{method: "tools/call", params: map[string]any{"arguments": map[string]any{}}, intentional: true},
			probe{method: "tools/list", params: map[string]any{"cursor": invalidCursor}})
	}
	if w.declares("resources") {
		probes = append(probes,
			probe{method: "resources/read", params: map[string]any{"uri": unknownURI}},
			probe{method: "resources/list", params: map[string]any{"cursor": invalidCursor}})
	}
	if w.declares("prompts") {
		probes = append(probes,
			probe{method: "prompts/get", params: map[string]any{"name": unknownPromptName}},
			probe{method: "prompts/list", params: map[string]any{"cursor": invalidCursor}})
	}
	for _, p := range probes {
		if err := w.sendParams(ctx, p.method, p.params, nil, p.intentional); err != nil {
			return err
		}
	}
	list := harmless(w)
	for _, lm := range listMethods {
		if w.declares(lm.capability) {
			list = lm.method
			break
		}
	}
	// Params that are not an object.
	doc := `{"jsonrpc":"2.0","id":$id,"method":"` + list + `","params":[]}`
	if err := w.sendDoc(ctx, doc, true, false); err != nil {
		return err
	}
	if !w.s.t.modern {
		return nil
	}
	if err := w.sendDoc(ctx, `{"jsonrpc":"2.0","id":$id,"method":"`+list+`","params":{}}`, true, false); err != nil {
		return err
	}
	return w.sendMethod(ctx, list, revisions.Future, nil, nil)
}

// echoNonASCII calls the fixture tool test_echo, when listed with exactly one required string
// argument, with non-ASCII text, and checks that a text block of the result holds it unchanged.
func echoNonASCII(ctx context.Context, w *world) error {
	if !w.declares("tools") {
		return nil
	}
	if err := w.sendMethod(ctx, "tools/list", "", nil, nil); err != nil {
		return err
	}
	arg := ""
	for _, t := range w.listed("tools") {
		if stringOf(t["name"]) != "test_echo" {
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t["inputSchema"], &schema)
		if len(schema.Required) == 1 && schema.Properties[schema.Required[0]].Type == "string" {
			arg = schema.Required[0]
		}
	}
	if arg == "" {
		return nil
	}
	if err := w.sendParams(ctx, "tools/call", map[string]any{"name": "test_echo", "arguments": map[string]any{arg: nonASCIIText}}, nil, false); err != nil {
		return err
	}
	res := w.lastResult()
	var content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(res["content"], &content)
	for _, c := range content {
		if c.Type == "text" && strings.Contains(c.Text, nonASCIIText) {
			return nil
		}
	}
	actual := "no result"
	if res != nil {
		actual = "content " + short(res["content"])
	}
	return &Mismatch{Expected: fmt.Sprintf("test_echo to return %q unchanged (code points %U)", nonASCIIText, []rune(nonASCIIText)),
		Actual: actual, Frames: w.lastSeqs()}
}

// sendConcurrently sends n requests at once on the scenario's connection, each with a fresh id:
// the harmless request and the declared list requests in turn.
func (w *world) sendConcurrently(ctx context.Context, n int) error {
	if w.conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	methods := []string{harmless(w)}
	for _, lm := range listMethods {
		if w.declares(lm.capability) {
			methods = append(methods, lm.method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		id := w.s.env.ids.Next()
		method := methods[i%len(methods)]
		raw := harness.BuildRequest(id, method, nil)
		if w.s.t.modern {
			raw = harness.ModernRequest(id, method, revisions.Modern().ID, nil)
		}
		reqs[i] = harness.Request{Raw: raw, ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method}
		w.headers(&reqs[i], w.s.t.modern)
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

// expectResponseEach checks that every request the scenario sent got a response with its id.
func (w *world) expectResponseEach() error {
	n := 0
	for _, ex := range w.exchanges {
		if ex.Sent == nil {
			continue
		}
		sent, err := harness.ParseMessage(ex.Sent.Raw)
		if err != nil || sent.Kind != harness.KindRequest {
			continue
		}
		n++
		id := harness.IDKey(sent.ID)
		if ex.Response == nil {
			actual := "no response"
			if ex.Err != nil {
				actual += ": " + ex.Err.Error()
			}
			return &Mismatch{Expected: "a response to request id " + id, Actual: actual, Frames: exchangeSeqs(ex)}
		}
		msg, _ := harness.ParseMessage(ex.Response.Raw)
		if !msg.HasID || harness.IDKey(msg.ID) != id {
			got := "no id"
			if msg.HasID {
				got = "id " + harness.IDKey(msg.ID)
			}
			return &Mismatch{Expected: "the response to request id " + id + " to carry that id", Actual: got, Frames: exchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return fmt.Errorf("feature bug: no request was sent in this scenario")
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// Frame helpers for the run-wide checks.

// serverObject parses a server frame as one JSON object and returns its members; ok is false
// for client frames, empty or truncated frames and anything that is not a JSON object in
// valid UTF-8 (judged by MSG-002, STDIO-002 and the HTTP rules instead).
func serverObject(f *harness.Frame) (map[string]json.RawMessage, bool) {
	if f.Dir != harness.DirServerToClient || f.Truncated || len(bytes.TrimSpace(f.Raw)) == 0 || !utf8.Valid(f.Raw) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(f.Raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// isResponseObject reports whether members form a response: no method, a result or an error.
func isResponseObject(m map[string]json.RawMessage) bool {
	_, method := m["method"]
	_, res := m["result"]
	_, er := m["error"]
	return !method && (res || er)
}

// serverError returns the error object of a server error response whose error object is well
// formed (MSG-007 judges the others), with the response's members.
func serverError(f *harness.Frame) (*harness.ErrorObject, map[string]json.RawMessage, bool) {
	m, ok := serverObject(f)
	if !ok || !isResponseObject(m) {
		return nil, nil, false
	}
	if _, ok := m["error"]; !ok {
		return nil, nil, false
	}
	msg, err := harness.ParseMessage(f.Raw)
	if err != nil || msg.Error == nil || strings.HasPrefix(msg.Problem, "error") {
		return nil, nil, false
	}
	return msg.Error, m, true
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func firstViolation(frames []*harness.Frame, expected string, judge func(f *harness.Frame) string) *Mismatch {
	for _, f := range frames {
		if actual := judge(f); actual != "" {
			return &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s", f.Seq, actual), Frames: []int{f.Seq}}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// MSG checks.

// deferredShape lists the envelope problems other rules judge: both result and error (MSG-004)
// and a malformed error object (MSG-007).
func deferredShape(problem string) bool {
	return problem == "both result and error" || strings.HasPrefix(problem, "error")
}

func checkJSONRPC(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, `every server message a JSON-RPC 2.0 object with "jsonrpc": "2.0"`, func(f *harness.Frame) string {
		m, ok := serverObject(f)
		if !ok {
			return ""
		}
		var v string
		if raw, has := m["jsonrpc"]; !has || json.Unmarshal(raw, &v) != nil || v != "2.0" {
			if !has {
				return "no jsonrpc member in " + short(f.Raw)
			}
			return "jsonrpc " + string(raw)
		}
		msg, _ := harness.ParseMessage(f.Raw)
		if msg.Kind == harness.KindInvalid && !deferredShape(msg.Problem) {
			return msg.Problem + ": " + short(f.Raw)
		}
		return ""
	})
}

// carriesMessage reports whether a server frame is meant to hold a JSON-RPC message: a stdio
// line, an SSE event's data or an application/json body.
func carriesMessage(f *harness.Frame) bool {
	if f.Dir != harness.DirServerToClient || len(f.Raw) == 0 {
		return false
	}
	switch {
	case f.Transport == harness.TransportStdio, f.SSE != nil:
		return true
	case f.HTTP != nil:
		return mediaType(f.HTTP.Headers.Get("Content-Type")) == "application/json"
	}
	return false
}

func checkUTF8(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, "every message UTF-8 encoded, without a byte order mark", func(f *harness.Frame) string {
		if !carriesMessage(f) {
			return ""
		}
		b := f.Raw
		if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
			return "starts with a UTF-8 byte order mark (EF BB BF)"
		}
		if f.Truncated { // the cut may split the last character
			for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.Valid(b); i++ {
				b = b[:len(b)-1]
			}
		}
		if !utf8.Valid(b) {
			return fmt.Sprintf("invalid UTF-8 at byte %d", invalidAt(b))
		}
		return ""
	})
}

func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

func checkResultXorError(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, "each response with either result or error, never both", func(f *harness.Frame) string {
		m, ok := serverObject(f)
		if !ok {
			return ""
		}
		_, res := m["result"]
		_, er := m["error"]
		if res && er {
			return "both result and error: " + short(f.Raw)
		}
		return ""
	})
}

func checkResultObject(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, "every result a JSON object", func(f *harness.Frame) string {
		m, ok := serverObject(f)
		if !ok || !isResponseObject(m) {
			return ""
		}
		if res, has := m["result"]; has && !isJSONObject(res) {
			return "result " + short(res)
		}
		return ""
	})
}

func checkErrorObject(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, "every error object with an integer code and a string message", func(f *harness.Frame) string {
		m, ok := serverObject(f)
		if !ok || !isResponseObject(m) {
			return ""
		}
		if _, has := m["error"]; !has {
			return ""
		}
		msg, err := harness.ParseMessage(f.Raw)
		if err == nil && strings.HasPrefix(msg.Problem, "error") {
			return msg.Problem + ": " + short(m["error"])
		}
		return ""
	})
}

// methodAndID returns the method of a server frame that has both a string method and an id.
func methodAndID(f *harness.Frame) (string, bool) {
	m, ok := serverObject(f)
	if !ok {
		return "", false
	}
	_, id := m["id"]
	var method string
	if raw, has := m["method"]; !has || !id || json.Unmarshal(raw, &method) != nil {
		return "", false
	}
	return method, true
}

func checkNotificationIDs(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, "notifications without an id member", func(f *harness.Frame) string {
		if method, ok := methodAndID(f); ok && strings.HasPrefix(method, "notifications/") {
			return "notification with an id: " + short(f.Raw)
		}
		return ""
	})
}

func checkNoServerRequests(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, "no JSON-RPC request from the server (a frame with method and id)", func(f *harness.Frame) string {
		if method, ok := methodAndID(f); ok && !strings.HasPrefix(method, "notifications/") {
			return "server request " + strconv.Quote(method) + ": " + short(f.Raw)
		}
		return ""
	})
}

// idTracker follows, per connection and in frame order, the ids of the requests the client sent
// (any client frame with a method and an id, malformed ones included) and the responses the
// server sent for them.
type idTracker struct {
	sent     map[int]map[string]int
	answered map[int]map[string]int
	last     map[int]map[string]*harness.Frame
}

func newIDTracker() *idTracker {
	return &idTracker{sent: map[int]map[string]int{}, answered: map[int]map[string]int{}, last: map[int]map[string]*harness.Frame{}}
}

// clientFrame notes a client frame; it returns true when it was one.
func (t *idTracker) clientFrame(f *harness.Frame) bool {
	if f.Dir != harness.DirClientToServer {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(f.Raw, &m) != nil {
		// A batch (PROBE-003): each element's id counts as sent.
		var batch []map[string]json.RawMessage
		if json.Unmarshal(f.Raw, &batch) == nil {
			for _, el := range batch {
				if id, ok := el["id"]; ok {
					t.count(f, harness.IDKey(id))
				}
			}
		}
		return true
	}
	// Any client message with an id counts: a server that refuses a malformed or misplaced
	// message (a response sent to it, a PROBE) may repeat the id it read.
	id, hasID := m["id"]
	if !hasID {
		return true
	}
	t.count(f, harness.IDKey(id))
	return true
}

// count records that client frame f sent the id key.
func (t *idTracker) count(f *harness.Frame, key string) {
	if t.sent[f.Conn] == nil {
		t.sent[f.Conn], t.answered[f.Conn], t.last[f.Conn] = map[string]int{}, map[string]int{}, map[string]*harness.Frame{}
	}
	t.sent[f.Conn][key]++
	t.last[f.Conn][key] = f
}

// responseKey returns the id key of a server response with a non-null id.
func responseIDKey(f *harness.Frame) (string, bool) {
	m, ok := serverObject(f)
	if !ok || !isResponseObject(m) {
		return "", false
	}
	id, has := m["id"]
	if !has {
		return "", false
	}
	key := harness.IDKey(id)
	return key, key != "null"
}

// request returns the latest client frame on f's connection with the id key.
func (t *idTracker) request(f *harness.Frame, key string) *harness.Frame {
	return t.last[f.Conn][key]
}

func checkResponseIDs(frames []*harness.Frame) *Mismatch {
	t := newIDTracker()
	for _, f := range frames {
		if t.clientFrame(f) {
			continue
		}
		key, ok := responseIDKey(f)
		if !ok {
			continue // no id, or id null: not attributable (MSG-006, MSG-009 judge those)
		}
		sent := t.sent[f.Conn][key]
		if t.answered[f.Conn] == nil {
			t.answered[f.Conn] = map[string]int{}
		}
		t.answered[f.Conn][key]++
		if sent == 0 {
			return &Mismatch{Expected: "responses only to ids the client sent", Actual: fmt.Sprintf("frame %d: a response with id %s, which the client never sent on this connection", f.Seq, key), Frames: []int{f.Seq}}
		}
		if n := t.answered[f.Conn][key]; n > sent {
			seqs := []int{f.Seq}
			if r := t.request(f, key); r != nil {
				seqs = append([]int{r.Seq}, seqs...)
			}
			return &Mismatch{Expected: "exactly one response per request", Actual: fmt.Sprintf("frame %d: response number %d to id %s, sent %d time(s)", f.Seq, n, key, sent), Frames: seqs}
		}
	}
	return nil
}

// maxErrorMessage is the length, in characters, beyond which an error message is no longer a
// short single sentence.
const maxErrorMessage = 200

func checkErrorMessages(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, fmt.Sprintf("error messages of one short line (no line break, at most %d characters)", maxErrorMessage), func(f *harness.Frame) string {
		e, _, ok := serverError(f)
		if !ok {
			return ""
		}
		switch n := utf8.RuneCountInString(e.Message); {
		case strings.ContainsAny(e.Message, "\r\n"):
			return "a message with a line break: " + strconv.Quote(shortText(e.Message))
		case n > maxErrorMessage:
			return fmt.Sprintf("a message of %d characters: %s", n, strconv.Quote(shortText(e.Message)))
		}
		return ""
	})
}

func shortText(s string) string {
	if r := []rune(s); len(r) > 120 {
		return string(r[:117]) + "..."
	}
	return s
}

// ---------------------------------------------------------------------------------------------
// _meta checks.

// freeForm lists the members whose values are JSON Schemas or application data, where a
// "_meta" member is a property name, not MCP metadata.
var freeForm = map[string]bool{"inputSchema": true, "outputSchema": true, "requestedSchema": true, "structuredContent": true}

// metaKey is one key of a `_meta` object a server sent, with its value.
type metaKey struct {
	frame int
	path  string
	key   string
	value json.RawMessage
}

// metaKeys returns every key of every `_meta` object in the server frames, outside JSON
// Schemas, structured content and error data.
func metaKeys(frames []*harness.Frame) []metaKey {
	var out []metaKey
	var walk func(seq int, path string, raw json.RawMessage)
	walk = func(seq int, path string, raw json.RawMessage) {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			return
		}
		switch raw[0] {
		case '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return
			}
			for _, k := range sortedKeys(obj) {
				p := path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
				switch {
				case freeForm[k] || (path == "/error" && k == "data"):
				case k == "_meta" && isJSONObject(obj[k]):
					var meta map[string]json.RawMessage
					_ = json.Unmarshal(obj[k], &meta)
					for _, mk := range sortedKeys(meta) {
						out = append(out, metaKey{frame: seq, path: p, key: mk, value: meta[mk]})
					}
				default:
					walk(seq, p, obj[k])
				}
			}
		case '[':
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) != nil {
				return
			}
			for i, x := range arr {
				walk(seq, path+"/"+strconv.Itoa(i), x)
			}
		}
	}
	for _, f := range frames {
		if _, ok := serverObject(f); ok {
			walk(f.Seq, "", f.Raw)
		}
	}
	return out
}

func checkMetaKeys(frames []*harness.Frame, expected string, judge func(k metaKey) string) *Mismatch {
	for _, k := range metaKeys(frames) {
		if actual := judge(k); actual != "" {
			return &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d, %s: %s", k.frame, k.path, actual), Frames: []int{k.frame}}
		}
	}
	return nil
}

// validMetaKey reports whether key follows the `_meta` key grammar (basic/index#_meta):
// optional prefix of dot-separated labels and a slash, then a name that is empty or starts and
// ends alphanumeric with hyphens, underscores, dots and alphanumerics inside.
func validMetaKey(key string) bool {
	prefix, name := "", key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		prefix, name = key[:i], key[i+1:]
		for _, label := range strings.Split(prefix, ".") {
			if !validLabel(label) {
				return false
			}
		}
	}
	if name == "" {
		return true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		edge := i == 0 || i == len(name)-1
		if !isAlnum(c) && (edge || (c != '-' && c != '_' && c != '.')) {
			return false
		}
	}
	return true
}

func validLabel(l string) bool {
	if l == "" || !isLetter(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !isAlnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

func checkMetaKeyNames(frames []*harness.Frame) *Mismatch {
	return checkMetaKeys(frames, "every _meta key of the form [prefix/]name (basic/index#_meta key name format)", func(k metaKey) string {
		if !validMetaKey(k.key) {
			return "invalid key " + strconv.Quote(k.key)
		}
		return ""
	})
}

// definedMetaKeys are the `_meta` keys under reserved prefixes that the specification defines
// (core and official extensions, in any revision: a key one revision defines is not invented by
// a server speaking another, and a legacy-era connection may be served as 2026-07-28 before
// any initialize).
var definedMetaKeys = map[string]bool{
	// 2026-07-28 basic/index#_meta.
	harness.MetaProtocolVersion: true, harness.MetaClientCapabilities: true, harness.MetaClientInfo: true,
	harness.MetaServerInfo: true, "io.modelcontextprotocol/logLevel": true, "io.modelcontextprotocol/subscriptionId": true,
	// 2025-11-25 tasks.
	"io.modelcontextprotocol/related-task": true, "io.modelcontextprotocol/model-immediate-response": true,
}

// reservedPrefix reports whether key has a prefix whose second label is modelcontextprotocol
// or mcp (labels compared case-insensitively, as DNS labels are).
func reservedPrefix(key string) bool {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return false
	}
	labels := strings.Split(key[:i], ".")
	return len(labels) >= 2 && (strings.EqualFold(labels[1], "modelcontextprotocol") || strings.EqualFold(labels[1], "mcp"))
}

func checkReservedMetaKeys(frames []*harness.Frame) *Mismatch {
	return checkMetaKeys(frames, "no _meta key under a reserved prefix (second label modelcontextprotocol or mcp) except those the specification defines", func(k metaKey) string {
		if !reservedPrefix(k.key) || definedMetaKeys[k.key] {
			return ""
		}
		return fmt.Sprintf("key %q, which the specification does not define", k.key)
	})
}

func checkTraceContext(frames []*harness.Frame) *Mismatch {
	return checkMetaKeys(frames, "traceparent, tracestate and baggage values in W3C Trace Context / Baggage syntax", func(k metaKey) string {
		var check func(string) string
		switch k.key {
		case "traceparent":
			check = traceparentProblem
		case "tracestate":
			check = tracestateProblem
		case "baggage":
			check = baggageProblem
		default:
			return ""
		}
		var v string
		if json.Unmarshal(k.value, &v) != nil {
			return k.key + " is not a string: " + short(k.value)
		}
		if p := check(v); p != "" {
			return fmt.Sprintf("%s %q: %s", k.key, v, p)
		}
		return ""
	})
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// traceparentProblem checks a W3C Trace Context traceparent value: version-traceid-parentid-
// flags in lower-case hex (2-32-16-2), version not ff, ids not all zeros; a version above 00
// may append "-" and more.
func traceparentProblem(v string) string {
	parts := strings.SplitN(v, "-", 5)
	if len(parts) < 4 {
		return "not version-traceid-parentid-flags"
	}
	ver, trace, parent, flags := parts[0], parts[1], parts[2], parts[3]
	switch {
	case len(ver) != 2 || !isLowerHex(ver):
		return "version is not two lower-case hex digits"
	case ver == "ff":
		return "version ff is invalid"
	case len(trace) != 32 || !isLowerHex(trace):
		return "trace-id is not 32 lower-case hex digits"
	case trace == strings.Repeat("0", 32):
		return "trace-id is all zeros"
	case len(parent) != 16 || !isLowerHex(parent):
		return "parent-id is not 16 lower-case hex digits"
	case parent == strings.Repeat("0", 16):
		return "parent-id is all zeros"
	case len(flags) != 2 || !isLowerHex(flags):
		return "trace-flags is not two lower-case hex digits"
	case ver == "00" && len(parts) > 4:
		return "version 00 has exactly four fields"
	}
	return ""
}

func isTraceKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*' || c == '/'
}

// validTracestateKey checks simple-key or tenant-id@system-id (W3C Trace Context 3.3.1.3.1).
func validTracestateKey(k string) bool {
	chars := func(s string, max int) bool {
		if len(s) == 0 || len(s) > max {
			return false
		}
		for i := 0; i < len(s); i++ {
			if !isTraceKeyChar(s[i]) {
				return false
			}
		}
		return true
	}
	if tenant, system, ok := strings.Cut(k, "@"); ok {
		return chars(tenant, 241) && (tenant[0] >= 'a' && tenant[0] <= 'z' || tenant[0] >= '0' && tenant[0] <= '9') &&
			chars(system, 14) && system[0] >= 'a' && system[0] <= 'z'
	}
	return chars(k, 256) && k[0] >= 'a' && k[0] <= 'z'
}

// tracestateProblem checks a W3C tracestate value: at most 32 comma-separated list members
// key=value (empty members allowed), values of printable ASCII without comma and equals sign,
// not ending in a space, at most 256 characters.
func tracestateProblem(v string) string {
	n := 0
	for _, m := range strings.Split(v, ",") {
		m = strings.Trim(m, " \t")
		if m == "" {
			continue
		}
		n++
		key, val, ok := strings.Cut(m, "=")
		if !ok || !validTracestateKey(key) {
			return fmt.Sprintf("list member %q has no valid key", m)
		}
		if len(val) == 0 || len(val) > 256 || val[len(val)-1] == ' ' {
			return fmt.Sprintf("list member %q has an invalid value", m)
		}
		for i := 0; i < len(val); i++ {
			if c := val[i]; c < 0x20 || c > 0x7e || c == ',' || c == '=' {
				return fmt.Sprintf("list member %q has an invalid value", m)
			}
		}
	}
	if n > 32 {
		return fmt.Sprintf("%d list members (at most 32)", n)
	}
	return ""
}

func isTokenChar(c byte) bool {
	return c > 0x20 && c < 0x7f && !strings.ContainsRune(`()<>@,;:\"/[]?={}`, rune(c))
}

func isBaggageOctet(c byte) bool {
	return c == 0x21 || c >= 0x23 && c <= 0x2b || c >= 0x2d && c <= 0x3a || c >= 0x3c && c <= 0x5b || c >= 0x5d && c <= 0x7e
}

// baggageKV checks key OWS "=" OWS value (value optional when allowBare).
func baggageKV(s string, allowBare bool) bool {
	key, val, ok := strings.Cut(s, "=")
	key = strings.Trim(key, " \t")
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		if !isTokenChar(key[i]) {
			return false
		}
	}
	if !ok {
		return allowBare
	}
	val = strings.Trim(val, " \t")
	for i := 0; i < len(val); i++ {
		if !isBaggageOctet(val[i]) {
			return false
		}
	}
	return true
}

// baggageProblem checks a W3C Baggage value: comma-separated list members key=value with
// optional ;-separated properties, keys tokens, values of baggage octets, at most 64 members
// and 8192 bytes.
func baggageProblem(v string) string {
	if len(v) > 8192 {
		return "longer than 8192 bytes"
	}
	members := strings.Split(v, ",")
	if len(members) > 64 {
		return fmt.Sprintf("%d list members (at most 64)", len(members))
	}
	for _, m := range members {
		parts := strings.Split(m, ";")
		if !baggageKV(parts[0], false) {
			return fmt.Sprintf("list member %q is not key=value", strings.TrimSpace(m))
		}
		for _, p := range parts[1:] {
			if !baggageKV(p, true) {
				return fmt.Sprintf("property %q is invalid", strings.TrimSpace(p))
			}
		}
	}
	return ""
}

// ---------------------------------------------------------------------------------------------
// resultType checks.

// resultTypeOf returns the result object of a server result response and its resultType
// (ok false when the frame is no result response or resultType is absent or not a string,
// which RT-001 judges).
func resultTypeOf(f *harness.Frame) (map[string]json.RawMessage, string, bool) {
	m, ok := serverObject(f)
	if !ok || !isResponseObject(m) || !isJSONObject(m["result"]) {
		return nil, "", false
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(m["result"], &res) != nil {
		return nil, "", false
	}
	var rt string
	if raw, has := res["resultType"]; !has || json.Unmarshal(raw, &rt) != nil {
		return nil, "", false
	}
	return res, rt, true
}

// payloadMembers are the members of method results (CallToolResult, ReadResourceResult,
// GetPromptResult, the list results, DiscoverResult, CompleteResult, ...) that an
// InputRequiredResult never carries.
var payloadMembers = []string{"content", "structuredContent", "isError", "contents", "messages", "description",
	"tools", "resources", "resourceTemplates", "prompts", "nextCursor", "completion", "supportedVersions", "capabilities",
	"instructions", "ttlMs", "cacheScope"}

func checkInputRequired(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, `resultType "input_required" only on an InputRequiredResult (inputRequests and/or requestState, no method payload)`, func(f *harness.Frame) string {
		res, rt, ok := resultTypeOf(f)
		if !ok || rt != "input_required" {
			return ""
		}
		var found []string
		for _, p := range payloadMembers {
			if _, has := res[p]; has {
				found = append(found, p)
			}
		}
		ir, hasIR := res["inputRequests"]
		rs, hasRS := res["requestState"]
		var state string
		switch {
		case len(found) > 0:
			return fmt.Sprintf("an input_required result of %s with %s", methodName(f.Method), strings.Join(found, ", "))
		case !hasIR && !hasRS:
			return fmt.Sprintf("an input_required result of %s with neither inputRequests nor requestState", methodName(f.Method))
		case hasIR && !isJSONObject(ir):
			return "inputRequests is not an object: " + short(ir)
		case hasRS && json.Unmarshal(rs, &state) != nil:
			return "requestState is not a string: " + short(rs)
		}
		return ""
	})
}

func methodName(m string) string {
	if m == "" {
		return "an unknown request"
	}
	return m
}

func checkResultTypes(frames []*harness.Frame) *Mismatch {
	return firstViolation(frames, `resultType "complete" or "input_required" (the client advertised no extensions)`, func(f *harness.Frame) string {
		_, rt, ok := resultTypeOf(f)
		if !ok || rt == "complete" || rt == "input_required" {
			return ""
		}
		return fmt.Sprintf("resultType %q in the result of %s", rt, methodName(f.Method))
	})
}

// ---------------------------------------------------------------------------------------------
// Error code checks (2026-07-28 basic/index#Error Codes).

// Codes the specification names.
const (
	codeHeaderMismatch    = -32020
	codeMissingCapability = -32021
	codeUnsupportedVer    = -32022
	codeResourceNotFound  = -32002
	codeURLElicitation    = -32042
)

func errorCodes(frames []*harness.Frame, expected string, judge func(f *harness.Frame, e *harness.ErrorObject) string) *Mismatch {
	return firstViolation(frames, expected, func(f *harness.Frame) string {
		e, _, ok := serverError(f)
		if !ok {
			return ""
		}
		return judge(f, e)
	})
}

func describeError(e *harness.ErrorObject) string {
	return fmt.Sprintf("error %s (%s)", e.CodeRaw, shortText(e.Message))
}

func checkReservedCodes(frames []*harness.Frame) *Mismatch {
	return errorCodes(frames, "no code in -32020..-32099 but -32020 HeaderMismatch, -32021 MissingRequiredClientCapability and -32022 UnsupportedProtocolVersion",
		func(f *harness.Frame, e *harness.ErrorObject) string {
			c := e.Code
			if c <= -32020 && c >= -32099 && c != codeHeaderMismatch && c != codeMissingCapability && c != codeUnsupportedVer && c != codeURLElicitation {
				return describeError(e) // -32042 is judged by ERR-005
			}
			return ""
		})
}

func checkLegacyRange(frames []*harness.Frame) *Mismatch {
	return errorCodes(frames, "no code in the legacy sub-range -32000..-32019", func(f *harness.Frame, e *harness.ErrorObject) string {
		if e.Code <= -32000 && e.Code >= -32019 && e.Code != codeResourceNotFound { // -32002: ERR-004
			return describeError(e)
		}
		return ""
	})
}

func checkNoCode(code int64, what string) sweepCheck {
	return func(frames []*harness.Frame) *Mismatch {
		return errorCodes(frames, "no "+what, func(f *harness.Frame, e *harness.ErrorObject) string {
			if e.Code == code {
				return describeError(e) + " in reply to " + methodName(f.Method)
			}
			return ""
		})
	}
}

// standardCode reports whether c is a JSON-RPC 2.0 pre-defined code.
func standardCode(c int64) bool { return c == -32700 || c >= -32603 && c <= -32600 }

func checkApplicationCodes(frames []*harness.Frame) *Mismatch {
	return errorCodes(frames, "application-defined codes outside -32768..-32000 (other than the JSON-RPC and MCP codes)", func(f *harness.Frame, e *harness.ErrorObject) string {
		// -32099..-32000 is judged by ERR-001, ERR-003, ERR-004 and ERR-005.
		if e.Code >= -32768 && e.Code < -32099 && !standardCode(e.Code) {
			return describeError(e)
		}
		return ""
	})
}

// checkDefinedCodes checks the meaning of the three MCP codes: -32020 answers a request whose
// HTTP headers do not match its body (never on stdio, never a request mcp-conform sent with
// matching headers), -32021 lists data.requiredCapabilities, -32022 lists data.supported and
// never refuses a version the server itself advertises.
func checkDefinedCodes(frames []*harness.Frame) *Mismatch {
	supported := map[string]bool{}
	for _, f := range frames {
		if f.Dir != harness.DirServerToClient || f.Method != "server/discover" {
			continue
		}
		if msg, err := harness.ParseMessage(f.Raw); err == nil && msg.Kind == harness.KindResult {
			var r struct {
				SupportedVersions []string `json:"supportedVersions"`
			}
			_ = json.Unmarshal(msg.Result, &r)
			for _, v := range r.SupportedVersions {
				supported[v] = true
			}
		}
	}
	t := newIDTracker()
	for _, f := range frames {
		if t.clientFrame(f) {
			continue
		}
		e, _, ok := serverError(f)
		if !ok {
			continue
		}
		var req *harness.Frame
		if key, ok := responseIDKey(f); ok {
			req = t.request(f, key)
		}
		seqs := []int{f.Seq}
		if req != nil {
			seqs = append([]int{req.Seq}, seqs...)
		}
		bad := func(expected, actual string) *Mismatch {
			return &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s", f.Seq, actual), Frames: seqs}
		}
		var data map[string]json.RawMessage
		if e.HasData {
			_ = json.Unmarshal(e.Data, &data)
		}
		switch e.Code {
		case codeHeaderMismatch:
			if f.Transport == harness.TransportStdio {
				return bad("-32020 HeaderMismatch only on HTTP, for headers that do not match the body", describeError(e)+" on stdio, which has no headers")
			}
			// A request without the MCP headers (a legacy-shaped POST) fails header validation
			// as much as one whose headers differ.
			if req != nil && !req.Intentional && !lacksMCPHeaders(req) {
				return bad("-32020 HeaderMismatch only for headers that do not match the body",
					describeError(e)+" in reply to a "+methodName(req.Method)+" request whose headers mirror its body")
			}
		case codeMissingCapability:
			if !isJSONObject(data["requiredCapabilities"]) {
				return bad("-32021 MissingRequiredClientCapability with an object at data.requiredCapabilities", describeError(e)+" with data "+short(e.Data))
			}
		case codeUnsupportedVer:
			var list []string
			if json.Unmarshal(data["supported"], &list) != nil || list == nil {
				return bad("-32022 UnsupportedProtocolVersion with the supported versions in data.supported", describeError(e)+" with data "+short(e.Data))
			}
			if req != nil && !req.Intentional {
				// A legacy version may be refused on a modern request: it is served only after
				// initialize (PROBE-010).
				if v := requestVersion(req); v != "" && supported[v] && revisions.IsModern(v) {
					return bad("-32022 UnsupportedProtocolVersion only for versions the server does not support",
						fmt.Sprintf("%s for version %s, which the server lists in supportedVersions", describeError(e), v))
				}
			}
		}
	}
	return nil
}

// requestVersion returns the `_meta` protocol version of a client request frame.
func requestVersion(f *harness.Frame) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(f.Raw, &m) != nil {
		return ""
	}
	return stringOf(m.Params.Meta[harness.MetaProtocolVersion])
}

// lacksMCPHeaders reports whether client frame f was POSTed without MCP-Protocol-Version or
// Mcp-Method, as a legacy client does.
func lacksMCPHeaders(f *harness.Frame) bool {
	return f.HTTP != nil && (f.HTTP.Headers.Get("Mcp-Method") == "" || f.HTTP.Headers.Get("MCP-Protocol-Version") == "")
}
