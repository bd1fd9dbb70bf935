package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() { bindSteps("basic-versioning", registerBasicVersioningSteps) }

// registerBasicVersioningSteps binds the steps that only features/basic-versioning.feature uses.
func registerBasicVersioningSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client sends a list request for a declared capability with protocol version "([^"]+)"$`, func(ctx context.Context, v string) error {
		return WorldOf(ctx).SendList(ctx, v)
	})

	// Observe.
	step(sc, `^the value at "([^"]*)" is `+checks.JSONLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return WorldOf(ctx).compareAt(ptr, lit, true)
	})
	step(sc, `^the value at "([^"]*)" does not contain `+checks.JSONLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return WorldOf(ctx).containsAt(ptr, lit, false)
	})
	step(sc, `^the value at "([^"]*)" is a non-empty array of strings$`, valueIsNonEmptyStringArray)

	// Send.
	step(sc, `^the client POSTs a legacy-shaped initialize without MCP request headers$`, wc(func(ctx context.Context, w *World) error {
		return w.SendLegacyShaped(ctx, w.InitializeCall(revisions.LatestLegacy().ID))
	}))
	step(sc, `^the client POSTs a legacy-shaped ping without MCP-Protocol-Version$`, wc(func(ctx context.Context, w *World) error {
		return w.SendLegacyShaped(ctx, w.Build(client.Call{Method: "ping", Era: client.EraPlain}))
	}))
	step(sc, `^the client asks with a legacy-shaped initialize whether the server negotiates `+regexp.QuoteMeta(revisions.HeaderlessDefault().ID)+`$`, askHeaderlessDefaultNegotiated)

	// Observe: this scenario.
	step(sc, `^the legacy-shaped POST was refused with HTTP 400 unless the server also speaks a legacy revision$`, wc(judgeLegacyShaped))
	step(sc, `^the server refused the ping with HTTP 400 or serves it while supporting a revision older than `+regexp.QuoteMeta(revisions.VersionHeaderSince().ID)+`$`, pingRefusedOrOldRevision)

	// VER-003 and VER-004.
	step(sc, `^a modern-only server answered it with a JSON-RPC error and is still running$`, wc(expectInitializeRejected))
	step(sc, `^a modern-only server's error names the protocol versions it supports$`, wc(expectInitializeNamesVersions))

	// VER-007, VER-008 and VER-009.
	step(sc, `^a dual-era session is opened with a legacy initialize$`, dualEraSessionOpened)
	step(sc, `^the client sends a legacy list request for a declared capability in that session$`, sendsLegacyListRequest)
	step(sc, `^a dual-era server's reply is a `+regexp.QuoteMeta(revisions.Modern().ID)+` result of its method$`, wc(dualEraReplyIsModern))
	step(sc, `^the modern request was served as `+regexp.QuoteMeta(revisions.Modern().ID)+` or refused with an error$`, wc(modernRequestServedOrRefused))
	step(sc, `^the reply is a result of the negotiated legacy revision$`, replyResultNegotiatedLegacy)
	step(sc, `^the legacy session still works after the modern request$`, legacySessionStillWorks)

	// VER-010.
	step(sc, `^the reply to the era probe is a DiscoverResult or a recognised modern error$`, wc(expectProbeAnswer))

	// Send.
	step(sc, `^the client sends a list request declaring an unknown extension and an unknown capability$`, wc(sendsListRequestDeclaring))

	// Observe.
	step(sc, `^every extension identifier the server advertises has a prefix and a valid name$`, wc(everyExtensionIdentifierAdvertises))
	step(sc, `^every extension the server advertises has a settings object$`, wc(everyExtensionAdvertisesSettings))
	step(sc, `^no result in this run has a shape of an extension its request did not declare$`, AskJudge("EXT-003"))
}

