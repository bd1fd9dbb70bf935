package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-tools", registerServerToolsSteps) }

// registerServerToolsSteps binds the steps that only features/server-tools.feature uses.
func registerServerToolsSteps(sc *godog.ScenarioContext) {
	// Listing.
	step(sc, `^the client lists every tool(?: (\d+) times)?$`, listsEveryTool)
	step(sc, `^the client lists every tool, calls a harmless fixture tool, lists again, and lists once more on a fresh connection$`, listsEveryToolCalls)
	step(sc, `^every listed tool is a valid Tool with an object inputSchema$`, everyListedToolValid)
	step(sc, `^every listed tool's inputSchema and outputSchema compile as JSON Schema$`, everyListedToolInputschema)
	step(sc, `^every listed tool name is 1 to 128 characters long$`, everyListedToolName)
	step(sc, `^every listed tool name uses only ASCII letters, digits, underscore, hyphen and dot$`, everyListedToolNameUses)
	step(sc, `^no two listed tools have the same name$`, noTwoListedTools)
	step(sc, `^every listed tool without parameters declares additionalProperties false$`, wc(everyListedToolWithout))
	step(sc, `^every tool listing has the same names in the same order$`, wc(func(ctx context.Context, w *World) error {
		return w.compareListings(ctx, true)
	}))
	step(sc, `^every tool listing has the same set of names$`, wc(func(ctx context.Context, w *World) error {
		return w.compareListings(ctx, false)
	}))

	// Calling.
	step(sc, `^the client calls each tool it may call( that declares an outputSchema)?$`, callsEachToolMay)
	step(sc, `^the client calls each tool it may call with arguments its inputSchema rejects$`, wc(func(ctx context.Context, w *World) error {
		return w.callWithInvalidArgs(ctx, toolOf(w))
	}))
	step(sc, `^the client calls the fixture tool "([^"]+)" with empty arguments$`, callsFixtureToolEmpty)
	step(sc, `^the client calls the unknown tool$`, wc(func(ctx context.Context, w *World) error {
		return w.Send(ctx, w.Build(w.ToolsCall(unknownToolName, nil, nil)))
	}))
	step(sc, `^the client sends a tools/call whose (arguments are a string|name is missing)$`, sendsToolsCallWhose)
	step(sc, `^the response is the JSON-RPC error -32602 for a malformed tools/call$`, wc(responseJSONRPCError))
	step(sc, `^every tool call result validates as CallToolResult$`, wc(everyToolCallResult))
	step(sc, `^every successful result carries structuredContent valid against the tool's outputSchema$`, wc(func(ctx context.Context, w *World) error {
		return w.expectStructured(toolOf(w))
	}))
	step(sc, `^every result with structuredContent also carries it serialized in a text block$`, wc(func(ctx context.Context, w *World) error {
		return w.expectSerialized(toolOf(w))
	}))
	step(sc, `^the tool call result has isError true$`, wc(toolResultIsError))
	step(sc, `^no call with invalid arguments succeeds$`, wc(func(ctx context.Context, w *World) error {
		return w.expectRejected(toolOf(w))
	}))
	step(sc, `^if a tool result embeds a resource, the server declares the "resources" capability$`, wc(func(ctx context.Context, w *World) error {
		return w.expectResourcesDeclared(ctx, toolOf(w))
	}))
}

func listsEveryTool(ctx context.Context, times string) error {
	n := 1
	if times != "" {
		_, _ = fmt.Sscan(times, &n)
	}
	w := WorldOf(ctx)
	st := toolOf(w)
	for range n {
		st.listings = append(st.listings, w.toolListing(ctx))
	}
	return nil
}

