package runner_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/fixtures/refserver"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/runner"
)

// The reference fixture is built once per test binary.
var (
	buildOnce sync.Once
	refBinary string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-conform-runner-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// referenceBinary builds fixtures/servers/reference once and returns its path.
func referenceBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		refBinary = filepath.Join(buildDir, "reference")
		out, err := exec.Command("go", "build", "-o", refBinary, "../fixtures/servers/reference").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("building the reference fixture: %v\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return refBinary
}

// startHTTP starts the reference fixture in http mode with the given flags (e.g. "-break",
// "HTTP-004", "-sessions") and returns its URL; the process is stopped when the test ends.
func startHTTP(t testing.TB, flags ...string) string {
	t.Helper()
	argv := append([]string{referenceBinary(t), "-transport", "http"}, flags...)
	return testutil.StartHTTPServer(t, 30*time.Second, argv...)
}

// breakFlags returns the reference's flags for breaks.
func breakFlags(breaks []string) []string {
	var flags []string
	for _, b := range breaks {
		flags = append(flags, "-break", b)
	}
	return flags
}

// runReference runs the whole suite against the reference fixture over transport with the
// given breaks and extra config.
func runReference(t testing.TB, transport string, revision string, breaks ...string) *reports.Run {
	t.Helper()
	return runReferenceSeed(t, transport, revision, 0, breaks...)
}

// runReferenceSeed is runReference with the scenarios shuffled by seed (0 keeps file order).
func runReferenceSeed(t testing.TB, transport string, revision string, seed int64, breaks ...string) *reports.Run {
	t.Helper()
	return runReferenceWith(t, transport, revision, seed, 1, breaks...)
}

// runReferenceWith is runReferenceSeed with concurrency scenarios at once.
func runReferenceWith(t testing.TB, transport string, revision string, seed int64, concurrency int, breaks ...string) *reports.Run {
	t.Helper()
	return runReferenceFlags(t, transport, revision, seed, concurrency, breakFlags(breaks))
}

// runReferenceFlags is runReferenceWith with the reference's own flags (breaks included). The
// run's results.json must match reports/results.schema.json.
func runReferenceFlags(t testing.TB, transport string, revision string, seed int64, concurrency int, flags []string) *reports.Run {
	t.Helper()
	run := runReferenceConfig(t, referenceConfig(t, transport, revision, seed, concurrency, flags))
	var doc bytes.Buffer
	require.NoError(t, reports.WriteJSON(&doc, run))
	require.NoError(t, reports.ValidateDocument(doc.Bytes()), "results.json must match reports/results.schema.json")
	return run
}

// referenceConfig is the configuration of a run against the reference fixture over transport
// ("stdio", "http" or "sse"), started with flags; revision "" is auto, seed 0 keeps file order.
func referenceConfig(t testing.TB, transport string, revision string, seed int64, concurrency int, flags []string) runner.Config {
	t.Helper()
	cfg := runner.Config{
		Transport: transport, Revision: revision, StartupTimeout: 30 * time.Second, Timeout: 5 * time.Second,
		QuietWindow: 300 * time.Millisecond, ShutdownGrace: 500 * time.Millisecond, RunTimeout: 3 * time.Minute, MaxFrame: 1 << 20, Schemas: testutil.Schemas(t),
		Concurrency: concurrency, Randomize: seed, Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
	}
	if revision == "" {
		cfg.Revision = "auto"
	}
	switch transport {
	case "stdio":
		cfg.Command = append([]string{referenceBinary(t)}, flags...)
	case "http":
		cfg.URL = startHTTP(t, flags...)
	case "sse":
		cfg.URL = startSSE(t, flags...)
	}
	return cfg
}

// runReferenceConfig runs cfg and requires a run that was not aborted.
func runReferenceConfig(t testing.TB, cfg runner.Config) *reports.Run {
	t.Helper()
	run, err := runner.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Empty(t, run.Aborted, "run aborted; notes: %v", run.Notes)
	return run
}

// runBreak is the break table's run: the suite against the reference with breaks, one
// scenario at a time in file order, without the results.json schema check that about 7 % of a
// run's CPU goes to (TestReferencePasses and TestRealResultsValidateAgainstResultsSchema make it
// on clean and broken runs). One at a time: at runner.DefaultConcurrency seven breaks showed a
// second verdict, the broken frame landing in a scenario that ran alongside (MSG-012's server
// ping in MSG-011's quiet window, LOG-003's log message on HTTP-023's listen stream), which is
// issue 21's to fix; test.sh gives the table more parallel runs instead.
func runBreak(t testing.TB, transport, revision string, breaks ...string) *reports.Run {
	t.Helper()
	return runReferenceConfig(t, referenceConfig(t, transport, revision, 0, 1, breakFlags(breaks)))
}

func verdicts(run *reports.Run) map[string]reports.Verdict {
	m := map[string]reports.Verdict{}
	for _, r := range run.Results {
		m[r.Rule+"@"+r.Revision] = r.Verdict
	}
	return m
}

// unnamedCause returns the reason of the result key (rule@revision) when that result is
// untestable but its reason names none of rules, the broken rules that caused it ("" when it
// does, or the result has another verdict): an untestable side effect must say whose defect
// it comes from (issue "Honest verdicts"). An na side effect is the break making the server
// another kind of server (one that declares no resources, or serves no legacy revision), and
// its reason says what the server does not offer.
func unnamedCause(run *reports.Run, key string, rules []string) string {
	for _, r := range run.Results {
		if r.Rule+"@"+r.Revision != key || r.Verdict != reports.Untestable {
			continue
		}
		named := false
		for _, rule := range rules {
			named = named || strings.Contains(r.Reason, rule)
		}
		if !named {
			return r.Reason
		}
	}
	return ""
}

// namesBroken reports whether the result key (rule@revision) is untestable or na with a reason
// that names rule, the broken one.
func namesBroken(run *reports.Run, key, rule string) bool {
	for _, r := range run.Results {
		if r.Rule+"@"+r.Revision == key && (r.Verdict == reports.Untestable || r.Verdict == reports.NA) {
			return strings.Contains(r.Reason, rule)
		}
	}
	return false
}

// causes are the rules an untestable side effect of break bc may name: the broken rule, and
// the rules the break fails or warns as side effects (whose defect it then is).
func causes(bc refserver.Break) []string {
	out := []string{bc.Rule}
	for key, v := range bc.SideEffects {
		if v == reports.Fail || v == reports.Warn {
			out = append(out, strings.SplitN(key, "@", 2)[0])
		}
	}
	return out
}

func describeRun(run *reports.Run) string {
	var b strings.Builder
	for _, r := range run.Results {
		if r.Verdict != reports.Pass && r.Verdict != reports.NA && r.Level != "PROBE" {
			fmt.Fprintf(&b, "  %s %s@%s: %s\n", r.Verdict, r.Rule, r.Revision, r.Reason)
		}
	}
	return b.String()
}

// bothTransports makes TestReferenceBreaks run every break on both transports, the ones whose
// entry names none included: go test ./runner -run TestReferenceBreaks -args -both-transports.
var bothTransports = flag.Bool("both-transports", false, "run breaks that name no transport on stdio and http, not on one")

// breakTransports returns the transports TestReferenceBreaks runs bc on: those its entry names,
// else one of stdio and http, chosen by a hash of the rule id so that the table as a whole
// drives both. A break that names no transport switches behaviour the two transports share
// (the fixture's handler), and a rule with a transport tag names its transport, so one run
// proves the verdict and the side effects; the whole suite per break per transport made the
// table's cost grow with the square of the rule count twice over (issue 17). -both-transports
// restores the double run.
func breakTransports(bc refserver.Break) []string {
	switch {
	case bc.Transports != nil:
		return bc.Transports
	case *bothTransports:
		return []string{"stdio", "http"}
	}
	h := fnv.New32a()
	h.Write([]byte(bc.Rule))
	return [][]string{{"stdio"}, {"http"}}[h.Sum32()%2]
}

// TestReferencePasses: every implemented rule passes against the reference fixture on each
// transport it applies to, and is na elsewhere.
func TestReferencePasses(t *testing.T) {
	rules, err := catalog.Catalog()
	require.NoError(t, err)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			// Shuffled and concurrent (STYLE.md), so that state leaking from one scenario into
			// another, or a race on a shared connection, shows.
			seed := time.Now().UnixNano()
			t.Logf("scenario order seed %d", seed)
			// Over HTTP the reference requires legacy sessions (-sessions), as most deployed
			// legacy servers do: every rule must hold through them (issue 17), and LHTTP-014 has
			// a session to judge.
			var flags []string
			if transport == "http" {
				flags = []string{"-sessions"}
			}
			run := runReferenceFlags(t, transport, "", seed, 4, flags)
			// --revision auto: the modern revision, the legacy one initialize negotiates, and each
			// older handshake revision the reference accepts, where only the rules whose verdict
			// can differ and SCHEMA-001 run (focusRule).
			require.Equal(t, append(revisions.FilterIDs(revisions.Revision.Modern), revisions.LegacyIDs()...), run.Revisions)
			full := map[string]bool{revisions.Modern().ID: true, revisions.LatestLegacy().ID: true}
			require.Zero(t, run.Summary.Fail+run.Summary.Error+run.Summary.Warn, "unexpected verdicts:\n%s", describeRun(run))
			require.GreaterOrEqual(t, run.Summary.Pass, 25)
			got := verdicts(run)
			reasons := map[string]string{}
			for _, res := range run.Results {
				reasons[res.Rule+"@"+res.Revision] = res.Reason
			}
			for _, r := range rules {
				for _, rev := range run.Revisions {
					applies, _ := r.AppliesTo(rev, transport)
					v, ok := got[r.ID+"@"+rev]
					if !full[rev] {
						atFull, _ := r.AppliesTo(revisions.LatestLegacy().ID, transport)
						sameLevel := r.LevelAt(rev) == r.LevelAt(revisions.LatestLegacy().ID)
						if r.ID != "SCHEMA-001" && applies == atFull && (!applies || sameLevel) {
							require.False(t, ok, "%s@%s holds as at %s: judged there only", r.ID, rev, revisions.LatestLegacy().ID)
							continue
						}
					}
					require.True(t, ok, "no result for %s@%s", r.ID, rev)
					switch {
					case applies && r.Level == "PROBE": // a probe records, it never judges
						require.Equal(t, reports.Info, v, "%s@%s", r.ID, rev)
					case applies && naByDesign[r.ID]:
						require.Contains(t, []reports.Verdict{reports.Pass, reports.NA}, v, "%s@%s", r.ID, rev)
					case applies:
						require.Equal(t, reports.Pass, v, "%s@%s: %s", r.ID, rev, reasons[r.ID+"@"+rev])
					default:
						require.Equal(t, reports.NA, v, "%s@%s", r.ID, rev)
					}
				}
			}
			require.NotEmpty(t, run.Frames)
			require.NotNil(t, run.Server)
			require.Equal(t, "mcp-conform-reference", run.Server.Name)
		})
	}
}