func valueIsNonEmptyStringArray(ctx context.Context, ptr string) error {
	w := WorldOf(ctx)
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	arr, ok := v.([]any)
	bad := !ok || len(arr) == 0
	for _, x := range arr {
		if _, s := x.(string); !s {
			bad = true
		}
	}
	if bad {
		return &client.Mismatch{Expected: fmt.Sprintf("a non-empty array of strings at %s", ptr), Actual: checks.JSONText(v), Frames: w.LastSeqs()}
	}
	return nil
}

func askHeaderlessDefaultNegotiated(ctx context.Context) error {
	w := WorldOf(ctx)
	st := httpOf(w)
	ping := w.Last
	if err := w.SendLegacyShaped(ctx, w.InitializeCall(revisions.HeaderlessDefault().ID)); err != nil {
		return err
	}
	st.mu.Lock()
	st.oldInit = w.Last
	st.mu.Unlock()
	w.Last = ping
	return nil
}

func pingRefusedOrOldRevision(ctx context.Context) error {
	w := WorldOf(ctx)
	return judgeHeaderless(w, httpOf(w))
}

func dualEraSessionOpened(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).openSession(ctx, w)
}

func sendsLegacyListRequest(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).sendLegacyList(ctx, w)
}

func dualEraReplyIsModern(ctx context.Context, w *World) error {
	dual, err := w.DualEra(ctx)
	if err != nil {
		return err
	}
	if !dual {
		return w.SetSkip(reports.NA, "the server answers no initialize: it is not dual-era")
	}
	return expectModernResult(ctx, w)
}

func modernRequestServedOrRefused(ctx context.Context, w *World) error {
	// The connection carries both eras now: no one schema fits all its frames.
	w.Env.SetRev(w.Conn.Conn(), "")
	if msg, err := w.ResponseMessage(); err == nil && msg.Kind == harness.KindError {
		return nil // the server does not serve both eras on one process: allowed
	}
	if err := expectModernResult(ctx, w); err != nil {
		var m *client.Mismatch
		if errors.As(err, &m) {
			m.Expected = "inside a legacy session, a request with modern _meta is served as " + revisions.Modern().ID + " or refused with an error"
			m.Grade = reports.Info
		}
		return err
	}
	return nil
}

func replyResultNegotiatedLegacy(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).expectLegacyResult(w, "")
}

func legacySessionStillWorks(ctx context.Context) error {
	w := WorldOf(ctx)
	return stdioOf(w).expectLegacyResult(w, reports.Info)
}

func sendsListRequestDeclaring(ctx context.Context, w *World) error {
	caps := map[string]any{
		"extensions":      map[string]any{unknownExtensionID: map[string]any{}},
		"experimental":    map[string]any{"mcpconform": map[string]any{}},
		unknownCapability: map[string]any{},
	}
	return w.SendParams(ctx, w.listOrDiscover(), nil, map[string]any{harness.MetaClientCapabilities: caps}, false)
}

func everyExtensionIdentifierAdvertises(ctx context.Context, w *World) error {
	return w.judgeExtensions(func(id string, v json.RawMessage) string {
		if !extensionID.MatchString(id) {
			return fmt.Sprintf("extension identifier %q (want prefix/name, e.g. com.example/my-extension)", id)
		}
		return ""
	}, "extension identifiers that follow the _meta key rules with a prefix")
}

func everyExtensionAdvertisesSettings(ctx context.Context, w *World) error {
	return w.judgeExtensions(func(id string, v json.RawMessage) string {
		if !isJSONObject(v) {
			return fmt.Sprintf("extension %q has settings %s", id, client.Short(v))
		}
		return ""
	}, "an object (possibly empty) as each extension's settings")
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// legacyVersions returns the known legacy revisions the server lists in supportedVersions.
func (w *World) legacyVersions() []string {
	var out []string
	for _, v := range w.Target.Supported {
		if revisions.IsLegacy(v) {
			out = append(out, v)
		}
	}
	return out
}

// servedAsLegacy returns the legacy result of the last exchange: a 2xx reply whose response is
// a JSON-RPC result; nil otherwise.
func (w *World) servedAsLegacy() *harness.Message {
	if w.Last == nil || w.Last.HTTP == nil || w.Last.HTTP.Status/100 != 2 || w.Last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.Last.Response.Body())
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	return msg
}

