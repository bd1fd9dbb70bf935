package runner

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
)

// judgeRun feeds every recorded frame of the run to a new judge, in seq order, each to the
// revision its connection speaks (known for every connection once the run is over), gathers
// what the verdict pass needs for each result (the judge's outcome, the suite's faults among
// the frames it cites, a late reply to an absence it concluded, whether the revision's
// capabilities are unknown) and settles every result once (see settle, runner/verdict.go).
// Schema errors are attached to every result citing a server frame that has them.
func (e *env) judgeRun(run *reports.Run, capsUnknown, unlisted map[string]string) {
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
	late := e.lateReplies()
	dropped := e.rec.Dropped() - e.rec.Sampled()
	disowned := disownedRevisions(e.rec.Frames(), connRev, unlisted)
	facts := make([]verdictFacts, len(run.Results))
	for i := range run.Results {
		res := &run.Results[i]
		fa := &facts[i]
		if !strings.HasPrefix(res.Rule, discoverArea) {
			fa.unlisted = disowned[res.Revision]
		}
		for _, seq := range res.Frames {
			if len(res.SchemaErrors) < judge.MaxSchemaErrors {
				res.SchemaErrors = append(res.SchemaErrors, reportSchemaErrors(j.SchemaErrors(seq))...)
			}
			if why, bad := j.SuiteFault(seq); bad {
				fa.suiteFaults = append(fa.suiteFaults, why)
			}
		}
		fa.late = late[res.Rule+"@"+res.Revision]
		fa.capsUnknown = capsUnknown[res.Revision]
		fa.dropped = dropped
		fa.judgeSteps = e.judgeSteps[res.Rule+"@"+res.Revision]
		if res.Rule != schemaRule {
			fa.judge, fa.runWide = j.Outcome(res.Revision, res.Rule)
		}
	}
	// SCHEMA-001 is settled last: a violation that a broken rule claims is that rule's
	// (judge.Claim), so its outcome depends on the other rules' final verdicts.
	broken, ran := map[string]bool{}, map[string]bool{}
	for i := range run.Results {
		ran[run.Results[i].Rule+"@"+run.Results[i].Revision] = true
		if run.Results[i].Rule != schemaRule {
			settle(&run.Results[i], facts[i])
			if v := run.Results[i].Verdict; v == reports.Fail || v == reports.Warn {
				broken[run.Results[i].Rule+"@"+run.Results[i].Revision] = true
			}
		}
	}
	for i := range run.Results {
		res := &run.Results[i]
		if res.Rule == schemaRule {
			// At an older revision's target (focusRule) a rule that holds alike was judged at its
			// focus revision only: a violation there that such a rule claims is the same defect.
			focus := e.focusOf[res.Revision]
			facts[i].judge, facts[i].runWide = j.Reclaim(res.Revision, func(rule string) bool {
				return broken[rule+"@"+res.Revision] || (focus != "" && !ran[rule+"@"+res.Revision] && broken[rule+"@"+focus])
			})
			settle(res, facts[i])
		}
		res.Frames = append([]int{}, slices.Compact(slices.Sorted(slices.Values(res.Frames)))...) // sorted, each once, never nil
		if len(res.SchemaErrors) > judge.MaxSchemaErrors {
			res.SchemaErrors = res.SchemaErrors[:judge.MaxSchemaErrors]
		}
	}
}

// discoverArea is the id prefix of the server/discover rules: they judge the DiscoverResult
// itself, which a server that disowns its revision still gave (DISC-003 reports the list).
const discoverArea = "DISC-"

