package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Run-wide rules of basic/transports/streamable-http: HTTP-006..010, HTTP-012, ERR-010.

const (
	progressMeta = "progressToken"
	logLevelMeta = "io.modelcontextprotocol/logLevel"
	listenMethod = "subscriptions/listen"
)

// sseEvent reports whether f is an SSE event the server sent.
func sseEvent(f *Frame) bool { return f.FromServer() && f.SSE != nil }

// requestMessage returns the parsed request f answers on HTTP (its ReplyTo), nil when f
// travelled on no reply of a JSON-RPC request.
func requestMessage(f *Frame) *harness.Message {
	if f.ReplyTo == 0 || f.Request == nil || f.Request.NotJSON || f.Request.Msg.Kind != harness.KindRequest {
		return nil
	}
	return f.Request.Msg
}

// onRequestStream reports whether f is an SSE event on the stream of a request other than
// subscriptions/listen: the subjects of HTTP-007 and HTTP-009.
func onRequestStream(f *Frame) bool {
	if !sseEvent(f) || f.Request == nil {
		return false
	}
	return f.Request.Msg.Method != listenMethod
}

// checkSSEFraming is HTTP-006: the data of every SSE event is one JSON-RPC message. Events with
// empty data carry no message (2025-11-25 primes resumable streams with them) and are left
// alone, as are events the suite itself cut at --max-frame.
var checkSSEFraming = each(func(f *Frame) (bool, *Mismatch) {
	if !sseEvent(f) || f.Truncated {
		return false, nil
	}
	problem := framingProblem(f)
	if problem == "" || len(f.Raw) == 0 && !strings.Contains(problem, "blank line") && !strings.Contains(problem, "UTF-8") {
		return true, nil
	}
	return true, &Mismatch{Expected: "the data of every SSE event to be one JSON-RPC message",
		Actual: fmt.Sprintf("frame %d: %s: %s", f.Seq, problem, short(f.Raw)), Frames: []int{f.ReplyTo, f.Seq}}
})

// checkRelated is HTTP-007: a notification on the SSE stream of a request (other than
// subscriptions/listen, judged by HTTP-023 and the subscription rules) relates to it: progress
// carries the request's progressToken, and change notifications belong to listen streams. A log
// message for a request that set no log level is LOG-001's (server/utilities/logging#Per-request
// log level): one defect fails one rule.
var checkRelated = each(func(f *Frame) (bool, *Mismatch) {
	if !onRequestStream(f) {
		return false, nil
	}
	rm := requestMessage(f)
	if f.NotJSON || f.Msg.Kind != harness.KindNotification || rm == nil {
		return true, nil
	}
	meta := requestMeta(rm.Params)
	mismatch := func(expected, actual string) *Mismatch {
		return &Mismatch{Expected: expected, Actual: fmt.Sprintf("%s on the stream of %s (id %s)", actual, rm.Method, harness.IDKey(rm.ID)), Frames: []int{f.ReplyTo, f.Seq}}
	}
	msg := f.Msg
	switch msg.Method {
	case "notifications/progress":
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		want, asked := meta[progressMeta]
		switch {
		case !asked:
			return true, mismatch("progress only for a request that set a progressToken", "notifications/progress with token "+string(p.Token))
		case harness.IDKey(p.Token) != harness.IDKey(want):
			return true, mismatch("notifications/progress with the request's progressToken "+harness.IDKey(want), "progressToken "+harness.IDKey(p.Token))
		}
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed",
		"notifications/resources/updated", "notifications/subscriptions/acknowledged":
		return true, mismatch("only notifications about the request (change notifications travel on subscriptions/listen streams)", msg.Method)
	}
	return true, nil
})

// checkNoSSERequests is HTTP-008: no SSE event is a JSON-RPC request.
var checkNoSSERequests = each(func(f *Frame) (bool, *Mismatch) {
	if !sseEvent(f) {
		return false, nil
	}
	// A notification with an id (method notifications/...) is MSG-010's.
	if !f.NotJSON && f.Msg.Kind == harness.KindRequest && !strings.HasPrefix(f.Msg.Method, "notifications/") {
		return true, &Mismatch{Expected: "no JSON-RPC request on an SSE stream (server-to-client requests are embedded in results, MRTR)",
			Actual: fmt.Sprintf("a %s request on an SSE stream: %s", f.Msg.Method, short(f.Raw)), Frames: []int{f.ReplyTo, f.Seq}}
	}
	return true, nil
})

