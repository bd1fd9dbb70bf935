package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// registerMsgSteps binds the steps of messages, error codes, _meta keys, resultType (MSG, META-008..010, RT, ERR).
func registerMsgSteps(sc *godog.ScenarioContext) {
	// Provocation: traffic for the run-wide rules to judge.
	step(sc, `^the client exercises the server's declared features$`, wc(func(ctx context.Context, w *world) error {
		return w.oncePerTarget("exercise", func() error { return exerciseFeatures(ctx, w) })
	}))
	step(sc, `^the client provokes the errors a client can provoke without side effects$`, wc(func(ctx context.Context, w *world) error {
		return w.oncePerTarget("provoke", func() error { return provokeErrors(ctx, w) })
	}))
	step(sc, `^the client round-trips non-ASCII text through the echo fixture tool, if the server offers one$`, wc(echoNonASCII))
	step(sc, `^the client sends (\d+) harmless requests at once$`, func(ctx context.Context, n int) error {
		return worldOf(ctx).sendConcurrently(ctx, n)
	})
	step(sc, `^every request of this scenario got a response carrying its id$`, wc(func(ctx context.Context, w *world) error {
		return w.expectResponseEach()
	}))

	// Run-wide rules (package judge).
	step(sc, `^every JSON object the server sent in this run is a JSON-RPC 2\.0 message$`, askJudge("MSG-001"))
	step(sc, `^every message the server sent in this run is UTF-8 without a byte order mark$`, askJudge("MSG-002"))
	step(sc, `^no response the server sent in this run has both result and error$`, askJudge("MSG-004"))
	step(sc, `^every result the server sent in this run is a JSON object$`, askJudge("MSG-005"))
	step(sc, `^every error the server sent in this run has an integer code and a string message$`, askJudge("MSG-007"))
	step(sc, `^no notification the server sent in this run has an id$`, askJudge("MSG-010"))
	step(sc, `^the server sent no request in this run$`, askJudge("MSG-012"))
	step(sc, `^no response the server sent in this run repeats an answered id or carries an id the client never sent$`, askJudge("MSG-013"))
	step(sc, `^every error message the server sent in this run is one short line$`, askJudge("MSG-017"))
	step(sc, `^every _meta key the server sent in this run is a valid key name$`, askJudge("META-008"))
	step(sc, `^no _meta key the server sent in this run is an undefined key under a reserved prefix$`, askJudge("META-009"))
	step(sc, `^every trace context value in the server's _meta in this run follows the W3C syntax$`, askJudge("META-010"))
	step(sc, `^every input_required result the server sent in this run is an InputRequiredResult$`, askJudge("RT-003"))
	step(sc, `^every resultType the server sent in this run is complete or input_required$`, askJudge("RT-004"))
	step(sc, `^the server sent no error code in -32020\.\.-32099 that the specification does not define$`, askJudge("ERR-001"))
	step(sc, `^every -32020, -32021 and -32022 error the server sent in this run has its defined meaning$`, askJudge("ERR-002"))
	step(sc, `^the server sent no error code in the legacy range -32000\.\.-32019 in this run$`, askJudge("ERR-003"))
	step(sc, `^the server sent no -32002 error in this run$`, askJudge("ERR-004"))
	step(sc, `^the server sent no -32042 error in this run$`, askJudge("ERR-005"))
	step(sc, `^every other error code the server sent in this run lies outside the JSON-RPC reserved range$`, askJudge("ERR-006"))
}

// ---------------------------------------------------------------------------------------------
// Provocation.

// Names that no server offers: the unknown-name errors they provoke have no side effects.
const (
	unknownToolName   = "mcpconform_no_such_tool"
	unknownPromptName = "mcpconform_no_such_prompt"
	unknownURI        = "mcpconform://no-such-resource"
	invalidCursor     = "mcpconform-invalid-cursor"
	nonASCIIText      = "héllo 世界 🚀"
)

// traceMeta is a valid W3C trace context the client sends, so that a server propagating trace
// context has a reason to emit its own.
var traceMeta = map[string]any{
	"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
	"tracestate":  "mcpconform=t61rcWkgMzE",
	"baggage":     "mcpconform.run=1",
}