func listsEveryToolCalls(ctx context.Context) error {
	w := WorldOf(ctx)
	st := toolOf(w)
	first := w.toolListing(ctx)
	st.listings = append(st.listings, first)
	if first.err == nil {
		for _, t := range first.lt.Items {
			if name, _ := t["name"].(string); name == w.Opts.FixtureName("test_simple_text") {
				if _, err := w.callListedTool(ctx, st, t, map[string]any{}, ""); err != nil {
					return err
				}
			}
		}
	}
	st.listings = append(st.listings, w.toolListing(ctx))
	if err := freshConnection(ctx, w); err != nil {
		return err
	}
	// A client starts a connection with server/discover; the tool set must not depend on it.
	if err := w.SendMethod(ctx, w.Harmless(), "", nil, nil); err != nil {
		return err
	}
	st.listings = append(st.listings, w.toolListing(ctx))
	return nil
}

func everyListedToolValid(ctx context.Context) error {
	return WorldOf(ctx).eachListedTool(ctx, true, "every listed tool to be a Tool whose inputSchema is an object of type \"object\"", func(t map[string]any, raw json.RawMessage) string {
		if err := WorldOf(ctx).validateAt(raw, "", "Tool", nil); err != nil {
			var m *client.Mismatch
			if errors.As(err, &m) {
				return m.Actual
			}
			return err.Error()
		}
		schema, ok := t["inputSchema"].(map[string]any)
		if !ok {
			return "inputSchema " + checks.JSONText(t["inputSchema"]) + " is not an object"
		}
		if schema["type"] != "object" {
			return `inputSchema has type ` + checks.JSONText(schema["type"]) + `, not "object"`
		}
		return ""
	})
}

func everyListedToolInputschema(ctx context.Context) error {
	return WorldOf(ctx).eachListedTool(ctx, false, "every inputSchema and outputSchema to compile as JSON Schema of its dialect", func(t map[string]any, raw json.RawMessage) string {
		var members map[string]json.RawMessage
		_ = json.Unmarshal(raw, &members)
		for _, key := range []string{"inputSchema", "outputSchema"} {
			s, ok := members[key]
			if !ok || (key == "outputSchema" && string(s) == "null") {
				continue
			}
			if _, err := checks.CompileToolSchema(s); err != nil {
				return key + " does not compile: " + err.Error()
			}
		}
		return ""
	})
}

func everyListedToolName(ctx context.Context) error {
	return WorldOf(ctx).eachListedTool(ctx, false, "every tool name to have 1 to 128 characters", func(t map[string]any, _ json.RawMessage) string {
		name, _ := t["name"].(string)
		if n := utf8.RuneCountInString(name); n < 1 || n > 128 {
			return fmt.Sprintf("the name has %d characters", n)
		}
		return ""
	})
}

func everyListedToolNameUses(ctx context.Context) error {
	return WorldOf(ctx).eachListedTool(ctx, false, "every tool name to use only A-Z a-z 0-9 _ - .", func(t map[string]any, _ json.RawMessage) string {
		name, _ := t["name"].(string)
		if !checks.ToolNameRE.MatchString(name) {
			return "the name has characters outside A-Z a-z 0-9 _ - ."
		}
		return ""
	})
}

func noTwoListedTools(ctx context.Context) error {
	seen := map[string]bool{}
	return WorldOf(ctx).eachListedTool(ctx, false, "every tool name to be unique", func(t map[string]any, _ json.RawMessage) string {
		name, _ := t["name"].(string)
		if seen[name] {
			return "the name is listed more than once"
		}
		seen[name] = true
		return ""
	})
}

// everyListedToolWithout is TOOL-019. server/tools#Tool lists two "valid approaches" for a
// tool without parameters, {"type":"object","additionalProperties":false} ("Recommended", no
// BCP 14 keyword) and {"type":"object"}: the open form is an observation (info, RULES.md
// TOOL-019), whichever equivalent shape it takes (see checks.NoParameters).
func everyListedToolWithout(ctx context.Context, w *World) error {
	err := w.eachListedTool(ctx, false, `the inputSchema of every tool without parameters to be {"type":"object","additionalProperties":false}`, func(t map[string]any, _ json.RawMessage) string {
		schema, ok := t["inputSchema"].(map[string]any)
		if !ok || !checks.NoParameters(schema) {
			return ""
		}
		if schema["additionalProperties"] != false {
			return "it takes no parameters and its inputSchema is " + checks.JSONText(schema) + ", which server/tools#Tool calls valid (additionalProperties false is only recommended)"
		}
		return ""
	})
	var m *client.Mismatch
	if errors.As(err, &m) {
		m.Grade = reports.Info
	}
	return err
}

