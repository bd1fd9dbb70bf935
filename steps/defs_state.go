package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// registerStateSteps binds the steps of statelessness and capabilities (STATE, CAP, META-007, ERR-008).
func registerStateSteps(sc *godog.ScenarioContext) {
	// Capabilities declared versus features offered (CAP-001..004).
	step(sc, `^if the response is a result, the server declares the "([^"]+)" capability$`, func(ctx context.Context, name string) error {
		return worldOf(ctx).offeredMeansDeclared(name)
	})
	step(sc, `^the client sends a completion request for an argument the server lists$`, wc(func(ctx context.Context, w *world) error {
		ref, arg, err := w.completionTarget(ctx)
		if err != nil {
			return err
		}
		return w.send(ctx, w.stateRequest("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}, nil))
	}))

	// CAP-005.
	step(sc, `^the client sends a list request for each declared capability asking for debug logs$`, wc(func(ctx context.Context, w *world) error {
		sent := false
		for _, lm := range listMethods {
			if _, ok := w.s.t.caps[lm.capability]; ok {
				if err := w.send(ctx, w.stateRequest(lm.method, nil, map[string]any{metaLogLevel: "debug"})); err != nil {
					return err
				}
				sent = true
			}
		}
		if !sent {
			return w.sendMethod(ctx, harmless(w), "", nil, nil)
		}
		return nil
	}))
	step(sc, `^no log message the server sent in this run came without the "logging" capability$`, askJudge("CAP-005"))

	// CAP-007.
	step(sc, `^the client calls a method of each feature the server does not declare$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.probeUndeclared(ctx, w.state)
	})
	step(sc, `^each of those calls failed with method-not-found$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectMethodNotFound(w.state)
	})

	// Client capabilities: CAP-008, ERR-008, STATE-001.
	step(sc, `^the client calls a fixture tool that needs a client capability, declaring only other capabilities$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.callFixture(ctx, w.state, "without", "others", "with")
	})
	step(sc, `^the server relied on no client capability the calls did not declare$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectNoReliance(w.state)
	})
	step(sc, `^the client calls a fixture tool that needs a client capability without declaring any$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.callFixture(ctx, w.state, "without")
	})
	step(sc, `^a -32021 reply names the needed capability in data.requiredCapabilities$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectRequiredCapabilities(w.state)
	})
	step(sc, `^every -32021 error the server sent in this run names the missing capabilities$`, askJudge("ERR-008"))
	step(sc, `^the client sends (a capability-needing fixture call|a list request) without, with, then again without what it needs$`, func(ctx context.Context, what string) error {
		w := worldOf(ctx)
		st := w.state
		if what == "a list request" {
			return w.versionCarryOver(ctx, st)
		}
		return w.callFixture(ctx, st, "without", "with", "without")
	})
	step(sc, `^the last reply follows only its own _meta$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectNoCarryOver(w.state)
	})

	// STATE-003.
	step(sc, `^the client pages a list on one connection and asks for its next page on a fresh connection$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.pageAcrossConnections(ctx, w.state)
	})
	step(sc, `^the next page is served on the fresh connection$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		st := w.state
		if st.untestable != "" {
			return w.setSkip(reports.Untestable, st.untestable)
		}
		return w.expectKind(harness.KindResult, 0)
	})

	// STATE-004.
	step(sc, `^the client interleaves requests of three clients on a fresh connection, in turn and at once$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.interleave(ctx, w.state)
	})
	step(sc, `^each interleaved request was answered according to its own _meta$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectOwnAnswers(w.state)
	})

	// META-007.
	step(sc, `^the client sends the same requests as client "([^"]+)" and as client "([^"]+)", each on a fresh connection$`, func(ctx context.Context, a, b string) error {
		w := worldOf(ctx)
		return w.asTwoClients(ctx, w.state, a, b)
	})
	step(sc, `^both clients got the same results apart from _meta$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectSameResults(w.state)
	})

	// CAP-009, CAP-010.
	step(sc, `^the client reads the server's declared capabilities$`, wc(func(ctx context.Context, w *world) error {
		return w.readCapabilities(ctx, false)
	}))
	step(sc, `^the client reads the server's declared capabilities twice, and once more on a fresh connection$`, wc(func(ctx context.Context, w *world) error {
		if err := w.readCapabilities(ctx, false); err != nil {
			return err
		}
		if err := w.readCapabilities(ctx, false); err != nil {
			return err
		}
		return w.readCapabilities(ctx, true)
	}))
	step(sc, `^every capability set the server declared is the same$`, wc(func(ctx context.Context, w *world) error {
		return w.expectSameCapabilities()
	}))
}