// checkAccelBuffering is HTTP-010: every SSE response carries X-Accel-Buffering: no.
var checkAccelBuffering = each(func(f *Frame) (bool, *Mismatch) {
	if !sseEvent(f) || f.HTTP == nil {
		return false, nil
	}
	vs := f.HTTP.Headers.Values("X-Accel-Buffering")
	if len(vs) == 1 && strings.EqualFold(strings.TrimSpace(vs[0]), "no") {
		return true, nil
	}
	actual := "no X-Accel-Buffering header"
	if len(vs) > 0 {
		actual = "X-Accel-Buffering: " + strings.Join(vs, ", ")
	}
	return true, &Mismatch{Expected: "X-Accel-Buffering: no on the SSE response", Actual: actual, Frames: []int{f.ReplyTo, f.Seq}}
})

// ownReplies is HTTP-012: the body or stream answering a POST never carries the response to
// another request of the run. A response whose id matches no request (a mangled id) is the
// business of the id rules, not this one.
type ownReplies struct {
	sent map[string]int // id key -> seq of the first request with it
	n    int
	m    *Mismatch
}

func newOwnReplies(Deps) Check { return &ownReplies{sent: map[string]int{}} }

func (c *ownReplies) Observe(f *Frame) {
	if !f.FromServer() {
		if f.Msg.Kind == harness.KindRequest {
			if _, seen := c.sent[harness.IDKey(f.Msg.ID)]; !seen {
				c.sent[harness.IDKey(f.Msg.ID)] = f.Seq
			}
		}
		return
	}
	if f.ReplyTo == 0 || f.NotJSON || (f.Msg.Kind != harness.KindResult && f.Msg.Kind != harness.KindError) || !f.Msg.HasID {
		return
	}
	key := harness.IDKey(f.Msg.ID)
	if key == "null" {
		return
	}
	c.n++
	own := ""
	if req := f.Request; req != nil && !req.NotJSON && req.Msg.HasID {
		own = harness.IDKey(req.Msg.ID)
	}
	if other, ok := c.sent[key]; ok && key != own && other != f.ReplyTo && c.m == nil {
		c.m = &Mismatch{Expected: "each response on the HTTP reply of its own POST",
			Actual: fmt.Sprintf("the reply to frame %d carries the response to frame %d (id %s)", f.ReplyTo, other, key), Frames: []int{other, f.ReplyTo, f.Seq}}
	}
}

func (c *ownReplies) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// nothingAfterResponse is HTTP-009 (run-wide part): no SSE event follows the response on the
// stream that carried it.
type nothingAfterResponse struct {
	answered map[int]int // request seq -> seq of the response event
	n        int
	m        *Mismatch
}

func newNothingAfterResponse(Deps) Check { return &nothingAfterResponse{answered: map[int]int{}} }

func (c *nothingAfterResponse) Observe(f *Frame) {
	if !sseEvent(f) || f.ReplyTo == 0 {
		return
	}
	if onRequestStream(f) {
		c.n++
	}
	if at, done := c.answered[f.ReplyTo]; done {
		// A second response is MSG-013's (exactly one response per request).
		second := !f.NotJSON && (f.Msg.Kind == harness.KindResult || f.Msg.Kind == harness.KindError)
		if len(bytes.TrimSpace(f.Raw)) > 0 && !second && c.m == nil {
			c.m = &Mismatch{Expected: "the final response to end the SSE stream",
				Actual: fmt.Sprintf("an event after the response (frame %d): %s", at, short(f.Raw)), Frames: []int{f.ReplyTo, at, f.Seq}}
		}
		return
	}
	rm := requestMessage(f)
	if rm == nil || f.NotJSON || (f.Msg.Kind != harness.KindResult && f.Msg.Kind != harness.KindError) {
		return
	}
	if !f.Msg.HasID || harness.IDKey(f.Msg.ID) == harness.IDKey(rm.ID) {
		c.answered[f.ReplyTo] = f.Seq
	}
}

