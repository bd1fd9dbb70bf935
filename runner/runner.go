// Package runner runs mcp-conform against one server (Run): it detects the revisions the
// server speaks (era detection), runs the embedded features with godog once per target through
// the step bindings of package steps, feeds the recorded frames to the judge and decides each
// rule's verdict into the result model of package reports.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/features"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/schemas"
	"github.com/mcp-conform/mcp-conform/steps"
)

// Config is everything one run needs. Transport is "stdio" (Command is the argv, run without
// a shell) or "http" (URL, plus Header sent on every request). Revision is "auto" or one
// revision to force. Durations: StartupTimeout bounds the first reply of a freshly started
// server, Timeout every later request, QuietWindow how long to wait to conclude that nothing
// more arrives, RunTimeout the whole run. MaxFrame caps one recorded frame in bytes. Rules
// keeps only rules whose id starts with one of the prefixes (empty = all); Tags is a godog tag
// expression. Progress, when non-nil, shows rules done / total and the current feature (it
// draws only on a terminal).
type Config struct {
	Transport      string        // "stdio", "http" or "sse" (HTTP+SSE of 2024-11-05)
	Command        []string      // stdio: the server's argv, run without a shell
	URL            string        // http: the Streamable HTTP endpoint
	Header         http.Header   // http: headers sent on every request
	Revision       string        // "auto" (era detection) or the one revision to test
	StartupTimeout time.Duration // bounds the first reply of a freshly started server
	Timeout        time.Duration // bounds every later request
	QuietWindow    time.Duration // how long to wait to conclude that nothing more arrives
	RunTimeout     time.Duration // bounds the whole run
	MaxFrame       int           // caps one recorded frame, in bytes
	// ShutdownGrace is how long each step of the stdio shutdown ladder (close stdin, SIGTERM)
	// waits for the child to exit before the next; 0 means the harness default (2s).
	ShutdownGrace time.Duration
	Schemas       *schemas.Set // the pinned MCP schemas frames are validated against
	Rules         []string     // rule id prefixes to keep (empty = all)
	Tags          string       // a godog tag expression ("" = all)
	// Concurrency is how many scenarios run at once (0 = DefaultConcurrency).
	Concurrency int
	Randomize   int64             // godog's shuffle: 0 none, -1 a random seed, else the seed
	Progress    *reports.Progress // rules done / total and the current feature; nil shows nothing
	Tool        reports.Tool      // the name, version and commit of mcp-conform the report names
	// CallTools is the --call-tools policy: client.CallFixtures ("" means the same),
	// client.CallReadOnly or client.CallAll.
	CallTools string
	// SSEFallback lets era detection over HTTP fall back to the HTTP+SSE transport of
	// 2024-11-05 (Transport then becomes "sse") when the server refuses a POSTed initialize
	// with 400, 404 or 405 and a GET opens an SSE stream whose first event is endpoint
	// (basic/transports#Backwards Compatibility); set when --url is given without --transport.
	SSEFallback bool
	// FixtureMap maps a fixture name (client.FixtureTools, client.FixturePrompts,
	// client.FixtureResources) to the server's own name for it (--fixture-map).
	FixtureMap map[string]string
}

