package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() { bindSteps("basic-index", registerBasicIndexSteps) }

// registerBasicIndexSteps binds the steps that only features/basic-index.feature uses.
func registerBasicIndexSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client sends a harmless request with id (.+)$`, sendHarmlessWithID)

	// Observe.
	step(sc, `^the malformed message is answered with error (-?\d+), silence graded by the party at fault$`, func(ctx context.Context, code int64) error {
		return WorldOf(ctx).expectMalformedAnswered(code)
	})
	step(sc, `^the response is an error$`, func(ctx context.Context) error {
		return WorldOf(ctx).expectKind(harness.KindError, 0)
	})
	step(sc, `^the response is an error with code (-?\d+) \(code (-?\d+) is a warning\)$`, func(ctx context.Context, code, soft int64) error {
		return WorldOf(ctx).expectCode(code, soft)
	})
	step(sc, `^the versionless request is refused with -32602 \(-32020 a warning\) unless a dual-era server on stdio read it as legacy$`, wc(versionlessRefused))
	step(sc, `^the response id is exactly (.+)$`, func(ctx context.Context, want string) error {
		return WorldOf(ctx).expectID(json.RawMessage(want))
	})
	step(sc, `^a response, if any, has no null id$`, wc(responseHasNoNullID))
	step(sc, `^every result in this scenario has a string at "([^"]*)"$`, everyResultHasString)
	step(sc, `^every result in this scenario that has "([^"]*)" has the value (.+) there$`, everyResultHasValueThere)
	step(sc, `^every result in this scenario has a value at "([^"]*)" that validates as "([^"]+)"$`, everyResultValueValidates)

	// Provocation: traffic for the run-wide rules to judge.
	step(sc, `^the client provokes the errors a client can provoke without side effects$`, wc(func(ctx context.Context, w *World) error {
		return w.oncePerTarget("provoke", func() error { return provokeErrors(ctx, w) })
	}))
	step(sc, `^the client round-trips non-ASCII text through the echo fixture tool, if the server offers one$`, wc(echoNonASCII))
	step(sc, `^the client sends (\d+) harmless requests at once$`, func(ctx context.Context, n int) error {
		return WorldOf(ctx).SendConcurrently(ctx, n)
	})
	step(sc, `^every request of this scenario got a response carrying its id$`, wc(func(ctx context.Context, w *World) error {
		return w.expectResponseEach()
	}))
	step(sc, `^the client sends one batch holding two harmless requests and a notification$`, wc(func(ctx context.Context, w *World) error {
		if _, sse := w.Conn.SSEStream(); sse {
			// The transport of 2024-11-05 that 2025-03-26 replaced: the harness neither posts
			// a batch on it nor reads one off its stream.
			return w.SetSkip(reports.Untestable, "the suite sends no JSON-RPC batch over the HTTP+SSE transport (its harness posts and reads single messages only)")
		}
		return w.SendBatch(ctx, []client.Call{{Method: w.Harmless()}, {Method: w.Harmless()},
			{Method: "notifications/cancelled", Params: map[string]any{"requestId": "mcpconform-never-sent"}, Notification: true}})
	}))
	step(sc, `^each request of the batch got a response$`, wc(func(ctx context.Context, w *World) error {
		if m := checks.BatchAnswered(w.Last); m != nil {
			return m
		}
		return nil
	}))

	// Run-wide rules (package judge).
	step(sc, `^every JSON object the server sent in this run is a JSON-RPC 2\.0 message$`, AskJudge("MSG-001"))
	step(sc, `^every message the server sent in this run is UTF-8 without a byte order mark$`, AskJudge("MSG-002"))
	step(sc, `^no response the server sent in this run has both result and error$`, AskJudge("MSG-004"))
	step(sc, `^every result the server sent in this run is a JSON object$`, AskJudge("MSG-005"))
	step(sc, `^every error the server sent in this run has an integer code and a string message$`, AskJudge("MSG-007"))
	step(sc, `^no notification the server sent in this run has an id$`, AskJudge("MSG-010"))
	step(sc, `^the server sent no request in this run$`, AskJudge("MSG-012"))
	step(sc, `^no response the server sent in this run repeats an answered id or carries an id the client never sent$`, AskJudge("MSG-013"))
	step(sc, `^every error message the server sent in this run is one short line$`, AskJudge("MSG-017"))
	step(sc, `^every _meta key the server sent in this run is a valid key name$`, AskJudge("META-008"))
	step(sc, `^no _meta key the server sent in this run is an undefined key under a reserved prefix$`, AskJudge("META-009"))
	step(sc, `^every trace context value in the server's _meta in this run follows the W3C syntax$`, AskJudge("META-010"))
	step(sc, `^every input_required result the server sent in this run is an InputRequiredResult$`, AskJudge("RT-003"))
	step(sc, `^every resultType the server sent in this run is complete or input_required$`, AskJudge("RT-004"))
	step(sc, `^the server sent no error code in -32020\.\.-32099 that the specification does not define$`, AskJudge("ERR-001"))
	step(sc, `^every -32020, -32021 and -32022 error the server sent in this run has its defined meaning$`, AskJudge("ERR-002"))
	step(sc, `^the server sent no error code in the legacy range -32000\.\.-32019 in this run$`, AskJudge("ERR-003"))
	step(sc, `^the server sent no -32002 error in this run$`, AskJudge("ERR-004"))
	step(sc, `^the server sent no -32042 error in this run$`, AskJudge("ERR-005"))
	step(sc, `^every other error code the server sent in this run lies outside the JSON-RPC reserved range$`, AskJudge("ERR-006"))

	// Client capabilities: CAP-008, ERR-008, STATE-001.
	step(sc, `^the client calls a fixture tool that needs a client capability without declaring any$`, callsFixtureToolNeedsCapability)
	step(sc, `^a -32021 reply names the needed capability in data.requiredCapabilities$`, reply32021NamesCapability)
	step(sc, `^every -32021 error the server sent in this run names the missing capabilities$`, AskJudge("ERR-008"))
	step(sc, `^the client sends (a capability-needing fixture call|a list request) without, with, then again without what it needs$`, sendWithoutWithWithout)
	step(sc, `^the last reply follows only its own _meta$`, lastReplyFollowsOwnMeta)

	// STATE-003.
	step(sc, `^the client pages a list on one connection and asks for its next page on a fresh connection$`, pagesListOneConnection)
	step(sc, `^the next page is served on the fresh connection$`, nextPageServedFresh)

	// STATE-004.
	step(sc, `^the client interleaves requests of three clients on a fresh connection, in turn and at once$`, interleavesRequestsThreeClients)
	step(sc, `^each interleaved request was answered according to its own _meta$`, eachInterleavedRequestAnswered)

	// META-007.
	step(sc, `^the client sends the same requests as client "([^"]+)" and as client "([^"]+)", each on a fresh connection$`, sendsSameRequestsEach)
	step(sc, `^both clients got the same results apart from _meta$`, bothClientsGotSame)
}