// judgeLegacyShaped checks VER-005: a modern-only server refuses the legacy-shaped initialize
// with 400. A server that serves it with a legacy InitializeResult speaks a legacy revision
// (versioning#Compatibility Matrix, Legacy client / Dual-era server) and passes; any other
// answer fails, unless supportedVersions names a legacy revision (then that era's rules judge
// it).
func judgeLegacyShaped(ctx context.Context, w *World) error {
	h, err := w.LastHTTP()
	if err != nil {
		return err
	}
	if h.Status == http.StatusBadRequest {
		return nil
	}
	if msg := w.servedAsLegacy(); msg != nil {
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(msg.Result, &ir) == nil && revisions.IsLegacy(ir.ProtocolVersion) {
			return nil
		}
	}
	if legacy := w.legacyVersions(); len(legacy) > 0 {
		return w.SetSkip(reports.NA, fmt.Sprintf("the server also speaks %s and answered HTTP %d; legacy-era rules judge that answer", strings.Join(legacy, ", "), h.Status))
	}
	return &client.Mismatch{Expected: "HTTP 400 for an initialize without MCP-Protocol-Version and Mcp-Method", Actual: fmt.Sprintf("HTTP %d (%s)", h.Status, lastBody(w)), Frames: w.LastSeqs()}
}

// lastBody returns the start of the last reply's body, or "no body".
func lastBody(w *World) string {
	for _, f := range w.Last.Frames {
		if len(bytes.TrimSpace(f.Raw)) > 0 {
			return client.Short(f.Raw)
		}
	}
	return "no body"
}

// headerRequired reports whether revision v (known) has clients send MCP-Protocol-Version on
// every request (revisions.Revision.VersionHeader).
func headerRequired(v string) bool {
	r, _ := revisions.Lookup(v)
	return r.VersionHeader
}

// judgeHeaderless grades VER-006: a POST without MCP-Protocol-Version may be served as
// 2025-03-26 only by a server that supports clients older than 2025-06-18 (it lists 2025-03-26
// or 2024-11-05 in supportedVersions, or negotiates 2025-03-26 on initialize); otherwise it is
// refused with 400 (HDR-001). Serving it without such support, or answering it any other way,
// is reported as information. The last exchange is the ping.
func judgeHeaderless(w *World, st *httpState) error {
	h, err := w.LastHTTP()
	if err != nil {
		return err
	}
	if h.Status == http.StatusBadRequest {
		return nil
	}
	if w.servedAsLegacy() == nil {
		return &client.Mismatch{Expected: "HTTP 400, or the request served as " + revisions.HeaderlessDefault().ID + "", Actual: fmt.Sprintf("HTTP %d", h.Status), Frames: w.LastSeqs()}
	}
	for _, v := range w.legacyVersions() {
		if !headerRequired(v) {
			return nil
		}
	}
	if ex := st.oldInit; ex != nil && ex.Response != nil {
		if msg, err := harness.ParseMessage(ex.Response.Body()); err == nil && msg.Kind == harness.KindResult {
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(msg.Result, &ir) == nil && revisions.Known(ir.ProtocolVersion) && !headerRequired(ir.ProtocolVersion) {
				return nil
			}
		}
	}
	seqs := w.LastSeqs()
	if st.oldInit != nil {
		seqs = append(seqs, checks.ExchangeSeqs(st.oldInit)...)
	}
	headerless := strings.Join(revisions.HeaderlessIDs(), " or ")
	return &client.Mismatch{Expected: "a request without MCP-Protocol-Version served only by a server supporting " + headerless,
		Actual: "served, while supportedVersions lists " + strings.Join(w.Target.Supported, ", ") + " and initialize does not negotiate " + revisions.HeaderlessDefault().ID, Frames: seqs}
}

