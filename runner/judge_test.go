package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/steps"
)

// A client frame that violates the schema by mistake makes the results citing it error, but
// never hides a failure (DESIGN "Verdict principles": error never hides fail).
func TestSuiteFaultNeverHidesFail(t *testing.T) {
	rec := harness.NewRecorder(time.Now())
	conn := rec.NewConn()
	bad := rec.Record(&harness.Frame{Dir: harness.DirClientToServer, Transport: harness.TransportStdio, Conn: conn, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}`)})
	modern := revisions.Modern().ID
	e := &env{cfg: Config{Schemas: testutil.Schemas(t)}, rec: rec, connRev: map[int]string{conn: modern}}
	run := &reports.Run{Results: []reports.Result{
		{Rule: "TOOL-001", Level: "MUST", Revision: modern, Verdict: reports.Fail, Reason: "expected a result", Frames: []int{bad.Seq}},
		{Rule: "TOOL-002", Level: "MUST", Revision: modern, Verdict: reports.Pass, Frames: []int{bad.Seq}},
	}}
	e.judgeRun(run, nil, nil)
	require.Equal(t, reports.Fail, run.Results[0].Verdict)
	require.Contains(t, run.Results[0].Reason, "expected a result (note: mcp-conform sent a frame")
	require.Equal(t, reports.Error, run.Results[1].Verdict)
}

// A run-wide rule's verdict comes from the judge after the run: when it is a mismatch, the
// step that asked the judge is marked failed, so a card never shows warn with every step
// passed.
func TestJudgeMismatchMarksItsStepFailed(t *testing.T) {
	res := &reports.Result{Rule: "MSG-017", Level: "SHOULD", Verdict: reports.Pass, Steps: []reports.Step{
		{Text: "a connected server", Status: "passed"},
		{Text: "every error message the server sent in this run is one short line", Status: "passed"},
	}}
	applyOutcome(res, judge.Outcome{Judged: 1, Mismatch: &judge.Mismatch{Expected: "one line", Actual: "two"}}, []int{1})
	require.Equal(t, reports.Warn, res.Verdict)
	require.Equal(t, "passed", res.Steps[0].Status)
	require.Equal(t, "failed", res.Steps[1].Status)
}

// TestLateReplyFindsTheAnswerThatCameAfterAll: a response concluded absent by a sentinel is
// found when it came later on the same connection (by id, or with id null for a request whose
// id could not be read), and not for another connection, another id or an earlier frame.
func TestLateReplyFindsTheAnswerThatCameAfterAll(t *testing.T) {
	frame := func(seq, conn int, raw string) *harness.Frame {
		return &harness.Frame{Seq: seq, Conn: conn, Dir: harness.DirServerToClient, Transport: harness.TransportStdio, Raw: []byte(raw)}
	}
	unsolicited := []*harness.Frame{
		frame(3, 1, `{"jsonrpc":"2.0","id":7,"result":{}}`), // before the conclusion
		frame(9, 2, `{"jsonrpc":"2.0","id":7,"result":{}}`), // another connection
		frame(10, 1, `{"jsonrpc":"2.0","id":8,"result":{}}`),
		frame(11, 1, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`),
		frame(12, 1, `{"jsonrpc":"2.0","id":7,"result":{}}`),
		frame(13, 1, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`),
	}
	require.Equal(t, 12, lateReply(client.Absence{Conn: 1, Key: "7", After: 5}, unsolicited).Seq)
	require.Equal(t, 13, lateReply(client.Absence{Conn: 1, Key: "", After: 5}, unsolicited).Seq)
	require.Equal(t, 13, lateReply(client.Absence{Conn: 1, Key: "9", After: 5}, unsolicited).Seq, "an id-null error may answer it")
	require.Nil(t, lateReply(client.Absence{Conn: 1, Key: "9", After: 13}, unsolicited))
	require.Nil(t, lateReply(client.Absence{Conn: 3, Key: "7", After: 0}, unsolicited))
}

// TestNoteRecordsConcludedAbsences: an exchange that ended without its response records an
// absence naming the flag that would have waited longer (a sentinel's quiet window, the
// request's deadline); an answered exchange, or one stopped with the run, records none.
func TestNoteRecordsConcludedAbsences(t *testing.T) {
	w, s := clientWorldRun(harness.TransportStdio, revisions.Modern().ID)
	s.env.rec = harness.NewRecorder(time.Now())
	sent := &harness.Frame{Seq: 4, Conn: 2, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)}
	w.Note(&harness.Exchange{Sent: sent, Err: &harness.NoReplyError{What: "ping (id 7)"}})
	w.Note(&harness.Exchange{Sent: sent, Err: &harness.TimeoutError{What: "ping (id 7)", Err: context.DeadlineExceeded}})
	w.Note(&harness.Exchange{Sent: sent, Err: &harness.TimeoutError{What: "ping (id 7)", Err: context.Canceled}})
	w.Note(&harness.Exchange{Sent: sent, Response: &harness.Frame{Seq: 5}})
	// A first request waits the startup timeout: that is the flag to raise.
	w.Opts.StartupTimeout = time.Minute
	w.Note(&harness.Exchange{Sent: sent, Err: &harness.TimeoutError{What: "ping (id 7)", Err: context.DeadlineExceeded, Waited: time.Minute}})
	require.Equal(t, []client.Absence{
		{Conn: 2, Key: "7", Flag: "--quiet-window"},
		{Conn: 2, Key: "7", Flag: "--timeout"},
		{Conn: 2, Key: "7", Flag: "--startup-timeout"},
	}, w.Absent)
}

// TestNoSubjectRuleDoesNotTurnNAMidRun: CONT-003 is na when the run gives it no annotation
// (judge.None). Its step ran before any annotation was recorded; an annotation with a priority
// out of range came later in the run. Nothing judges mid-run: the step leaves the verdict to
// the verdict pass, which fails the rule on the later frame (before, the step made the rule
// na and the later violation was hidden).
func TestNoSubjectRuleDoesNotTurnNAMidRun(t *testing.T) {
	modern := revisions.Modern().ID
	w, s := clientWorldRun(harness.TransportStdio, modern)
	rec := harness.NewRecorder(time.Now())
	conn := rec.NewConn()
	s.env.rec, s.env.connRev = rec, map[int]string{conn: modern}
	require.NotEmpty(t, judge.None("CONT-003"))

	require.NoError(t, steps.AskJudge("CONT-003")(context.WithValue(context.Background(), steps.WorldKey{}, w)))
	require.Nil(t, w.Skip, "the step must not decide na from what the run recorded so far")

	rec.Record(&harness.Frame{Dir: harness.DirClientToServer, Transport: harness.TransportStdio, Conn: conn, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`)})
	rec.Record(&harness.Frame{Dir: harness.DirServerToClient, Transport: harness.TransportStdio, Conn: conn, Method: "tools/call",
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x","annotations":{"priority":7}}]}}`)})
	run := &reports.Run{Results: []reports.Result{{Rule: "CONT-003", Level: "MUST", Revision: modern, Verdict: reports.Pass}}}
	s.env.judgeRun(run, nil, nil)
	require.Equal(t, reports.Fail, run.Results[0].Verdict, run.Results[0].Reason)
	require.Equal(t, []int{2}, run.Results[0].Frames)
}

// TestSettlePrecedence walks the written precedence of settle: a gate's na stands, a late
// reply makes untestable, a judge failure beats a scenario's untestable and error and a
// run stopped, a suite fault is error unless the rule failed, a rule not run stays not run
// unless the judge found it broken, and a passed run-wide rule with nothing to judge is na,
// or untestable when the capabilities are unknown.
func TestSettlePrecedence(t *testing.T) {
	broken := judge.Outcome{Judged: 3, Mismatch: &judge.Mismatch{Expected: "x", Actual: "y", Frames: []int{9}}}
	warned := judge.Outcome{Judged: 3, Mismatch: &judge.Mismatch{Expected: "x", Actual: "y", Grade: judge.Warning}}
	held := judge.Outcome{Judged: 3}
	none := judge.Outcome{NA: "nothing to judge"}
	late := []lateAnswer{{frame: &harness.Frame{Seq: 12}, flag: "--quiet-window"}}
	cases := []struct {
		name     string
		scenario reports.Verdict
		fa       verdictFacts
		want     reports.Verdict
	}{
		{"gate na stands over a judge failure", reports.NA, verdictFacts{judge: broken, runWide: true}, reports.NA},
		{"late reply revisits an na", reports.NA, verdictFacts{late: late}, reports.Untestable},
		{"late reply beats a fail", reports.Fail, verdictFacts{late: late}, reports.Untestable},
		{"judge fail beats untestable", reports.Untestable, verdictFacts{judge: broken, runWide: true}, reports.Fail},
		{"judge fail beats error", reports.Error, verdictFacts{judge: broken, runWide: true}, reports.Fail},
		{"judge fail beats not run", reports.NotRun, verdictFacts{judge: broken, runWide: true}, reports.Fail},
		{"judge fail beats a suite fault", reports.Pass, verdictFacts{judge: broken, runWide: true, suiteFaults: []string{"bad frame"}}, reports.Fail},
		{"suite fault is error", reports.Pass, verdictFacts{judge: held, runWide: true, suiteFaults: []string{"bad frame"}}, reports.Error},
		{"judge warning on a pass", reports.Pass, verdictFacts{judge: warned, runWide: true}, reports.Warn},
		{"not run stays not run", reports.NotRun, verdictFacts{judge: held, runWide: true}, reports.NotRun},
		{"nothing to judge is na", reports.Pass, verdictFacts{judge: none, runWide: true}, reports.NA},
		{"nothing to judge, capabilities unknown", reports.Pass, verdictFacts{judge: none, runWide: true, capsUnknown: "no DiscoverResult"}, reports.Untestable},
		{"held is pass", reports.Pass, verdictFacts{judge: held, runWide: true}, reports.Pass},
		{"a scenario's own warn stands", reports.Warn, verdictFacts{judge: held, runWide: true}, reports.Warn},
		{"a fail on a disowned revision's refusal is DISC-003's", reports.Fail, verdictFacts{unlisted: "disowned"}, reports.Untestable},
		{"a warn on a disowned revision's refusal is DISC-003's", reports.Warn, verdictFacts{unlisted: "disowned"}, reports.Untestable},
		{"a pass on a disowned revision rests on refusals: untestable", reports.Pass, verdictFacts{unlisted: "disowned"}, reports.Untestable},
		{"an info on a disowned revision stands", reports.Info, verdictFacts{unlisted: "disowned"}, reports.Info},
		{"a judge failure on a disowned revision is DISC-003's", reports.Pass, verdictFacts{judge: broken, runWide: true, unlisted: "disowned"}, reports.Untestable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := &reports.Result{Rule: "MSG-010", Level: "MUST", Verdict: c.scenario}
			settle(res, c.fa)
			require.Equal(t, c.want, res.Verdict, res.Reason)
		})
	}
}