// metaLogLevel is the request `_meta` key of the minimum log level (server/utilities/logging).
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// stateWorld is what the statelessness and capability steps of one scenario pass from their
// When steps to their Then steps.
type stateWorld struct {
	// untestable, when set, says why the scenario could not reach what it needs.
	untestable string
	// fixture is the capability-needing fixture tool used, and calls its calls in order.
	fixture *fixtureTool
	calls   []fixtureCall
	// probes are the calls of CAP-007 (one per undeclared feature).
	probes []*harness.Exchange
	// version is set by the STATE-001 protocol-version case.
	version bool
	// turns are the interleaved requests of STATE-004 and what each should get.
	turns []turn
	// pairs are the requests META-007 sent as each of two clients.
	pairs [][2]*harness.Exchange
	names [2]string
}

// stateRequest builds a request for method with params; on a modern target params gets the
// default `_meta` with meta's entries set over it.
func (w *world) stateRequest(method string, params, meta map[string]any) harness.Request {
	if !w.s.t.modern {
		meta = nil // the extra _meta keys are modern ones
	}
	if len(params) == 0 {
		params = nil
	}
	return w.build(call{Method: method, Params: params, Meta: meta})
}

// responseOf parses the response of ex; nil when none arrived.
func responseOf(ex *harness.Exchange) *harness.Message {
	if ex == nil || ex.Response == nil {
		return nil
	}
	msg, _ := harness.ParseMessage(ex.Response.Raw)
	return msg
}

// describeExchange says what ex got: a result, an error with its code, or no response.
func describeExchange(ex *harness.Exchange) string {
	msg := responseOf(ex)
	if msg == nil {
		if ex != nil && ex.Err != nil {
			return "no response: " + ex.Err.Error()
		}
		return "no response"
	}
	return describe(msg)
}