// env is the state shared by every suite of one run.
type env struct {
	cfg   Config
	rec   *harness.Recorder
	ids   harness.IDs
	rules map[string]catalog.Rule
	// selected are the rules --rule and --tags select (nil: every rule, as in detection tests).
	selected []catalog.Rule
	// focusOf maps an older revision's target to the revision the full suite ran at (target.focusOf).
	focusOf map[string]string

	mu      sync.Mutex
	conns   []client.Conn
	connRev map[int]string
	stderr  []string
	notes   []string
	// legacySpec maps a rule of both eras to its "page#Heading" in revisions.LatestLegacy.
	legacySpec map[string]string
	// stopped says why the run's context ended (interrupt or run timeout).
	stopped func() string
	// startup is how long the server took to answer its first request after being started
	// (the era probe); later fresh processes are given the request timeout plus this much.
	startup time.Duration
	// judgeSteps holds, per result ("rule@revision"), the indexes in its Steps of the steps
	// that asked the judge: the judge's verdict after the run marks them failed.
	judgeSteps map[string][]int
	// processes counts the server processes started (stdio), for the run's notes.
	processes int
	// spares are the processes started ahead of need (stdio); unusedAhead, set by closeAll,
	// counts those no scenario took.
	spares      spares
	unusedAhead int
	// absences holds, per result ("rule@revision"), the replies its scenario concluded would
	// not come (lateReply looks for them after the run).
	absences map[string][]client.Absence
	// modernTable, when set (tests), replaces the modern rows of the revisions table era
	// detection reads (knownModern).
	modernTable func() []revisions.Revision
}

// target is one (revision, transport) the run tests: the shared connection its scenarios use
// and what the server declared on it.
type target struct {
	revision string
	modern   bool
	shared   client.Conn
	caps     map[string]json.RawMessage
	// capsUnknown, set on a modern target whose server/discover gave no DiscoverResult, says
	// why its capabilities are unknown (caps is then empty): the rules gated on one are
	// untestable naming DISC-001, never na nor failed for an undeclared capability.
	capsUnknown string
	// supported lists the versions a modern server advertised (for LEG-002).
	supported []string
	// negotiated lists, on a modern target, the legacy revisions initialize negotiated in the
	// same run: the server also speaks them, whatever supported lists.
	negotiated []string
	server     *reports.Server
	// focusOf, set on a target of an older handshake revision the server also accepts (found by
	// --revision auto, detectOlder), is the revision the full suite runs at: only the rules
	// whose verdict can differ from there run on this target (focusRule).
	focusOf string
	// once holds the effects of steps done once per target (key -> *onceResult).
	once sync.Map
}

// focusRule reports whether rule r runs on target t: every rule on a full target; on an older
// revision's target (focusOf set) SCHEMA-001, whose frames are validated against that
// revision's schema, and the rules whose applicability differs between the two revisions
// (a @since or @until between them) or whose level does (a @SHOULD-until: tag: the older page
// words the sentence with a weaker keyword), so their na or their verdict is shown there. A
// rule that holds alike at both is judged once, at focusOf.
func focusRule(t *target, r catalog.Rule, transport string) bool {
	if t.focusOf == "" || r.ID == schemaRule {
		return true
	}
	here, _ := r.AppliesTo(t.revision, transport)
	there, _ := r.AppliesTo(t.focusOf, transport)
	return here != there || (here && r.LevelAt(t.revision) != r.LevelAt(t.focusOf))
}

// unlisted says, for a modern target whose DiscoverResult lists versions but not the target's
// own revision, that the server disowned the revision it was asked at (DISC-003 judges the
// list; basic/versioning#Protocol Version Negotiation): once the run shows it refusing that
// revision with -32022 (disownedRevisions), what else fails there is that one defect. "" for
// any other target.
func (t *target) unlisted() string {
	if !t.modern || t.capsUnknown != "" || len(t.supported) == 0 || slices.Contains(t.supported, t.revision) {
		return ""
	}
	return fmt.Sprintf("the server does not serve %s: it answered server/discover at %s with supportedVersions %s, which lacks it (DISC-003 judges that list), and refused %s requests with -32022 (UnsupportedProtocolVersion), so nothing judged at that revision is evidence for or against this rule", t.revision, t.revision, strings.Join(t.supported, ", "), t.revision)
}