func (c *nothingAfterResponse) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// refusable reports whether status is one a modern server refuses a request with and whose
// body a dual-era client inspects before falling back (400, 404).
func refusable(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound
}

// errorBodies is ERR-010: every 400 or 404 reply to a well-formed modern request (a valid
// JSON-RPC request POSTed with the 2026-07-28 `_meta` protocol version or MCP-Protocol-Version
// header) carries a JSON-RPC error, never an empty or foreign body. A reply is decided when
// its last frame has been seen, in Finish, in the order the replies began.
type errorBodies struct {
	replies map[int]*refusedReply
	order   []int
}

type refusedReply struct {
	req    *Frame
	first  *Frame
	status int
	seqs   []int
	found  bool
	skip   bool
}

func newErrorBodies(Deps) Check { return &errorBodies{replies: map[int]*refusedReply{}} }

func (c *errorBodies) Observe(f *Frame) {
	if !f.FromServer() || f.ReplyTo == 0 {
		return
	}
	r, seen := c.replies[f.ReplyTo]
	if !seen {
		r = &refusedReply{req: f.Request, first: f}
		r.skip = f.Request == nil || f.HTTP == nil || !refusable(f.HTTP.Status) || !modernRequest(f.Request) || earlierTraffic(f.Request)
		if !r.skip {
			r.status = f.HTTP.Status
		}
		c.replies[f.ReplyTo] = r
		c.order = append(c.order, f.ReplyTo)
	}
	if r.skip {
		return
	}
	r.seqs = append(r.seqs, f.Seq)
	// An error body whose error object is malformed is MSG-007's, not a missing body.
	if _, hasError := f.Members["error"]; !f.NotJSON && (f.Msg.Kind == harness.KindError || hasError) {
		r.found = true
	}
}

func (c *errorBodies) Finish() Outcome {
	o := Outcome{}
	for _, seq := range c.order {
		r := c.replies[seq]
		if r.skip {
			continue
		}
		o.Judged += len(r.seqs)
		if r.found || o.Mismatch != nil {
			continue
		}
		first := r.first
		actual := fmt.Sprintf("HTTP %d with an empty body", r.status)
		if len(bytes.TrimSpace(first.Raw)) > 0 {
			actual = fmt.Sprintf("HTTP %d with Content-Type %q and body %s", r.status, first.HTTP.Headers.Get("Content-Type"), short(first.Raw))
		}
		o.Mismatch = &Mismatch{Expected: "a JSON-RPC error body on the " + strconv.Itoa(r.status) + " reply to " + r.req.Method, Actual: actual,
			Frames: append([]int{seq}, r.seqs...)}
	}
	return o
}

// earlierTraffic reports whether client frame f carries a header of an earlier Streamable HTTP
// revision's stream resumption (Last-Event-ID). How a server answers such traffic is HTTP-017's
// (basic/transports/streamable-http#Earlier Streamable HTTP Revisions: a server of 2026-07-28
// alone SHOULD ignore it; one that also serves earlier revisions implements their behaviour,
// and its refusal is info there), so its refusal, body included, is not ERR-010's: one
// behaviour, judged by the rule that owns it at the grade that rule gives.
func earlierTraffic(f *Frame) bool {
	return f.HTTP != nil && len(f.HTTP.Headers.Values("Last-Event-ID")) > 0
}

// modernRequest reports whether a client frame is a well-formed JSON-RPC request POSTed as a
// 2026-07-28 request: `_meta` carries a protocol version, or MCP-Protocol-Version names a
// modern one.
func modernRequest(f *Frame) bool {
	if f.HTTP == nil || f.HTTP.Method != http.MethodPost {
		return false
	}
	if f.NotJSON || f.Msg.Kind != harness.KindRequest {
		return false
	}
	if _, ok := requestMeta(f.Msg.Params)[harness.MetaProtocolVersion]; ok {
		return true
	}
	v := f.HTTP.Headers.Get(harness.HeaderProtocolVersion)
	return v != "" && revisions.IsModern(v)
}