func capNames(caps map[string]json.RawMessage) string {
	names := make([]string, 0, len(caps))
	for k := range caps {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// offeredMeansDeclared is CAP-001..004: a feature request answered with a result means the
// feature is offered, so it must be declared. An error, or a list result with no entry and no
// next page (a server that answers every list method, offering nothing), means it is not
// offered, which is consistent with either declaration (CAP-006 judges a declared feature
// that fails; CAP-007 the undeclared method that does not fail).
func (w *world) offeredMeansDeclared(name string) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	if msg.Kind != harness.KindResult {
		return nil
	}
	if _, ok := w.s.t.caps[name]; ok {
		return nil
	}
	if member, isList := listMembers[name]; isList && emptyPage(msg.Result, member) {
		return nil
	}
	where := "DiscoverResult"
	if !w.s.t.modern {
		where = "InitializeResult"
	}
	return &Mismatch{
		Expected: fmt.Sprintf("capabilities.%s in the %s, since the server answered %s with a result", name, where, w.last.Sent.Method),
		Actual:   "declared capabilities: " + capNames(w.s.t.caps),
		Frames:   w.lastSeqs(),
	}
}

// completionTarget finds something to complete: the first argument of the first prompt that
// has arguments, else the first variable of the first resource template, else a made-up
// prompt (a server that offers completions then still answers, if only with -32602).
func (w *world) completionTarget(ctx context.Context) (map[string]any, string, error) {
	lt, err := w.listAll(ctx, "prompts/list", "prompts")
	if _, failed := listProblem(err); err != nil && !failed {
		return nil, "", err
	}
	for _, raw := range lt.Raw {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(raw, &p)
		if len(p.Arguments) > 0 && p.Arguments[0].Name != "" {
			return map[string]any{"type": "ref/prompt", "name": p.Name}, p.Arguments[0].Name, nil
		}
	}
	lt, err = w.listAll(ctx, "resources/templates/list", "resourceTemplates")
	if _, failed := listProblem(err); err != nil && !failed {
		return nil, "", err
	}
	for _, raw := range lt.Raw {
		var t struct {
			URITemplate string `json:"uriTemplate"`
		}
		_ = json.Unmarshal(raw, &t)
		if m := templateVar.FindStringSubmatch(t.URITemplate); m != nil {
			return map[string]any{"type": "ref/resource", "uri": t.URITemplate}, m[1], nil
		}
	}
	return map[string]any{"type": "ref/prompt", "name": "mcpconform_prompt"}, "arg", nil
}

// templateVar matches the first variable of an RFC 6570 URI template (its operator skipped).
var templateVar = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_%.]+)`)

// undeclaredProbes are the methods CAP-007 calls for a feature the server does not declare.
var undeclaredProbes = []struct {
	capability, method string
	params             map[string]any
	since, until       string
}{
	{capability: "tools", method: "tools/list"},
	{capability: "resources", method: "resources/list"},
	{capability: "prompts", method: "prompts/list"},
	// The completions capability exists since revisions.CompletionsSince; earlier servers
	// answer without it.
	{capability: "completions", method: "completion/complete", since: revisions.CompletionsSince().ID, params: map[string]any{
		"ref": map[string]any{"type": "ref/prompt", "name": "mcpconform_prompt"}, "argument": map[string]any{"name": "arg", "value": ""},
	}},
	// The modern revision has no logging method: the level travels in each request's _meta.
	{capability: "logging", method: "logging/setLevel", until: revisions.LoggingMethodUntil().ID, params: map[string]any{"level": "info"}},
}

func (w *world) probeUndeclared(ctx context.Context, st *stateWorld) error {
	rev := w.s.t.revision
	var skipped []string
	for _, p := range undeclaredProbes {
		if _, ok := w.s.t.caps[p.capability]; ok {
			continue
		}
		if !revisions.InRange(rev, p.since, p.until) {
			skipped = append(skipped, p.capability)
			continue
		}
		if err := w.send(ctx, w.stateRequest(p.method, p.params, nil)); err != nil {
			return err
		}
		st.probes = append(st.probes, w.last)
	}
	if len(st.probes) == 0 {
		why := "the server declares every feature that has a method at " + rev + " (" + capNames(w.s.t.caps) + ")"
		if len(skipped) > 0 {
			why += "; " + strings.Join(skipped, ", ") + " has no capability-gated method at " + rev
		}
		return w.setSkip(reports.NA, why)
	}
	return nil
}

func (w *world) expectMethodNotFound(st *stateWorld) error {
	for _, ex := range st.probes {
		msg := responseOf(ex)
		want := "error -32601"
		status := w.s.t.modern && w.s.env.cfg.Transport == harness.TransportHTTP
		if status {
			want += " with HTTP 404"
		}
		want += " for " + ex.Sent.Method + " (its capability is not declared)"
		switch {
		case msg == nil || msg.Kind != harness.KindError || msg.Error.Code != -32601:
			return &Mismatch{Expected: want, Actual: describeExchange(ex), Frames: exchangeSeqs(ex)}
		case status && (ex.HTTP == nil || ex.HTTP.Status != 404):
			got := "no HTTP status"
			if ex.HTTP != nil {
				got = fmt.Sprintf("HTTP %d", ex.HTTP.Status)
			}
			return &Mismatch{Expected: want, Actual: "-32601 with " + got, Frames: exchangeSeqs(ex)}
		}
	}
	return nil
}

// capabilityFixtures are the tools of the official conformance suite's everything servers
// that need a client capability, in the order the suite prefers them, with that capability.
var capabilityFixtures = []struct{ name, needs string }{
	{"test_elicitation", "elicitation"},
	{"test_tool_with_elicitation", "elicitation"},
	{"test_sampling", "sampling"},
	{"test_incomplete_result_sampling", "sampling"},
	{"test_incomplete_result_list_roots", "roots"},
}

// inputCapability maps the method of an input request (or of a legacy server-to-client
// request) to the client capability it needs.
var inputCapability = map[string]string{
	"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots",
}

// fixtureTool is a capability-needing fixture tool the server lists, with arguments built
// from its inputSchema.
type fixtureTool struct {
	name, needs string
	args        map[string]any
}

// fixtureCall is one call of the fixture tool: the client capabilities it declared and what
// came back.
type fixtureCall struct {
	kind     string // "without" (no capabilities), "others" (all but the needed one), "with"
	declared map[string]any
	ex       *harness.Exchange
}

func fixtureNames() string {
	var names []string
	for _, f := range capabilityFixtures {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}

// findFixture lists the tools (following nextCursor) and returns the first capability fixture
// whose required arguments the suite can fill; why says what is missing otherwise.
func (w *world) findFixture(ctx context.Context) (*fixtureTool, string, error) {
	type tool struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	lt, err := w.listAll(ctx, "tools/list", "tools")
	if p, ok := listProblem(err); ok {
		return nil, "the server did not list its tools (" + p + "), so no fixture tool (" + fixtureNames() + ") could be found", nil
	}
	if err != nil {
		return nil, "", err
	}
	listed := map[string]tool{}
	for _, raw := range lt.Raw {
		var t tool
		_ = json.Unmarshal(raw, &t)
		listed[t.Name] = t
	}
	for _, f := range capabilityFixtures {
		name := w.s.env.fixtureName(f.name)
		t, ok := listed[name]
		if !ok {
			continue
		}
		if args, ok := fixtureArgs(t.InputSchema); ok {
			return &fixtureTool{name: name, needs: f.needs, args: args}, "", nil
		}
		return nil, "the fixture tool " + f.name + " has required arguments the suite cannot fill (only strings, numbers and booleans)", nil
	}
	return nil, "the server lists none of the fixture tools that need a client capability (" + fixtureNames() + ")", nil
}

// fixtureArgs fills the required properties of a tool's inputSchema: strings with
// "mcp-conform", numbers with 1, booleans with true. ok is false for any other required type.
func fixtureArgs(schema json.RawMessage) (map[string]any, bool) {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "string":
			args[name] = "mcp-conform"
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		default:
			return nil, false
		}
	}
	return args, true
}

// callFixture finds the fixture tool and calls it once per kind, in order, on the scenario's
// connection: "without" declares no client capability, "others" every other known one,
// "with" only the one it needs. Without a fixture it records why (the Then step decides).
func (w *world) callFixture(ctx context.Context, st *stateWorld, kinds ...string) error {
	if !w.s.t.modern {
		return fmt.Errorf("feature bug: the fixture calls need a %s target", revisions.Modern().ID)
	}
	ft, why, err := w.findFixture(ctx)
	if err != nil {
		return err
	}
	if ft == nil {
		st.untestable = why
		return nil
	}
	st.fixture = ft
	for _, kind := range kinds {
		declared := map[string]any{}
		switch kind {
		case "with":
			declared[ft.needs] = map[string]any{}
		case "others":
			for _, c := range []string{"elicitation", "sampling", "roots"} {
				if c != ft.needs {
					declared[c] = map[string]any{}
				}
			}
		}
		req := w.build(w.toolsCall(ft.name, ft.args, map[string]any{harness.MetaClientCapabilities: declared}))
		if err := w.send(ctx, req); err != nil {
			return err
		}
		st.calls = append(st.calls, fixtureCall{kind: kind, declared: declared, ex: w.last})
	}
	return nil
}

// reliance says how the reply to c relies on a client capability c did not declare: an input
// request of an undeclared kind in an InputRequiredResult, or a server-to-client request of
// such a kind among the frames of the exchange. "" when it does not.
func reliance(c fixtureCall) string {
	for _, f := range c.ex.Frames {
		if f == c.ex.Response {
			continue
		}
		if msg, err := harness.ParseMessage(f.Raw); err == nil && msg.Kind == harness.KindRequest {
			if need, ok := inputCapability[msg.Method]; ok && c.declared[need] == nil {
				return fmt.Sprintf("a %s request to the client (frame %d), which needs the undeclared %s capability", msg.Method, f.Seq, need)
			}
		}
	}
	msg := responseOf(c.ex)
	if msg == nil || msg.Kind != harness.KindResult {
		return ""
	}
	var r struct {
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	_ = json.Unmarshal(msg.Result, &r)
	keys := make([]string, 0, len(r.InputRequests))
	for k := range r.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := r.InputRequests[k].Method
		if need, ok := inputCapability[m]; ok && c.declared[need] == nil {
			return fmt.Sprintf("inputRequests[%q] is a %s, which needs the undeclared %s capability", k, m, need)
		}
	}
	return ""
}

func declaredText(d map[string]any) string {
	b, _ := json.Marshal(d)
	return string(b)
}

// expectNoReliance is CAP-008: the calls lacking the needed capability got -32021 or a result
// that asks for nothing undeclared; any other error is a failure unless the call declaring the
// capability fails too (then the fixture is not usable as the suite calls it).
func (w *world) expectNoReliance(st *stateWorld) error {
	if st.untestable != "" {
		return w.setSkip(reports.Untestable, st.untestable)
	}
	var with *fixtureCall
	for i := range st.calls {
		if st.calls[i].kind == "with" {
			with = &st.calls[i]
		}
	}
	for _, c := range st.calls {
		if c.kind == "with" {
			continue
		}
		if r := reliance(c); r != "" {
			return &Mismatch{Expected: fmt.Sprintf("-32021, or a result asking for nothing undeclared, for %s called with clientCapabilities %s", st.fixture.name, declaredText(c.declared)),
				Actual: r, Frames: exchangeSeqs(c.ex)}
		}
		msg := responseOf(c.ex)
		if msg == nil || msg.Kind == harness.KindResult || (msg.Kind == harness.KindError && msg.Error.Code == -32021) {
			if msg == nil {
				return &Mismatch{Expected: "a response to " + st.fixture.name, Actual: describeExchange(c.ex), Frames: exchangeSeqs(c.ex)}
			}
			continue
		}
		if wm := responseOf(with.ex); wm == nil || wm.Kind != harness.KindResult {
			return w.setSkip(reports.Untestable, fmt.Sprintf("the fixture tool %s fails even when %s is declared (%s), so its reply without it says nothing about the capability",
				st.fixture.name, st.fixture.needs, describeExchange(with.ex)))
		}
		return &Mismatch{Expected: fmt.Sprintf("-32021 (MissingRequiredClientCapability) for %s called with clientCapabilities %s; it succeeds when %s is declared", st.fixture.name, declaredText(c.declared), st.fixture.needs),
			Actual: describe(msg), Frames: exchangeSeqs(c.ex)}
	}
	return nil
}

// expectRequiredCapabilities is ERR-008 for the fixture call without capabilities: a -32021
// reply is a MissingRequiredClientCapabilityError whose requiredCapabilities name what the
// tool needs. Any other reply is not what the rule judges.
func (w *world) expectRequiredCapabilities(st *stateWorld) error {
	if st.untestable != "" {
		return w.setSkip(reports.Untestable, st.untestable)
	}
	c := st.calls[0]
	msg := responseOf(c.ex)
	if msg == nil || msg.Kind != harness.KindError || msg.Error.Code != -32021 {
		return w.setSkip(reports.NA, fmt.Sprintf("%s called without client capabilities got %s, not -32021", st.fixture.name, describeExchange(c.ex)))
	}
	if err := w.validateAt(msg.Raw, "", "MissingRequiredClientCapabilityError", exchangeSeqs(c.ex)); err != nil {
		return err
	}
	var e struct {
		RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	_ = json.Unmarshal(msg.Error.Data, &e)
	if _, ok := e.RequiredCapabilities[st.fixture.needs]; !ok {
		return &Mismatch{Expected: fmt.Sprintf("data.requiredCapabilities naming %s, which %s needs", st.fixture.needs, st.fixture.name),
			Actual: "data " + short(msg.Error.Data), Frames: exchangeSeqs(c.ex)}
	}
	return nil
}

// versionCarryOver is the STATE-001 protocol-version case on the scenario's connection: a
// request with an unsupported version (the control), one with the supported version, then the
// unsupported one again.
func (w *world) versionCarryOver(ctx context.Context, st *stateWorld) error {
	method := harmless(w)
	for _, lm := range listMethods {
		if _, ok := w.s.t.caps[lm.capability]; ok {
			method = lm.method
			break
		}
	}
	st.version = true
	for _, v := range []string{unsupportedVersion, "", unsupportedVersion} {
		if err := w.sendMethod(ctx, method, v, nil, nil); err != nil {
			return err
		}
		st.turns = append(st.turns, turn{ex: w.last})
	}
	return nil
}

// unsupportedVersion is a protocol version no server supports.
const unsupportedVersion = revisions.Past

// expectNoCarryOver is STATE-001: the last reply is what the same request got as the first
// request of the connection, whatever came in between. A server that does not judge the
// version or the capability even on a fresh connection has nothing to carry over (other
// rules judge that).
func (w *world) expectNoCarryOver(st *stateWorld) error {
	if st.version {
		first, last := st.turns[0].ex, st.turns[2].ex
		control := replyOutcome(first)
		refused := strings.HasPrefix(control, "error") || strings.HasPrefix(control, "no JSON-RPC response")
		if refused && replyOutcome(last) == "a result" {
			return &Mismatch{Expected: fmt.Sprintf("the protocol version %s refused again (%s), as it was before a %s request was served", unsupportedVersion, control, revisions.Modern().ID),
				Actual: "a result", Frames: append(exchangeSeqs(first), exchangeSeqs(last)...)}
		}
		return nil
	}
	if st.untestable != "" {
		return w.setSkip(reports.Untestable, st.untestable)
	}
	control, with, last := st.calls[0], st.calls[1], st.calls[2]
	if wm := responseOf(with.ex); wm == nil || wm.Kind != harness.KindResult {
		return w.setSkip(reports.Untestable, fmt.Sprintf("the fixture tool %s fails even when %s is declared (%s), so nothing could be carried over",
			st.fixture.name, st.fixture.needs, describeExchange(with.ex)))
	}
	if reliance(control) != "" {
		return nil // relies on the capability even on a fresh connection: CAP-008 judges that
	}
	if r := reliance(last); r != "" {
		return &Mismatch{Expected: fmt.Sprintf("%s without %s answered as on a fresh connection (%s), although an earlier request declared it", st.fixture.name, st.fixture.needs, describeExchange(control.ex)),
			Actual: r, Frames: append(exchangeSeqs(with.ex), exchangeSeqs(last.ex)...)}
	}
	return nil
}

// pageAcrossConnections is STATE-003: the first list with a nextCursor on the scenario's
// connection, then its next page on a fresh connection.
func (w *world) pageAcrossConnections(ctx context.Context, st *stateWorld) error {
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		if err := w.send(ctx, w.stateRequest(m, nil, nil)); err != nil {
			return err
		}
		msg := responseOf(w.last)
		if msg == nil || msg.Kind != harness.KindResult {
			continue
		}
		var r struct {
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(msg.Result, &r) != nil || r.NextCursor == "" {
			continue
		}
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
		return w.send(ctx, w.stateRequest(m, map[string]any{"cursor": r.NextCursor}, nil))
	}
	st.untestable = "no list request returned a nextCursor (every list fits in one page), so there was no cursor to carry to another connection"
	return nil
}

// turn is one interleaved request of STATE-004 and the outcome it should get.
type turn struct {
	client string
	ex     *harness.Exchange
	want   string // outcome of the same request on its own; "" means a result
}

// interleave is STATE-004: server/discover as three clients (different clientInfo; the second
// also declares roots; the third asks for an unsupported version), first in turn, then all at
// once, on a fresh connection. The third client's request is first sent as the first request
// of the scenario's own (fresh) connection: its reply there is what it should get.
func (w *world) interleave(ctx context.Context, st *stateWorld) error {
	clients := []struct {
		name    string
		version string
		caps    map[string]any
	}{
		{"mcp-conform-conversation-a", revisions.Modern().ID, map[string]any{}},
		{"mcp-conform-conversation-b", revisions.Modern().ID, map[string]any{"roots": map[string]any{}}},
		{"mcp-conform-conversation-c", unsupportedVersion, map[string]any{}},
	}
	build := func(i int) harness.Request {
		c := clients[i]
		req := w.stateRequest("server/discover", nil, map[string]any{
			harness.MetaProtocolVersion:    c.version,
			harness.MetaClientCapabilities: c.caps,
			harness.MetaClientInfo:         map[string]any{"name": c.name, "version": "1.0.0"},
		})
		return req
	}
	if err := w.send(ctx, build(2)); err != nil {
		return err
	}
	control := replyOutcome(w.last)
	if err := freshConnection(ctx, w); err != nil {
		return err
	}
	want := func(i int) string {
		if i == 2 {
			return control
		}
		return ""
	}
	for round := 0; round < 2; round++ {
		for i := range clients {
			if err := w.send(ctx, build(i)); err != nil {
				return err
			}
			st.turns = append(st.turns, turn{client: clients[i].name, ex: w.last, want: want(i)})
		}
	}
	// All at once: two requests per client in flight together.
	conn := w.conn
	wait := w.timeout()
	exs := make([]*harness.Exchange, 2*len(clients))
	var wg sync.WaitGroup
	for k := range exs {
		req := build(k % len(clients))
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			exs[k], _ = conn.Send(cctx, req)
		}()
	}
	wg.Wait()
	for k, ex := range exs {
		if ex == nil {
			return fmt.Errorf("transport returned no exchange")
		}
		w.note(ex)
		st.turns = append(st.turns, turn{client: clients[k%len(clients)].name, ex: ex, want: want(k % len(clients))})
	}
	return ctx.Err()
}

func (w *world) expectOwnAnswers(st *stateWorld) error {
	for _, t := range st.turns {
		got := replyOutcome(t.ex)
		switch {
		case t.want == "" && got != "a result":
			return &Mismatch{Expected: "a DiscoverResult for " + t.client + ", whose _meta is valid on its own", Actual: describeExchange(t.ex), Frames: exchangeSeqs(t.ex)}
		case t.want != "" && got != t.want:
			return &Mismatch{Expected: fmt.Sprintf("%s for %s, as the same request got on a connection of its own", t.want, t.client), Actual: got, Frames: exchangeSeqs(t.ex)}
		}
	}
	return nil
}

// replyOutcome summarises a reply for comparison: "a result", "error <code>" or, without a
// JSON-RPC response, the HTTP status or "no response"; on HTTP the status is part of it.
func replyOutcome(ex *harness.Exchange) string {
	out := "no response"
	if msg := responseOf(ex); msg != nil {
		out = "a result"
		if msg.Kind == harness.KindError {
			out = "error " + msg.Error.CodeRaw
		} else if msg.Kind != harness.KindResult {
			out = "an invalid message"
		}
	} else if ex != nil && ex.HTTP != nil {
		out = "no JSON-RPC response"
	}
	if ex != nil && ex.HTTP != nil && out != "a result" {
		out += fmt.Sprintf(" (HTTP %d)", ex.HTTP.Status)
	}
	return out
}

// asTwoClients is META-007: server/discover and the list request of each declared capability,
// sent as client a on one fresh connection and as client b on another.
func (w *world) asTwoClients(ctx context.Context, st *stateWorld, a, b string) error {
	methods := []string{"server/discover"}
	for _, lm := range listMethods {
		if _, ok := w.s.t.caps[lm.capability]; ok {
			methods = append(methods, lm.method)
		}
	}
	st.names = [2]string{a, b}
	st.pairs = make([][2]*harness.Exchange, len(methods))
	for side, name := range st.names {
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
		for i, m := range methods {
			info := map[string]any{harness.MetaClientInfo: map[string]any{"name": name, "version": "1.0.0"}}
			if err := w.send(ctx, w.stateRequest(m, nil, info)); err != nil {
				return err
			}
			st.pairs[i][side] = w.last
		}
	}
	return nil
}

// comparable returns a reply without what may legitimately differ between two clients: the
// id and the result's _meta.
func comparable(ex *harness.Exchange) any {
	msg := responseOf(ex)
	if msg == nil {
		return nil
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(msg.Raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(msg.Raw)
	}
	delete(v, "id")
	if r, ok := v["result"].(map[string]any); ok {
		delete(r, "_meta")
	}
	return v
}

func (w *world) expectSameResults(st *stateWorld) error {
	for _, p := range st.pairs {
		a, b := comparable(p[0]), comparable(p[1])
		if a == nil || b == nil {
			return &Mismatch{Expected: "a response to " + p[0].Sent.Method + " for both clients", Actual: describeExchange(p[0]) + " / " + describeExchange(p[1]),
				Frames: append(exchangeSeqs(p[0]), exchangeSeqs(p[1])...)}
		}
		if !reflect.DeepEqual(a, b) {
			return &Mismatch{
				Expected: fmt.Sprintf("the same %s reply for clientInfo %q and %q (apart from id and _meta)", p[0].Sent.Method, st.names[0], st.names[1]),
				Actual:   fmt.Sprintf("%s: %s; %s: %s", st.names[0], jsonText(a), st.names[1], jsonText(b)),
				Frames:   append(exchangeSeqs(p[0]), exchangeSeqs(p[1])...),
			}
		}
	}
	return nil
}

// readCapabilities asks for the declared capabilities: server/discover (2026-07-28) on the
// scenario's connection, or initialize (legacy) on a fresh one (a session initializes once).
// fresh asks for a fresh connection on a modern target too.
func (w *world) readCapabilities(ctx context.Context, fresh bool) error {
	if !w.s.t.modern {
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
		return w.initialize(ctx, w.s.t.revision)
	}
	if fresh {
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
	}
	return w.sendMethod(ctx, "server/discover", "", nil, nil)
}

// expectSameCapabilities is CAP-010: every DiscoverResult / InitializeResult of the scenario
// declares the capabilities the server declared when the run began.
func (w *world) expectSameCapabilities() error {
	base := map[string]any{}
	for k, v := range w.s.t.caps {
		var x any
		_ = json.Unmarshal(v, &x)
		base[k] = x
	}
	n := 0
	for _, ex := range w.exchanges {
		if ex.Sent == nil || (ex.Sent.Method != "server/discover" && ex.Sent.Method != "initialize") {
			continue
		}
		msg := responseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &Mismatch{Expected: "a result to " + ex.Sent.Method, Actual: describeExchange(ex), Frames: exchangeSeqs(ex)}
		}
		var r struct {
			Capabilities map[string]any `json:"capabilities"`
		}
		_ = json.Unmarshal(msg.Result, &r)
		if r.Capabilities == nil {
			r.Capabilities = map[string]any{}
		}
		n++
		if !reflect.DeepEqual(base, r.Capabilities) {
			return &Mismatch{Expected: "the capabilities declared when the run began: " + jsonText(base), Actual: jsonText(r.Capabilities), Frames: exchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return fmt.Errorf("feature bug: no capabilities were read")
	}
	return nil
}

// listMembers maps a capability to the array member of its list result.
var listMembers = map[string]string{"tools": "tools", "resources": "resources", "prompts": "prompts"}

// emptyPage reports whether a list result has an empty (or no) member array and no nextCursor.
func emptyPage(result json.RawMessage, member string) bool {
	var page map[string]json.RawMessage
	if json.Unmarshal(result, &page) != nil {
		return false
	}
	if _, more := page["nextCursor"]; more {
		return false
	}
	var items []json.RawMessage
	_ = json.Unmarshal(page[member], &items)
	return len(items) == 0
}
