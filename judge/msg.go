package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Run-wide rules of basic/index (messages, _meta, resultType, error codes): MSG, META-008..010,
// RT-003/004, ERR-001..006.

// serverError returns the error object of a server error response whose error object is well
// formed (MSG-007 judges the others).
func serverError(f *Frame) (*harness.ErrorObject, bool) {
	m, ok := f.Object()
	if !ok || !isResponseObject(m) {
		return nil, false
	}
	if _, ok := m["error"]; !ok {
		return nil, false
	}
	if f.NotJSON || f.Msg.Error == nil || strings.HasPrefix(f.Msg.Problem, "error") {
		return nil, false
	}
	return f.Msg.Error, true
}

// deferredShape lists the envelope problems other rules judge: both result and error (MSG-004)
// and a malformed error object (MSG-007).
func deferredShape(problem string) bool {
	return problem == "both result and error" || strings.HasPrefix(problem, "error")
}

// checkJSONRPC is MSG-001: every JSON object the server sent is a JSON-RPC 2.0 message.
var checkJSONRPC = first(`every server message a JSON-RPC 2.0 object with "jsonrpc": "2.0"`, func(f *Frame) (bool, string) {
	m, ok := f.Object()
	if !ok {
		return false, ""
	}
	// The harness read the frame as if its jsonrpc were "2.0" (harness.Repaired); the bytes
	// the server sent are judged here.
	for _, r := range f.Repairs {
		if r.Rule == "MSG-001" {
			return true, r.What + ": " + short(f.Raw)
		}
	}
	var v string
	if raw, has := m["jsonrpc"]; !has || json.Unmarshal(raw, &v) != nil || v != "2.0" {
		if !has {
			return true, "no jsonrpc member in " + short(f.Raw)
		}
		return true, "jsonrpc " + string(raw)
	}
	if f.Msg.Kind == harness.KindInvalid && !deferredShape(f.Msg.Problem) {
		return true, f.Msg.Problem + ": " + short(f.Raw)
	}
	return true, ""
})

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// carriesMessage reports whether a server frame is meant to hold a JSON-RPC message: a stdio
// line, an SSE event's data (but the endpoint event of HTTP+SSE) or an application/json body.
func carriesMessage(f *Frame) bool {
	if !f.FromServer() || len(f.Raw) == 0 {
		return false
	}
	switch {
	case f.Transport == harness.TransportSSE && f.SSE != nil && f.SSE.Event == "endpoint":
		// The endpoint event of HTTP+SSE carries a URI, not a message (SSE-001 judges it).
		return false
	case f.Transport == harness.TransportStdio, f.SSE != nil:
		return true
	case f.HTTP != nil:
		return mediaType(f.HTTP.Headers.Get("Content-Type")) == "application/json"
	}
	return false
}

// checkUTF8 is MSG-002: every message is UTF-8 without a byte order mark.
var checkUTF8 = first("every message UTF-8 encoded, without a byte order mark", func(f *Frame) (bool, string) {
	if !carriesMessage(f) {
		return false, ""
	}
	b := f.Raw
	if bytes.HasPrefix(b, []byte("\xef\xbb\xbf")) {
		return true, "starts with a UTF-8 byte order mark (EF BB BF)"
	}
	if f.Truncated { // the cut may split the last character
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.Valid(b); i++ {
			b = b[:len(b)-1]
		}
	}
	if !utf8.Valid(b) {
		return true, fmt.Sprintf("invalid UTF-8 at byte %d", invalidAt(b))
	}
	return true, ""
})

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

// checkResultXorError is MSG-004: no response has both result and error.
var checkResultXorError = first("each response with either result or error, never both", func(f *Frame) (bool, string) {
	m, ok := f.Object()
	if !ok {
		return false, ""
	}
	_, res := m["result"]
	_, er := m["error"]
	if res && er {
		return true, "both result and error: " + short(f.Raw)
	}
	return res || er, ""
})

// checkResultObject is MSG-005: every result is a JSON object.
var checkResultObject = first("every result a JSON object", func(f *Frame) (bool, string) {
	m, ok := f.Object()
	if !ok || !isResponseObject(m) {
		return false, ""
	}
	res, has := m["result"]
	if has && !isJSONObject(res) {
		return true, "result " + short(res)
	}
	return has, ""
})