// Run runs every selected rule against the server cfg names and returns the result model. It
// returns an error only when the run cannot even start (bad configuration); a server that
// cannot be started or reached yields a Run with Aborted set.
func Run(ctx context.Context, cfg Config) (*reports.Run, error) {
	rules, err := catalog.Catalog()
	if err != nil {
		return nil, err
	}
	if cfg.Concurrency < 1 {
		cfg.Concurrency = DefaultConcurrency
	}
	start := time.Now()
	e := &env{cfg: cfg, rec: harness.NewRecorder(start), rules: map[string]catalog.Rule{}, connRev: map[int]string{}}
	for _, r := range rules {
		e.rules[r.ID] = r
	}
	if known, err := catalog.KnownRules(); err == nil {
		e.legacySpec = map[string]string{}
		for _, k := range known {
			if k.LegacySection != "" {
				e.legacySpec[k.ID] = k.LegacySection
			}
		}
	}
	run := &reports.Run{
		SchemaVersion: reports.SchemaVersion,
		Tool:          cfg.Tool,
		Target:        reports.Target{Transport: cfg.Transport, Command: cfg.Command, URL: cfg.URL},
		Revisions:     []string{},
		Transports:    []string{cfg.Transport},
		SchemaPins:    map[string]reports.Pin{},
		StartedAt:     start.UTC(),
	}
	for name := range cfg.Header {
		run.Target.HeaderNames = append(run.Target.HeaderNames, http.CanonicalHeaderKey(name))
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, cfg.RunTimeout)
	defer cancel()
	e.stopped = func() string {
		if parent.Err() != nil {
			return "the run was interrupted"
		}
		return fmt.Sprintf("the run timeout (--run-timeout %s) was reached", cfg.RunTimeout)
	}

	selected := catalog.Select(rules, cfg.Rules, cfg.Tags)
	e.selected = selected
	targets, notes, abort := e.detect(ctx)
	// Era detection may have fallen back to the HTTP+SSE transport.
	cfg.Transport = e.cfg.Transport
	run.Target.Transport, run.Transports = cfg.Transport, []string{cfg.Transport}
	e.focusOf = map[string]string{}
	for _, t := range targets {
		if t.focusOf != "" {
			e.focusOf[t.revision] = t.focusOf
		}
	}
	if why := nothingApplies(selected, targets, cfg.Transport); abort == "" && why != "" {
		e.closeAll()
		return nil, &NothingAppliesError{Reason: why}
	}
	for _, r := range selected {
		n := 0
		for _, t := range targets {
			if focusRule(t, r, cfg.Transport) {
				n++
			}
		}
		cfg.Progress.AddUnits(r.Feature, n)
	}
	run.Notes = append(run.Notes, notes...)
	if abort != "" {
		run.Aborted = abort
	}
	if abort == "" && len(cfg.FixtureMap) > 0 {
		for _, w := range e.checkFixtureMap(ctx, targets[0]) {
			cfg.Progress.Logf("mcp-conform: warning: %s", w)
			run.Notes = append(run.Notes, w)
		}
	}
	// The targets (revisions) are tested at once: their scenarios use connections of their own,
	// and their waits overlap. Results are ordered by Finalize, whatever finished first.
	type suiteOut struct {
		results []reports.Result
		err     error
	}
	outs := make([]suiteOut, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		run.Revisions = append(run.Revisions, t.revision)
		if run.Server == nil {
			run.Server = t.server
		}
		if pin, ok := schemas.PinFor(t.revision); ok {
			run.SchemaPins[t.revision] = reports.Pin{Commit: pin.Commit, SHA256: pin.SHA256}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i].results, outs[i].err = e.runSuite(ctx, t)
		}()
	}
	wg.Wait()
	for _, o := range outs {
		run.Results = append(run.Results, o.results...)
		if o.err != nil && run.Aborted == "" {
			run.Aborted = o.err.Error()
		}
	}
	if ctx.Err() != nil && run.Aborted == "" {
		run.Aborted = e.stopped()
	}
	e.closeAll()
	run.Notes = append(run.Notes, e.notes...)
	if e.processes > 0 {
		noun := "processes"
		if e.processes == 1 {
			noun = "process"
		}
		ahead := ""
		if e.unusedAhead > 0 {
			ahead = fmt.Sprintf(" (%d of them started ahead of need and not needed)", e.unusedAhead)
		}
		run.Notes = append(run.Notes, fmt.Sprintf("%d server %s started: the era probe's, one shared per revision, and a fresh one for each rule that needs a pristine process%s", e.processes, noun, ahead))
	}
	if n := e.rec.Dropped(); n > 0 {
		run.Notes = append(run.Notes, fmt.Sprintf("%d server frames that answer no request came past the recorder's limits (%d frames, %d MiB) and were counted, not kept, except a sample of %d (marked sampled)", n, harness.DefaultFrameLimit, harness.DefaultByteLimit>>20, e.rec.Sampled()))
	}
	unknown, unlisted := map[string]string{}, map[string]string{}
	for _, t := range targets {
		if t.capsUnknown != "" {
			unknown[t.revision] = t.capsUnknown
		}
		if why := t.unlisted(); why != "" {
			unlisted[t.revision] = why
		}
	}
	e.judgeRun(run, unknown, unlisted)
	run.StderrTail = e.stderrTail()
	run.Frames = exportFrames(e.rec.Frames())
	redact(run, cfg.Header)
	run.DurationMs = time.Since(start).Milliseconds()
	run.Finalize()
	return run, nil
}