// recognisedModern are the error codes by which a dual-era client recognises a 2026-07-28
// server (basic/transports/stdio#Backward Compatibility).
var recognisedModern = map[int64]bool{
	harness.CodeHeaderMismatch: true, harness.CodeMissingRequiredClientCapability: true, harness.CodeUnsupportedProtocolVersion: true,
}

// ---------------------------------------------------------------------------------------------
// STDIO-004: what stdout may carry.

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ---------------------------------------------------------------------------------------------
// VER-003, VER-004: initialize on a modern-only server.

// initializeReply returns the reply to the scenario's initialize, or an outcome: na when the
// server answered with a result (it is dual-era; VER-007/VER-008 judge that side). The
// connection then carries a legacy session, and its frames are validated as such.
func initializeReply(w *World) (*harness.Message, error) {
	if len(w.Inits) == 0 {
		return nil, fmt.Errorf("feature bug: no initialize was sent")
	}
	ex := w.Inits[len(w.Inits)-1].Ex
	if ex.Response == nil {
		return nil, nil
	}
	msg, _ := harness.ParseMessage(ex.Response.Body())
	if msg.Kind == harness.KindResult {
		var ir struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		rev := ""
		if json.Unmarshal(msg.Result, &ir) == nil && revisions.IsLegacy(ir.ProtocolVersion) {
			rev = ir.ProtocolVersion
		}
		w.Env.SetRev(ex.Sent.Conn, rev)
		return nil, w.SetSkip(reports.NA, "the server answered initialize with a result: it also speaks a legacy revision (dual-era)")
	}
	return msg, nil
}

func expectInitializeRejected(ctx context.Context, w *World) error {
	msg, err := initializeReply(w)
	if err != nil {
		return err
	}
	s, err := w.Stdio()
	if err != nil {
		return err
	}
	if msg == nil {
		actual := "no response"
		if w.Last.Err != nil {
			actual += ": " + w.Last.Err.Error()
		}
		if code, exited := s.ExitCode(); exited {
			actual = fmt.Sprintf("the server exited (code %d) without answering", code)
		}
		return &client.Mismatch{Expected: "a JSON-RPC error in reply to initialize", Actual: actual, Frames: w.LastSeqs()}
	}
	if msg.Kind != harness.KindError {
		return &client.Mismatch{Expected: "a JSON-RPC error in reply to initialize", Actual: client.Describe(msg), Frames: w.LastSeqs()}
	}
	if s.WaitExit(w.Opts.QuietWindow) {
		code, _ := s.ExitCode()
		return &client.Mismatch{Expected: "the server to keep running after rejecting initialize", Actual: fmt.Sprintf("it exited (code %d)", code), Frames: w.LastSeqs()}
	}
	return nil
}