func callsEachToolMay(ctx context.Context, withOutput string) error {
	w := WorldOf(ctx)
	return w.callEachTool(ctx, toolOf(w), withOutput != "")
}

func callsFixtureToolEmpty(ctx context.Context, fixture string) error {
	w := WorldOf(ctx)
	st := toolOf(w)
	l := w.toolListing(ctx)
	if l.err != nil {
		st.why = "tools/list failed: " + client.ListFailureReason(l.err)
		return nil
	}
	name := w.Opts.FixtureName(fixture)
	for _, t := range l.lt.Items {
		if t["name"] == name {
			_, err := w.callListedTool(ctx, st, t, map[string]any{}, "")
			return err
		}
	}
	st.why = fmt.Sprintf("no tool %q", name)
	return nil
}

func sendsToolsCallWhose(ctx context.Context, how string) error {
	w := WorldOf(ctx)
	st := toolOf(w)
	if how == "name is missing" {
		c := w.ToolsCall(nil, nil, nil)
		c.Intentional = true
		return w.Send(ctx, w.Build(c))
	}
	// A server that ignored the malformed arguments would run the tool: name one it may call.
	l := w.toolListing(ctx)
	if l.err != nil {
		return w.SetSkip(reports.Untestable, "tools/list failed: "+client.ListFailureReason(l.err))
	}
	tool, why := w.callableTool(l.lt.Items)
	if tool == nil {
		return w.SetSkip(reports.Untestable, why)
	}
	st.calls = append(st.calls, checks.ToolCall{Tool: tool})
	c := w.ToolsCall(tool["name"], "x", nil)
	c.Intentional = true
	return w.Send(ctx, w.Build(c))
}

func responseJSONRPCError(ctx context.Context, w *World) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	if msg.Kind == harness.KindError && msg.Error.Code == codeInvalidParamsTool {
		return nil
	}
	// Over HTTP a call without a name also lacks the Mcp-Name header: -32020 is as good.
	if msg.Kind == harness.KindError && msg.Error.Code == -32020 && w.OverHTTP() && w.Last.Sent != nil {
		var sent struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if w.Last.Sent != nil && json.Unmarshal(w.Last.Sent.Raw, &sent) == nil && sent.Params != nil && sent.Params["name"] == nil {
			return nil
		}
	}
	const want = "JSON-RPC error -32602 (the request does not match CallToolRequest)"
	if msg.Kind == harness.KindError {
		// A protocol error is what the rule asks for; -32602 is what JSON-RPC's meaning of the
		// code asks, so another code is an observation, not a broken SHOULD (RULES.md TOOL-014).
		return &client.Mismatch{Expected: want, Actual: client.Describe(msg), Grade: reports.Info, Frames: w.LastSeqs()}
	}
	actual := client.Describe(msg)
	if msg.Kind == harness.KindResult {
		actual = "a result: " + client.Short(msg.Result)
	}
	return &client.Mismatch{Expected: want, Actual: actual, Frames: w.LastSeqs()}
}