// TestDroppedFramesAreNamedOnRunWideResults: the judge reads the frames the recorder kept, so
// a run-wide result of a run whose recorder dropped frames past its budget says so.
func TestDroppedFramesAreNamedOnRunWideResults(t *testing.T) {
	modern := revisions.Modern().ID
	rec := harness.NewRecorder(time.Now())
	rec.SetLimit(2)
	conn := rec.NewConn()
	note := func(i int) *harness.Frame {
		return &harness.Frame{Dir: harness.DirServerToClient, Transport: harness.TransportStdio, Conn: conn, Method: "notifications/message",
			Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)}
	}
	for i := 0; i < 2+2000; i++ {
		if f := note(i); rec.Admit(f) {
			rec.Record(f)
		}
	}
	require.Greater(t, rec.Dropped()-rec.Sampled(), 0)
	e := &env{rec: rec, connRev: map[int]string{conn: modern}}
	run := &reports.Run{Results: []reports.Result{{Rule: "MSG-010", Level: "MUST", Revision: modern, Verdict: reports.Pass}}}
	e.judgeRun(run, nil, nil)
	require.Equal(t, reports.Pass, run.Results[0].Verdict)
	require.Contains(t, run.Results[0].Actual, "server frames past the recorder's budget were not judged")
}

// clientWorldRun is a world on a target of revision rev over transport, with the run it
// belongs to.
func clientWorldRun(transport, rev string) (*steps.World, *suiteRun) {
	e := &env{cfg: Config{Transport: transport, FixtureMap: map[string]string{"test_echo": "echo"}}}
	s := &suiteRun{env: e, t: &target{revision: rev, modern: revisions.IsModern(rev)}}
	return scenarioWorld(s, false), s
}