// sendParams sends method with params (nil: none) as a request of the revision under test: on
// a modern target with the default `_meta` plus extraMeta, on a legacy target with extraMeta
// (if any) as `_meta`. intentional marks a request that is invalid on purpose.
func (w *world) sendParams(ctx context.Context, method string, params, extraMeta map[string]any, intentional bool) error {
	return w.send(ctx, w.build(call{Method: method, Params: params, Meta: extraMeta, Intentional: intentional}))
}

// lastResult returns the result object of the last response, nil when it is not a result.
func (w *world) lastResult() map[string]json.RawMessage {
	if w.last == nil || w.last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.last.Response.Raw)
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	var res map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &res)
	return res
}

// listed returns the entries of the array member of the last result (tools, resources, ...).
func (w *world) listed(member string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	_ = json.Unmarshal(w.lastResult()[member], &out)
	return out
}

func (w *world) declares(capability string) bool {
	_, ok := w.s.t.caps[capability]
	return ok
}

func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// exerciseFeatures sends the side-effect-free traffic every server can take: discovery (with
// a W3C trace context in `_meta` on a modern target), each declared list, a read of the first
// listed resource, a get of the first prompt without required arguments, and a call of the
// fixture tool test_simple_text with a progress token. Errors and timeouts are recorded, not
// judged: the run-wide rules judge the frames.
func exerciseFeatures(ctx context.Context, w *world) error {
	if w.s.t.modern {
		if err := w.sendParams(ctx, "server/discover", nil, traceMeta, false); err != nil {
			return err
		}
	} else if err := w.sendMethod(ctx, "ping", "", nil, nil); err != nil {
		return err
	}
	// list traverses a declared list; a listing that fails is the listing rules' to judge.
	list := func(method, member string) ([]json.RawMessage, error) {
		lt, err := w.listAll(ctx, method, member)
		if _, failed := listProblem(err); err != nil && !failed {
			return nil, err
		}
		return lt.Raw, nil
	}
	if w.declares("tools") {
		tools, err := list("tools/list", "tools")
		if err != nil {
			return err
		}
		simple := w.s.env.fixtureName("test_simple_text")
		for _, raw := range tools {
			var t struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &t) == nil && t.Name == simple {
				n := w.s.env.ids.Next()
				token := map[string]any{"progressToken": "mcpconform-progress-" + strconv.FormatInt(n, 10)}
				if err := w.send(ctx, w.build(w.toolsCall(simple, nil, token))); err != nil {
					return err
				}
			}
		}
	}
	if w.declares("resources") {
		rs, err := list("resources/list", "resources")
		if err != nil {
			return err
		}
		var first struct {
			URI string `json:"uri"`
		}
		if len(rs) > 0 && json.Unmarshal(rs[0], &first) == nil && first.URI != "" {
			if err := w.sendParams(ctx, "resources/read", map[string]any{"uri": first.URI}, nil, false); err != nil {
				return err
			}
		}
		if _, err := list("resources/templates/list", "resourceTemplates"); err != nil {
			return err
		}
	}
	if w.declares("prompts") {
		prompts, err := list("prompts/list", "prompts")
		if err != nil {
			return err
		}
		for _, raw := range prompts {
			var p struct {
				Name      string `json:"name"`
				Arguments []struct {
					Required bool `json:"required"`
				} `json:"arguments"`
			}
			_ = json.Unmarshal(raw, &p)
			required := false
			for _, a := range p.Arguments {
				required = required || a.Required
			}
			if p.Name != "" && !required {
				return w.sendParams(ctx, "prompts/get", map[string]any{"name": p.Name}, nil, false)
			}
		}
	}
	return nil
}

