package judge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
)

// Run-wide rules of basic/transports/stdio: STDIO-002, STDIO-004.

// checkStdoutPurity is STDIO-002 over the run: every stdout line of every process is one
// JSON-RPC message (a server that writes junk after some other request breaks the rule just
// the same). Split messages are STDIO-001's. A blank line, or a message followed by CR (CR LF
// line endings), puts nothing foreign on stdout, a trailing CR being JSON whitespace: a
// warning (RULES.md STDIO-002), which a foreign line found later still turns into a failure.
var checkStdoutPurity = each(func(f *Frame) (bool, *Mismatch) {
	if !f.FromServer() || f.Transport != harness.TransportStdio {
		return false, nil
	}
	problem := framingProblem(f)
	if problem == "" || strings.HasPrefix(problem, harness.ProblemSplit) || harness.IsBatchReply(f.Raw) {
		return true, nil
	}
	m := &Mismatch{Expected: "every stdout line to be one JSON-RPC message",
		Actual: fmt.Sprintf("frame %d: %s: %s", f.Seq, problem, short(f.Raw)), Frames: []int{f.Seq}}
	if onlyWhitespaceProblems(problem) {
		m.Grade = Warning
	}
	return true, m
})

// framingProblem is f.Problem without the envelope problems of a frame that is one JSON object:
// a JSON object that is no valid JSON-RPC message (a wrong jsonrpc, both result and error, a
// malformed error object) is judged by MSG-001, MSG-004 and MSG-007, not by the framing rules
// of the transport (STDIO-002, HTTP-006): one defect fails one rule.
func framingProblem(f *Frame) string {
	if _, ok := f.Object(); !ok || f.Problem == "" {
		return f.Problem
	}
	var kept []string
	for _, p := range strings.Split(f.Problem, "; ") {
		if !strings.HasPrefix(p, "not a JSON-RPC message") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "; ")
}

// onlyWhitespaceProblems reports whether every part of a frame's Problem ("; "-joined) is a
// blank line or a trailing CR.
func onlyWhitespaceProblems(problem string) bool {
	for _, p := range strings.Split(problem, "; ") {
		if p != harness.ProblemBlank && p != harness.ProblemCR {
			return false
		}
	}
	return true
}

// stdioInFlight is a request the client sent on a stdio connection and the server has not
// answered yet.
type stdioInFlight struct {
	listen bool   // a subscriptions/listen request
	token  string // IDKey of its _meta progressToken, "" when none
}

// stdoutTraffic is STDIO-004: it classifies every stdio frame the server wrote: responses are
// fine; a notification must belong to an in-flight request (anything while a request other
// than a listen is pending; notifications/progress is left to PROG-001/004, judge/progress.go) or to an open subscriptions/listen
// request (its subscriptionId, or a listen-only method while a listen is open; a missing
// subscriptionId is STDIO-010's); notifications/cancelled must name an open listen; requests
// are never allowed. Log messages are left to LOG-003, which judges where they travel.
type stdoutTraffic struct {
	pending map[int]map[string]stdioInFlight
	n       int
	m       *Mismatch
}

func newStdoutTraffic(Deps) Check { return &stdoutTraffic{pending: map[int]map[string]stdioInFlight{}} }

func (c *stdoutTraffic) Observe(f *Frame) {
	if f.Transport != harness.TransportStdio || f.NotJSON || f.Msg.Kind == harness.KindInvalid {
		return // not a message: STDIO-001/002
	}
	msg := f.Msg
	p := c.pending[f.Conn]
	if p == nil {
		p = map[string]stdioInFlight{}
		c.pending[f.Conn] = p
	}
	if !f.FromServer() {
		if msg.Kind == harness.KindRequest && msg.HasID {
			p[harness.IDKey(msg.ID)] = stdioInFlight{listen: msg.Method == listenMethod, token: progressToken(msg.Params)}
		}
		return
	}
	c.n++
	switch msg.Kind {
	case harness.KindResult, harness.KindError:
		if msg.HasID {
			delete(p, harness.IDKey(msg.ID))
		}
		return
	case harness.KindRequest:
		// A server request is MSG-012's, a notification with an id MSG-010's: one defect
		// fails one rule.
		return
	}
	if msg.Method == "notifications/progress" {
		// Which tokens progress may name, and until when, is PROG-001/002/004's
		// (basic/patterns/progress, judge/progress.go): one defect fails one rule.
		return
	}
	if msg.Method == "notifications/message" {
		// Where a log message may travel is LOG-003's (server/utilities/logging, "Per-request
		// log level": only with the response of the request that set the level, so on stdio
		// never while no request is in flight, never as a subscription's): one defect fails
		// one rule.
		return
	}
	if why := unscopedNotification(msg, p); why != "" && c.m == nil {
		c.m = &Mismatch{Expected: "only responses, notifications of an in-flight request and notifications of an open subscription on stdout",
			Actual: fmt.Sprintf("frame %d: %s", f.Seq, why), Frames: []int{f.Seq}}
	}
}

func (c *stdoutTraffic) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// hasSubscriptionID reports whether the notification msg carries a _meta subscriptionId.
func hasSubscriptionID(msg *harness.Message) bool {
	var params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(msg.Params, &params)
	_, ok := params.Meta[subscriptionIDMeta]
	return ok
}

// unscopedNotification returns why the notification msg belongs to no request of pending (the
// requests in flight on its connection, by id key) and to no open subscription, or "" when it
// belongs to one.
func unscopedNotification(msg *harness.Message, pending map[string]stdioInFlight) string {
	var params struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		ProgressToken json.RawMessage            `json:"progressToken"`
		RequestID     json.RawMessage            `json:"requestId"`
	}
	_ = json.Unmarshal(msg.Params, &params)
	some := func(match func(stdioInFlight) bool) bool {
		for _, x := range pending {
			if match(x) {
				return true
			}
		}
		return false
	}
	if sub, ok := params.Meta[subscriptionIDMeta]; ok {
		if x, open := pending[harness.IDKey(sub)]; open && x.listen {
			return ""
		}
		return fmt.Sprintf("%s for subscription %s, which is no open subscriptions/listen request of this process", msg.Method, harness.IDKey(sub))
	}
	switch {
	case msg.Method == "notifications/cancelled":
		if x, open := pending[harness.IDKey(params.RequestID)]; open && x.listen {
			return ""
		}
		return fmt.Sprintf("notifications/cancelled for request %s, which is no open subscriptions/listen request of this process", orNone(harness.IDKey(params.RequestID)))
	case harness.IsListenNotification(msg.Method):
		if some(func(x stdioInFlight) bool { return x.listen }) {
			return ""
		}
		return msg.Method + " while no subscriptions/listen request was open"
	}
	if some(func(x stdioInFlight) bool { return !x.listen }) {
		return ""
	}
	return msg.Method + " while no request was in flight"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// progressToken returns the IDKey of params._meta.progressToken, "" when there is none.
func progressToken(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	if tok, ok := p.Meta["progressToken"]; ok {
		return harness.IDKey(tok)
	}
	return ""
}