// dial opens a new connection to the server: a new child process (stdio) or a new HTTP client
// with its own connection pool (http). rev is the revision its frames are validated against.
func (e *env) dial(ctx context.Context, rev string) (client.Conn, error) {
	t, err := client.Dial(ctx, client.DialConfig{Transport: e.cfg.Transport, Command: e.cfg.Command, URL: e.cfg.URL, Header: e.cfg.Header,
		Recorder: e.rec, MaxFrame: e.cfg.MaxFrame, QuietWindow: e.cfg.QuietWindow, ShutdownGrace: e.cfg.ShutdownGrace, Revision: rev})
	if err != nil {
		return nil, err
	}
	if _, ok := t.Process(); ok {
		e.mu.Lock()
		e.processes++
		e.mu.Unlock()
	}
	e.mu.Lock()
	e.conns = append(e.conns, t)
	e.connRev[t.Conn()] = rev
	e.mu.Unlock()
	return t, nil
}

// setRev changes the revision the frames of connection conn are validated against (after a
// legacy handshake settled it).
func (e *env) setRev(conn int, rev string) {
	e.mu.Lock()
	e.connRev[conn] = rev
	var t client.Conn
	for _, c := range e.conns {
		if c.Conn() == conn {
			t = c
		}
	}
	e.mu.Unlock()
	if t != nil && rev != "" {
		t.SetRevision(rev) // it reads JSON-RPC batches where rev has them
	}
}

// release closes t now (a scenario's own connection) and keeps its stderr tail.
func (e *env) release(t client.Conn) {
	_ = t.Close()
	if p, ok := t.Process(); ok {
		e.keepStderr(p)
	}
}

func (e *env) keepStderr(s client.Process) {
	if tail := s.StderrTail(); tail != "" {
		e.mu.Lock()
		e.stderr = append(e.stderr, tail)
		e.mu.Unlock()
	}
}

func (e *env) closeAll() {
	e.unusedAhead = e.stopAhead()
	e.mu.Lock()
	conns := append([]client.Conn{}, e.conns...)
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); _ = t.Close() }()
	}
	wg.Wait()
}

// stderrTail returns the stderr tail of the server processes, longest first, capped at 64 KiB.
func (e *env) stderrTail() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	best := ""
	for _, t := range e.conns {
		if s, ok := t.Process(); ok && len(s.StderrTail()) > len(best) {
			best = s.StderrTail()
		}
	}
	for _, s := range e.stderr {
		if len(s) > len(best) {
			best = s
		}
	}
	return best
}