// provokeErrors sends the requests that must fail without touching anything: an unknown
// method, params that are not an object, and for each declared capability an unknown name or
// URI, an invalid pagination cursor, a tools/call without name; on a modern target also a
// request without `_meta` and one with an unsupported protocol version.
func provokeErrors(ctx context.Context, w *world) error {
	probes := []call{{Method: "mcpconform/nonexistent", Params: map[string]any{}}}
	if w.declares("tools") {
		noName := w.toolsCall(nil, nil, nil)
		noName.Intentional = true
		probes = append(probes, w.toolsCall(unknownToolName, nil, nil), noName,
			call{Method: "tools/list", Params: map[string]any{"cursor": invalidCursor}})
	}
	if w.declares("resources") {
		probes = append(probes,
			call{Method: "resources/read", Params: map[string]any{"uri": unknownURI}},
			call{Method: "resources/list", Params: map[string]any{"cursor": invalidCursor}})
	}
	if w.declares("prompts") {
		probes = append(probes,
			call{Method: "prompts/get", Params: map[string]any{"name": unknownPromptName}},
			call{Method: "prompts/list", Params: map[string]any{"cursor": invalidCursor}})
	}
	for _, c := range probes {
		if err := w.send(ctx, w.build(c)); err != nil {
			return err
		}
	}
	list := harmless(w)
	for _, lm := range listMethods {
		if w.declares(lm.capability) {
			list = lm.method
			break
		}
	}
	// Params that are not an object.
	doc := `{"jsonrpc":"2.0","id":$id,"method":"` + list + `","params":[]}`
	if err := w.sendDoc(ctx, doc, true, false); err != nil {
		return err
	}
	if !w.s.t.modern {
		return nil
	}
	if err := w.sendDoc(ctx, `{"jsonrpc":"2.0","id":$id,"method":"`+list+`","params":{}}`, true, false); err != nil {
		return err
	}
	return w.sendMethod(ctx, list, revisions.Future, nil, nil)
}

// echoNonASCII calls the fixture tool test_echo, when listed with exactly one required string
// argument, with non-ASCII text, and checks that a text block of the result holds it unchanged.
func echoNonASCII(ctx context.Context, w *world) error {
	if !w.declares("tools") {
		return nil
	}
	lt, err := w.listAll(ctx, "tools/list", "tools")
	if _, failed := listProblem(err); err != nil && !failed {
		return err
	}
	echo := w.s.env.fixtureName("test_echo")
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
	if err := w.send(ctx, w.build(w.toolsCall(echo, map[string]any{arg: nonASCIIText}, nil))); err != nil {
		return err
	}
	res := w.lastResult()
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
		actual = "content " + short(res["content"])
	}
	return &Mismatch{Expected: fmt.Sprintf("test_echo to return %q unchanged (code points %U)", nonASCIIText, []rune(nonASCIIText)),
		Actual: actual, Frames: w.lastSeqs()}
}

// sendConcurrently sends n requests at once on the scenario's connection, each with a fresh id:
// the harmless request and the declared list requests in turn.
func (w *world) sendConcurrently(ctx context.Context, n int) error {
	if w.conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	methods := []string{harmless(w)}
	for _, lm := range listMethods {
		if w.declares(lm.capability) {
			methods = append(methods, lm.method)
		}
	}
	reqs := make([]harness.Request, n)
	for i := range reqs {
		reqs[i] = w.build(call{Method: methods[i%len(methods)]})
	}
	exs := make([]*harness.Exchange, n)
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, w.timeout())
			defer cancel()
			exs[i], _ = w.conn.Send(cctx, reqs[i])
		}(i)
	}
	wg.Wait()
	for i, ex := range exs {
		if ex == nil {
			return fmt.Errorf("transport returned no exchange for request %d", i)
		}
		w.note(ex)
	}
	w.lastID = reqs[n-1].ID
	return ctx.Err()
}

// expectResponseEach checks that every request the scenario sent got a response with its id.
func (w *world) expectResponseEach() error {
	n := 0
	for _, ex := range w.exchanges {
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
			return &Mismatch{Expected: "a response to request id " + id, Actual: actual, Frames: exchangeSeqs(ex)}
		}
		msg, _ := harness.ParseMessage(ex.Response.Raw)
		if !msg.HasID || harness.IDKey(msg.ID) != id {
			got := "no id"
			if msg.HasID {
				got = "id " + harness.IDKey(msg.ID)
			}
			return &Mismatch{Expected: "the response to request id " + id + " to carry that id", Actual: got, Frames: exchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return fmt.Errorf("feature bug: no request was sent in this scenario")
	}
	return nil
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
