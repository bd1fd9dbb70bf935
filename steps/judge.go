package steps

import (
	"context"
	"fmt"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
)

// askJudge is the step of a run-wide rule: the rule's verdict comes from the judge (package
// judge) after the run, over every frame of the revision, so a violation provoked by any
// other scenario (or after this one ran) still turns it. The step itself only checks that the
// judge's table has the rule. Usage, in a register*Steps function:
//
//	step(sc, `^no notification the server sent in this run has an id$`, askJudge("MSG-010"))
func askJudge(rule string) func(context.Context) error {
	return func(context.Context) error {
		if !judge.Has(rule) {
			return fmt.Errorf("feature bug: rule %s is not in the judge's table", rule)
		}
		return nil
	}
}

// judgeRun feeds every recorded frame of the run to a new judge, in seq order, each to the
// revision its connection speaks (known for every connection once the run is over), and folds
// the judge's findings into the results: schema errors are attached to every result citing a
// server frame that has them, a result citing a client frame that violates the schema (not
// on purpose) becomes error, and every passed result of a rule of the judge's table takes the
// judge's outcome: a mismatch (fail or warn, the frames it cites), na when the check judged
// nothing and its entry says so, else a pass noting how many frames were judged.
func (e *env) judgeRun(run *reports.Run) {
	e.mu.Lock()
	connRev := make(map[int]string, len(e.connRev))
	for k, v := range e.connRev {
		connRev[k] = v
	}
	e.mu.Unlock()
	j := judge.New(judge.Config{Schemas: e.cfg.Schemas, Rules: e.cfg.Rules})
	for _, f := range e.rec.Frames() {
		j.Feed(connRev[f.Conn], f)
	}
	j.Finish()
	run.Notes = append(run.Notes, j.Notes()...)
	for i := range run.Results {
		res := &run.Results[i]
		for _, seq := range res.Frames {
			if len(res.SchemaErrors) < judge.MaxSchemaErrors {
				res.SchemaErrors = append(res.SchemaErrors, j.SchemaErrors(seq)...)
			}
			if why, bad := j.SuiteFault(seq); bad && res.Verdict != reports.NA {
				res.Verdict, res.Reason = reports.Error, why
			}
		}
		if o, ok := j.Outcome(res.Revision, res.Rule); ok && res.Verdict == reports.Pass {
			applyOutcome(res, o)
		}
		res.Frames = dedupe(res.Frames)
		if len(res.SchemaErrors) > judge.MaxSchemaErrors {
			res.SchemaErrors = res.SchemaErrors[:judge.MaxSchemaErrors]
		}
	}
}

// applyOutcome turns a passed result of a run-wide rule into the judge's verdict.
func applyOutcome(res *reports.Result, o judge.Outcome) {
	switch m := o.Mismatch; {
	case m != nil:
		res.Verdict = m.Grade
		if res.Verdict == "" {
			res.Verdict = levelVerdict(res.Level)
		}
		res.Expected, res.Actual, res.Reason = m.Expected, m.Actual, m.Error()
		res.Frames = append(res.Frames, m.Frames...)
		if m.SchemaErrors != nil {
			res.SchemaErrors = append([]reports.SchemaError(nil), m.SchemaErrors...)
		}
	case o.NA != "":
		res.Verdict, res.Reason = reports.NA, o.NA
	default:
		res.Actual = fmt.Sprintf("%d frames judged", o.Judged)
	}
}

// replyRequest returns the client frame whose HTTP response carried server frame f (its
// ReplyTo), nil when there is none.
func (e *env) replyRequest(f *harness.Frame) *harness.Frame {
	if f.ReplyTo == 0 {
		return nil
	}
	for _, c := range e.rec.Frames() {
		if c.Seq == f.ReplyTo {
			return c
		}
	}
	return nil
}