func sendHarmlessWithID(ctx context.Context, id string) error {
	w := WorldOf(ctx)
	if !json.Valid([]byte(id)) {
		return fmt.Errorf("feature bug: id %s is not JSON", id)
	}
	return w.SendMethod(ctx, w.Harmless(), "", json.RawMessage(id), nil)
}

func responseHasNoNullID(ctx context.Context, w *World) error {
	if w.Last == nil {
		return fmt.Errorf("no message was sent before this step")
	}
	if w.Last.Response == nil {
		// No JSON-RPC response, no id to judge: silence, or an HTTP error without a JSON-RPC
		// body, is MSG-014/MSG-015's; this case is no evidence either way.
		return w.SetSkip(reports.NA, "no JSON-RPC response came, so there was no id to judge (MSG-014 and MSG-015 judge the silence)")
	}
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	if msg.HasID && string(bytes.TrimSpace(msg.ID)) == "null" {
		if w.LastID == nil {
			// JSON-RPC 2.0 itself asks for null when the id could not be read (DESIGN.md).
			return &client.Mismatch{Expected: "an error without an id member, since the request's id could not be read (MCP ids are never null; JSON-RPC 2.0's null here is a warning)",
				Actual: `"id": null`, Frames: w.LastSeqs(), Grade: reports.Warn}
		}
		return &client.Mismatch{Expected: "an error repeating the request's id " + string(w.LastID) + ", which was readable (MCP ids are never null)",
			Actual: `"id": null`, Frames: w.LastSeqs()}
	}
	return nil
}