// checkErrorObject is MSG-007: every error has an integer code and a string message.
var checkErrorObject = first("every error object with an integer code and a string message", func(f *Frame) (bool, string) {
	m, ok := f.Object()
	if !ok || !isResponseObject(m) {
		return false, ""
	}
	if _, has := m["error"]; !has {
		return false, ""
	}
	if strings.HasPrefix(f.Msg.Problem, "error") {
		return true, f.Msg.Problem + ": " + short(m["error"])
	}
	return true, ""
})

// methodAndID returns the method of a server frame that has both a string method and an id.
func methodAndID(f *Frame) (string, bool) {
	m, ok := f.Object()
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

// hasMethod reports whether f is a server object with a method member (a request or a
// notification): the subjects of MSG-010.
func hasMethod(f *Frame) bool {
	m, ok := f.Object()
	_, has := m["method"]
	return ok && has
}

// checkNotificationIDs is MSG-010: no notification carries an id.
var checkNotificationIDs = first("notifications without an id member", func(f *Frame) (bool, string) {
	if method, ok := methodAndID(f); ok && strings.HasPrefix(method, "notifications/") {
		return true, "notification with an id: " + short(f.Raw)
	}
	return hasMethod(f), ""
})

// checkNoServerRequests is MSG-012: the server sends no request. Its subjects are every server
// object outside an SSE stream, each a place where a request could have been and was not. A
// request on an SSE stream is HTTP-008's (streamable-http#Receiving Messages says the same of
// SSE streams): one defect fails one rule.
var checkNoServerRequests = first("no JSON-RPC request from the server (a frame with method and id)", func(f *Frame) (bool, string) {
	if sseEvent(f) {
		return false, ""
	}
	if method, ok := methodAndID(f); ok && !strings.HasPrefix(method, "notifications/") {
		return true, "server request " + strconv.Quote(method) + ": " + short(f.Raw)
	}
	_, ok := f.Object()
	return ok, ""
})

// idTracker follows, per connection and in frame order, the ids of the requests the client sent
// (any client frame with a method and an id, malformed ones included) and the responses the
// server sent for them.
type idTracker struct {
	sent     map[int]map[string]int
	answered map[int]map[string]int
	last     map[int]map[string]int // seq of the latest client frame with the id
}

func newIDTracker() *idTracker {
	return &idTracker{sent: map[int]map[string]int{}, answered: map[int]map[string]int{}, last: map[int]map[string]int{}}
}

// clientFrame notes a client frame; it returns true when it was one.
func (t *idTracker) clientFrame(f *Frame) bool {
	if f.FromServer() {
		return false
	}
	if f.Members == nil {
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
	if id, hasID := f.Members["id"]; hasID {
		t.count(f, harness.IDKey(id))
	}
	return true
}

func (t *idTracker) count(f *Frame, key string) {
	if t.sent[f.Conn] == nil {
		t.sent[f.Conn], t.answered[f.Conn], t.last[f.Conn] = map[string]int{}, map[string]int{}, map[string]int{}
	}
	t.sent[f.Conn][key]++
	t.last[f.Conn][key] = f.Seq
}

// responseIDKey returns the id key of a server response with a non-null id.
func responseIDKey(f *Frame) (string, bool) {
	m, ok := f.Object()
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

// responseIDs is MSG-013: no response repeats an answered id or carries an id the client never
// sent on its connection.
type responseIDs struct {
	t *idTracker
	n int
	m *Mismatch
	// events are the SSE events (id and bytes) already seen per connection: the same event
	// again is its redelivery on a resumed stream, not a second response.
	events map[int]map[string]bool
}

func newResponseIDs(Deps) Check {
	return &responseIDs{t: newIDTracker(), events: map[int]map[string]bool{}}
}

// redelivered reports whether f is an SSE event (with an id) seen before on its connection:
// the server replaying it on a stream the client resumed with Last-Event-ID (2025-11-25
// basic/transports#Resumability and Redelivery).
func (c *responseIDs) redelivered(f *Frame) bool {
	if f.SSE == nil || !f.SSE.HasID {
		return false
	}
	if c.events[f.Conn] == nil {
		c.events[f.Conn] = map[string]bool{}
	}
	key := f.SSE.ID + "\x00" + string(f.Raw)
	seen := c.events[f.Conn][key]
	c.events[f.Conn][key] = true
	return seen
}

func (c *responseIDs) Observe(f *Frame) {
	if c.t.clientFrame(f) {
		return
	}
	key, ok := responseIDKey(f)
	if !ok {
		return // no id, or id null: not attributable (MSG-006, MSG-009 judge those)
	}
	if c.redelivered(f) {
		return
	}
	c.n++
	if onOtherPOST(f, key) {
		return // HTTP-012's: the reply travels on the HTTP response of another POST
	}
	sent := c.t.sent[f.Conn][key]
	if c.t.answered[f.Conn] == nil {
		c.t.answered[f.Conn] = map[string]int{}
	}
	c.t.answered[f.Conn][key]++
	if c.m != nil {
		return
	}
	if sent == 0 && c.otherRules(f, key) {
		return
	}
	if sent == 0 {
		c.m = &Mismatch{Expected: "responses only to ids the client sent", Actual: fmt.Sprintf("frame %d: a response with id %s, which the client never sent on this connection", f.Seq, key), Frames: []int{f.Seq}}
		return
	}
	if n := c.t.answered[f.Conn][key]; n > sent {
		seqs := []int{c.t.last[f.Conn][key], f.Seq}
		c.m = &Mismatch{Expected: "exactly one response per request", Actual: fmt.Sprintf("frame %d: response number %d to id %s, sent %d time(s)", f.Seq, n, key, sent), Frames: seqs}
	}
}

func (c *responseIDs) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// otherRules reports whether a response with id key, never sent on f's connection, is another
// rule's defect: an id the client sent with another JSON type or other surrounding spaces
// ("1" for 1, "x" for " x ") is MSG-003's (the response repeats the request's id), and over
// HTTP an id the client sent on another POST is HTTP-012's (the reply travels on the wrong
// POST). One defect fails one rule.
func (c *responseIDs) otherRules(f *Frame, key string) bool {
	loose := harness.LooseIDKey(key)
	for _, k := range mapKeys(c.t.sent[f.Conn]) {
		if harness.LooseIDKey(k) == loose {
			return true
		}
	}
	if f.Transport != harness.TransportHTTP {
		return false
	}
	for conn, ids := range c.t.sent {
		if conn != f.Conn && ids[key] > 0 {
			return true
		}
	}
	return false
}

// onOtherPOST reports whether the HTTP response of a POST whose own request had another id
// carries the response with id key: a reply on the wrong POST (HTTP-012), not an extra one.
func onOtherPOST(f *Frame, key string) bool {
	if f.Transport != harness.TransportHTTP || f.Request == nil || f.Request.NotJSON || !f.Request.Msg.HasID {
		return false
	}
	return harness.IDKey(f.Request.Msg.ID) != key
}

func mapKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkErrorMessages is MSG-017: every error message is one line. The schema asks for "a short
// description of the error ... a concise single sentence" and names no length, so only a line
// break is judged (RULES.md MSG-017: no length threshold).
var checkErrorMessages = first("error messages of one line (no line break)", func(f *Frame) (bool, string) {
	e, ok := serverError(f)
	if !ok {
		return false, ""
	}
	if strings.ContainsAny(e.Message, "\r\n") {
		return true, "a message with a line break: " + strconv.Quote(shortText(e.Message))
	}
	return true, ""
})

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
	path  string
	key   string
	value json.RawMessage
}

// metaKeys returns every key of every `_meta` object in server frame f, outside JSON Schemas,
// structured content and error data; walked once per frame.
func (f *Frame) metaKeys() []metaKey {
	if f.metaSet {
		return f.meta
	}
	f.metaSet = true
	if _, ok := f.Object(); !ok {
		return nil
	}
	var walk func(path string, raw json.RawMessage)
	walk = func(path string, raw json.RawMessage) {
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
						f.meta = append(f.meta, metaKey{path: p, key: mk, value: meta[mk]})
					}
				default:
					walk(p, obj[k])
				}
			}
		case '[':
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) != nil {
				return
			}
			for i, x := range arr {
				walk(path+"/"+strconv.Itoa(i), x)
			}
		}
	}
	walk("", f.Body())
	return f.meta
}

