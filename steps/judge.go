package steps

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
)

// askJudge is the step of a run-wide rule: the rule's verdict comes from the judge (package
// judge) after the run, over every frame of the revision, so a violation provoked by any
// other scenario (or after this one ran) still turns it. The step itself checks that the
// judge's table has the rule and, for a rule that is na without subject (judge.None), that
// the run so far gave it something to judge: otherwise the rule is na now, with that reason.
// Usage, in a register*Steps function:
//
//	step(sc, `^no notification the server sent in this run has an id$`, askJudge("MSG-010"))
func askJudge(rule string) func(context.Context) error {
	return wc(func(ctx context.Context, w *world) error {
		w.judgeAsked = true
		if !judge.Has(rule) {
			return fmt.Errorf("feature bug: rule %s is not in the judge's table", rule)
		}
		if none := judge.None(rule); none != "" && w.s.env.soFar.judged(w.s.env, w.s.t.revision, rule) == 0 {
			return w.undeclared(none)
		}
		return nil
	})
}

// soFarJudge answers, during the run, how many frames a rule that is na without subject has
// judged so far: a judge holding only those rules, fed the frames recorded since the last
// question (no schema validation). The run's verdicts come from the judge of judgeRun.
type soFarJudge struct {
	mu   sync.Mutex
	j    *judge.Judge
	mark int
}

func (s *soFarJudge) judged(e *env, rev, rule string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.j == nil {
		var rules []string
		for _, id := range judge.Rules() {
			if judge.None(id) != "" {
				rules = append(rules, id)
			}
		}
		s.j = judge.New(judge.Config{Rules: rules})
	}
	frames := e.rec.Frames()
	e.mu.Lock()
	revs := make([]string, len(frames)-s.mark)
	for i, f := range frames[s.mark:] {
		revs[i] = e.connRev[f.Conn]
	}
	e.mu.Unlock()
	for i, f := range frames[s.mark:] {
		s.j.Feed(revs[i], f)
	}
	s.mark = len(frames)
	return s.j.Judged(rev, rule)
}

// judgeRun feeds every recorded frame of the run to a new judge, in seq order, each to the
// revision its connection speaks (known for every connection once the run is over), and folds
// the judge's findings into the results: schema errors are attached to every result citing a
// server frame that has them, a result citing a client frame that violates the schema (not
// on purpose) becomes error, and every passed result of a rule of the judge's table takes the
// judge's outcome: a mismatch (fail or warn, the frames it cites), na when the check judged
// nothing and its entry says so, else a pass noting how many frames were judged.
func (e *env) judgeRun(run *reports.Run, capsUnknown map[string]string) {
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
				if res.Verdict != reports.Fail {
					res.Verdict, res.Reason = reports.Error, why
				} else if !strings.Contains(res.Reason, why) {
					// error never hides fail: the failure stands, with the suite's fault noted.
					res.Reason += " (note: " + why + ")"
				}
			}
		}
		if o, ok := j.Outcome(res.Revision, res.Rule); ok && res.Verdict == reports.Pass && res.Rule != schemaRule {
			applyOutcome(res, o, e.judgeSteps[res.Rule+"@"+res.Revision])
			if why := capsUnknown[res.Revision]; why != "" && res.Verdict == reports.NA {
				// Nothing to judge because no DiscoverResult said which features to exercise.
				res.Verdict, res.Reason = reports.Untestable, why
			}
		}
	}
	e.reviewAbsences(run)
	// SCHEMA-001 last: a violation that a broken rule claims is that rule's (judge.Claim).
	broken := map[string]bool{}
	for _, res := range run.Results {
		if res.Verdict == reports.Fail || res.Verdict == reports.Warn {
			broken[res.Rule+"@"+res.Revision] = true
		}
	}
	for i := range run.Results {
		res := &run.Results[i]
		if res.Rule == schemaRule && res.Verdict == reports.Pass {
			o, ok := j.Reclaim(res.Revision, func(rule string) bool { return broken[rule+"@"+res.Revision] })
			if ok {
				applyOutcome(res, o, e.judgeSteps[res.Rule+"@"+res.Revision])
			}
		}
		res.Frames = dedupe(res.Frames)
		if len(res.SchemaErrors) > judge.MaxSchemaErrors {
			res.SchemaErrors = res.SchemaErrors[:judge.MaxSchemaErrors]
		}
	}
}

// schemaRule is SCHEMA-001, judged after every other rule (see judgeRun).
const schemaRule = "SCHEMA-001"

// applyOutcome turns a passed result of a run-wide rule into the judge's verdict; on a
// mismatch the steps at judgeSteps (the ones that asked the judge) are marked failed, so the
// steps of a result agree with its verdict.
func applyOutcome(res *reports.Result, o judge.Outcome, judgeSteps []int) {
	switch m := o.Mismatch; {
	case m != nil:
		for _, i := range judgeSteps {
			if i < len(res.Steps) && res.Steps[i].Status == "passed" {
				res.Steps[i].Status = "failed"
			}
		}
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
		if o.Note != "" {
			res.Actual += "; " + o.Note
		}
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

// reviewAbsences looks, after the run, for the replies scenarios concluded would not come: a
// verdict that rested on one that came after all (later than the quiet window after the
// sentinel's answer) is untestable, naming the frame and the flag that would have waited for it.
func (e *env) reviewAbsences(run *reports.Run) {
	e.mu.Lock()
	absences := e.absences
	var unsolicited []*harness.Frame
	for _, t := range e.conns {
		if s, ok := t.(*harness.Stdio); ok {
			unsolicited = append(unsolicited, s.Unsolicited()...)
		}
	}
	e.mu.Unlock()
	if len(absences) == 0 {
		return
	}
	for i := range run.Results {
		res := &run.Results[i]
		for _, a := range absences[res.Rule+"@"+res.Revision] {
			f := lateReply(a, unsolicited)
			if f == nil || res.Verdict == reports.Untestable {
				continue
			}
			late := fmt.Sprintf("a response came later (frame %d, after the quiet window that followed the sentinel's answer)", f.Seq)
			if a.flag == "--timeout" {
				late = fmt.Sprintf("a response came later (frame %d, after the request's timeout)", f.Seq)
			}
			res.Frames = append(res.Frames, f.Seq)
			if res.Level == probeLevel {
				// A probe records: the record says what came, and when.
				res.Actual += "; " + late
				res.Reason += "; " + late
				continue
			}
			res.Verdict = reports.Untestable
			res.Reason = "the scenario concluded that no response would come, but " + late + ": rerun with a longer " + a.flag
			break
		}
	}
}

// lateReply returns the first of the unsolicited server frames that answers the request of a
// after its absence was concluded: a response on the same connection with the request's id, or
// with no id or id null (the answer to a message whose id could not be read); nil when none
// came.
func lateReply(a absence, unsolicited []*harness.Frame) *harness.Frame {
	for _, f := range unsolicited {
		if f.Conn != a.conn || f.Seq <= a.after {
			continue
		}
		msg, err := harness.ParseMessage(f.Body())
		if err != nil || msg.Kind != harness.KindResult && msg.Kind != harness.KindError {
			continue
		}
		key := ""
		if msg.HasID {
			key = harness.IDKey(msg.ID)
		}
		// An error with no id or id null answers a message the server could not read the id
		// of: any malformed message on that connection, this one included.
		if key == a.key || key == "" || key == "null" {
			return f
		}
	}
	return nil
}