func everyResultHasString(ctx context.Context, ptr string) error {
	return WorldOf(ctx).eachResult(ptr, func(v any, present bool) string {
		if _, ok := v.(string); !present || !ok {
			return "a string at " + ptr
		}
		return ""
	})
}

func everyResultHasValueThere(ctx context.Context, ptr, lit string) error {
	want, err := checks.ParseLiteral(lit)
	if err != nil {
		return err
	}
	return WorldOf(ctx).eachResult(ptr, func(v any, present bool) string {
		if present && !reflect.DeepEqual(v, want) {
			return lit + " at " + ptr
		}
		return ""
	})
}

func everyResultValueValidates(ctx context.Context, ptr, typ string) error {
	w := WorldOf(ctx)
	for _, ex := range w.Exchanges {
		if ex.Response == nil {
			continue
		}
		msg, _ := harness.ParseMessage(ex.Response.Body())
		if msg.Kind != harness.KindResult {
			continue
		}
		if err := w.validateAt(msg.Raw, ptr, typ, []int{ex.Response.Seq}); err != nil {
			if m, ok := err.(*client.Mismatch); ok {
				m.Actual = fmt.Sprintf("response to %s: %s", ex.Response.Method, m.Actual)
			}
			return err
		}
	}
	return nil
}

func callsFixtureToolNeedsCapability(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.callFixture(ctx, stateWorldOf(w), "without")
}

func reply32021NamesCapability(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectRequiredCapabilities(stateWorldOf(w))
}

func sendWithoutWithWithout(ctx context.Context, what string) error {
	w := WorldOf(ctx)
	st := stateWorldOf(w)
	if what == "a list request" {
		return w.versionCarryOver(ctx, st)
	}
	return w.callFixture(ctx, st, "without", "with", "without")
}

func lastReplyFollowsOwnMeta(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectNoCarryOver(stateWorldOf(w))
}

func pagesListOneConnection(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.pageAcrossConnections(ctx, stateWorldOf(w))
}

func nextPageServedFresh(ctx context.Context) error {
	w := WorldOf(ctx)
	st := stateWorldOf(w)
	if st.untestable != "" {
		return w.SetSkip(reports.Untestable, st.untestable)
	}
	return w.expectKind(harness.KindResult, 0)
}

func interleavesRequestsThreeClients(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.interleave(ctx, stateWorldOf(w))
}

func eachInterleavedRequestAnswered(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectOwnAnswers(stateWorldOf(w))
}

func sendsSameRequestsEach(ctx context.Context, a, b string) error {
	w := WorldOf(ctx)
	return w.asTwoClients(ctx, stateWorldOf(w), a, b)
}

func bothClientsGotSame(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectSameResults(stateWorldOf(w))
}

func (w *World) eachResult(ptr string, check func(v any, present bool) string) error {
	n := 0
	for _, ex := range w.Exchanges {
		if ex.Response == nil {
			continue
		}
		msg, _ := harness.ParseMessage(ex.Response.Body())
		if msg.Kind != harness.KindResult {
			continue
		}
		n++
		v, present, err := checks.Pointer(msg.Raw, ptr)
		if err != nil {
			return err
		}
		if want := check(v, present); want != "" {
			actual := "nothing there"
			if present {
				actual = checks.JSONText(v)
			}
			return &client.Mismatch{Expected: want + " in the response to " + ex.Response.Method, Actual: actual, Frames: []int{ex.Sent.Seq, ex.Response.Seq}}
		}
	}
	if n == 0 {
		return &client.Mismatch{Expected: "at least one result", Actual: "no result in this scenario", Frames: w.LastSeqs()}
	}
	return nil
}