func everyToolCallResult(ctx context.Context, w *World) error {
	st := toolOf(w)
	judged := 0
	for _, c := range st.calls {
		msg := client.ResponseOf(c.Ex)
		if msg == nil || msg.Kind != harness.KindResult || checks.InputRequired(msg) {
			continue
		}
		judged++
		if err := w.validateAt(msg.Raw, "/result", "CallToolResult", checks.ExchangeSeqs(c.Ex)); err != nil {
			if m, ok := err.(*client.Mismatch); ok {
				m.Expected += " (tool " + checks.ToolName(c.Tool) + ")"
			}
			return err
		}
	}
	if judged == 0 {
		return w.SetSkip(reports.Untestable, st.noCalls("no tools/call completed"))
	}
	return nil
}

func toolResultIsError(ctx context.Context, w *World) error {
	st := toolOf(w)
	if len(st.calls) == 0 {
		return w.SetSkip(reports.Untestable, st.noCalls("the tool was not called"))
	}
	c := st.calls[len(st.calls)-1]
	msg := client.ResponseOf(c.Ex)
	switch {
	case msg == nil:
		return &client.Mismatch{Expected: "a result with isError: true", Actual: client.DescribeExchange(c.Ex), Frames: checks.ExchangeSeqs(c.Ex)}
	case msg.Kind != harness.KindResult:
		return &client.Mismatch{Expected: "a tool execution error (a result with isError: true)", Actual: client.Describe(msg), Frames: checks.ExchangeSeqs(c.Ex)}
	}
	var r struct {
		IsError any `json:"isError"`
	}
	_ = json.Unmarshal(msg.Result, &r)
	if r.IsError != true {
		return &client.Mismatch{Expected: "a result with isError: true", Actual: "isError " + checks.JSONText(r.IsError), Frames: checks.ExchangeSeqs(c.Ex)}
	}
	return nil
}

// listingErr turns the error of a listing into the scenario's outcome: strict (the rule is
// about the listing itself) keeps a Mismatch, otherwise the rule is untestable.
func (w *World) listingErr(l toolListing, strict bool) error {
	var m *client.Mismatch
	var lm *client.ListMalformed
	var refused *client.ListRefused
	switch {
	case errors.As(l.err, &lm):
		// The defect is the judging rule's: this rule reports it only when it is that rule.
		if strict && lm.Rule == w.Rule.ID {
			return lm.Mismatch
		}
		return w.SetSkip(reports.Untestable, "tools/list did not give a valid list: "+lm.Mismatch.Error()+" ("+lm.Rule+" judges that)")
	case errors.As(l.err, &m):
		if strict {
			return m
		}
		return w.SetSkip(reports.Untestable, "tools/list did not give a valid list: "+m.Error())
	case errors.As(l.err, &refused):
		if strict {
			return &client.Mismatch{Expected: "a tools/list result (the server declares tools)", Actual: refused.Error(), Frames: refused.Frames}
		}
		return w.SetSkip(reports.Untestable, "tools/list failed: "+refused.Error()+" ("+client.ListRefusalJudges+")")
	}
	return l.err
}

// eachListedTool runs check on every tool of the scenario's first listing; the first problem
// is a Mismatch naming the tool.
func (w *World) eachListedTool(ctx context.Context, strict bool, expected string, check func(t map[string]any, raw json.RawMessage) string) error {
	st := toolOf(w)
	if len(st.listings) == 0 {
		return fmt.Errorf("feature bug: no tools/list before this step")
	}
	l := st.listings[0]
	if l.err != nil {
		return w.listingErr(l, strict)
	}
	for i, t := range l.lt.Items {
		if problem := check(t, l.lt.Raw[i]); problem != "" {
			return &client.Mismatch{Expected: expected, Actual: fmt.Sprintf("tool %s: %s", checks.ToolName(t), problem), Frames: l.frames}
		}
	}
	return nil
}