// suiteRun is one godog run over the features for one target.
type suiteRun struct {
	env     *env
	t       *target
	connMu  sync.Mutex
	mu      sync.Mutex
	results map[string]*reports.Result
	order   []string
	rows    map[string]int
}

// sharedConn returns the target's shared connection. A stdio server that died (exited or
// closed its stdout) is restarted, as the spec tells clients to (basic/transports/stdio
// #Unexpected Termination), and a legacy session is initialised again, so that one crash does
// not turn every later rule into a failure; the restart is noted in the run. An HTTP+SSE stream
// the server ended is reopened (a new GET, a new session) the same way.
func (s *suiteRun) sharedConn(ctx context.Context) (client.Conn, error) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	note := ""
	if old, ok := s.t.shared.Process(); ok && old.IsDead() {
		note = fmt.Sprintf("the %s server process (connection %d) died and was restarted", s.t.revision, old.Conn())
	} else if st, ok := s.t.shared.SSEStream(); ok {
		if ended, why := st.Ended(); ended {
			note = fmt.Sprintf("the %s SSE stream (connection %d) ended (%v) and was reopened", s.t.revision, st.Conn(), why)
		}
	}
	if note == "" {
		return s.t.shared, nil
	}
	t, err := s.env.dial(ctx, s.t.revision)
	if err != nil {
		return nil, fmt.Errorf("restarting the server: %w", err)
	}
	if !s.t.modern {
		hctx, cancel := context.WithTimeout(ctx, s.env.cfg.StartupTimeout)
		_, err := harness.Initialize(hctx, t, &s.env.ids, s.t.revision)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("re-initialising the restarted server: %w", err)
		}
	}
	s.env.addNote(note)
	markShared(t)
	s.t.shared = t
	return t, nil
}

// markShared marks t as the connection a target's scenarios share: the harness then attributes
// its notifications only by id, subscription id or progress token, and the client refuses to
// send on it a request that changes session state (refuseShared).
func markShared(t client.Conn) {
	t.SetShared()
}

func (e *env) addNote(n string) {
	e.mu.Lock()
	e.notes = append(e.notes, n)
	e.mu.Unlock()
}

func (e *env) runSuite(ctx context.Context, t *target) ([]reports.Result, error) {
	markShared(t.shared)
	s := &suiteRun{env: e, t: t, results: map[string]*reports.Result{}, rows: map[string]int{}}
	opts := &godog.Options{
		Format:         "progress",
		Output:         io.Discard,
		FS:             features.FS,
		Paths:          featurePaths(),
		Strict:         true,
		NoColors:       true,
		Concurrency:    e.cfg.Concurrency,
		Randomize:      e.cfg.Randomize,
		Tags:           e.cfg.Tags,
		DefaultContext: ctx,
	}
	// Steps and hooks are bound once, on the suite, not per scenario: godog copies the suite's
	// bindings into each scenario, and binding the few hundred steps per scenario (each records
	// its caller with runtime.Caller) took a fifth of a run's CPU. Every step and hook reads its
	// scenario's state from ctx (steps.WorldKey), so nothing in a binding is per scenario.
	godog.TestSuite{Name: "mcp-conform", TestSuiteInitializer: func(ts *godog.TestSuiteContext) {
		s.bindSuite(ts.ScenarioContext())
	}, Options: opts}.Run()
	var out []reports.Result
	for _, k := range s.order {
		out = append(out, *s.results[k])
	}
	if ctx.Err() != nil {
		return out, errors.New(e.stopped())
	}
	return out, nil
}