func expectInitializeNamesVersions(ctx context.Context, w *World) error {
	msg, err := initializeReply(w)
	if err != nil {
		return err
	}
	if msg == nil || msg.Kind != harness.KindError {
		why := "no response"
		if msg != nil {
			why = client.Describe(msg)
		}
		return w.SetSkip(reports.NA, "the server returned no error to initialize ("+why+"; judged by VER-004 on stdio)")
	}
	var want []string
	for _, v := range w.Target.Supported {
		if revisions.IsModern(v) || !revisions.Known(v) {
			want = append(want, v)
		}
	}
	if len(want) == 0 {
		want = []string{revisions.Modern().ID}
	}
	text := msg.Error.Message + " " + string(msg.Error.Data)
	var missing []string
	for _, v := range want {
		if !strings.Contains(text, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return &client.Mismatch{Expected: "the error to initialize names the supported version(s) " + strings.Join(want, ", ") + " in its message or data",
			Actual: fmt.Sprintf("%s, data %s", client.Describe(msg), orNone(client.Short(msg.Error.Data))), Frames: w.LastSeqs()}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// VER-007, VER-008, VER-009: both eras on a dual-era server.

// openSession makes the legacy handshake on the scenario's fresh connection, whose frames are
// then validated against the negotiated revision (a scenario that also sends modern requests
// there takes the connection out of validation, see modernRequestServedOrRefused).
func (st *stdioScenario) openSession(ctx context.Context, w *World) error {
	if w.Conn == nil || !w.Fresh {
		return fmt.Errorf("feature bug: a legacy session needs a fresh connection")
	}
	w.Env.SetRev(w.Conn.Conn(), "")
	if err := w.Initialize(ctx, revisions.LatestLegacy().ID); err != nil {
		return err
	}
	ex := w.Last
	if ex.Response == nil {
		return w.SetSkip(reports.NA, "the server did not answer initialize: it speaks no legacy revision")
	}
	msg, _ := harness.ParseMessage(ex.Response.Body())
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if msg.Kind != harness.KindResult || json.Unmarshal(msg.Result, &ir) != nil || !revisions.Known(ir.ProtocolVersion) || revisions.IsModern(ir.ProtocolVersion) {
		return w.SetSkip(reports.NA, "the server rejected initialize ("+client.Describe(msg)+"): it is not dual-era")
	}
	st.session = &legacySession{version: ir.ProtocolVersion}
	w.Env.SetRev(w.Conn.Conn(), ir.ProtocolVersion)
	if ex.HTTP != nil {
		st.session.sessionID = ex.HTTP.Headers.Get("Mcp-Session-Id")
	}
	return w.Send(ctx, w.Build(client.Call{Method: "notifications/initialized", Era: client.EraPlain, Notification: true, Headers: st.legacyHeader(w)}))
}

func (st *stdioScenario) legacyHeader(w *World) http.Header {
	if !w.OverHTTP() {
		return nil
	}
	h := harness.LegacyHeaders(st.session.version)
	if st.session.sessionID != "" {
		h.Set("Mcp-Session-Id", st.session.sessionID)
	}
	return h
}

func (st *stdioScenario) sendLegacyList(ctx context.Context, w *World) error {
	if st.session == nil {
		return fmt.Errorf("feature bug: no legacy session was opened")
	}
	for _, lm := range client.ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			return w.Send(ctx, w.Build(client.Call{Method: lm.Method, Era: client.EraPlain, Headers: st.legacyHeader(w)}))
		}
	}
	return w.Undeclared("the server declares none of the tools, resources and prompts capabilities")
}

// modernMembers returns the members of a result that only 2026-07-28 results have (resultType,
// ttlMs, cacheScope, _meta serverInfo): whether a request was served under that revision shows
// in them. Whether each is right is judged by the rules about them (RT-*, CACHE-*, META-*).
func modernMembers(result json.RawMessage) []string {
	var r struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return nil
	}
	_ = json.Unmarshal(result, &r)
	var out []string
	for _, k := range []string{"resultType", "ttlMs", "cacheScope"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	if _, ok := r.Meta[harness.MetaServerInfo]; ok {
		out = append(out, "_meta "+harness.MetaServerInfo)
	}
	return out
}

// expectModernResult checks that the last reply is a result served under 2026-07-28 (it has
// members only that revision's results have).
func expectModernResult(ctx context.Context, w *World) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	want := "a " + revisions.Modern().ID + " result (resultType, ttlMs, cacheScope or _meta serverInfo) to a request carrying modern _meta"
	if msg.Kind != harness.KindResult {
		return &client.Mismatch{Expected: want, Actual: client.Describe(msg), Frames: w.LastSeqs()}
	}
	if len(modernMembers(msg.Result)) == 0 {
		return &client.Mismatch{Expected: want, Actual: "a result with none of them, served as a legacy revision: " + client.Short(msg.Raw), Frames: w.LastSeqs()}
	}
	return nil
}