// compareListings compares the names of every listing of the scenario: in order (TOOL-007) or
// as sets (TOOL-008).
func (w *World) compareListings(ctx context.Context, ordered bool) error {
	st := toolOf(w)
	if len(st.listings) < 2 {
		return fmt.Errorf("feature bug: fewer than two tools/list traversals before this step")
	}
	if st.listings[0].err != nil {
		return w.listingErr(st.listings[0], false)
	}
	first := checks.ListingNames(st.listings[0].lt)
	for i, l := range st.listings[1:] {
		if l.err != nil {
			return w.listingErr(l, true)
		}
		names := checks.ListingNames(l.lt)
		frames := append(append([]int{}, st.listings[0].frames...), l.frames...)
		if ordered {
			if !reflect.DeepEqual(first, names) {
				return &client.Mismatch{Expected: "the same tool names in the same order in every listing", Actual: fmt.Sprintf("listing 1: %s; listing %d: %s", strings.Join(first, ", "), i+2, strings.Join(names, ", ")), Frames: frames}
			}
			continue
		}
		if only1, only2 := checks.NamesMissing(first, names), checks.NamesMissing(names, first); len(only1)+len(only2) > 0 {
			return &client.Mismatch{Expected: "the same set of tools in every listing (same connection after a call, and a fresh connection)",
				Actual: fmt.Sprintf("listing %d lacks [%s] and adds [%s]", i+2, strings.Join(only1, ", "), strings.Join(only2, ", ")), Frames: frames}
		}
	}
	return nil
}

// callBlocker says why the suite does not call a listed tool: the call policy, an x-mcp-header
// parameter over HTTP (the call would need Mcp-Param headers), or "" when it may be called.
func (w *World) callBlocker(t map[string]any) string {
	if ok, why := w.Opts.MayCall(t); !ok {
		return why
	}
	if w.OverHTTP() {
		if b, _ := json.Marshal(t["inputSchema"]); strings.Contains(string(b), `"x-mcp-header"`) {
			return fmt.Sprintf("tool %s has x-mcp-header parameters", checks.ToolName(t))
		}
	}
	return ""
}

// callableTool returns the first listed tool the suite may call, or why there is none.
func (w *World) callableTool(tools []map[string]any) (map[string]any, string) {
	var why []string
	for _, t := range tools {
		if b := w.callBlocker(t); b == "" {
			return t, ""
		} else if len(why) < 3 {
			why = append(why, b)
		}
	}
	return nil, "no listed tool may be called (fixture tools: " + strings.Join(client.FixtureTools, ", ") + ")" + checks.JoinWhy(why)
}

// callListedTool calls tool with args (problem: what is wrong with them on purpose, "" when
// they are meant to be valid) and records the call.
func (w *World) callListedTool(ctx context.Context, st *toolWorld, tool, args map[string]any, problem string) (*harness.Exchange, error) {
	if err := w.Send(ctx, w.Build(w.ToolsCall(tool["name"], args, nil))); err != nil {
		return nil, err
	}
	st.calls = append(st.calls, checks.ToolCall{Tool: tool, Args: args, Problem: problem, Ex: w.Last})
	return w.Last, nil
}

// callEachTool lists the tools and calls, with arguments filling their required properties,
// each one the call policy allows (only those declaring an outputSchema when withOutput).
func (w *World) callEachTool(ctx context.Context, st *toolWorld, withOutput bool) error {
	l := w.toolListing(ctx)
	st.listings = append(st.listings, l)
	if l.err != nil {
		st.why = "tools/list failed: " + client.ListFailureReason(l.err)
		return nil
	}
	var why []string
	candidates := 0
	for _, t := range l.lt.Items {
		if withOutput && t["outputSchema"] == nil {
			continue
		}
		candidates++
		if b := w.callBlocker(t); b != "" {
			why = append(why, b)
			continue
		}
		raw, _ := json.Marshal(t["inputSchema"])
		args, ok := checks.FixtureArgs(raw)
		if !ok {
			why = append(why, fmt.Sprintf("tool %s has required arguments the suite cannot fill", checks.ToolName(t)))
			continue
		}
		if _, err := w.callListedTool(ctx, st, t, args, ""); err != nil {
			return err
		}
	}
	switch {
	case withOutput && candidates == 0:
		return w.SetSkip(reports.NA, "no listed tool declares an outputSchema")
	case len(st.calls) == 0:
		if len(why) > 3 {
			why = append(why[:3], fmt.Sprintf("and %d more", len(why)-3))
		}
		st.why = "no listed tool was called" + checks.JoinWhy(why)
	}
	return nil
}

