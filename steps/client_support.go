package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Mismatch is what an assertion step returns when the server's behaviour differs from the
// rule: Expected and Actual in words, and the frames that show it. Grade, when set, overrides
// the verdict the rule's level would give (a MUST rule whose softer variant is only a
// warning); otherwise MUST and MUST NOT give fail, SHOULD and SHOULD NOT warn, MAY info.
type Mismatch struct {
	Expected string
	Actual   string
	Grade    reports.Verdict
	Frames   []int
}

// Error returns "expected <Expected>, got <Actual>".
func (m *Mismatch) Error() string { return fmt.Sprintf("expected %s, got %s", m.Expected, m.Actual) }

// outcome is a verdict decided without running the rest of the scenario: na or untestable.
type outcome struct {
	verdict reports.Verdict
	reason  string
}

// absence is a reply a scenario concluded would not come, proved by a sentinel
// (harness.NoReplyError, flag --quiet-window) or by the request's deadline (harness.TimeoutError,
// flag --timeout): the request with id key ("" when its id could not be read) on connection
// conn, concluded when the recorder held after frames. lateReply finds the reply when it came
// after all.
type absence struct {
	conn  int
	key   string
	after int
	flag  string // the flag that would have waited for it: --quiet-window or --timeout
}

// initAttempt is one legacy initialize of a scenario: the version asked for and the exchange.
type initAttempt struct {
	requested string
	ex        *harness.Exchange
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
func skip(v reports.Verdict, reason string) error { return &outcome{verdict: v, reason: reason} }

// Error returns "<verdict>: <reason>".
func (o *outcome) Error() string { return string(o.verdict) + ": " + o.reason }

func describe(msg *harness.Message) string {
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

func short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

// sentMethod returns the method of the request ex sent, or says that it was never sent (the
// connection had closed or the server had exited before it could be written).
func sentMethod(ex *harness.Exchange) string {
	if ex == nil || ex.Sent == nil {
		return "a request that could not be sent"
	}
	return ex.Sent.Method
}

// listMethods maps the capabilities whose list request every declaring server must answer to
// that request's method, in the order scenarios try them.
var listMethods = []struct{ capability, method string }{
	{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"},
}

// responseOf parses the response of ex; nil when none arrived.
func responseOf(ex *harness.Exchange) *harness.Message {
	if ex == nil || ex.Response == nil {
		return nil
	}
	msg, _ := harness.ParseMessage(ex.Response.Body())
	return msg
}

// describeExchange says what ex got: a result, an error with its code, or no response.
func describeExchange(ex *harness.Exchange) string {
	msg := responseOf(ex)
	if msg == nil {
		if ex != nil && ex.Err != nil {
			return noResponse(ex.Err)
		}
		return "no response"
	}
	return describe(msg)
}

// isJSONString reports whether raw is a JSON string (not null, not another type).
func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

// listenRun is one subscriptions/listen request held open by the suite: the exchange (frames
// up to the moment the suite closed it), how its reading ended, and whether the server closed
// the stream itself before the suite did.
type listenRun struct {
	ex           *harness.Exchange
	info         harness.StreamInfo
	serverClosed bool
	hold         time.Duration
}