// holdsFirst are the feature files whose scenarios hold a wait by their nature (a quiet window
// that proves silence, a listen stream kept open for seconds): godog starts scenarios in file
// order, so these go first and their waits overlap the rest of the run instead of ending it.
// Measured on the reference: HTTP-011/023/024, LOG-003/005, SUB-001, STDIO-008 and MSG-011
// hold 2 s; STDIO-005, LEG-012, VER-008/009 and LFEAT-005 about 1 s.
var holdsFirst = []string{
	"basic-transports-streamable-http.feature",
	"server-utilities-logging.feature",
	"basic-patterns-index.feature",
	"basic-transports-stdio.feature",
	"basic-index.feature",
	"legacy-basic-lifecycle.feature",
	"basic-versioning.feature",
}

// featurePaths lists the embedded feature files for godog: holdsFirst, then the others in name
// order. The order of results does not depend on it (reports.Run.Finalize sorts them).
func featurePaths() []string {
	paths := append([]string(nil), holdsFirst...)
	first := map[string]bool{}
	for _, p := range holdsFirst {
		first[p] = true
	}
	names, _ := fs.Glob(features.FS, "*.feature")
	for _, n := range names {
		if !first[n] {
			paths = append(paths, n)
		}
	}
	return paths
}

// bindSuite binds the scenario hooks (world per scenario, rule selection and applicability,
// recording) and every step on sc, the suite-level scenario context godog copies into each
// scenario.
func (s *suiteRun) bindSuite(sc *godog.ScenarioContext) {
	sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
		// A pickle made from a Scenario Outline row names the scenario and the row.
		w := scenarioWorld(s, len(p.AstNodeIds) > 1)
		ctx = context.WithValue(ctx, steps.WorldKey{}, w)
		for _, tag := range p.Tags {
			if id, ok := strings.CutPrefix(tag.Name, "@rule:"); ok {
				w.Rule, w.Known = s.env.rules[id]
			}
		}
		if !w.Known {
			return ctx, fmt.Errorf("scenario %q has no known @rule: tag", p.Name)
		}
		if !catalog.Selected(w.Rule.ID, s.env.cfg.Rules) || !focusRule(s.t, w.Rule, s.env.cfg.Transport) {
			w.Excluded = true
			return ctx, steps.ErrSkip
		}
		s.env.cfg.Progress.Start(w.Rule.Feature, w.Rule.ID)
		if ok, why := w.Rule.AppliesTo(s.t.revision, s.env.cfg.Transport); !ok {
			return ctx, w.SetSkip(reports.NA, why)
		}
		if ctx.Err() != nil {
			return ctx, w.SetSkip(reports.NotRun, reports.NotRunReason(s.env.stopped()))
		}
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		w := steps.WorldOf(ctx)
		if w.JudgeAsked {
			w.JudgeSteps = append(w.JudgeSteps, len(w.Steps))
			w.JudgeAsked = false
		}
		var o *client.Outcome
		if errors.As(err, &o) {
			// A step ended the scenario with na or untestable (a skip): record the outcome and
			// tell godog to skip the rest.
			if w.Skip == nil {
				w.Skip = o
			}
			w.Steps = append(w.Steps, reports.Step{Text: st.Text, Status: godog.StepSkipped.String()})
			return ctx, steps.ErrSkip
		}
		w.Steps = append(w.Steps, reports.Step{Text: st.Text, Status: status.String()})
		return ctx, nil
	})
	sc.After(func(ctx context.Context, p *godog.Scenario, err error) (context.Context, error) {
		w, ok := ctx.Value(steps.WorldKey{}).(*steps.World)
		if !ok || w.Excluded {
			return ctx, nil
		}
		for _, t := range w.Own {
			s.env.release(t)
		}
		w.Stopped = ctx.Err() != nil
		s.record(w, err)
		w.StopStates() // what the areas hold open (the listens the stdio steps left)
		return ctx, nil
	})
	steps.BindAll(sc)
}

