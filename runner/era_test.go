package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// fakeEraEnv names the environment variable that turns this test binary into a scripted
// stdio server (fakeEra as JSON): era detection is tested against real child processes.
const fakeEraEnv = "MCP_CONFORM_FAKE_ERA"

func init() {
	if script := os.Getenv(fakeEraEnv); script != "" {
		var f fakeEra
		if err := json.Unmarshal([]byte(script), &f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		f.serveStdio(os.Stdin, os.Stdout)
		os.Exit(0)
	}
}

// fakeEra is a scripted server for era detection. Discover maps the version a server/discover
// names to its reply: a JSON result object, an error code ("-32021"), or "silent"; a version
// not listed gets "-32601". Initialize is the protocolVersion an initialize is answered with
// ("" refuses it with -32601), InitDelayMs how long after the process started it answers.
type fakeEra struct {
	Discover    map[string]string `json:"discover"`
	Initialize  string            `json:"initialize"`
	InitDelayMs int               `json:"initDelayMs"`
	// Supported is the data.supported list of a -32022 reply (the newest modern revision
	// when empty).
	Supported []string `json:"supported,omitempty"`
	// Accepts are handshake revisions initialize echoes when asked for them; any other
	// request is answered with Initialize.
	Accepts []string `json:"accepts,omitempty"`
}

// reply returns the JSON-RPC reply to the request line, or "" for none.
func (f fakeEra) reply(line []byte, started time.Time) string {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Meta            map[string]any `json:"_meta"`
			ProtocolVersion string         `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.ID == nil {
		return ""
	}
	errorReply := func(code string) string {
		data := ""
		if code == "-32022" {
			supported := f.Supported
			if len(supported) == 0 {
				supported = []string{revisions.Modern().ID}
			}
			list, _ := json.Marshal(supported)
			data = fmt.Sprintf(`,"data":{"supported":%s,"requested":"x"}`, list)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%s,"message":"scripted"%s}}`, req.ID, code, data)
	}
	switch req.Method {
	case "server/discover":
		v, _ := req.Params.Meta[harness.MetaProtocolVersion].(string)
		a, ok := f.Discover[v]
		switch {
		case !ok:
			return errorReply("-32601")
		case a == "silent":
			return ""
		case strings.HasPrefix(a, "{"):
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, a)
		}
		return errorReply(a)
	case "initialize":
		if f.Initialize == "" {
			return errorReply("-32601")
		}
		time.Sleep(time.Until(started.Add(time.Duration(f.InitDelayMs) * time.Millisecond)))
		answer := f.Initialize
		if slices.Contains(f.Accepts, req.Params.ProtocolVersion) {
			answer = req.Params.ProtocolVersion
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, req.ID, answer)
	}
	return errorReply("-32601")
}

func (f fakeEra) serveStdio(in io.Reader, out io.Writer) {
	started := time.Now()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if r := f.reply(sc.Bytes(), started); r != "" {
			fmt.Fprintln(out, r)
		}
	}
}

// handler serves f over HTTP: a reply that is an error goes with 400 (modern errors) or 404
// (-32601), like a Streamable HTTP server; silence is a 202 without a body.
func (f fakeEra) handler() http.HandlerFunc {
	started := time.Now()
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reply := f.reply(body, started)
		if reply == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.Contains(reply, `"code":-32601`):
			w.WriteHeader(http.StatusNotFound)
		case strings.Contains(reply, `"error"`):
			w.WriteHeader(http.StatusBadRequest)
		}
		io.WriteString(w, reply)
	}
}