func (st *toolWorld) noCalls(fallback string) string {
	if st.why != "" {
		return st.why
	}
	return fallback
}

// expectStructured is TOOL-010: each successful result of a tool with an outputSchema carries a
// structuredContent that validates against it. Tool errors (isError) are not judged: the
// suite's arguments may well be what the tool refused.
func (w *World) expectStructured(st *toolWorld) error {
	judged := 0
	for _, c := range st.calls {
		r, _ := checks.CompletedResult(c)
		if r == nil {
			continue
		}
		raw, _ := json.Marshal(c.Tool["outputSchema"])
		schema, err := checks.CompileToolSchema(raw)
		if err != nil {
			continue // TOOL-002 judges the schema
		}
		if string(r["isError"]) == "true" {
			continue
		}
		judged++
		sc, present := r["structuredContent"]
		switch {
		case !present:
			return &client.Mismatch{Expected: "structuredContent in the result of tool " + checks.ToolName(c.Tool) + ", which declares an outputSchema", Actual: "no structuredContent", Frames: checks.ExchangeSeqs(c.Ex)}
		default:
			if problem := checks.ValidateAgainst(schema, sc); problem != "" {
				return &client.Mismatch{Expected: "structuredContent valid against the outputSchema of tool " + checks.ToolName(c.Tool), Actual: client.Short(sc) + ": " + problem, Frames: checks.ExchangeSeqs(c.Ex)}
			}
		}
	}
	if judged == 0 {
		return w.SetSkip(reports.Untestable, st.noCalls("no call of a tool with a compilable outputSchema completed without isError"))
	}
	return nil
}

// expectSerialized is TOOL-012: a result with structuredContent has a text block whose text is
// the same JSON value.
func (w *World) expectSerialized(st *toolWorld) error {
	judged, declared := 0, false
	for _, c := range st.calls {
		declared = declared || c.Tool["outputSchema"] != nil
		r, _ := checks.CompletedResult(c)
		sc, ok := r["structuredContent"]
		if !ok {
			continue
		}
		judged++
		var want any
		_ = json.Unmarshal(sc, &want)
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(r["content"], &blocks)
		found := false
		for _, b := range blocks {
			var got any
			if b.Type == "text" && json.Unmarshal([]byte(b.Text), &got) == nil && reflect.DeepEqual(got, want) {
				found = true
				break
			}
		}
		if !found {
			return &client.Mismatch{Expected: "a text block holding the serialized structuredContent of tool " + checks.ToolName(c.Tool), Actual: "content " + client.Short(r["content"]), Frames: checks.ExchangeSeqs(c.Ex)}
		}
	}
	if judged == 0 {
		if !declared && st.why == "" {
			return w.SetSkip(reports.NA, "no tool result the suite obtained carries structuredContent")
		}
		return w.SetSkip(reports.Untestable, st.noCalls("no tool result the suite obtained carries structuredContent"))
	}
	return nil
}

// callWithInvalidArgs calls every tool the policy allows with arguments its inputSchema rejects.
func (w *World) callWithInvalidArgs(ctx context.Context, st *toolWorld) error {
	l := w.toolListing(ctx)
	if l.err != nil {
		return w.SetSkip(reports.Untestable, "tools/list failed: "+client.ListFailureReason(l.err))
	}
	var why []string
	for _, t := range l.lt.Items {
		if b := w.callBlocker(t); b != "" {
			why = append(why, b)
			continue
		}
		raw, _ := json.Marshal(t["inputSchema"])
		args, problem, ok := checks.InvalidArgs(raw)
		if !ok {
			why = append(why, fmt.Sprintf("the inputSchema of tool %s accepts every argument set the suite tries", checks.ToolName(t)))
			continue
		}
		ex, err := w.callListedTool(ctx, st, t, args, problem)
		if err != nil {
			return err
		}
		if err := w.controlCall(ctx, st, t, raw, ex); err != nil {
			return err
		}
	}
	if len(st.calls) == 0 {
		if len(why) > 3 {
			why = append(why[:3], fmt.Sprintf("and %d more", len(why)-3))
		}
		return w.SetSkip(reports.Untestable, "no tool could be called with invalid arguments"+checks.JoinWhy(why))
	}
	return nil
}