// record folds a finished scenario (or Outline row) into its rule's result: the scenario's
// outcome is the worst row's. The result's final verdict is decided after the run, by the one
// verdict pass (settle).
func (s *suiteRun) record(w *steps.World, err error) {
	v, reason, expected, actual := s.verdict(w, err)
	if w.Stopped && stoppedByRun(v, reason, err) {
		// The run stopped this scenario (interrupt, --run-timeout): the rule was not judged.
		v, reason, expected, actual = reports.NotRun, s.env.stopped()+" before this rule finished", "", ""
	}
	key := w.Rule.ID
	s.mu.Lock()
	defer s.mu.Unlock()
	res, ok := s.results[key]
	if !ok {
		res = &reports.Result{
			Rule: w.Rule.ID, Level: w.Rule.LevelAt(s.t.revision), Revision: s.t.revision, Transport: s.env.cfg.Transport,
			Verdict: v, Title: w.Rule.Title, Feature: w.Rule.Feature,
			Spec:   s.spec(w.Rule),
			Reason: reason, Expected: expected, Actual: actual, Steps: []reports.Step{}, Frames: []int{},
		}
		s.results[key] = res
		s.order = append(s.order, key)
	} else if w.Rule.Level == catalog.ProbeLevel && res.Verdict == reports.Info && v == reports.Info {
		// A probe's rows are records, not verdicts: keep every row's observation.
		res.Actual += "; " + actual
		res.Reason = "observed: " + res.Actual
	} else if reports.Worse(res.Verdict, v) != res.Verdict {
		res.Verdict, res.Reason, res.Expected, res.Actual = v, reason, expected, actual
	}
	s.rows[key]++
	prefix := ""
	if w.OutlineRow {
		prefix = fmt.Sprintf("[case %d] ", s.rows[key])
	}
	if len(w.Absent) > 0 && v != reports.Untestable && v != reports.Error && v != reports.NotRun {
		s.env.mu.Lock()
		if s.env.absences == nil {
			s.env.absences = map[string][]client.Absence{}
		}
		k := key + "@" + s.t.revision
		s.env.absences[k] = append(s.env.absences[k], w.Absent...)
		s.env.mu.Unlock()
	}
	if len(w.JudgeSteps) > 0 {
		s.env.mu.Lock()
		if s.env.judgeSteps == nil {
			s.env.judgeSteps = map[string][]int{}
		}
		k := key + "@" + s.t.revision
		for _, i := range w.JudgeSteps {
			s.env.judgeSteps[k] = append(s.env.judgeSteps[k], len(res.Steps)+i)
		}
		s.env.mu.Unlock()
	}
	for _, st := range w.Steps {
		res.Steps = append(res.Steps, reports.Step{Text: prefix + st.Text, Status: st.Status})
	}
	res.Frames = append(res.Frames, w.Frames()...)
	res.DurationMs += time.Since(w.Started).Milliseconds()
	if s.rows[key] == 1 {
		s.env.cfg.Progress.Done(w.Rule.Feature, w.Rule.ID)
	}
}

// movedPages maps a 2026-07-28 page to the handshake-era page it was moved from, headings kept
// (the cancellation and progress utilities became basic patterns).
var movedPages = map[string]string{
	"basic/patterns/cancellation": "basic/utilities/cancellation",
	"basic/patterns/progress":     "basic/utilities/progress",
}