// allRevisions makes TestReferenceBreaks run every break at every revision the reference
// serves (--revision auto): go test ./runner -run TestReferenceBreaks -args -all-revisions.
var allRevisions = flag.Bool("all-revisions", false, "run every break with --revision auto, not only at the revisions its rule applies to")

// breakRevision returns the --revision TestReferenceBreaks runs the break bc of rule r at on
// transport: its entry's own (auto when none) for a break that names one, defeats era
// detection or is seen through it (Detected); else the modern revision alone for a rule that applies there only, and the
// latest legacy revision alone for one that applies at the handshake revisions only and alike
// at each (so the older revisions' focused targets would not run it), and one of the two, by
// rule id, for one that applies alike at both, with the other as other: the era a break that
// switches one era's handler only is proven at. A break switches the
// behaviour of one rule's subject, which the scenarios of the other era do not reach; running
// the whole suite at every revision for every break cost the table a third of its time
// (112 of 250 breaks are modern-only, 55 legacy-only). A side effect at the other era would go
// unseen: -all-revisions runs every break with auto, to look for one.
func breakRevision(bc refserver.Break, r catalog.Rule, transport string) (rev, other string) {
	if bc.Revision != "" || bc.EraDefeated || bc.Detected || *allRevisions {
		return bc.Revision, ""
	}
	modern, _ := r.AppliesTo(revisions.Modern().ID, transport)
	legacy, _ := r.AppliesTo(revisions.LatestLegacy().ID, transport)
	for _, rev := range revisions.LegacyIDs() {
		if at, _ := r.AppliesTo(rev, transport); at != legacy || r.LevelAt(rev) != r.Level {
			return "", "" // an older revision judges or grades it differently: auto shows each
		}
	}
	switch {
	case modern && !legacy:
		return revisions.Modern().ID, ""
	case legacy && !modern:
		return revisions.LatestLegacy().ID, ""
	case modern && legacy:
		// A rule of both eras: one era's run proves the verdict. The table alternates the era
		// by rule id (as breakTransports alternates the transport, with another hash), so each
		// era's wiring of the both-era rules is broken in about half of them; other is the
		// era to prove it at when the break switches only that era's handler. An auto run at
		// every revision cost more than twice a single one over stdio.
		eras := []string{revisions.Modern().ID, revisions.LatestLegacy().ID}
		h := fnv.New32a()
		h.Write([]byte("era:" + r.ID))
		i := h.Sum32() % 2
		return eras[i], eras[1-i]
	}
	return "", ""
}