// metaRule makes a perFrame check over the `_meta` keys of each server frame: subjects are
// the frames with at least one key judge looks at (applies).
func metaRule(expected string, applies func(k metaKey) bool, judge func(k metaKey) string) func(Deps) Check {
	return each(func(f *Frame) (bool, *Mismatch) {
		subject := false
		for _, k := range f.metaKeys() {
			if !applies(k) {
				continue
			}
			subject = true
			if actual := judge(k); actual != "" {
				return true, &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d, %s: %s", f.Seq, k.path, actual), Frames: []int{f.Seq}}
			}
		}
		return subject, nil
	})
}

func anyKey(metaKey) bool { return true }

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

// checkMetaKeyNames is META-008: every `_meta` key is a valid key name.
var checkMetaKeyNames = metaRule("every _meta key of the form [prefix/]name (basic/index#_meta key name format)", anyKey, func(k metaKey) string {
	if !validMetaKey(k.key) {
		return "invalid key " + strconv.Quote(k.key)
	}
	return ""
})

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

// checkReservedMetaKeys is META-009: no undefined `_meta` key under a reserved prefix. Every
// `_meta` key the server sends is a subject: each is a key it could have invented there.
var checkReservedMetaKeys = metaRule("no _meta key under a reserved prefix (second label modelcontextprotocol or mcp) except those the specification defines",
	anyKey,
	func(k metaKey) string {
		if !reservedPrefix(k.key) || definedMetaKeys[k.key] {
			return ""
		}
		return fmt.Sprintf("key %q, which the specification does not define", k.key)
	})

