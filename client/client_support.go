package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Mismatch is what an assertion step returns when the server's behaviour differs from the
// rule: Expected and Actual in words, and the frames that show it. Grade, when set, overrides
// the verdict the rule's level would give (a MUST rule whose softer variant is only a
// warning); otherwise MUST and MUST NOT give fail, SHOULD and SHOULD NOT warn, MAY info.
type Mismatch struct {
	Expected string          // what the rule wants, in words
	Actual   string          // what the server did, in words
	Grade    reports.Verdict // the verdict to give instead of the level's ("" = the level's)
	Frames   []int           // seqs of the frames that show the mismatch
}

// Error returns "expected <Expected>, got <Actual>".
func (m *Mismatch) Error() string { return fmt.Sprintf("expected %s, got %s", m.Expected, m.Actual) }

// Outcome is a verdict decided without running the rest of the scenario: na or untestable.
type Outcome struct {
	Verdict reports.Verdict // reports.NA or reports.Untestable
	Reason  string          // why, in one line, for the report
}

// Absence is a reply a scenario concluded would not come, proved by a sentinel
// (harness.NoReplyError, flag --quiet-window) or by the request's deadline (harness.TimeoutError,
// flag --timeout): the request with id key ("" when its id could not be read) on connection
// conn, concluded when the recorder held after frames. The runner's lateReply finds the reply
// when it came after all.
type Absence struct {
	Conn  int    // the connection number the request went out on
	Key   string // harness.IDKey of the request's id, "" when it could not be read
	After int    // how many frames the recorder held when the absence was concluded
	Flag  string // the flag that would have waited for it: --quiet-window or --timeout
}

// InitAttempt is one legacy initialize of a scenario: the version asked for and the exchange.
type InitAttempt struct {
	Requested string            // the protocolVersion the client asked for
	Ex        *harness.Exchange // the initialize exchange
}

// sentKey returns the IDKey of the id of client frame f, "" when it has none or cannot be read.
func sentKey(f *harness.Frame) string {
	msg, err := harness.ParseMessage(f.Body())
	if err != nil || !msg.HasID {
		return ""
	}
	return harness.IDKey(msg.ID)
}

// skip is the error that ends a scenario early with verdict v (na or untestable) and reason:
// a step returns it, and the runner's step hook records it as the scenario's outcome.
func skip(v reports.Verdict, reason string) error { return &Outcome{Verdict: v, Reason: reason} }

// Error returns "<verdict>: <reason>".
func (o *Outcome) Error() string { return string(o.Verdict) + ": " + o.Reason }

// Describe says in a few words what msg is: "a result", "error <code> (<message>)", "an
// invalid message (<problem>)", or "a <kind>" for a request or notification.
func Describe(msg *harness.Message) string {
	switch msg.Kind {
	case harness.KindResult:
		return "a result"
	case harness.KindError:
		return fmt.Sprintf("error %s (%s)", msg.Error.CodeRaw, msg.Error.Message)
	case harness.KindInvalid:
		return "an invalid message (" + msg.Problem + ")"
	}
	return "a " + string(msg.Kind)
}

// Short returns b trimmed of surrounding space and cut to 160 bytes (157 and "...") for a
// one-line report.
func Short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 160 {
		cut := 157
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut-- // never split a UTF-8 sequence
		}
		s = s[:cut] + "..."
	}
	return s
}

// SentMethod returns the method of the request ex sent, or says that it was never sent (the
// connection had closed or the server had exited before it could be written).
func SentMethod(ex *harness.Exchange) string {
	if ex == nil || ex.Sent == nil {
		return "a request that could not be sent"
	}
	return ex.Sent.Method
}

// ListMethods maps the capabilities whose list request every declaring server must answer to
// that request's method, in the order scenarios try them.
var ListMethods = []struct{ Capability, Method string }{
	{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"},
}

// ResponseOf parses the response of ex; nil when none arrived.
func ResponseOf(ex *harness.Exchange) *harness.Message {
	if ex == nil || ex.Response == nil {
		return nil
	}
	msg, _ := harness.ParseMessage(ex.Response.Body())
	return msg
}

// DescribeExchange says what ex got: a result, an error with its code, or no response.
func DescribeExchange(ex *harness.Exchange) string {
	msg := ResponseOf(ex)
	if msg == nil {
		if ex != nil && ex.Err != nil {
			return noResponse(ex.Err)
		}
		return "no response"
	}
	return Describe(msg)
}

// IsJSONString reports whether raw is a JSON string (not null, not another type).
func IsJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

// ListenRun is one subscriptions/listen request held open by the suite: the exchange (frames
// up to the moment the suite closed it), how its reading ended, and whether the server closed
// the stream itself before the suite did.
type ListenRun struct {
	Ex           *harness.Exchange  // the listen request and the frames read until the stream ended
	Info         harness.StreamInfo // how the SSE reply was read and how its reading ended
	serverClosed bool
	Hold         time.Duration // how long the suite holds the stream after its first event
}