// expectLegacyResult checks that the last reply is a result of the legacy session (its schema
// is judged by SCHEMA-001 of the negotiated revision, or by the legacy rules); grade, when set,
// overrides the rule's verdict.
func (st *stdioScenario) expectLegacyResult(w *World, grade reports.Verdict) error {
	if st.session == nil {
		return fmt.Errorf("feature bug: no legacy session was opened")
	}
	msg, err := w.ResponseMessage()
	if err != nil {
		var m *client.Mismatch
		if errors.As(err, &m) {
			m.Grade = grade
		}
		return err
	}
	if msg.Kind != harness.KindResult {
		return &client.Mismatch{Expected: "a " + st.session.version + " result to a request without _meta in the legacy session", Actual: client.Describe(msg), Frames: w.LastSeqs(), Grade: grade}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// VER-010: the stdio probe.

func expectProbeAnswer(ctx context.Context, w *World) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	const want = "a DiscoverResult or a recognised modern error (-32020, -32021, or -32022 with data.supported)"
	switch msg.Kind {
	case harness.KindResult:
		var dr struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(msg.Result, &dr) != nil || dr.SupportedVersions == nil {
			return &client.Mismatch{Expected: want + ": a result with a supportedVersions list", Actual: "a result without it: " + client.Short(msg.Raw), Frames: w.LastSeqs()}
		}
		return nil
	case harness.KindError:
		if !recognisedModern[msg.Error.Code] {
			return &client.Mismatch{Expected: want, Actual: client.Describe(msg) + ", which a dual-era client reads as a legacy server", Frames: w.LastSeqs()}
		}
		if msg.Error.Code == harness.CodeUnsupportedProtocolVersion {
			var data struct {
				Supported []string `json:"supported"`
			}
			if json.Unmarshal(msg.Error.Data, &data) != nil || len(data.Supported) == 0 {
				return &client.Mismatch{Expected: want, Actual: "error -32022 without a data.supported list: " + client.Short(msg.Raw), Frames: w.LastSeqs()}
			}
		}
		return nil
	}
	return &client.Mismatch{Expected: want, Actual: client.Describe(msg), Frames: w.LastSeqs()}
}

// extensionID matches an extension identifier: a `_meta` key (basic/index#_meta) whose prefix
// is mandatory: dot-separated labels (a letter first, a letter or digit last, letters, digits
// and hyphens between), a slash, then a name that, unless empty, starts and ends with an
// alphanumeric and has only alphanumerics, hyphens, underscores and dots between.
var extensionID = regexp.MustCompile(`^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`)

// judgeExtensions applies judge to each extension of a fresh discover result (na when the
// server advertises none).
func (w *World) judgeExtensions(judge func(id string, v json.RawMessage) string, expected string) error {
	res := w.LastResult()
	if res == nil {
		if _, err := w.ResponseMessage(); err != nil {
			return err
		}
		return &client.Mismatch{Expected: "a DiscoverResult", Actual: "an error", Frames: w.LastSeqs()}
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(res["capabilities"], &caps)
	raw, ok := caps["extensions"]
	if !ok {
		return w.Undeclared("the server advertises no extensions")
	}
	var ext map[string]json.RawMessage
	if json.Unmarshal(raw, &ext) != nil {
		return &client.Mismatch{Expected: "capabilities.extensions to be an object", Actual: client.Short(raw), Frames: w.LastSeqs()}
	}
	if len(ext) == 0 {
		return w.Undeclared("the server advertises no extensions")
	}
	ids := make([]string, 0, len(ext))
	for id := range ext {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if bad := judge(id, ext[id]); bad != "" {
			return &client.Mismatch{Expected: expected, Actual: bad, Frames: w.LastSeqs()}
		}
	}
	return nil
}