// disownedRevisions returns, by revision, the unlisted reason (target.unlisted) of each
// revision whose server refused at least one request of the run on one of that revision's
// connections (connRev) with -32022 (UnsupportedProtocolVersion, 2026-07-28
// basic/versioning): the server's list and its refusals agree that it does not serve the
// revision, so what else fails there is that one defect. A server that lists a revision
// wrongly but serves it is judged as usual.
func disownedRevisions(frames []*harness.Frame, connRev map[int]string, unlisted map[string]string) map[string]string {
	out := map[string]string{}
	if len(unlisted) == 0 {
		return out
	}
	for _, f := range frames {
		rev := connRev[f.Conn]
		if unlisted[rev] == "" || f.Dir != harness.DirServerToClient || !bytes.Contains(f.Raw, []byte("-32022")) {
			continue
		}
		if m, err := harness.ParseMessage(f.Raw); err == nil && m.Error != nil && m.Error.Code == harness.CodeUnsupportedProtocolVersion {
			out[rev] = unlisted[rev]
		}
	}
	return out
}

// schemaRule is SCHEMA-001, judged after every other rule (see judgeRun).
const schemaRule = "SCHEMA-001"

// reportSchemaErrors converts the judge's schema errors to the report model's.
func reportSchemaErrors(errs []judge.SchemaError) []reports.SchemaError {
	if errs == nil {
		return nil
	}
	out := make([]reports.SchemaError, len(errs))
	for i, e := range errs {
		out[i] = reports.SchemaError(e)
	}
	return out
}

// judgeVerdict maps the judge's status of a broken rule to a report verdict: Broken by the
// rule's level, BrokenWarning as warn.
func judgeVerdict(o judge.Outcome, level string) reports.Verdict {
	if o.Status() == judge.BrokenWarning {
		return reports.Warn
	}
	return levelVerdict(level)
}

// applyOutcome turns a result of a run-wide rule into the judge's outcome (settle decides when):
// on a mismatch the steps at judgeSteps (the ones that asked the judge) are marked failed, so
// the steps of a result agree with its verdict.
func applyOutcome(res *reports.Result, o judge.Outcome, judgeSteps []int) {
	switch o.Status() {
	case judge.Broken, judge.BrokenWarning:
		m := o.Mismatch
		for _, i := range judgeSteps {
			if i < len(res.Steps) && res.Steps[i].Status == "passed" {
				res.Steps[i].Status = "failed"
			}
		}
		res.Verdict = judgeVerdict(o, res.Level)
		res.Expected, res.Actual, res.Reason = m.Expected, m.Actual, m.Error()
		res.Frames = append(res.Frames, m.Frames...)
		if m.SchemaErrors != nil {
			res.SchemaErrors = reportSchemaErrors(m.SchemaErrors)
		}
	case judge.Unjudged:
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

// lateReplies looks, after the run, for the replies scenarios concluded would not come: per
// result key ("rule@revision"), the replies that came after all (later than the quiet
// window after the sentinel's answer, or the request's timeout), with the flag that would
// have waited for it. settle makes the verdict that rested on it untestable.
func (e *env) lateReplies() map[string][]lateAnswer {
	e.mu.Lock()
	absences := e.absences
	var unsolicited []*harness.Frame
	for _, t := range e.conns {
		if s, ok := t.Process(); ok {
			unsolicited = append(unsolicited, s.Unsolicited()...)
		}
	}
	e.mu.Unlock()
	out := map[string][]lateAnswer{}
	for key, list := range absences {
		for _, a := range list {
			if f := lateReply(a, unsolicited); f != nil {
				out[key] = append(out[key], lateAnswer{frame: f, flag: a.Flag})
			}
		}
	}
	return out
}

// lateAnswer is a reply that came after its scenario concluded it would not: the frame and the
// flag (--quiet-window, --timeout) that would have waited for it.
type lateAnswer struct {
	frame *harness.Frame
	flag  string
}

// lateReply returns the first of the unsolicited server frames that answers the request of a
// after its absence was concluded: a response on the same connection with the request's id, or
// with no id or id null (the answer to a message whose id could not be read); nil when none
// came.
func lateReply(a client.Absence, unsolicited []*harness.Frame) *harness.Frame {
	for _, f := range unsolicited {
		if f.Conn != a.Conn || f.Seq <= a.After {
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
		if key == a.Key || key == "" || key == "null" {
			return f
		}
	}
	return nil
}