// provokeErrors sends the requests that must fail without touching anything: an unknown
// method, params that are not an object, and for each declared capability an unknown name or
// URI, an invalid pagination cursor, a tools/call without name; on a modern target also a
// request without `_meta` and one with an unsupported protocol version.
func provokeErrors(ctx context.Context, w *World) error {
	probes := []client.Call{{Method: "mcpconform/nonexistent", Params: map[string]any{}}}
	if w.Declares("tools") {
		noName := w.ToolsCall(nil, nil, nil)
		noName.Intentional = true
		probes = append(probes, w.ToolsCall(unknownToolName, nil, nil), noName,
			client.Call{Method: "tools/list", Params: map[string]any{"cursor": invalidCursor}})
	}
	if w.Declares("resources") {
		probes = append(probes,
			client.Call{Method: "resources/read", Params: map[string]any{"uri": unknownURI}},
			client.Call{Method: "resources/list", Params: map[string]any{"cursor": invalidCursor}})
	}
	if w.Declares("prompts") {
		probes = append(probes,
			client.Call{Method: "prompts/get", Params: map[string]any{"name": unknownPromptName}},
			client.Call{Method: "prompts/list", Params: map[string]any{"cursor": invalidCursor}})
	}
	for _, c := range probes {
		if err := w.Send(ctx, w.Build(c)); err != nil {
			return err
		}
	}
	list := w.Harmless()
	for _, lm := range client.ListMethods {
		if w.Declares(lm.Capability) {
			list = lm.Method
			break
		}
	}
	// Params that are not an object.
	doc := `{"jsonrpc":"2.0","id":$id,"method":"` + list + `","params":[]}`
	if err := w.SendDoc(ctx, doc, true, false); err != nil {
		return err
	}
	if !w.Target.Modern {
		return nil
	}
	if err := w.SendDoc(ctx, `{"jsonrpc":"2.0","id":$id,"method":"`+list+`","params":{}}`, true, false); err != nil {
		return err
	}
	return w.SendMethod(ctx, list, revisions.Future, nil, nil)
}

// echoNonASCII calls the fixture tool test_echo, when listed with exactly one required string
// argument, with non-ASCII text, and checks that a text block of the result holds it unchanged.
func echoNonASCII(ctx context.Context, w *World) error {
	if !w.Declares("tools") {
		return nil
	}
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	if _, failed := client.ListProblem(err); err != nil && !failed {
		return err
	}
	echo := w.Opts.FixtureName("test_echo")
	arg := ""
	for _, raw := range lt.Raw {
		var t map[string]json.RawMessage
		_ = json.Unmarshal(raw, &t)
		if stringOf(t["name"]) != echo {
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t["inputSchema"], &schema)
		if len(schema.Required) == 1 && schema.Properties[schema.Required[0]].Type == "string" {
			arg = schema.Required[0]
		}
	}
	if arg == "" {
		return nil
	}
	if err := w.Send(ctx, w.Build(w.ToolsCall(echo, map[string]any{arg: nonASCIIText}, nil))); err != nil {
		return err
	}
	res := w.LastResult()
	var content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(res["content"], &content)
	for _, c := range content {
		if c.Type == "text" && strings.Contains(c.Text, nonASCIIText) {
			return nil
		}
	}
	actual := "no result"
	if res != nil {
		actual = "content " + client.Short(res["content"])
	}
	return &client.Mismatch{Expected: fmt.Sprintf("test_echo to return %q unchanged (code points %U)", nonASCIIText, []rune(nonASCIIText)),
		Actual: actual, Frames: w.LastSeqs()}
}

