package steps

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
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

// world is the state of one scenario: the connection it talks to, the exchanges it made and
// what the steps concluded. newWorld makes a new one for every scenario (and Outline row).
type world struct {
	*session
	s          *suiteRun
	rule       Rule
	known      bool
	excluded   bool
	outlineRow bool
	started    time.Time

	skip  *outcome
	steps []reports.Step
	// observed are the one-line records of a PROBE scenario (see registerProbeSteps).
	observed []string
	// judgeAsked is set by a step that asks the judge (askJudge) until the step is recorded;
	// judgeSteps are the indexes in steps of such steps.
	judgeAsked bool
	judgeSteps []int
	// stopped is set when the run's context had ended (interrupt, --run-timeout) by the time
	// the scenario finished (see stoppedByRun).
	stopped bool
	// observeOnly, when set, says why this server is not bound by the rule: a broken
	// expectation is then recorded as info with this reason (see bindsModernOnly).
	observeOnly string

	// states holds each area's scenario state by type, made on first use (stateOf): an area
	// declares its state type and accessor (hdrOf, toolOf, ...) in its own file, so adding an
	// area adds no field here.
	statesMu sync.Mutex
	states   map[reflect.Type]any
}

// newWorld returns the state of a new scenario (or Outline row, when outlineRow) of the run s.
// It is the only place a world is made: every scenario starts from the same empty state.
func newWorld(s *suiteRun, outlineRow bool) *world {
	return &world{
		session: newSession(s), s: s, started: time.Now(), outlineRow: outlineRow,
	}
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

func (w *session) note(ex *harness.Exchange) {
	if ex == nil {
		return
	}
	w.exchanges = append(w.exchanges, ex)
	w.last = ex
	if ex.Sent != nil {
		w.seqs[ex.Sent.Seq] = true
	}
	for _, f := range ex.Frames {
		w.seqs[f.Seq] = true
	}
	if ex.Response != nil {
		w.seqs[ex.Response.Seq] = true
	}
	// A concluded absence is reviewed after the run (env.reviewAbsences): a stdio reply that came
	// after all turns the verdict resting on it untestable.
	var nr *harness.NoReplyError
	var te *harness.TimeoutError
	switch {
	case ex.Sent == nil || ex.Response != nil:
	case errors.As(ex.Err, &nr):
		w.absent = append(w.absent, absence{conn: ex.Sent.Conn, key: sentKey(ex.Sent), after: w.env.Recorder().Len(), flag: "--quiet-window"})
	case errors.As(ex.Err, &te) && errors.Is(te.Err, context.DeadlineExceeded):
		te.Flag = w.opts.timeoutFlag(te.Waited)
		w.absent = append(w.absent, absence{conn: ex.Sent.Conn, key: sentKey(ex.Sent), after: w.env.Recorder().Len(), flag: "--timeout"})
	}
}

// sentKey returns the IDKey of the id of client frame f, "" when it has none or cannot be read.
func sentKey(f *harness.Frame) string {
	msg, err := harness.ParseMessage(f.Body())
	if err != nil || !msg.HasID {
		return ""
	}
	return harness.IDKey(msg.ID)
}

// frames returns the seqs of every frame the scenario exchanged, including everything seen on
// the connections it opened itself.
func (w *session) frames() []int {
	own := map[int]bool{}
	for _, t := range w.own {
		own[t.Conn()] = true
	}
	if len(own) > 0 {
		for _, f := range w.env.Recorder().Frames() {
			if own[f.Conn] {
				w.seqs[f.Seq] = true
			}
		}
	}
	out := make([]int, 0, len(w.seqs))
	for seq := range w.seqs {
		out = append(out, seq)
	}
	sort.Ints(out)
	return out
}

// undeclared ends a scenario that needs a capability, extension or feature the server's
// DiscoverResult (or InitializeResult) does not declare: na with reason, or untestable naming
// DISC-001 (target.capsUnknown) when no DiscoverResult said what the server declares.
func (w *session) undeclared(reason string) error {
	if why := w.t.CapsUnknown; why != "" {
		return skip(reports.Untestable, why)
	}
	return skip(reports.NA, reason)
}

// skip is the error that ends a scenario early with verdict v (na or untestable) and reason:
// a step returns it, and the runner's step hook records it as the scenario's outcome.
func skip(v reports.Verdict, reason string) error { return &outcome{verdict: v, reason: reason} }

// Error returns "<verdict>: <reason>".
func (o *outcome) Error() string { return string(o.verdict) + ": " + o.reason }

func (w *world) setSkip(v reports.Verdict, reason string) error {
	w.skip = &outcome{verdict: v, reason: reason}
	return errSkip
}

// responseMessage parses the last exchange's response, or returns a Mismatch saying none came.
func (w *session) responseMessage() (*harness.Message, error) {
	if w.last == nil {
		return nil, fmt.Errorf("no request was sent before this step")
	}
	if w.last.Response == nil {
		actual := "no response"
		if w.last.Err != nil {
			actual = noResponse(w.last.Err)
		} else if w.last.HTTP != nil {
			actual = fmt.Sprintf("HTTP %d without a JSON-RPC response", w.last.HTTP.Status)
			for _, f := range w.last.Frames {
				if len(bytes.TrimSpace(f.Raw)) > 0 {
					actual += " (body: " + short(f.Raw) + ")"
					break
				}
			}
		}
		return nil, &Mismatch{Expected: "a JSON-RPC response", Actual: actual, Frames: w.lastSeqs()}
	}
	msg, _ := harness.ParseMessage(w.last.Response.Body())
	return msg, nil
}

func (w *session) lastSeqs() []int {
	if w.last == nil {
		return nil
	}
	var out []int
	if w.last.Sent != nil {
		out = append(out, w.last.Sent.Seq)
	}
	for _, f := range w.last.Frames {
		out = append(out, f.Seq)
	}
	return out
}

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