// lazyBaseline is one baseline run of TestReferenceBreaks, made once.
type lazyBaseline struct {
	once     sync.Once
	verdicts map[string]reports.Verdict
}

// TestReferenceBreaks: each break of the reference fixture turns its rule fail (MUST) or warn
// (SHOULD) and changes no other verdict but the side effects its entry lists.
func TestReferenceBreaks(t *testing.T) {
	rules, err := catalog.Catalog()
	require.NoError(t, err)
	byID := map[string]catalog.Rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	baselines := map[string]*lazyBaseline{}
	var mu sync.Mutex
	// One baseline per transport and --revision, run as the breaks are: a forced revision skips
	// era detection, which the rules that judge it see.
	// Each is run once, by the first break that needs it, while other baselines run.
	baseline := func(t *testing.T, transport, revision string) map[string]reports.Verdict {
		mu.Lock()
		key := transport + "@" + revision
		b, ok := baselines[key]
		if !ok {
			b = &lazyBaseline{}
			baselines[key] = b
		}
		mu.Unlock()
		b.once.Do(func() { b.verdicts = verdicts(runBreak(t, transport, revision)) })
		require.NotNil(t, b.verdicts, "the baseline run %s failed in another subtest", key)
		return b.verdicts
	}
	for _, bc := range refserver.BreakTable() {
		r, ok := byID[bc.Rule]
		require.True(t, ok, "break table names unknown rule %s", bc.Rule)
		transports := breakTransports(bc)
		for _, transport := range transports {
			t.Run(bc.Rule+"/"+transport, func(t *testing.T) {
				t.Parallel()
				// The verdict the break must give at a revision: by the rule's level there (a
				// rule an older page words with SHOULD is warn there, fail where it is MUST).
				wantAt := func(key string) reports.Verdict {
					if bc.Verdict != "" {
						return bc.Verdict
					}
					_, rev, _ := strings.Cut(key, "@")
					if strings.HasPrefix(r.LevelAt(rev), "SHOULD") {
						return reports.Warn
					}
					return reports.Fail
				}
				want := wantAt(bc.Rule + "@" + revisions.Modern().ID)
				revision, other := breakRevision(bc, r, transport)
				var run *reports.Run
				var got, base map[string]reports.Verdict
				broken := 0
				for {
					run = runBreak(t, transport, revision, bc.Rule)
					got = verdicts(run)
					if !bc.EraDefeated {
						base = baseline(t, transport, revision)
					}
					broken = 0
					for key, v := range got {
						if !strings.HasPrefix(key, bc.Rule+"@") || v == reports.NA {
							continue
						}
						if v == wantAt(key) {
							broken++
							continue
						}
						// A break may leave the rule intact at a revision it does not touch.
						require.False(t, bc.EraDefeated, "%s: %s", key, describeRun(run))
						require.Equal(t, base[key], v, "%s: %s", key, describeRun(run))
					}
					if broken > 0 || other == "" {
						break
					}
					// The reference serves the two eras through handlers of their own for many
					// features, so a break of a both-era rule may switch one era's only: the
					// other era is its proof.
					revision, other = other, ""
				}
				require.NotZero(t, broken, "break %s gave no %s verdict for it:\n%s", bc.Rule, want, describeRun(run))
				if bc.EraDefeated {
					return
				}
				// Every difference at once, each as "key: baseline -> got (listed: want)".
				var diff []string
				for key, v := range got {
					if strings.HasPrefix(key, bc.Rule+"@") {
						continue
					}
					rule, rev, _ := strings.Cut(key, "@")
					if exp, listed := bc.SideEffects[refserver.EffectKey(rule, rev)]; listed {
						if v != reports.NA || base[key] != reports.NA { // na: not on this transport
							// A listed na may stay at its baseline on a transport that gives the
							// rule another subject (MSG-010 sees other notifications on stdio).
							if exp != v && !(exp == reports.NA && v == base[key]) {
								diff = append(diff, fmt.Sprintf("%s: %s -> %s (listed: %s)", key, base[key], v, exp))
							} else if why := unnamedCause(run, key, causes(bc)); v != base[key] && why != "" {
								diff = append(diff, fmt.Sprintf("%s: %s does not name %s: %s", key, v, bc.Rule, why))
							}
						}
						continue
					}
					// An unlisted change to untestable or na is allowed when its reason names the
					// broken rule itself (DISC-001's break leaves every discover-borne rule
					// untestable).
					if base[key] != v && !namesBroken(run, key, bc.Rule) {
						diff = append(diff, fmt.Sprintf("%s: %s -> %s", key, base[key], v))
					}
				}
				sort.Strings(diff)
				if len(diff) > 0 {
					t.Fatalf("break %s changed other verdicts:\n  %s\nthe run:\n%s", bc.Rule, strings.Join(diff, "\n  "), describeRun(run))
				}
			})
		}
	}
}