// expectResponseEach checks that every request the scenario sent got a response with its id.
func (w *World) expectResponseEach() error {
	n := 0
	for _, ex := range w.Exchanges {
		if ex.Sent == nil {
			continue
		}
		sent, err := harness.ParseMessage(ex.Sent.Raw)
		if err != nil || sent.Kind != harness.KindRequest {
			continue
		}
		n++
		id := harness.IDKey(sent.ID)
		if ex.Response == nil {
			actual := "no response"
			if ex.Err != nil {
				actual += ": " + ex.Err.Error()
			}
			return &client.Mismatch{Expected: "a response to request id " + id, Actual: actual, Frames: checks.ExchangeSeqs(ex)}
		}
		msg, _ := harness.ParseMessage(ex.Response.Body())
		if msg.HasID && harness.IDKey(msg.ID) != id {
			if why := w.idTypeOnly(sent.ID, msg.ID); why != "" {
				return w.SetSkip(reports.Untestable, why)
			}
		}
		if !msg.HasID || harness.IDKey(msg.ID) != id {
			got := "no id"
			if msg.HasID {
				got = "id " + harness.IDKey(msg.ID)
			}
			return &client.Mismatch{Expected: "the response to request id " + id + " to carry that id", Actual: got, Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return fmt.Errorf("feature bug: no request was sent in this scenario")
	}
	return nil
}

// expectRequiredCapabilities is ERR-008 for the fixture call without capabilities: a -32021
// reply is a MissingRequiredClientCapabilityError whose requiredCapabilities name what the
// tool needs. Any other reply is not what the rule judges.
func (w *World) expectRequiredCapabilities(st *stateWorld) error {
	if st.untestable != "" {
		return w.SetSkip(reports.Untestable, st.untestable)
	}
	c := st.calls[0]
	msg := client.ResponseOf(c.ex)
	if msg == nil || msg.Kind != harness.KindError || msg.Error.Code != -32021 {
		return w.SetSkip(reports.NA, fmt.Sprintf("%s called without client capabilities got %s, not -32021", st.fixture.name, client.DescribeExchange(c.ex)))
	}
	if err := w.validateAt(msg.Raw, "", "MissingRequiredClientCapabilityError", checks.ExchangeSeqs(c.ex)); err != nil {
		return err
	}
	var e struct {
		RequiredCapabilities map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	_ = json.Unmarshal(msg.Error.Data, &e)
	if _, ok := e.RequiredCapabilities[st.fixture.needs]; !ok {
		return &client.Mismatch{Expected: fmt.Sprintf("data.requiredCapabilities naming %s, which %s needs", st.fixture.needs, st.fixture.name),
			Actual: "data " + client.Short(msg.Error.Data), Frames: checks.ExchangeSeqs(c.ex)}
	}
	return nil
}

// versionCarryOver is the STATE-001 protocol-version case on the scenario's connection: a
// request with an unsupported version (the control), one with the supported version, then the
// unsupported one again.
func (w *World) versionCarryOver(ctx context.Context, st *stateWorld) error {
	method := w.Harmless()
	for _, lm := range client.ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			method = lm.Method
			break
		}
	}
	st.version = true
	for _, v := range []string{unsupportedVersion, "", unsupportedVersion} {
		if err := w.SendMethod(ctx, method, v, nil, nil); err != nil {
			return err
		}
		st.turns = append(st.turns, turn{ex: w.Last})
	}
	return nil
}

// unsupportedVersion is a protocol version no server supports.
const unsupportedVersion = revisions.Past

// expectNoCarryOver is STATE-001: the last reply is what the same request got as the first
// request of the connection, whatever came in between. A server that does not judge the
// version or the capability even on a fresh connection has nothing to carry over (other
// rules judge that).
func (w *World) expectNoCarryOver(st *stateWorld) error {
	if st.version {
		first, last := st.turns[0].ex, st.turns[2].ex
		control := replyOutcome(first)
		refused := strings.HasPrefix(control, "error") || strings.HasPrefix(control, "no JSON-RPC response")
		if refused && replyOutcome(last) == "a result" {
			return &client.Mismatch{Expected: fmt.Sprintf("the protocol version %s refused again (%s), as it was before a %s request was served", unsupportedVersion, control, revisions.Modern().ID),
				Actual: "a result", Frames: append(checks.ExchangeSeqs(first), checks.ExchangeSeqs(last)...)}
		}
		return nil
	}
	if st.untestable != "" {
		return w.SetSkip(reports.Untestable, st.untestable)
	}
	control, with, last := st.calls[0], st.calls[1], st.calls[2]
	if wm := client.ResponseOf(with.ex); wm == nil || wm.Kind != harness.KindResult {
		return w.SetSkip(reports.Untestable, fmt.Sprintf("the fixture tool %s fails even when %s is declared (%s), so nothing could be carried over",
			st.fixture.name, st.fixture.needs, client.DescribeExchange(with.ex)))
	}
	if reliance(control) != "" {
		return nil // relies on the capability even on a fresh connection: CAP-008 judges that
	}
	if r := reliance(last); r != "" {
		return &client.Mismatch{Expected: fmt.Sprintf("%s without %s answered as on a fresh connection (%s), although an earlier request declared it", st.fixture.name, st.fixture.needs, client.DescribeExchange(control.ex)),
			Actual: r, Frames: append(checks.ExchangeSeqs(with.ex), checks.ExchangeSeqs(last.ex)...)}
	}
	return nil
}

// pageAcrossConnections is STATE-003: the first list with a nextCursor on the scenario's
// connection, then its next page on a fresh connection.
func (w *World) pageAcrossConnections(ctx context.Context, st *stateWorld) error {
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		if err := w.Send(ctx, w.StateRequest(m, nil, nil)); err != nil {
			return err
		}
		msg := client.ResponseOf(w.Last)
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
		return w.Send(ctx, w.StateRequest(m, map[string]any{"cursor": r.NextCursor}, nil))
	}
	st.untestable = "no list request returned a nextCursor (every list fits in one page), so there was no cursor to carry to another connection"
	return nil
}