var traceChecks = map[string]func(string) string{"traceparent": traceparentProblem, "tracestate": tracestateProblem, "baggage": baggageProblem}

// checkTraceContext is META-010: traceparent, tracestate and baggage follow the W3C syntax.
var checkTraceContext = metaRule("traceparent, tracestate and baggage values in W3C Trace Context / Baggage syntax",
	func(k metaKey) bool { return traceChecks[k.key] != nil },
	func(k metaKey) string {
		var v string
		if json.Unmarshal(k.value, &v) != nil {
			return k.key + " is not a string: " + short(k.value)
		}
		if p := traceChecks[k.key](v); p != "" {
			return fmt.Sprintf("%s %q: %s", k.key, v, p)
		}
		return ""
	})

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
func resultTypeOf(f *Frame) (map[string]json.RawMessage, string, bool) {
	m, ok := f.Object()
	if !ok || !isResponseObject(m) || !isJSONObject(m["result"]) {
		return nil, "", false
	}
	res, ok := f.Result()
	if !ok {
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
// InputRequiredResult never carries. The caching hints are not payload: an interim result
// carrying them is CACHE-004's.
var payloadMembers = []string{"content", "structuredContent", "isError", "contents", "messages", "description",
	"tools", "resources", "resourceTemplates", "prompts", "nextCursor", "completion", "supportedVersions", "capabilities",
	"instructions"}

// checkInputRequired is RT-003: an input_required result is an InputRequiredResult.
var checkInputRequired = first(`resultType "input_required" only on an InputRequiredResult (inputRequests and/or requestState, no method payload)`, func(f *Frame) (bool, string) {
	res, rt, ok := resultTypeOf(f)
	if !ok || rt != "input_required" {
		return false, ""
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
		return true, fmt.Sprintf("an input_required result of %s with %s", methodName(f.Method), strings.Join(found, ", "))
	case !hasIR && !hasRS:
		return true, fmt.Sprintf("an input_required result of %s with neither inputRequests nor requestState", methodName(f.Method))
	case hasIR && !isJSONObject(ir):
		return true, "inputRequests is not an object: " + short(ir)
	case hasRS && json.Unmarshal(rs, &state) != nil:
		return true, "requestState is not a string: " + short(rs)
	}
	return true, ""
})

// checkResultTypes is RT-004: every resultType is complete or input_required.
var checkResultTypes = first(`resultType "complete" or "input_required" (the client advertised no extensions)`, func(f *Frame) (bool, string) {
	_, rt, ok := resultTypeOf(f)
	if !ok {
		return false, ""
	}
	if rt == "complete" || rt == "input_required" {
		return true, ""
	}
	return true, fmt.Sprintf("resultType %q in the result of %s", rt, methodName(f.Method))
})

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

// errorCodes makes a perFrame check over the well-formed error responses.
func errorCodes(expected string, judge func(f *Frame, e *harness.ErrorObject) string) func(Deps) Check {
	return first(expected, func(f *Frame) (bool, string) {
		e, ok := serverError(f)
		if !ok {
			return false, ""
		}
		return true, judge(f, e)
	})
}

func describeError(e *harness.ErrorObject) string {
	return fmt.Sprintf("error %s (%s)", e.CodeRaw, shortText(e.Message))
}

// checkReservedCodes is ERR-001: no code in -32020..-32099 the specification does not define.
var checkReservedCodes = errorCodes("no code in -32020..-32099 but -32020 HeaderMismatch, -32021 MissingRequiredClientCapability and -32022 UnsupportedProtocolVersion",
	func(f *Frame, e *harness.ErrorObject) string {
		c := e.Code
		if c <= -32020 && c >= -32099 && c != codeHeaderMismatch && c != codeMissingCapability && c != codeUnsupportedVer && c != codeURLElicitation {
			return describeError(e) // -32042 is judged by ERR-005
		}
		return ""
	})

// checkLegacyRange is ERR-003: no code in -32000..-32019.
var checkLegacyRange = errorCodes("no code in the legacy sub-range -32000..-32019", func(f *Frame, e *harness.ErrorObject) string {
	if e.Code <= -32000 && e.Code >= -32019 && e.Code != codeResourceNotFound { // -32002: ERR-004
		return describeError(e)
	}
	return ""
})

// checkNoCode makes ERR-004 and ERR-005: no error with code, described by what.
func checkNoCode(code int64, what string) func(Deps) Check {
	return errorCodes("no "+what, func(f *Frame, e *harness.ErrorObject) string {
		if e.Code == code {
			return describeError(e) + " in reply to " + methodName(f.Method)
		}
		return ""
	})
}

// CodeRule returns the run-wide rule that an error code breaks by itself at revision rev
// (basic/index#Error Codes, 2026-07-28 only): ERR-001 for an undefined code of -32020..-32099,
// ERR-003 for the legacy sub-range -32000..-32019, ERR-004 for -32002, ERR-005 for -32042,
// ERR-006 for another code of the JSON-RPC reserved range; "" for a code no such rule forbids.
// A scenario that wanted another code leaves such a reply to that rule (untestable naming it):
// one wrong code fails one rule.
func CodeRule(rev string, code int64) string {
	if !revisions.IsModern(rev) {
		return ""
	}
	switch {
	case code == codeResourceNotFound:
		return "ERR-004"
	case code == codeURLElicitation:
		return "ERR-005"
	case code <= -32020 && code >= -32099 && code != codeHeaderMismatch && code != codeMissingCapability && code != codeUnsupportedVer:
		return "ERR-001"
	case code <= -32000 && code >= -32019:
		return "ERR-003"
	case code >= -32768 && code < -32099 && !standardCode(code):
		return "ERR-006"
	}
	return ""
}

// standardCode reports whether c is a JSON-RPC 2.0 pre-defined code.
func standardCode(c int64) bool { return c == -32700 || c >= -32603 && c <= -32600 }

// checkApplicationCodes is ERR-006: other codes lie outside the JSON-RPC reserved range.
var checkApplicationCodes = errorCodes("application-defined codes outside -32768..-32000 (other than the JSON-RPC and MCP codes)", func(f *Frame, e *harness.ErrorObject) string {
	// -32099..-32000 is judged by ERR-001, ERR-003, ERR-004 and ERR-005.
	if e.Code >= -32768 && e.Code < -32099 && !standardCode(e.Code) {
		return describeError(e)
	}
	return ""
})

// definedCodes is ERR-002, the meaning of the three MCP codes: -32020 answers a request whose
// HTTP headers do not match its body (never on stdio, never a request mcp-conform sent with
// matching headers), -32021 lists data.requiredCapabilities, -32022 lists data.supported and
// never refuses a version the server itself advertises (in any server/discover result of the
// run, before or after: that part is decided in Finish).
type definedCodes struct {
	t         *idTracker
	clients   map[int]*Frame // client frames with an id, by seq (the requests errors answer)
	supported map[string]bool
	n         int
	m         *Mismatch
	// refused are the -32022 errors for a version the request named, decided in Finish.
	refused []refusal
}

type refusal struct {
	version string
	m       *Mismatch
}

func newDefinedCodes(Deps) Check {
	return &definedCodes{t: newIDTracker(), clients: map[int]*Frame{}, supported: map[string]bool{}}
}

func (c *definedCodes) Observe(f *Frame) {
	if f.FromServer() && f.Method == "server/discover" && f.Msg.Kind == harness.KindResult {
		var r struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(f.Msg.Result, &r)
		for _, v := range r.SupportedVersions {
			c.supported[v] = true
		}
	}
	if c.t.clientFrame(f) {
		if _, ok := f.Members["id"]; ok {
			c.clients[f.Seq] = f
		}
		return
	}
	e, ok := serverError(f)
	if !ok {
		return
	}
	c.n++
	if c.m != nil {
		return
	}
	var req *Frame
	if key, ok := responseIDKey(f); ok {
		req = c.clients[c.t.last[f.Conn][key]]
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
			c.m = bad("-32020 HeaderMismatch only on HTTP, for headers that do not match the body", describeError(e)+" on stdio, which has no headers")
			return
		}
		// A request without the MCP headers (a legacy-shaped POST) fails header validation
		// as much as one whose headers differ.
		// A request that names a tool, prompt or resource (Mcp-Name, x-mcp-header values) is
		// the header rules' (HDR-005..019): they judge every way its headers can be refused,
		// and one defect fails one rule.
		if req != nil && !req.Intentional && !lacksMCPHeaders(req) && !namedMethods[req.Method] {
			c.m = bad("-32020 HeaderMismatch only for headers that do not match the body",
				describeError(e)+" in reply to a request ("+methodName(req.Method)+") whose headers mirror its body")
		}
	case codeMissingCapability:
		if !isJSONObject(data["requiredCapabilities"]) {
			c.m = bad("-32021 MissingRequiredClientCapability with an object at data.requiredCapabilities", describeError(e)+" with data "+short(e.Data))
		}
	case codeUnsupportedVer:
		var list []string
		if json.Unmarshal(data["supported"], &list) != nil || list == nil {
			c.m = bad("-32022 UnsupportedProtocolVersion with the supported versions in data.supported", describeError(e)+" with data "+short(e.Data))
			return
		}
		if req != nil && !req.Intentional {
			// A legacy version may be refused on a modern request: it is served only after
			// initialize (PROBE-010).
			if v := requestVersion(req); v != "" && revisions.IsModern(v) {
				c.refused = append(c.refused, refusal{version: v, m: bad("-32022 UnsupportedProtocolVersion only for versions the server does not support",
					fmt.Sprintf("%s for version %s, which the server lists in supportedVersions", describeError(e), v))})
			}
		}
	}
}

// namedMethods are the methods whose requests carry Mcp-Name (streamable-http#Standard
// Request Headers).
var namedMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

func (c *definedCodes) Finish() Outcome {
	// The first violation in frame order: a refusal of an advertised version that came before
	// the first other violation wins.
	m := c.m
	for _, r := range c.refused {
		if !c.supported[r.version] {
			continue
		}
		if m == nil || lastSeq(r.m.Frames) < lastSeq(m.Frames) {
			m = r.m
		}
		break
	}
	return Outcome{Judged: c.n, Mismatch: m}
}

func lastSeq(seqs []int) int {
	if len(seqs) == 0 {
		return 0
	}
	return seqs[len(seqs)-1]
}

// requestVersion returns the `_meta` protocol version of a client request frame.
func requestVersion(f *Frame) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(f.Body(), &m) != nil {
		return ""
	}
	return stringOf(m.Params.Meta[harness.MetaProtocolVersion])
}

// lacksMCPHeaders reports whether client frame f was POSTed without MCP-Protocol-Version or
// Mcp-Method, as a legacy client does.
func lacksMCPHeaders(f *Frame) bool {
	return f.HTTP != nil && (f.HTTP.Headers.Get("Mcp-Method") == "" || f.HTTP.Headers.Get("MCP-Protocol-Version") == "")
}