// controlCall calls tool again with valid arguments (its required properties filled, when its
// inputSchema accepts that) after the call with invalid arguments ex was refused with a tool
// execution error or a JSON-RPC error other than -32602, and records it as that call's control
// (TOOL-016: a refusal is evidence of validation only from a tool that serves valid input).
func (w *World) controlCall(ctx context.Context, st *toolWorld, tool map[string]any, schemaRaw []byte, ex *harness.Exchange) error {
	msg := client.ResponseOf(ex)
	if msg == nil || msg.Kind == harness.KindError && msg.Error.Code == codeInvalidParamsTool {
		return nil
	}
	if msg.Kind == harness.KindResult {
		var r struct {
			IsError any `json:"isError"`
		}
		_ = json.Unmarshal(msg.Result, &r)
		if r.IsError != true {
			return nil
		}
	}
	args, filled := checks.FixtureArgs(schemaRaw)
	schema, err := checks.CompileToolSchema(schemaRaw)
	if !filled || err != nil {
		return nil
	}
	if b, _ := json.Marshal(args); checks.ValidateAgainst(schema, b) != "" {
		return nil
	}
	if err := w.Send(ctx, w.Build(w.ToolsCall(tool["name"], args, nil))); err != nil {
		return err
	}
	st.calls[len(st.calls)-1].Control = w.Last
	return nil
}

// expectResourcesDeclared is TOOL-018: a tool result with an embedded resource block comes from
// a server declaring resources.
func (w *World) expectResourcesDeclared(ctx context.Context, st *toolWorld) error {
	for _, c := range st.calls {
		r, _ := checks.CompletedResult(c)
		var blocks []struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(r["content"], &blocks)
		for _, b := range blocks {
			if b.Type != "resource" {
				continue
			}
			if !w.Declares("resources") {
				// A server that also lists resources offers them undeclared: CAP-002's defect.
				if err := w.SendParams(ctx, "resources/list", nil, nil, false); err != nil {
					return err
				}
				if msg, err := w.ResponseMessage(); err == nil && w.offersUndeclared("resources", msg) != "" {
					return w.SetSkip(reports.Untestable, "the server answers resources/list with resources although it does not declare resources, which CAP-002 judges")
				}
				return &client.Mismatch{Expected: "the resources capability declared by a server whose tool " + checks.ToolName(c.Tool) + " embeds resources",
					Actual: "capabilities without resources", Frames: checks.ExchangeSeqs(c.Ex)}
			}
			return nil
		}
	}
	fixture := w.Opts.FixtureName("test_embedded_resource")
	for _, c := range st.calls {
		if c.Tool["name"] == fixture {
			return w.SetSkip(reports.NA, "no tool result the suite obtained embeds a resource")
		}
	}
	if len(st.listings) > 0 && st.listings[0].lt != nil {
		for _, t := range st.listings[0].lt.Items {
			if t["name"] == fixture {
				return w.SetSkip(reports.Untestable, fmt.Sprintf("no tool result the suite obtained embeds a resource, and tool %q was not called%s", fixture, checks.WhyClause(st.why)))
			}
		}
	}
	return w.SetSkip(reports.Untestable, fmt.Sprintf("no tool result the suite obtained embeds a resource, and the server has no tool %q", fixture))
}