// interleave is STATE-004: server/discover as three clients (different clientInfo; the second
// also declares roots; the third asks for an unsupported version), first in turn, then all at
// once, on a fresh connection. The third client's request is first sent as the first request
// of the scenario's own (fresh) connection: its reply there is what it should get.
func (w *World) interleave(ctx context.Context, st *stateWorld) error {
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
		req := w.StateRequest("server/discover", nil, map[string]any{
			harness.MetaProtocolVersion:    c.version,
			harness.MetaClientCapabilities: c.caps,
			harness.MetaClientInfo:         map[string]any{"name": c.name, "version": "1.0.0"},
		})
		return req
	}
	if err := w.Send(ctx, build(2)); err != nil {
		return err
	}
	control := replyOutcome(w.Last)
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
			if err := w.Send(ctx, build(i)); err != nil {
				return err
			}
			st.turns = append(st.turns, turn{client: clients[i].name, ex: w.Last, want: want(i)})
		}
	}
	// All at once: two requests per client in flight together.
	conn := w.Conn
	wait := w.Timeout()
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
		w.Note(ex)
		st.turns = append(st.turns, turn{client: clients[k%len(clients)].name, ex: ex, want: want(k % len(clients))})
	}
	return ctx.Err()
}

func (w *World) expectOwnAnswers(st *stateWorld) error {
	for _, t := range st.turns {
		got := replyOutcome(t.ex)
		switch {
		case t.want == "" && got != "a result":
			return &client.Mismatch{Expected: "a DiscoverResult for " + t.client + ", whose _meta is valid on its own", Actual: client.DescribeExchange(t.ex), Frames: checks.ExchangeSeqs(t.ex)}
		case t.want != "" && got != t.want:
			return &client.Mismatch{Expected: fmt.Sprintf("%s for %s, as the same request got on a connection of its own", t.want, t.client), Actual: got, Frames: checks.ExchangeSeqs(t.ex)}
		}
	}
	return nil
}

// replyOutcome summarises a reply for comparison: "a result", "error <code>" or, without a
// JSON-RPC response, the HTTP status or "no response"; on HTTP the status is part of it.
func replyOutcome(ex *harness.Exchange) string {
	out := "no response"
	if msg := client.ResponseOf(ex); msg != nil {
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
func (w *World) asTwoClients(ctx context.Context, st *stateWorld, a, b string) error {
	methods := []string{"server/discover"}
	for _, lm := range client.ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			methods = append(methods, lm.Method)
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
			if err := w.Send(ctx, w.StateRequest(m, nil, info)); err != nil {
				return err
			}
			st.pairs[i][side] = w.Last
		}
	}
	return nil
}

