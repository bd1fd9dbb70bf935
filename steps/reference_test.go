package steps_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/fixtures/refserver"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/steps"
)

// The reference fixture is built once per test binary.
var (
	buildOnce sync.Once
	refBinary string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-conform-steps-")
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

// startHTTP starts the reference fixture in http mode with the given breaks and returns its
// URL; the process is stopped when the test ends.
func startHTTP(t testing.TB, breaks ...string) string {
	t.Helper()
	argv := []string{referenceBinary(t), "-transport", "http"}
	for _, b := range breaks {
		argv = append(argv, "-break", b)
	}
	return testutil.StartHTTPServer(t, 30*time.Second, argv...)
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
	cfg := steps.Config{
		Transport: transport, Revision: revision, StartupTimeout: 30 * time.Second, Timeout: 5 * time.Second,
		QuietWindow: 300 * time.Millisecond, ShutdownGrace: 500 * time.Millisecond, RunTimeout: 3 * time.Minute, MaxFrame: 1 << 20, Schemas: testutil.Schemas(t),
		Concurrency: concurrency, Randomize: seed, Tool: reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
	}
	if revision == "" {
		cfg.Revision = "auto"
	}
	switch transport {
	case "stdio":
		cfg.Command = []string{referenceBinary(t)}
		for _, b := range breaks {
			cfg.Command = append(cfg.Command, "-break", b)
		}
	case "http":
		cfg.URL = startHTTP(t, breaks...)
	}
	run, err := steps.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Empty(t, run.Aborted, "run aborted; notes: %v", run.Notes)
	var doc bytes.Buffer
	require.NoError(t, reports.WriteJSON(&doc, run))
	require.NoError(t, reports.ValidateDocument(doc.Bytes()), "results.json must match reports/results.schema.json")
	return run
}

func verdicts(run *reports.Run) map[string]reports.Verdict {
	m := map[string]reports.Verdict{}
	for _, r := range run.Results {
		m[r.Rule+"@"+r.Revision] = r.Verdict
	}
	return m
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

// TestReferencePasses: every implemented rule passes against the reference fixture on each
// transport it applies to, and is na elsewhere.
func TestReferencePasses(t *testing.T) {
	rules, err := steps.Catalog()
	require.NoError(t, err)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			// Shuffled and concurrent (STYLE.md), so that state leaking from one scenario into
			// another, or a race on a shared connection, shows.
			seed := time.Now().UnixNano()
			t.Logf("scenario order seed %d", seed)
			run := runReferenceWith(t, transport, "", seed, 4)
			require.Equal(t, []string{"2026-07-28", "2025-11-25"}, run.Revisions)
			require.Zero(t, run.Summary.Fail+run.Summary.Error+run.Summary.Warn, "unexpected verdicts:\n%s", describeRun(run))
			require.GreaterOrEqual(t, run.Summary.Pass, 25)
			got := verdicts(run)
			for _, r := range rules {
				for _, rev := range run.Revisions {
					applies, _ := r.AppliesTo(rev, transport)
					v, ok := got[r.ID+"@"+rev]
					require.True(t, ok, "no result for %s@%s", r.ID, rev)
					switch {
					case applies && r.Level == "PROBE": // a probe records, it never judges
						require.Equal(t, reports.Info, v, "%s@%s", r.ID, rev)
					case applies && naByDesign[r.ID]:
						require.Contains(t, []reports.Verdict{reports.Pass, reports.NA}, v, "%s@%s", r.ID, rev)
					case applies:
						require.Equal(t, reports.Pass, v, "%s@%s", r.ID, rev)
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

// breakCase is one row of the break table: the fixture violates Rule; the run must give
// Verdict for it at the revisions it applies to, and change nothing else except SideEffects
// (rule@revision -> verdict). EraDefeated marks breaks after which only the rule's own verdict
// is asserted, because the server no longer looks like a 2026-07-28 server at all; Revision
// forces the tested revision for them.
type breakCase struct {
	Rule string
	// Verdict overrides the verdict the rule's level gives (fail for MUST, warn for SHOULD).
	Verdict     reports.Verdict
	Transports  []string
	Revision    string
	SideEffects map[string]reports.Verdict
	EraDefeated bool
}

func TestReferenceBreaks(t *testing.T) {
	rules, err := steps.Catalog()
	require.NoError(t, err)
	byID := map[string]steps.Rule{}
	for _, r := range rules {
		byID[r.ID] = r
	}
	baselines := map[string]map[string]reports.Verdict{}
	var mu sync.Mutex
	baseline := func(t *testing.T, transport string) map[string]reports.Verdict {
		mu.Lock()
		defer mu.Unlock()
		if b, ok := baselines[transport]; ok {
			return b
		}
		b := verdicts(runReference(t, transport, ""))
		baselines[transport] = b
		return b
	}
	for _, bc := range breakTable {
		r, ok := byID[bc.Rule]
		require.True(t, ok, "break table names unknown rule %s", bc.Rule)
		transports := bc.Transports
		if transports == nil {
			transports = []string{"stdio", "http"}
		}
		for _, transport := range transports {
			t.Run(bc.Rule+"/"+transport, func(t *testing.T) {
				t.Parallel()
				want := reports.Fail
				if strings.HasPrefix(r.Level, "SHOULD") {
					want = reports.Warn
				}
				if bc.Verdict != "" {
					want = bc.Verdict
				}
				run := runReference(t, transport, bc.Revision, bc.Rule)
				got := verdicts(run)
				var base map[string]reports.Verdict
				if !bc.EraDefeated {
					base = baseline(t, transport)
				}
				broken := 0
				for key, v := range got {
					if !strings.HasPrefix(key, bc.Rule+"@") || v == reports.NA {
						continue
					}
					if v == want {
						broken++
						continue
					}
					// A break may leave the rule intact at a revision it does not touch.
					require.False(t, bc.EraDefeated, "%s: %s", key, describeRun(run))
					require.Equal(t, base[key], v, "%s: %s", key, describeRun(run))
				}
				require.NotZero(t, broken, "break %s gave no %s verdict for it:\n%s", bc.Rule, want, describeRun(run))
				if bc.EraDefeated {
					return
				}
				var diff []string
				for key, v := range got {
					if strings.HasPrefix(key, bc.Rule+"@") {
						continue
					}
					if exp, listed := bc.SideEffects[key]; listed {
						if v != reports.NA || base[key] != reports.NA { // na: not on this transport
							require.Equal(t, exp, v, "side effect %s", key)
						}
						continue
					}
					if base[key] != v {
						diff = append(diff, fmt.Sprintf("%s: %s -> %s", key, base[key], v))
					}
				}
				sort.Strings(diff)
				require.Empty(t, diff, "break %s changed other verdicts:\n%s", bc.Rule, describeRun(run))
			})
		}
	}
}

// TestBreakTableCoversEveryRule: a rule at MUST or SHOULD level needs a break (MAY rules need
// none), and every break the table names exists in the fixture.
func TestBreakTableCoversEveryRule(t *testing.T) {
	rules, err := steps.Catalog()
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, bc := range breakTable {
		listed[bc.Rule] = true
	}
	known := refserver.Breaks()
	for _, r := range rules {
		if r.Level == "MAY" || r.Level == "PROBE" {
			continue
		}
		require.True(t, listed[r.ID], "rule %s (%s) has no entry in the break table", r.ID, r.Level)
		_, ok := known[r.ID]
		require.True(t, ok, "the reference fixture has no -break %s", r.ID)
	}
}

var (
	stdioOnly = []string{"stdio"}
	httpOnly  = []string{"http"}
	schema26  = map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail}
	schema25  = map[string]reports.Verdict{"SCHEMA-001@2025-11-25": reports.Fail}
	meta004   = map[string]reports.Verdict{"META-004@2026-07-28": reports.Fail}
)

var breakTable = joinCases(coreBreakCases, msgBreakCases, httpBreakCases, hdrBreakCases, stdioBreakCases, stateBreakCases,
	toolBreakCases, contBreakCases, resBreakCases, pageBreakCases, logextBreakCases)

func joinCases(parts ...[]breakCase) []breakCase {
	var out []breakCase
	for _, p := range parts {
		for _, bc := range p {
			if extra := crossAreaEffects[bc.Rule]; len(extra) > 0 {
				merged := map[string]reports.Verdict{}
				for k, v := range bc.SideEffects {
					merged[k] = v
				}
				for k, v := range extra {
					merged[k] = v
				}
				bc.SideEffects = merged
			}
			out = append(out, bc)
		}
	}
	return out
}

// Verdict sets shared by crossAreaEffects.
var (
	promptsGone = map[string]reports.Verdict{ // prompts/list refused while prompts are declared
		"CONT-004@2026-07-28": reports.NA, "CONT-005@2026-07-28": reports.NA,
		"CONT-007@2026-07-28": reports.NA, "PROMPT-001@2026-07-28": reports.Fail, "PROMPT-002@2026-07-28": reports.Untestable,
		"PROMPT-003@2026-07-28": reports.Untestable, "PROMPT-005@2026-07-28": reports.Untestable, "PROMPT-006@2026-07-28": reports.NA,
	}
	promptsUndeclared = map[string]reports.Verdict{
		"CONT-004@2026-07-28": reports.NA, "CONT-005@2026-07-28": reports.NA,
		"CONT-007@2026-07-28": reports.NA, "PROMPT-001@2026-07-28": reports.NA, "PROMPT-002@2026-07-28": reports.NA,
		"PROMPT-003@2026-07-28": reports.NA, "PROMPT-004@2026-07-28": reports.NA, "PROMPT-005@2026-07-28": reports.NA,
		"PROMPT-006@2026-07-28": reports.NA,
	}
	// The break's target is the prompts/get result the prompt and content rules read.
	promptResultBroken = map[string]reports.Verdict{
		"CONT-007@2026-07-28": reports.NA, "PROMPT-003@2026-07-28": reports.Fail,
		"PROMPT-006@2026-07-28": reports.NA,
	}
	// The break changes the error for an unknown prompt, which PROMPT-004 judges too.
	unknownPromptError = map[string]reports.Verdict{"PROMPT-004@2026-07-28": reports.Warn}
)

// crossAreaEffects are side effects between areas that showed when the areas were merged:
// break rule -> (rule@revision -> verdict), added to that rule's cases.
var crossAreaEffects = map[string]map[string]reports.Verdict{
	"ERR-001": unknownPromptError, "ERR-006": unknownPromptError, "MSG-007": unknownPromptError,
	"RT-003":  {"PROMPT-003@2026-07-28": reports.Untestable},
	"MSG-004": promptResultBroken, "MSG-005": promptResultBroken,
	"LEG-001": {"CONT-006@2025-11-25": reports.NA},
	"CAP-006": promptsGone, "CAP-003": promptsUndeclared,
	"ERR-010": {"PROMPT-004@2026-07-28": reports.Warn, "PROMPT-005@2026-07-28": reports.Warn},
	// The fixture's resources vanish from a server that no longer declares them.
	"TOOL-018": resNA,
	// A tool listed twice is a duplicate across the traversal too.
	"TOOL-006": {"PAGE-004@2025-11-25": reports.Warn, "PAGE-004@2026-07-28": reports.Warn},
	// The resource rules validate the results the caching breaks spoil.
	"CACHE-001": {"RES-003@2026-07-28": reports.Fail},
	"CACHE-002": {"RES-010@2026-07-28": reports.Fail},
	"CACHE-003": {"RES-001@2026-07-28": reports.Fail},
	// The tools/list traversal ends in an invalid page: the rules that need the tool list
	// cannot go on (pageOneBroken).
	"PAGE-001": pageOneBroken,
}

// pageOneBroken are the verdicts the PAGE-001 break (a null nextCursor on the last tools/list
// page) gives the rules that traverse tools/list.
var pageOneBroken = func() map[string]reports.Verdict {
	m := map[string]reports.Verdict{
		"LOG-001@2026-07-28": reports.Fail, "LOG-002@2026-07-28": reports.Fail, "LOG-003@2026-07-28": reports.Fail,
		"LOG-005@2025-11-25": reports.Fail, "LOG-005@2026-07-28": reports.Fail,
		"TOOL-001@2025-11-25": reports.Fail, "TOOL-001@2026-07-28": reports.Fail, "TOOL-019@2026-07-28": reports.Untestable,
		"TOOL-007@2026-07-28": reports.Untestable, "TOOL-008@2026-07-28": reports.Untestable,
	}
	for _, r := range []string{"002", "004", "005", "006", "009", "010", "012", "014", "015", "016", "018"} {
		m["TOOL-"+r+"@2025-11-25"] = reports.Untestable
		m["TOOL-"+r+"@2026-07-28"] = reports.Untestable
	}
	return m
}()

var coreBreakCases = []breakCase{
	{Rule: "DISC-001", Revision: "2026-07-28", EraDefeated: true},
	// CACHE-001 requires cacheScope on the DiscoverResult as well.
	{Rule: "DISC-002", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "CACHE-001@2026-07-28": reports.Fail}},
	{Rule: "DISC-003"},
	// ERR-007 and VER-002 inspect the -32022 reply to a discover with an unsupported version.
	{Rule: "DISC-004", SideEffects: map[string]reports.Verdict{"ERR-007@2026-07-28": reports.Fail, "VER-002@2026-07-28": reports.Fail}},
	{Rule: "DISC-005", SideEffects: map[string]reports.Verdict{"META-006@2026-07-28": reports.Warn}},
	{Rule: "DISC-006"},
	// META-004 checks the HTTP status of the very requests META-001..003 send.
	{Rule: "META-001", SideEffects: meta004},
	{Rule: "META-002", SideEffects: meta004},
	{Rule: "META-003", SideEffects: meta004},
	{Rule: "META-004", Transports: httpOnly},
	{Rule: "META-005"},
	{Rule: "META-006"},
	{Rule: "RT-001", SideEffects: schema26},
	// "done" is also outside the core resultType set (RT-004).
	{Rule: "RT-002", SideEffects: map[string]reports.Verdict{"RT-004@2026-07-28": reports.Fail}},
	{Rule: "VER-001"},
	// ERR-009 checks the status of every -32022 reply, the discover one included.
	{Rule: "VER-002", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"ERR-009@2026-07-28": reports.Fail}},
	{Rule: "ERR-007", SideEffects: schema26},
	// The trimmed id "" answers a request the client never sent (MSG-013).
	{Rule: "MSG-003", SideEffects: map[string]reports.Verdict{"MSG-013@2026-07-28": reports.Fail, "MSG-013@2025-11-25": reports.Fail}},
	{Rule: "MSG-006"},
	// The break writes "id": null on a parse error, where the id was unreadable: a warning.
	{Rule: "MSG-009", Verdict: reports.Warn},
	{Rule: "MSG-011", Transports: stdioOnly},
	{Rule: "MSG-014"},
	{Rule: "MSG-015"},
	// CAP-007 calls completion/complete, a method the fixture does not know.
	{Rule: "MSG-016", SideEffects: map[string]reports.Verdict{"HTTP-013@2026-07-28": reports.Fail, "CAP-007@2026-07-28": reports.Warn}},
	{Rule: "HTTP-002", Transports: httpOnly},
	{Rule: "HTTP-004", Transports: httpOnly},
	// RES-010 reads the templates list the break turns into an array.
	{Rule: "HTTP-005", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"RES-010@2026-07-28": reports.Fail, "RES-010@2025-11-25": reports.Fail}},
	{Rule: "HTTP-013", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"CAP-007@2026-07-28": reports.Warn}},
	{Rule: "HTTP-014", Transports: httpOnly},
	{Rule: "HTTP-015", Transports: httpOnly},
	{Rule: "HTTP-016", Transports: httpOnly},
	{Rule: "HTTP-017", Transports: httpOnly},
	{Rule: "HTTP-025", Transports: httpOnly},
	{Rule: "HTTP-026", Transports: httpOnly},
	// HDR-003 checks the status of the very reply the break changes.
	{Rule: "ERR-009", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"HDR-003@2026-07-28": reports.Fail}},
	{Rule: "HDR-001", Transports: httpOnly},
	{Rule: "HDR-002", Transports: httpOnly},
	{Rule: "HDR-003", Transports: httpOnly},
	// Without the comparison, a method differing only in case matches too.
	{Rule: "HDR-004", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"HTTP-026@2026-07-28": reports.Fail}},
	{Rule: "STDIO-001", Transports: stdioOnly},
	{Rule: "STDIO-002", Transports: stdioOnly},
	{Rule: "STDIO-006", Transports: stdioOnly},
	// Scenarios whose first request on a fresh connection is not server/discover: the fixture
	// tool lookup fails (untestable) and the next page is refused there; HTTP-024 opens its
	// listen stream on a connection of its own, which the break refuses; VER-007 sends a modern
	// request as the first message of a process, before any discover. Over HTTP the break
	// depends on which TCP connection the client's pool picks, so its side effects are not
	// deterministic there: the break is proven on stdio (and by the fixture's own break check).
	{Rule: "STATE-002", Transports: stdioOnly, SideEffects: map[string]reports.Verdict{
		"CAP-008@2026-07-28": reports.Untestable, "ERR-008@2026-07-28": reports.Untestable,
		"STATE-001@2026-07-28": reports.Untestable, "STATE-003@2026-07-28": reports.Warn,
		"HTTP-024@2026-07-28": reports.Fail, "VER-007@2026-07-28": reports.Warn,
		// RES-002 lists resources on fresh connections, which the break refuses.
		"RES-002@2026-07-28": reports.Fail,
	}},
	{Rule: "CAP-006"},
	// DISC-002 validates the DiscoverResult the break makes invalid; CAP-009 its capabilities.
	{Rule: "SCHEMA-001", SideEffects: map[string]reports.Verdict{"DISC-002@2026-07-28": reports.Fail, "CAP-009@2026-07-28": reports.Fail}},
	{Rule: "LEG-001", SideEffects: schema25},
	{Rule: "LEG-002"},
	{Rule: "LEG-003"},
	// Without a tools array the TOOL rules have nothing to judge at 2025-11-25 (leg007Tool), and
	// PAGE-001 finds a tools/list page without its tools array.
	{Rule: "LEG-007", SideEffects: with(leg007Tool, "PAGE-001@2025-11-25", reports.Fail)},
	{Rule: "LEG-012"},
}
