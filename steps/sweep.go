package steps

import (
	"context"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// sweepCheck judges a rule over recorded frames: every frame (both directions, in seq order)
// of the connections that speak the revision under test. It returns nil when the rule holds
// (also when nothing in the frames bears on it) and a Mismatch citing the offending frames
// otherwise.
type sweepCheck func(frames []*harness.Frame) *Mismatch

// registerSweep makes rule a run-wide rule: the step returned judges the frames seen so far
// when the scenario runs, and after the last scenario the run judges the same check again
// over every frame of the revision, so a violation provoked by any other scenario (or after
// this one ran) still turns the rule's verdict. The step records the check in its run
// (env.sweeps) each time it runs; a rule has exactly one check, and only a rule whose step ran
// can have passed. Usage, in a register*Steps function:
//
//	step(sc, `^no notification the server sent in this run has an id$`, registerSweep("MSG-010", check))
func registerSweep(rule string, check sweepCheck) func(context.Context) error {
	return wc(func(ctx context.Context, w *world) error {
		w.s.env.addSweep(rule, check)
		if m := check(w.s.env.framesOf(w.s.t.revision)); m != nil {
			return m
		}
		return nil
	})
}

// addSweep records check as the run-wide check of rule for judgeSweeps.
func (e *env) addSweep(rule string, check sweepCheck) {
	e.mu.Lock()
	e.sweeps[rule] = check
	e.mu.Unlock()
}

// framesOf returns every recorded frame of the connections speaking rev, in seq order.
func (e *env) framesOf(rev string) []*harness.Frame {
	e.mu.Lock()
	connRev := make(map[int]string, len(e.connRev))
	for k, v := range e.connRev {
		connRev[k] = v
	}
	e.mu.Unlock()
	var out []*harness.Frame
	for _, f := range e.rec.Frames() {
		if connRev[f.Conn] == rev {
			out = append(out, f)
		}
	}
	return out
}

// judgeSweeps re-judges every passed result of a run-wide rule over all frames of its
// revision (see registerSweep).
func (e *env) judgeSweeps(run *reports.Run) {
	e.mu.Lock()
	checks := make(map[string]sweepCheck, len(e.sweeps))
	for k, v := range e.sweeps {
		checks[k] = v
	}
	e.mu.Unlock()
	byRev := map[string][]*harness.Frame{}
	for i := range run.Results {
		res := &run.Results[i]
		check, ok := checks[res.Rule]
		if !ok || res.Verdict != reports.Pass {
			continue
		}
		frames, seen := byRev[res.Revision]
		if !seen {
			frames = e.framesOf(res.Revision)
			byRev[res.Revision] = frames
		}
		m := check(frames)
		if m == nil {
			continue
		}
		res.Verdict = m.Grade
		if res.Verdict == "" {
			res.Verdict = levelVerdict(res.Level)
		}
		res.Expected, res.Actual, res.Reason = m.Expected, m.Actual, m.Error()
		res.Frames = dedupe(append(res.Frames, m.Frames...))
	}
}