func TestPreconditionFailedIsUntestableNamingTheRule(t *testing.T) {
	s := &suiteRun{t: &target{}}
	w := &steps.World{Session: &client.Session{}, Rule: catalog.Rule{ID: "CAP-008", Level: "MUST"}}
	err := client.ListPrecondition(&client.ListRefused{Method: "tools/list", Page: 1, Actual: "error -32603 (boom)"}, "TOOL-001")
	v, reason, _, _ := s.verdict(w, err)
	require.Equal(t, reports.Untestable, v)
	require.Equal(t, "tools/list was answered with error -32603 (boom) (TOOL-001 judges that)", reason)

	// A mismatch of the page shape is the pager's; a transport error stays an error.
	err = client.ListPrecondition(&client.Mismatch{Expected: "nextCursor to be a string", Actual: "nextCursor null"}, "PAGE-001")
	v, _, _, _ = s.verdict(w, err)
	require.Equal(t, reports.Untestable, v)
	boom := errors.New("connection reset")
	require.Same(t, boom, client.ListPrecondition(boom, "PAGE-001"))
	v, _, _, _ = s.verdict(w, boom)
	require.Equal(t, reports.Error, v)
}

// TestUnlistedRevision: only a modern target whose DiscoverResult lists versions without its
// own revision has disowned it; an unknown list, a listed revision or a legacy target has not.
func TestUnlistedRevision(t *testing.T) {
	modern := revisions.Modern().ID
	legacy := revisions.LatestLegacy().ID
	cases := []struct {
		name string
		tg   *target
		want bool
	}{
		{"listed without its own revision", &target{revision: modern, modern: true, supported: []string{legacy}}, true},
		{"listed with it", &target{revision: modern, modern: true, supported: []string{modern, legacy}}, false},
		{"no list", &target{revision: modern, modern: true}, false},
		{"no DiscoverResult", &target{revision: modern, modern: true, supported: []string{legacy}, capsUnknown: "no result"}, false},
		{"legacy target", &target{revision: legacy, supported: []string{modern}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			why := c.tg.unlisted()
			require.Equal(t, c.want, why != "", why)
			if c.want {
				require.Contains(t, why, "DISC-003")
			}
		})
	}
}