// TestBreakTableCoversEveryRule: a rule at MUST or SHOULD level needs a break (MAY rules need
// none), and every break of the reference fixture's table, and every side effect it lists,
// names a rule of the catalog.
func TestBreakTableCoversEveryRule(t *testing.T) {
	rules, err := catalog.Catalog()
	require.NoError(t, err)
	known := map[string]bool{}
	for _, r := range rules {
		known[r.ID] = true
	}
	listed := map[string]bool{}
	for _, bc := range refserver.BreakTable() {
		listed[bc.Rule] = true
		require.True(t, known[bc.Rule], "the break table names unknown rule %s", bc.Rule)
		for key := range bc.SideEffects {
			rule, _, _ := strings.Cut(key, "@")
			require.True(t, known[rule], "break %s lists a side effect on unknown rule %s", bc.Rule, key)
		}
	}
	for _, r := range rules {
		if r.Level == "MAY" || r.Level == "PROBE" {
			continue
		}
		require.True(t, listed[r.ID], "rule %s (%s) has no entry in the break table (fixtures/refserver/breaks_*.go)", r.ID, r.Level)
	}
}

// TestReferenceVerdictsIndependentOfConcurrency: the default concurrency gives the reference
// the same verdicts, and the results the same order, as one scenario at a time: 10 shuffled
// reruns per transport against a run at concurrency 1 in file order.
func TestReferenceVerdictsIndependentOfConcurrency(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			one := runReferenceWith(t, transport, "", 0, 1)
			want := verdicts(one)
			order := func(r *reports.Run) []string {
				var out []string
				for _, res := range r.Results {
					out = append(out, res.Rule+"@"+res.Revision)
				}
				return out
			}
			for i := 0; i < 10; i++ {
				seed := time.Now().UnixNano() + int64(i)
				run := runReferenceWith(t, transport, "", seed, runner.DefaultConcurrency)
				require.Equal(t, want, verdicts(run), "seed %d:\n%s", seed, describeRun(run))
				require.Equal(t, order(one), order(run), "seed %d", seed)
			}
		})
	}
}