// detectAgainst runs era detection against f, over stdio (this binary, re-executed) or HTTP,
// and returns the targets, the notes and why the run cannot start.
func detectAgainst(t *testing.T, f fakeEra, transport string, cfg Config, table ...revisions.Revision) ([]*target, []string, string) {
	t.Helper()
	cfg.Transport = transport
	if cfg.Revision == "" {
		cfg.Revision = "auto"
	}
	if cfg.StartupTimeout == 0 {
		cfg.StartupTimeout = 5 * time.Second
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	cfg.QuietWindow, cfg.MaxFrame, cfg.ShutdownGrace = 100*time.Millisecond, 1<<20, time.Second
	switch transport {
	case harness.TransportStdio:
		script, err := json.Marshal(f)
		require.NoError(t, err)
		exe, err := os.Executable()
		require.NoError(t, err)
		cfg.Command = []string{"env", fakeEraEnv + "=" + string(script), exe}
	default:
		srv := httptest.NewServer(f.handler())
		t.Cleanup(srv.Close)
		cfg.URL = srv.URL + "/mcp"
	}
	e := &env{cfg: cfg, rec: harness.NewRecorder(time.Now()), rules: map[string]catalog.Rule{}, connRev: map[int]string{},
		stopped: func() string { return "stopped" }}
	if len(table) > 0 {
		e.modernTable = func() []revisions.Revision { return table }
	}
	t.Cleanup(e.closeAll)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.detect(ctx)
}

const discoverResult = `{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":0,"cacheScope":"public"}`

// TestDetectModernErrorLeavesCapabilitiesUnknown: a server/discover answered with a recognised
// modern error (-32020, -32021, -32022) makes the server modern, but no DiscoverResult said
// what it declares: the target's capabilities are unknown, naming DISC-001, so gated rules
// are untestable, not na "not declared".
func TestDetectModernErrorLeavesCapabilitiesUnknown(t *testing.T) {
	for _, code := range []string{"-32020", "-32021", "-32022"} {
		for _, transport := range []string{harness.TransportHTTP, harness.TransportStdio} {
			t.Run(code+"/"+transport, func(t *testing.T) {
				f := fakeEra{Discover: map[string]string{revisions.Modern().ID: code}}
				targets, notes, abort := detectAgainst(t, f, transport, Config{})
				require.Empty(t, abort)
				require.Len(t, targets, 1, notes)
				tg := targets[0]
				assert.True(t, tg.modern)
				assert.Equal(t, revisions.Modern().ID, tg.revision)
				assert.Contains(t, tg.capsUnknown, "DISC-001")
				assert.Contains(t, tg.capsUnknown, code)
				w := scenarioWorld(&suiteRun{env: &env{}, t: tg}, false)
				var o *client.Outcome
				require.ErrorAs(t, w.Undeclared("the server does not declare tools"), &o)
				assert.Equal(t, reports.Untestable, o.Verdict)
				assert.Contains(t, o.Reason, "DISC-001")
			})
		}
	}
	// A DiscoverResult still gives the capabilities it declares.
	f := fakeEra{Discover: map[string]string{revisions.Modern().ID: discoverResult}}
	targets, _, abort := detectAgainst(t, f, harness.TransportHTTP, Config{})
	require.Empty(t, abort)
	require.Len(t, targets, 1)
	assert.Empty(t, targets[0].capsUnknown)
	assert.Contains(t, targets[0].caps, "tools")
}

// TestDetectLegacyListRefusal: a server refusing server/discover with -32022 and listing only
// legacy revisions says it serves no modern one: it gets the legacy target alone, never a
// modern one whose every request it would refuse.
func TestDetectLegacyListRefusal(t *testing.T) {
	for _, transport := range []string{harness.TransportHTTP, harness.TransportStdio} {
		t.Run(transport, func(t *testing.T) {
			f := fakeEra{Discover: map[string]string{revisions.Modern().ID: "-32022"}, Supported: revisions.LegacyIDs(), Initialize: revisions.LatestLegacy().ID}
			targets, notes, abort := detectAgainst(t, f, transport, Config{})
			require.Empty(t, abort, notes)
			require.Len(t, targets, 1, notes)
			assert.Equal(t, revisions.LatestLegacy().ID, targets[0].revision)
			assert.False(t, targets[0].modern)
			assert.Contains(t, strings.Join(notes, "; "), "only legacy revisions")
		})
	}
}

// TestLegacyHandshakeGetsTheStartupWindow: after a probe that got no reply within the startup
// window, the legacy handshake on stdio runs on a freshly started process, whose first reply
// gets --startup-timeout, not --timeout: a server slower to start than --timeout is found.
func TestLegacyHandshakeGetsTheStartupWindow(t *testing.T) {
	f := fakeEra{Discover: map[string]string{revisions.Modern().ID: "silent"}, Initialize: revisions.LatestLegacy().ID, InitDelayMs: 1200}
	targets, notes, abort := detectAgainst(t, f, harness.TransportStdio, Config{StartupTimeout: 3 * time.Second, Timeout: 300 * time.Millisecond})
	require.Empty(t, abort, notes)
	require.Len(t, targets, 1, notes)
	assert.Equal(t, revisions.LatestLegacy().ID, targets[0].revision)
	assert.False(t, targets[0].modern)
}

// TestHandshakeWait: over HTTP the endpoint the probe reached has had its start; after a
// silent probe the handshake gets --timeout. On stdio it is a new process: --startup-timeout.
func TestHandshakeWait(t *testing.T) {
	silent := &harness.Probe{Exchange: &harness.Exchange{}}
	answered := &harness.Probe{Exchange: &harness.Exchange{Response: &harness.Frame{}}}
	for _, c := range []struct {
		transport string
		probe     *harness.Probe
		want      time.Duration
	}{
		{harness.TransportStdio, silent, time.Minute},
		{harness.TransportStdio, answered, time.Minute},
		{harness.TransportStdio, nil, time.Minute},
		{harness.TransportHTTP, silent, time.Second},
		{harness.TransportHTTP, answered, time.Minute},
		{harness.TransportHTTP, nil, time.Minute},
	} {
		e := &env{cfg: Config{Transport: c.transport, StartupTimeout: time.Minute, Timeout: time.Second}}
		assert.Equal(t, c.want, e.handshakeWait(c.probe), "%s %v", c.transport, c.probe)
	}
}

// TestForcedRevisionNotServedAborts: --revision names a legacy revision the server answers
// initialize with another version for: the run does not test that other revision in its
// place; it aborts (exit 3) naming what the server answered. A forced revision the server
// negotiates is tested.
func TestForcedRevisionNotServedAborts(t *testing.T) {
	legacy := revisions.Legacy()
	forced, answered := legacy[1].ID, legacy[0].ID
	f := fakeEra{Initialize: answered}
	targets, _, abort := detectAgainst(t, f, harness.TransportHTTP, Config{Revision: forced})
	require.Empty(t, targets)
	assert.Contains(t, abort, "--revision "+forced+" was forced")
	assert.Contains(t, abort, fmt.Sprintf("protocolVersion %q", answered))

	srv := httptest.NewServer(f.handler())
	t.Cleanup(srv.Close)
	run, err := Run(context.Background(), Config{Transport: harness.TransportHTTP, URL: srv.URL + "/mcp", Revision: forced,
		StartupTimeout: 5 * time.Second, Timeout: 5 * time.Second, QuietWindow: 100 * time.Millisecond, RunTimeout: 30 * time.Second,
		MaxFrame: 1 << 20, Schemas: testutil.Schemas(t)})
	require.NoError(t, err)
	assert.Contains(t, run.Aborted, answered)
	assert.Equal(t, reports.ExitError, reports.ExitCode(run, false, 0))

	targets, _, abort = detectAgainst(t, fakeEra{Initialize: forced}, harness.TransportHTTP, Config{Revision: forced})
	require.Empty(t, abort)
	require.Len(t, targets, 1)
	assert.Equal(t, forced, targets[0].revision)

	// A forced modern revision the server refuses with UnsupportedProtocolVersion aborts too.
	table := fakeModernTable()
	f = fakeEra{Discover: map[string]string{table[0].ID: "-32022"}, Initialize: answered}
	targets, _, abort = detectAgainst(t, f, harness.TransportHTTP, Config{Revision: table[0].ID}, table...)
	require.Empty(t, targets)
	assert.Contains(t, abort, "--revision "+table[0].ID+" was forced")
	assert.Contains(t, abort, "-32022")
}

// TestDetectOlderRevisions: --revision auto offers each older handshake revision in an
// initialize of its own and makes a focused target (focusOf: the negotiated one) of each the
// server echoes; one answered with another version is no acceptance and gets a note. A
// --revision list tests only the listed ones, and a listed one the server does not accept
// aborts the run, as a single forced revision does.
func TestDetectOlderRevisions(t *testing.T) {
	legacy := revisions.LegacyIDs() // newest first
	require.GreaterOrEqual(t, len(legacy), 4)
	f := fakeEra{Initialize: legacy[0], Accepts: []string{legacy[2]}}
	for _, transport := range []string{harness.TransportStdio, harness.TransportHTTP} {
		targets, notes, abort := detectAgainst(t, f, transport, Config{})
		require.Empty(t, abort, transport)
		require.Len(t, targets, 2, "%s: %v", transport, notes)
		assert.Equal(t, legacy[0], targets[0].revision)
		assert.Empty(t, targets[0].focusOf, "the negotiated revision runs every rule")
		assert.Equal(t, legacy[2], targets[1].revision)
		assert.Equal(t, legacy[0], targets[1].focusOf)
		assert.Contains(t, strings.Join(notes, "\n"), fmt.Sprintf("older revision %s: not accepted (initialize answered %q)", legacy[1], legacy[0]))
	}

	targets, _, abort := detectAgainst(t, f, harness.TransportHTTP, Config{Revision: legacy[2] + "," + legacy[0]})
	require.Empty(t, abort)
	require.Len(t, targets, 2)
	assert.Equal(t, []string{legacy[0], legacy[2]}, []string{targets[0].revision, targets[1].revision})

	_, _, abort = detectAgainst(t, f, harness.TransportHTTP, Config{Revision: legacy[0] + "," + legacy[3]})
	assert.Contains(t, abort, "--revision "+legacy[3]+" was forced")
	assert.Contains(t, abort, fmt.Sprintf("protocolVersion %q", legacy[0]))
}

// TestDetectionInterruptedIsNotAServerFault: a run stopped (interrupt, --run-timeout) before
// era detection could open its connection says so, not "cannot start the server".
func TestDetectionInterruptedIsNotAServerFault(t *testing.T) {
	e := &env{cfg: Config{Transport: harness.TransportStdio, Command: []string{"true"}, Revision: "auto", StartupTimeout: time.Second,
		Timeout: time.Second, QuietWindow: 100 * time.Millisecond, MaxFrame: 1 << 20, ShutdownGrace: time.Second},
		rec: harness.NewRecorder(time.Now()), rules: map[string]catalog.Rule{}, connRev: map[int]string{},
		stopped: func() string { return "the run was interrupted" }}
	t.Cleanup(e.closeAll)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _, abort := e.detectLegacy(ctx, nil)
	assert.Equal(t, "the run was interrupted during era detection", abort)
	assert.Equal(t, "cannot start the server: boom", e.dialFailed(context.Background(), errors.New("boom")))
}

// TestFocusRule: on an older revision's target only SCHEMA-001 and the rules whose
// applicability differs from the full revision's run; on a full target every rule.
func TestFocusRule(t *testing.T) {
	legacy := revisions.LegacyIDs()
	full := &target{revision: legacy[0]}
	older := &target{revision: legacy[len(legacy)-1], focusOf: legacy[0]}
	alike := catalog.Rule{ID: "X-001", Since: legacy[len(legacy)-1]}
	newer := catalog.Rule{ID: "X-002", Since: legacy[0]}
	stdioOnly := catalog.Rule{ID: "X-003", Since: legacy[0], Transports: []string{"stdio"}}
	assert.True(t, focusRule(full, alike, "stdio"))
	assert.False(t, focusRule(older, alike, "stdio"), "judged once, at the full revision")
	assert.True(t, focusRule(older, newer, "stdio"), "na at the older revision: shown there")
	assert.False(t, focusRule(older, stdioOnly, "http"), "na at both")
	assert.True(t, focusRule(older, catalog.Rule{ID: "SCHEMA-001", Since: legacy[len(legacy)-1]}, "http"))
	weaker := catalog.Rule{ID: "X-004", Level: "MUST", EarlierLevel: "SHOULD", EarlierUntil: legacy[len(legacy)-1]}
	assert.True(t, focusRule(older, weaker, "stdio"), "graded SHOULD at the older revision: shown there")
	between := &target{revision: legacy[1], focusOf: legacy[0]}
	assert.False(t, focusRule(between, weaker, "stdio"), "MUST at both: judged once")
}

// fakeModernTable is a modern row the build does not have, newer than every real one: the table
// a test hook gives era detection to prove it makes one target per modern revision.
func fakeModernTable() []revisions.Revision {
	future := revisions.Modern()
	future.ID = "2099-01-01"
	return append([]revisions.Revision{future}, revisions.Filter(revisions.Revision.Modern)...)
}

// TestDetectOneTargetPerModernRevision: with two modern revisions in the table (a test hook),
// a server whose DiscoverResult lists both gets a target for each, with the capabilities its
// own server/discover at that revision declares, on a connection of its own; a revision the
// server does not list gets none. Each modern target knows the legacy revision initialize
// negotiated in the same run.
func TestDetectOneTargetPerModernRevision(t *testing.T) {
	table := fakeModernTable()
	newer, older := table[0].ID, table[1].ID
	both := `{"supportedVersions":["` + newer + `","` + older + `","2025-11-25"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":0,"cacheScope":"public"}`
	olderCaps := `{"supportedVersions":["` + newer + `","` + older + `","2025-11-25"],"capabilities":{"prompts":{}},"resultType":"complete","ttlMs":0,"cacheScope":"public"}`
	for _, transport := range []string{harness.TransportHTTP, harness.TransportStdio} {
		t.Run(transport, func(t *testing.T) {
			f := fakeEra{Discover: map[string]string{newer: both, older: olderCaps}, Initialize: revisions.LatestLegacy().ID}
			targets, notes, abort := detectAgainst(t, f, transport, Config{}, table...)
			require.Empty(t, abort)
			require.Len(t, targets, 3, notes)
			assert.Equal(t, newer, targets[0].revision)
			assert.Contains(t, targets[0].caps, "tools")
			assert.Equal(t, older, targets[1].revision)
			assert.Contains(t, targets[1].caps, "prompts")
			assert.True(t, targets[0].modern && targets[1].modern)
			assert.NotEqual(t, targets[0].shared.Conn(), targets[1].shared.Conn())
			assert.Equal(t, revisions.LatestLegacy().ID, targets[2].revision)
			for _, tg := range targets[:2] {
				assert.Equal(t, []string{revisions.LatestLegacy().ID}, tg.negotiated)
				w := scenarioWorld(&suiteRun{env: &env{cfg: Config{Transport: transport}}, t: tg}, false)
				assert.Equal(t, tg.revision, decodeMeta(t, w.Build(client.Call{Method: "tools/list"}))[harness.MetaProtocolVersion])
			}
		})
	}
	// A server that lists only the older one: the probe at the newer gets -32022, and the
	// older is tested alone.
	f := fakeEra{Discover: map[string]string{newer: "-32022", older: olderCaps}}
	targets, notes, abort := detectAgainst(t, f, harness.TransportHTTP, Config{}, table...)
	require.Empty(t, abort)
	require.Len(t, targets, 1, notes)
	assert.Equal(t, older, targets[0].revision)
	assert.Contains(t, targets[0].caps, "prompts")
	assert.Empty(t, targets[0].capsUnknown)
}

func decodeMeta(t *testing.T, req harness.Request) map[string]any {
	var m struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(req.Raw, &m))
	return m.Params.Meta
}