// spec returns the spec section of rule for this target. A handshake-era result of a rule that
// holds in both eras cites the section the catalogue names for revisions.LatestLegacy, or the
// rule's own when that revision has its page (Revision.Pages); any handshake-era result links
// that page at the target's own revision when it has the page, else at the latest legacy one.
func (s *suiteRun) spec(rule catalog.Rule) reports.Spec {
	if s.t.modern {
		return reports.Spec{Section: rule.Section, URL: rule.SpecURL()}
	}
	latest := revisions.LatestLegacy()
	sec := rule.Section
	if rule.SpecRevision == revisions.Modern().ID {
		sec = s.env.legacySpec[rule.ID]
		page, heading, _ := strings.Cut(rule.Section, "#")
		if old, ok := movedPages[page]; ok && sec == "" {
			sec = old + "#" + heading
		}
		if sec == "" && latest.HasPage(page) {
			sec = rule.Section // the same page exists in the latest legacy revision
		}
	}
	if sec == "" {
		return reports.Spec{Section: rule.Section, URL: rule.SpecURL()}
	}
	page, _, _ := strings.Cut(sec, "#")
	// The result's own revision's page when it has one (2025-06-18 and older are linked there,
	// not to the newest revision that words the rule), else the page the rule names.
	for _, rev := range []string{s.t.revision, latest.ID, rule.SpecRevision} {
		if row, ok := revisions.Lookup(rev); ok && row.HasPage(page) {
			return reports.Spec{Section: sec, URL: catalog.Rule{Section: sec, SpecRevision: rev}.SpecURL()}
		}
	}
	return reports.Spec{Section: rule.Section, URL: rule.SpecURL()}
}

// DefaultConcurrency is how many scenarios run at once unless Config.Concurrency says
// otherwise: the work is mostly waiting on the server, and 8 measured best on 2 cores (README
// "Performance").
const DefaultConcurrency = 8

// MaxConcurrency bounds Config.Concurrency (the CLI refuses more): each scenario may hold a
// server process of its own.
const MaxConcurrency = 64

// stoppedByRun reports whether a row that ended after the run's context ended owes its
// outcome v (with reason, from err) to that end: an error, an untestable precondition or a
// mismatch whose cause is the cancelled context ("no response (context canceled)"). A row
// that passed, was na or recorded an observation keeps its outcome, and so does a mismatch
// found on what the server had sent before.
func stoppedByRun(v reports.Verdict, reason string, err error) bool {
	switch v {
	case reports.Pass, reports.NA, reports.Info, reports.NotRun:
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return strings.Contains(reason, context.Canceled.Error()) || strings.Contains(reason, context.DeadlineExceeded.Error())
}

// verdict maps the godog outcome of one scenario row to a verdict (the scenario's outcome, an
// input of settle).
func (s *suiteRun) verdict(w *steps.World, err error) (v reports.Verdict, reason, expected, actual string) {
	if (w.Skip != nil && w.Skip.Verdict == reports.Untestable) || (w.Skip == nil && err != nil) {
		if why := w.DiscoverUnserved(); why != "" {
			return reports.Untestable, why, "", ""
		}
	}
	if w.Skip != nil {
		return w.Skip.Verdict, w.Skip.Reason, "", ""
	}
	if err == nil && w.Rule.Level == catalog.ProbeLevel {
		obs := strings.Join(w.Observed, "; ")
		if w.OutlineRow {
			for _, st := range w.Steps {
				if sent, ok := strings.CutPrefix(st.Text, "the client sends "); ok {
					obs = "(" + sent + ") " + obs
					break
				}
			}
		}
		return reports.Info, "observed: " + obs, "", obs
	}
	if err == nil {
		return reports.Pass, "", "", ""
	}
	var pre *client.PreconditionFailed
	if errors.As(err, &pre) {
		return reports.Untestable, pre.Error(), "", ""
	}
	var m *client.Mismatch
	if errors.As(err, &m) {
		v = m.Grade
		if v == "" {
			v = levelVerdict(w.Rule.LevelAt(s.t.revision))
		}
		if w.ObserveOnly != "" && (v == reports.Fail || v == reports.Warn) {
			return reports.Info, m.Error() + " (" + w.ObserveOnly + ")", m.Expected, m.Actual
		}
		return v, m.Error(), m.Expected, m.Actual
	}
	return reports.Error, err.Error(), "", ""
}

func levelVerdict(level string) reports.Verdict {
	switch level {
	case "MUST", "MUST NOT":
		return reports.Fail
	case "SHOULD", "SHOULD NOT":
		return reports.Warn
	}
	return reports.Info
}

// string -> *regexp.Regexp
