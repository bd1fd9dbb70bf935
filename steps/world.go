package steps

import (
	"reflect"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/reports"
)

// world is the state of one scenario: the connection it talks to, the exchanges it made and
// what the steps concluded. newWorld makes a new one for every scenario (and Outline row).
type world struct {
	*client.Session
	s          *suiteRun
	rule       Rule
	known      bool
	excluded   bool
	outlineRow bool
	started    time.Time

	skip  *client.Outcome
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
		Session: newSession(s), s: s, started: time.Now(), outlineRow: outlineRow,
	}
}

func (w *world) setSkip(v reports.Verdict, reason string) error {
	w.skip = &client.Outcome{Verdict: v, Reason: reason}
	return errSkip
}