// TestModernVersions: the modern revisions to test are those of the table the server lists,
// plus the asked one unless -32022 refused it; only the forced one under --revision; the asked
// one when the server lists none the build knows, none when it refused with legacy ones only.
func TestModernVersions(t *testing.T) {
	table := fakeModernTable()
	newer, older := table[0].ID, table[1].ID
	result := json.RawMessage(`{}`)
	for _, c := range []struct {
		name   string
		probe  harness.Probe
		forced string
		want   []string
	}{
		{"result listing both", harness.Probe{Supported: []string{older, newer}, Result: result}, "auto", []string{newer, older}},
		{"result listing the asked only", harness.Probe{Supported: []string{newer}, Result: result}, "auto", []string{newer}},
		{"result not listing the asked", harness.Probe{Supported: []string{older}, Result: result}, "auto", []string{newer, older}},
		{"-32022 listing the older", harness.Probe{Supported: []string{older, "2025-11-25"}}, "auto", []string{older}},
		{"-32022 listing none known", harness.Probe{Supported: []string{"2030-01-01"}}, "auto", []string{newer}},
		{"-32022 listing legacy revisions only", harness.Probe{Supported: revisions.LegacyIDs()}, "auto", nil},
		{"-32021 (no list)", harness.Probe{}, "auto", []string{newer}},
		{"forced older", harness.Probe{Supported: []string{older, newer}, Result: result}, older, []string{older}},
	} {
		assert.Equal(t, c.want, modernVersions(table, &c.probe, newer, c.forced), c.name)
	}
}