// TestDisownedRevisions: a revision is disowned only when its target's list lacks it and a
// server frame on one of its connections is a -32022 error; a result or a client frame that
// merely mentions the code, or a refusal on another revision's connection, does not count.
func TestDisownedRevisions(t *testing.T) {
	unlisted := map[string]string{"new": "disowned"}
	connRev := map[int]string{1: "new", 2: "old"}
	frame := func(conn int, dir harness.Direction, raw string) *harness.Frame {
		return &harness.Frame{Conn: conn, Dir: dir, Raw: []byte(raw)}
	}
	refusal := `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"unsupported"}}`
	cases := []struct {
		name   string
		frames []*harness.Frame
		want   map[string]string
	}{
		{"refused on its connection", []*harness.Frame{frame(1, harness.DirServerToClient, refusal)}, unlisted},
		{"a result mentioning the code", []*harness.Frame{frame(1, harness.DirServerToClient, `{"jsonrpc":"2.0","id":2,"result":{"note":"-32022"}}`)}, map[string]string{}},
		{"another error", []*harness.Frame{frame(1, harness.DirServerToClient, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"-32022"}}`)}, map[string]string{}},
		{"a client frame", []*harness.Frame{frame(1, harness.DirClientToServer, refusal)}, map[string]string{}},
		{"another revision's connection", []*harness.Frame{frame(2, harness.DirServerToClient, refusal)}, map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, disownedRevisions(c.frames, connRev, unlisted))
		})
	}
}