// comparable returns a reply without what may legitimately differ between two clients: the
// id and the result's _meta.
func comparable(ex *harness.Exchange) any {
	msg := client.ResponseOf(ex)
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

func (w *World) expectSameResults(st *stateWorld) error {
	for _, p := range st.pairs {
		a, b := comparable(p[0]), comparable(p[1])
		if a == nil || b == nil {
			return &client.Mismatch{Expected: "a response to " + client.SentMethod(p[0]) + " for both clients", Actual: client.DescribeExchange(p[0]) + " / " + client.DescribeExchange(p[1]),
				Frames: append(checks.ExchangeSeqs(p[0]), checks.ExchangeSeqs(p[1])...)}
		}
		if !reflect.DeepEqual(a, b) {
			return &client.Mismatch{
				Expected: fmt.Sprintf("the same %s reply for clientInfo %q and %q (apart from id and _meta)", client.SentMethod(p[0]), st.names[0], st.names[1]),
				Actual:   fmt.Sprintf("%s: %s; %s: %s", st.names[0], checks.JSONText(a), st.names[1], checks.JSONText(b)),
				Frames:   append(checks.ExchangeSeqs(p[0]), checks.ExchangeSeqs(p[1])...),
			}
		}
	}
	return nil
}

// expectMalformedAnswered is MSG-014/MSG-015: malformed input the suite sent on purpose is
// answered with error code. A wrong answer (a result, another code) fails. The keyword of the
// party at fault grades silence (DESIGN "Verdict principles"): on stdio "The client MUST NOT
// write anything to the server's stdin that is not a valid MCP message"
// (basic/transports/stdio), so a server that stays silent, or exits, is warned, not failed;
// over Streamable HTTP a 4xx whose body is no JSON-RPC message refuses the input with an
// HTTP error status, the JSON-RPC body being optional there: a warning; a 2xx without an
// error fails.
func (w *World) expectMalformedAnswered(code int64) error {
	if w.Last == nil || w.Last.Response != nil {
		return w.expectCode(code, 0)
	}
	_, err := w.ResponseMessage()
	var m *client.Mismatch
	if !errors.As(err, &m) {
		return err
	}
	m.Expected = fmt.Sprintf("error %d", code)
	switch h := w.Last.HTTP; {
	case h == nil:
		m.Grade = reports.Warn
		m.Expected += " (silence or an exit is a warning: the suite wrote what a stdio client must not write)"
	case h.Status >= 400 && h.Status < 500:
		m.Grade = reports.Warn
		m.Expected += " (an HTTP 4xx without a JSON-RPC error is a warning)"
	}
	return m
}

// versionlessRefused judges META-001: a request whose `_meta` lacks the protocol version is
// refused with -32602 (-32020 a warning over HTTP, where the header still names the version).
// On stdio nothing else names a version, and a dual-era server "selects its behavior from how
// the client opens: A request carrying modern per-request `_meta` is served statelessly
// according to this revision" (basic/versioning#Compatibility Matrix): a request that declares
// no version may take its legacy path, whose answer to a request before initialize is
// implementation-defined (stdio#Backward Compatibility: "legacy servers respond to unknown
// pre-`initialize` requests with implementation-defined errors (commonly `-32601` or
// `-32602`)"). Such a server's other JSON-RPC error is na, with that reason; a result still
// fails, and a modern-only server is held to -32602.
func versionlessRefused(ctx context.Context, w *World) error {
	err := w.expectCode(-32602, harness.CodeHeaderMismatch)
	var m *client.Mismatch
	if !errors.As(err, &m) || m.Grade == reports.Warn || !w.OverStdio() {
		return err
	}
	msg, merr := w.ResponseMessage()
	if merr != nil || msg.Kind != harness.KindError || w.DiscoverUnserved() != "" {
		// A server that never gave a DiscoverResult answers every discover so: DISC-001's.
		return err
	}
	dual, derr := w.DualEra(ctx)
	if derr != nil {
		return derr
	}
	if !dual {
		return err
	}
	return w.SetSkip(reports.NA, fmt.Sprintf("the server also speaks a legacy revision and answered the request without a protocol version with %s: a dual-era server serves a request as %s when it carries the modern per-request _meta (basic/versioning#Compatibility Matrix), and one that declares no version may take the legacy path, whose answer before initialize is implementation-defined (stdio#Backward Compatibility)", client.Describe(msg), w.Target.Revision))
}
