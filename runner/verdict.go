package runner

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
)

// verdictFacts is everything besides the scenario's own outcome that decides a result's
// verdict, gathered after the run (judgeRun): the judge's outcome for a run-wide rule, the
// suite's faults among the frames the result cites, the replies that came after the scenario
// concluded they would not, why the revision's capabilities are unknown, and the steps that
// asked the judge.
type verdictFacts struct {
	judge       judge.Outcome
	runWide     bool
	suiteFaults []string
	late        []lateAnswer
	capsUnknown string
	judgeSteps  []int
	// unlisted, set on a result (other than a DISC rule's) at a revision the server's
	// DiscoverResult did not list and the run saw it refuse with -32022, says so
	// (target.unlisted, disownedRevisions).
	unlisted string
	// dropped is how many server frames of the run came past the recorder's budget and were
	// neither kept nor judged (harness.Recorder.Admit).
	dropped int
}

// settle is the one verdict pass: it turns a result holding its scenario's outcome (the
// worst of its rows, see record and verdict) into its final verdict, once, after the run.
// Nothing judges mid-run. The precedence, first match wins:
//
//	| # | when                                                        | verdict                          |
//	|---|-------------------------------------------------------------|----------------------------------|
//	| 1 | the scenario is na (revision, transport, undeclared          | na                               |
//	|   | capability) and concluded no absence                         |                                  |
//	| 2 | a reply came after the scenario concluded it would not       | untestable, naming the frame and |
//	|   | (late reply; a probe only notes it)                          | the flag (--quiet-window, ...)   |
//	| 2b| the scenario or the judge found the rule broken at a         | untestable naming DISC-003       |
//	|   | revision the server's DiscoverResult did not list and that   |                                  |
//	|   | the run saw it refuse with -32022 (not for DISC rules)       |                                  |
//	| 3 | the scenario failed, or the judge found a MUST broken        | fail (a suite fault among its    |
//	|   |                                                              | frames is noted, never hides it) |
//	| 4 | a client frame the result cites violates the schema by       | error                            |
//	|   | mistake (suite fault)                                        |                                  |
//	| 5 | the judge found the rule broken (warn grade) and the         | warn                             |
//	|   | scenario has no verdict of its own on the server (pass,      |                                  |
//	|   | untestable, error, not run)                                  |                                  |
//	| 6 | the run stopped before the scenario finished                 | notrun                           |
//	| 7 | the scenario warned, gave info, was untestable or errored    | its verdict                      |
//	| 8 | the scenario passed and the judge judged nothing             | na with the judge's reason, or   |
//	|   |                                                              | untestable naming DISC-001 when  |
//	|   |                                                              | the capabilities are unknown     |
//	| 9 | the scenario passed                                          | pass (a run-wide rule notes how  |
//	|   |                                                              | many frames it judged)           |
//
// SCHEMA-001 is settled after every other result, over the violations no broken rule claims
// (judge.Reclaim). A scenario's own outcome is the worst of its rows (reports.Worse); a row is
// na or untestable from the reason its steps recorded, untestable when a precondition failed,
// fail or warn (its Mismatch's grade, or the rule's level) when a check did not hold, info for
// a probe or an observe-only rule, notrun when the run stopped it, error otherwise.
func settle(res *reports.Result, fa verdictFacts) {
	scenario := res.Verdict
	// 1. A gate's na stands: nothing of the run is about this rule here. An na that rested
	// on an absence is revisited by 2.
	if scenario == reports.NA && len(fa.late) == 0 {
		return
	}
	// 2. A late reply: the verdict rested on an absence that turned out false.
	if len(fa.late) > 0 && scenario != reports.Untestable {
		if settleLate(res, fa.late) {
			return
		}
	}
	// 2b. A revision the server's own DiscoverResult disowned, and whose requests it refused
	// with -32022: DISC-003's defect. No other verdict is claimed there, a pass included: its
	// exchanges were refusals, so a pass would rest on no evidence (go-sdk with sessions passed
	// CAP-001 and META-006 on tools/list calls it refused).
	if fa.unlisted != "" && (scenario == reports.Fail || scenario == reports.Warn || scenario == reports.Pass || (fa.runWide && fa.judge.Mismatch != nil)) {
		res.Verdict, res.Reason = reports.Untestable, fa.unlisted
		return
	}
	broken := fa.runWide && fa.judge.Mismatch != nil
	judgeFails := broken && judgeVerdict(fa.judge, res.Level) == reports.Fail
	fault := ""
	if len(fa.suiteFaults) > 0 {
		fault = fa.suiteFaults[0]
	}
	// 3. fail: error never hides fail.
	if scenario == reports.Fail || judgeFails {
		if scenario != reports.Fail {
			applyOutcome(res, fa.judge, fa.judgeSteps)
		}
		if fault != "" && !strings.Contains(res.Reason, fault) {
			res.Reason += " (note: " + fault + ")"
		}
		return
	}
	// 4. The suite's own fault.
	if fault != "" {
		res.Verdict, res.Reason = reports.Error, fault
		return
	}
	// 5. A run-wide rule broken with a warning: evidence from the whole run, whatever this
	// scenario's own traffic could show.
	if broken && (scenario == reports.Pass || scenario == reports.Untestable || scenario == reports.Error || scenario == reports.NotRun) {
		applyOutcome(res, fa.judge, fa.judgeSteps)
		return
	}
	// 6, 7. The scenario's own verdict.
	if scenario != reports.Pass {
		return
	}
	// 8, 9. A passed scenario of a run-wide rule takes the judge's outcome.
	if fa.runWide {
		applyOutcome(res, fa.judge, fa.judgeSteps)
		if res.Verdict == reports.NA && fa.capsUnknown != "" {
			// Nothing to judge because no DiscoverResult said which features to exercise.
			res.Verdict, res.Reason = reports.Untestable, fa.capsUnknown
		}
		if fa.dropped > 0 {
			// The judge reads the frames the recorder kept: say what it did not see.
			note := fmt.Sprintf("%d server frames past the recorder's budget were not judged", fa.dropped)
			if res.Verdict == reports.NA {
				res.Reason += "; " + note
			} else {
				res.Actual += "; " + note
			}
		}
	}
}

// settleLate applies the late replies to res: a probe's record notes each one (and settling
// goes on); any other verdict becomes untestable naming the first, and settleLate returns true.
func settleLate(res *reports.Result, late []lateAnswer) bool {
	for _, l := range late {
		what := fmt.Sprintf("a response came later (frame %d, after the quiet window that followed the sentinel's answer)", l.frame.Seq)
		if l.flag == "--timeout" {
			what = fmt.Sprintf("a response came later (frame %d, after the request's timeout)", l.frame.Seq)
		}
		res.Frames = append(res.Frames, l.frame.Seq)
		if res.Level == catalog.ProbeLevel {
			// A probe records: the record says what came, and when.
			res.Actual += "; " + what
			res.Reason += "; " + what
			continue
		}
		res.Verdict = reports.Untestable
		res.Reason = "the scenario concluded that no response would come, but " + what + ": rerun with a longer " + l.flag
		return true
	}
	return false
}
