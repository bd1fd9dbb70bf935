// Package steps binds the Gherkin features to the client: the step vocabulary of every area,
// each registered from its own file (BindAll), and World, the state of one scenario, which
// embeds its client.Session.
package steps

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
)

// World is the state of one scenario: the connection it talks to, the exchanges it made and
// what the steps concluded. NewWorld makes a new one for every scenario (and Outline row).
type World struct {
	*client.Session
	// once holds the effects of steps done once per target, shared by every world of the
	// target (see oncePerTarget).
	once       *sync.Map
	Rule       catalog.Rule // the rule of the scenario's `@rule:` tag
	Known      bool         // the `@rule:` tag names a rule of the run's catalogue
	Excluded   bool         // --rule left the rule out: the scenario is skipped and not recorded
	OutlineRow bool         // the scenario is one row of a Scenario Outline
	Started    time.Time    // when the scenario started, for the result's duration

	Skip  *client.Outcome // the outcome that ended the scenario early, nil when none
	Steps []reports.Step  // the steps run so far, with their status, for the report
	// Observed are the one-line records of a PROBE scenario (see registerProbesSteps).
	Observed []string
	// JudgeAsked is set by a step that asks the judge (AskJudge) until the step is recorded.
	JudgeAsked bool
	// JudgeSteps are the indexes in Steps of the steps that asked the judge.
	JudgeSteps []int
	// Stopped is set when the run's context had ended (interrupt, --run-timeout) by the time
	// the scenario finished (see stoppedByRun).
	Stopped bool
	// ObserveOnly, when set, says why this server is not bound by the rule: a broken
	// expectation is then recorded as info with this reason (see bindsModernOnly).
	ObserveOnly string

	// states holds each area's scenario state by type, made on first use (stateOf): an area
	// declares its state type and accessor (hdrOf, toolOf, ...) in its own file, so adding an
	// area adds no field here.
	statesMu sync.Mutex
	states   map[reflect.Type]any
}

// NewWorld returns the state of a new scenario (or Outline row, when outlineRow) speaking
// through sess; once is its target's record of the effects done once per target. It is the
// only place a world is made: every scenario starts from the same empty state.
func NewWorld(sess *client.Session, once *sync.Map, outlineRow bool) *World {
	return &World{
		Session: sess, once: once, Started: time.Now(), OutlineRow: outlineRow,
	}
}

// SetSkip records that the scenario ends early with verdict v (na, untestable or not run) and
// reason, and returns ErrSkip for the step or hook to return.
func (w *World) SetSkip(v reports.Verdict, reason string) error {
	w.Skip = &client.Outcome{Verdict: v, Reason: reason}
	return ErrSkip
}

// nilIfNil returns a check's mismatch m as the step's error: nil when m is nil (a typed nil
// is no nil error), so the rule holds.
func nilIfNil(m *client.Mismatch) error {
	if m == nil {
		return nil
	}
	return m
}

// naOrMismatch turns a check's outcome into the step's: na with its reason when na is set,
// else the mismatch m (nilIfNil).
func (w *World) naOrMismatch(na string, m *client.Mismatch) error {
	if na != "" {
		return w.SetSkip(reports.NA, na)
	}
	return nilIfNil(m)
}

// onceResult is the outcome of a step effect done once per target.
type onceResult struct {
	once sync.Once
	val  any
	err  error
}

// oncePerTarget runs fn the first time key is asked for on the scenario's target; later
// callers (concurrent ones included) wait for that first call and get its error. Traffic whose
// only purpose is to give run-wide rules (AskJudge) material needs sending once: every such
// rule judges all frames of the revision.
func (w *World) oncePerTarget(key string, fn func() error) error {
	v, _ := w.once.LoadOrStore(key, &onceResult{})
	r := v.(*onceResult)
	r.once.Do(func() { r.err = fn() })
	return r.err
}

// oncePerTargetValue is oncePerTarget for an effect with a value: every caller of key gets
// the value and error of the first call of fn.
func (w *World) oncePerTargetValue(key string, fn func() (any, error)) (any, error) {
	v, _ := w.once.LoadOrStore(key, &onceResult{})
	r := v.(*onceResult)
	r.once.Do(func() { r.val, r.err = fn() })
	return r.val, r.err
}

// ErrSkip ends a scenario early with the outcome recorded in its world.
var ErrSkip = godog.ErrSkip

// WorldKey is the context key under which the runner stores the scenario's *World.
type WorldKey struct{}

// WorldOf returns the scenario's World from a step's context; it panics when ctx holds none
// (a step run outside a scenario the runner started).
func WorldOf(ctx context.Context) *World { return ctx.Value(WorldKey{}).(*World) }

// DiscoverUnserved says why a scenario that did not hold cannot be judged on a modern target
// whose server/discover gave no DiscoverResult at the era probe (Target.CapsUnknown): when the
// scenario itself sent server/discover, as its subject or as the vehicle of another rule
// (META-001's missing _meta, MSG-003's id, a header rule's request), and got no DiscoverResult
// back, the unexpected answer is DISC-001's defect (server/index#Discovery: servers MUST
// implement server/discover), not the scenario rule's. It returns "" otherwise, and always for
// DISC-001 itself.
func (w *World) DiscoverUnserved() string {
	if w.Target.CapsUnknown == "" || w.Rule.ID == "DISC-001" {
		return ""
	}
	for _, ex := range w.Exchanges {
		if ex.Sent == nil || ex.Sent.Method != "server/discover" {
			continue
		}
		// Only a JSON-RPC answer that is no DiscoverResult is DISC-001's: no answer at all (an
		// HTTP 405, silence) may be another rule's defect (HTTP-001, STDIO-005).
		if msg := client.ResponseOf(ex); msg != nil && (msg.Error != nil || len(msg.Result) == 0) {
			return "server/discover gave no DiscoverResult (" + client.DescribeExchange(ex) + "), which DISC-001 judges"
		}
	}
	return ""
}

// stepRegexps caches the compiled step expressions: godog binds the steps again for every
// scenario, and compiling a few hundred expressions each time dominated a run's CPU time.
var stepRegexps sync.Map

// step binds fn to the step expression expr in sc, compiling expr once per process.
func step(sc *godog.ScenarioContext, expr string, fn any) {
	re, ok := stepRegexps.Load(expr)
	if !ok {
		re, _ = stepRegexps.LoadOrStore(expr, regexp.MustCompile(expr))
	}
	sc.Step(re.(*regexp.Regexp), fn)
}

// AskJudge is the step of a run-wide rule: the rule's verdict comes from the judge (package
// judge) after the run, over every frame of the revision, so a violation provoked by any
// other scenario (or after this one ran) still turns it. The step itself only checks that
// the judge's table has the rule: nothing judges mid-run, so whether the rule has a subject
// (judge.None) is decided by the verdict pass (settle), never by what the run had recorded
// when the step ran.
// Usage, in a register*Steps function:
//
//	step(sc, `^no notification the server sent in this run has an id$`, AskJudge("MSG-010"))
func AskJudge(rule string) func(context.Context) error {
	return wc(func(ctx context.Context, w *World) error {
		w.JudgeAsked = true
		if !judge.Has(rule) {
			return fmt.Errorf("feature bug: rule %s is not in the judge's table", rule)
		}
		return nil
	})
}