// TestEraDetectionSubjects: era detection against the three kinds of server issue 19 names,
// each a scripted server (fakeEra) over stdio and HTTP. A legacy server whose answer to
// server/discover is no DiscoverResult and no modern error is not read as modern; a modern
// server's UnsupportedProtocolVersion (-32022) listing modern revisions sends no one to the
// legacy handshake as if it were legacy, and a server refusing initialize gets no legacy
// target; a server whose DiscoverResult lists no legacy revision but which answers initialize
// is dual-era in fact, found by trying, and tested at both.
func TestEraDetectionSubjects(t *testing.T) {
	modern, legacy := revisions.Modern().ID, revisions.LatestLegacy().ID
	onlyModern := `{"supportedVersions":["` + modern + `"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":0,"cacheScope":"public"}`
	for _, c := range []struct {
		name string
		f    fakeEra
		// want are the revisions of the targets, in order; modern says which are modern.
		want   []string
		modern []bool
	}{
		{"legacy answering discover with a bare result", fakeEra{Discover: map[string]string{modern: `{"capabilities":{}}`}, Initialize: legacy}, []string{legacy}, []bool{false}},
		{"legacy answering discover with -32602", fakeEra{Discover: map[string]string{modern: "-32602"}, Initialize: legacy}, []string{legacy}, []bool{false}},
		{"legacy answering discover with -32000", fakeEra{Discover: map[string]string{modern: "-32000"}, Initialize: legacy}, []string{legacy}, []bool{false}},
		{"modern refusing with -32022 and initialize with -32601", fakeEra{Discover: map[string]string{modern: "-32022"}, Supported: []string{modern}}, []string{modern}, []bool{true}},
		{"dual-era in fact", fakeEra{Discover: map[string]string{modern: onlyModern}, Initialize: legacy}, []string{modern, legacy}, []bool{true, false}},
	} {
		for _, transport := range []string{harness.TransportStdio, harness.TransportHTTP} {
			t.Run(c.name+"/"+transport, func(t *testing.T) {
				t.Parallel()
				targets, notes, abort := detectAgainst(t, c.f, transport, Config{})
				require.Empty(t, abort, notes)
				var got []string
				var modernGot []bool
				for _, tg := range targets {
					got = append(got, tg.revision)
					modernGot = append(modernGot, tg.modern)
				}
				require.Equal(t, c.want, got, "notes: %v", notes)
				require.Equal(t, c.modern, modernGot)
				if len(targets) == 2 {
					// The DiscoverResult did not list the legacy revision; initialize showed it.
					assert.Contains(t, targets[0].negotiated, legacy)
				}
			})
		}
	}
}
