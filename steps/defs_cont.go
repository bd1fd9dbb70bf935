package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// registerContSteps binds the steps of content blocks and prompts (CONT, PROMPT).
func registerContSteps(sc *godog.ScenarioContext) {
	// Provocation.
	step(sc, `^the client fetches the server's content blocks, icons and server info$`, wc(gatherContent))
	step(sc, `^the client gets every prompt the server lists$`, wc(func(ctx context.Context, w *world) error {
		_, err := w.getEveryPrompt(ctx)
		return err
	}))
	step(sc, `^the client lists every prompt$`, wc(func(ctx context.Context, w *world) error {
		_, err := w.listAll(ctx, "prompts/list", "prompts")
		return keepTransportErr(ctx, err)
	}))
	step(sc, `^the client gets a prompt that needs no arguments$`, wc(getArgumentlessPrompt))
	step(sc, `^the client gets a prompt the server does not offer$`, wc(func(ctx context.Context, w *world) error {
		return w.sendParams(ctx, "prompts/get", map[string]any{"name": unknownPromptName}, nil, false)
	}))
	step(sc, `^the client gets a prompt without its required arguments$`, wc(getPromptWithoutArgs))

	// Run-wide content rules (package judge); na when the run carried nothing they judge.
	step(sc, `^every content block the server sent in this run is a known type with its required fields$`, askJudge("CONT-001"))
	step(sc, `^all base64 data the server sent in this run is valid with a well-formed MIME type$`, askJudge("CONT-002"))
	step(sc, `^every annotation the server sent in this run has a valid audience, priority and lastModified$`, askJudge("CONT-003"))
	step(sc, `^every icon the server sent in this run has a src URI and a valid mimeType, sizes and theme$`, askJudge("CONT-004"))
	step(sc, `^every icon src the server sent in this run is an https: or data: URI$`, askJudge("CONT-005"))
	step(sc, `^every server info the server sent in this run has a string name and version$`, askJudge("CONT-006"))
	step(sc, `^every resource link the server sent in this run has a uri and a name$`, askJudge("CONT-007"))
	step(sc, `^every embedded resource in the prompt messages the server sent in this run has a URI, a MIME type and text or base64 data$`, askJudge("PROMPT-006"))

	// Prompts.
	step(sc, `^every prompts/list page of this scenario is a ListPromptsResult whose prompts and arguments have names$`, wc(checkPromptPages))
	step(sc, `^the prompt result has messages with role user or assistant, each with a content block$`, wc(checkPromptResult))
	step(sc, `^the prompt list is the same after getting each prompt and on a fresh connection$`, wc(checkPromptSetStable))
}

// contentFixtureTools are the fixture tools whose results are content blocks of each type.
var contentFixtureTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
}

// maxPromptGets bounds how many listed prompts one scenario fetches.
const maxPromptGets = 25

// keepTransportErr drops the *Mismatch and *listRefused of a list traversal (other rules judge
// them) and keeps errors that mean the run cannot go on.
func keepTransportErr(ctx context.Context, err error) error {
	switch err.(type) {
	case nil, *Mismatch, *listRefused:
		return ctx.Err()
	}
	return err
}

// gatherContent makes the server send what the content rules judge, without side effects:
// discovery (its serverInfo; the legacy InitializeResult was recorded at the handshake), every
// declared list (icons, annotations), a call of each content fixture tool the server lists
// and the call policy allows, and a get of every listed prompt.
func gatherContent(ctx context.Context, w *world) error {
	if w.s.t.modern {
		if err := w.sendMethod(ctx, "server/discover", "", nil, nil); err != nil {
			return err
		}
	}
	if w.declares("tools") {
		lt, err := w.listAll(ctx, "tools/list", "tools")
		if err := keepTransportErr(ctx, err); err != nil {
			return err
		}
		for _, f := range contentFixtureTools {
			name := w.s.env.fixtureName(f)
			for _, t := range lt.Items {
				if t["name"] != name {
					continue
				}
				if c, ok, _ := w.listedToolCall(t, nil, nil); ok {
					if err := w.send(ctx, w.build(c)); err != nil {
						return err
					}
				}
				break
			}
		}
	}
	if w.declares("resources") {
		for _, l := range [][2]string{{"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"}} {
			_, err := w.listAll(ctx, l[0], l[1])
			if err := keepTransportErr(ctx, err); err != nil {
				return err
			}
		}
	}
	_, err := w.getEveryPrompt(ctx)
	return err
}

// getEveryPrompt lists the prompts (when the capability is declared) and gets each of the
// first maxPromptGets, its required arguments filled with "x" (prompts/get has no side
// effects). It returns the listed prompts.
func (w *world) getEveryPrompt(ctx context.Context) ([]map[string]any, error) {
	if !w.declares("prompts") {
		return nil, nil
	}
	lt, err := w.listAll(ctx, "prompts/list", "prompts")
	if err := keepTransportErr(ctx, err); err != nil {
		return nil, err
	}
	for i, p := range lt.Items {
		if i == maxPromptGets {
			break
		}
		name, ok := p["name"].(string)
		if !ok {
			continue
		}
		params := map[string]any{"name": name}
		if req := requiredArgs(p); len(req) > 0 {
			args := map[string]any{}
			for _, a := range req {
				args[a] = placeholderArg(a)
			}
			params["arguments"] = args
		}
		if err := w.sendParams(ctx, "prompts/get", params, nil, false); err != nil {
			return nil, err
		}
	}
	return lt.Items, nil
}

// requiredArgs returns the names of a listed prompt's arguments marked required: true.
func requiredArgs(p map[string]any) []string {
	var out []string
	args, _ := p["arguments"].([]any)
	for _, a := range args {
		am, _ := a.(map[string]any)
		if name, ok := am["name"].(string); ok && am["required"] == true {
			out = append(out, name)
		}
	}
	return out
}

// listPromptsForPick lists the prompts for a step that needs one: na when the capability is
// not declared or the list is empty, untestable when the list is refused.
func (w *world) listPromptsForPick(ctx context.Context) ([]map[string]any, error) {
	if !w.declares("prompts") {
		return nil, w.setSkip(reports.NA, `the server does not declare the "prompts" capability`)
	}
	lt, err := w.listAll(ctx, "prompts/list", "prompts")
	if r, ok := err.(*listRefused); ok {
		return nil, w.setSkip(reports.Untestable, "prompts/list failed: "+r.Error())
	}
	if err := keepTransportErr(ctx, err); err != nil {
		return nil, err
	}
	if len(lt.Items) == 0 {
		return nil, w.setSkip(reports.NA, "the server lists no prompts")
	}
	return lt.Items, nil
}

// getArgumentlessPrompt gets the fixture prompt test_simple_prompt, or else the first listed
// prompt without required arguments.
func getArgumentlessPrompt(ctx context.Context, w *world) error {
	items, err := w.listPromptsForPick(ctx)
	if err != nil {
		return err
	}
	pick := ""
	fixture := w.s.env.fixtureName("test_simple_prompt")
	for _, p := range items {
		name, ok := p["name"].(string)
		if !ok || len(requiredArgs(p)) > 0 {
			continue
		}
		if pick == "" || name == fixture {
			pick = name
		}
	}
	if pick == "" {
		return w.setSkip(reports.Untestable, `every listed prompt has required arguments (no prompt "test_simple_prompt")`)
	}
	return w.sendParams(ctx, "prompts/get", map[string]any{"name": pick}, nil, false)
}

// getPromptWithoutArgs gets the fixture prompt test_prompt_with_arguments, or else the first
// listed prompt with a required argument, with empty arguments.
func getPromptWithoutArgs(ctx context.Context, w *world) error {
	items, err := w.listPromptsForPick(ctx)
	if err != nil {
		return err
	}
	pick := ""
	fixture := w.s.env.fixtureName("test_prompt_with_arguments")
	for _, p := range items {
		name, ok := p["name"].(string)
		if !ok || len(requiredArgs(p)) == 0 {
			continue
		}
		if pick == "" || name == fixture {
			pick = name
		}
	}
	if pick == "" {
		return w.setSkip(reports.Untestable, `no listed prompt declares a required argument (no prompt "test_prompt_with_arguments")`)
	}
	return w.sendParams(ctx, "prompts/get", map[string]any{"name": pick, "arguments": map[string]any{}}, nil, false)
}

func decodeAny(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// contentTypes are the content block types of the specification (ContentBlock).
var contentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

// ---------------------------------------------------------------------------------------------
// Prompts.

// checkPromptPages (PROMPT-001): every prompts/list reply of the scenario is a result that
// validates as ListPromptsResult, each prompt with a string name and each argument with a
// string name.
func checkPromptPages(ctx context.Context, w *world) error {
	pages := 0
	for _, ex := range w.exchanges {
		if ex.Sent == nil || ex.Sent.Method != "prompts/list" {
			continue
		}
		pages++
		seqs := exchangeSeqs(ex)
		if ex.Response == nil {
			return &Mismatch{Expected: "a prompts/list result", Actual: "no response", Frames: seqs}
		}
		msg, _ := harness.ParseMessage(ex.Response.Raw)
		if msg.Kind != harness.KindResult {
			return &Mismatch{Expected: "a prompts/list result (the prompts capability is declared)", Actual: describe(msg), Frames: seqs}
		}
		if err := w.validateAt(msg.Raw, "/result", "ListPromptsResult", seqs); err != nil {
			return err
		}
		res, _ := decodeAny(msg.Result).(map[string]any)
		list, ok := res["prompts"].([]any)
		if !ok {
			return &Mismatch{Expected: "a prompts array", Actual: short(msg.Result), Frames: seqs}
		}
		for i, e := range list {
			p, _ := e.(map[string]any)
			if _, ok := p["name"].(string); !ok {
				return &Mismatch{Expected: "every prompt to have a string name", Actual: fmt.Sprintf("prompts[%d] is %s", i, jsonText(e)), Frames: seqs}
			}
			args, present := p["arguments"]
			if !present {
				continue
			}
			arr, ok := args.([]any)
			if !ok {
				return &Mismatch{Expected: "prompt arguments to be an array", Actual: fmt.Sprintf("prompts[%d].arguments is %s", i, jsonText(args)), Frames: seqs}
			}
			for j, a := range arr {
				am, _ := a.(map[string]any)
				if _, ok := am["name"].(string); !ok {
					return &Mismatch{Expected: "every prompt argument to have a string name", Actual: fmt.Sprintf("prompts[%d].arguments[%d] is %s", i, j, jsonText(a)), Frames: seqs}
				}
				if v, ok := am["required"]; ok {
					if _, isBool := v.(bool); !isBool {
						return &Mismatch{Expected: "argument required to be a boolean", Actual: fmt.Sprintf("prompts[%d].arguments[%d].required is %s", i, j, jsonText(v)), Frames: seqs}
					}
				}
			}
		}
	}
	if pages == 0 {
		return fmt.Errorf("feature bug: no prompts/list in this scenario")
	}
	return nil
}

// checkPromptResult (PROMPT-003): the last response is a GetPromptResult whose messages each
// have role user or assistant and an object content.
func checkPromptResult(ctx context.Context, w *world) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	if msg.Kind != harness.KindResult {
		return &Mismatch{Expected: "a prompts/get result", Actual: describe(msg), Frames: w.lastSeqs()}
	}
	res, _ := decodeAny(msg.Result).(map[string]any)
	if res["resultType"] == "input_required" {
		return w.setSkip(reports.Untestable, "the prompt asked for more input (input_required); the suite does not answer it here")
	}
	if err := w.validateAt(msg.Raw, "/result", "GetPromptResult", w.lastSeqs()); err != nil {
		return err
	}
	msgs, ok := res["messages"].([]any)
	if !ok {
		return &Mismatch{Expected: "a messages array", Actual: short(msg.Result), Frames: w.lastSeqs()}
	}
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		if r := mm["role"]; r != "user" && r != "assistant" {
			return &Mismatch{Expected: `every message role "user" or "assistant"`, Actual: fmt.Sprintf("messages[%d].role %s", i, jsonText(r)), Frames: w.lastSeqs()}
		}
		c, ok := mm["content"].(map[string]any)
		if t, _ := c["type"].(string); !ok || !contentTypes[t] {
			return &Mismatch{Expected: "every message to carry one content block", Actual: fmt.Sprintf("messages[%d].content %s", i, jsonText(mm["content"])), Frames: w.lastSeqs()}
		}
	}
	return nil
}

// checkPromptSetStable (PROMPT-002): the prompt list of this connection, the list after a
// prompts/get of every prompt, and the list on a fresh connection hold the same prompts
// (compared by name and definition, `_meta` aside).
func checkPromptSetStable(ctx context.Context, w *world) error {
	if !w.declares("prompts") {
		return w.setSkip(reports.NA, `the server does not declare the "prompts" capability`)
	}
	type snapshot struct {
		label string
		set   map[string]string
		seqs  []int
	}
	take := func(label string) (*snapshot, error) {
		from := len(w.exchanges)
		lt, err := w.listAll(ctx, "prompts/list", "prompts")
		if r, ok := err.(*listRefused); ok {
			return nil, w.setSkip(reports.Untestable, "prompts/list failed "+label+": "+r.Error())
		}
		if err := keepTransportErr(ctx, err); err != nil {
			return nil, err
		}
		if _, ok := err.(*Mismatch); ok {
			return nil, w.setSkip(reports.Untestable, "prompts/list "+label+" could not be followed to its end: "+err.Error())
		}
		s := &snapshot{label: label, set: map[string]string{}}
		for _, ex := range w.exchanges[from:] {
			s.seqs = append(s.seqs, exchangeSeqs(ex)...)
		}
		for _, p := range lt.Items {
			name, _ := p["name"].(string)
			def := map[string]any{}
			for k, v := range p {
				if k != "_meta" {
					def[k] = v
				}
			}
			b, _ := json.Marshal(def)
			s.set[name] = string(b)
		}
		return s, nil
	}
	first, err := take("on this connection")
	if err != nil {
		return err
	}
	if _, err := w.getEveryPrompt(ctx); err != nil {
		return err
	}
	after, err := take("after getting each prompt")
	if err != nil {
		return err
	}
	if err := freshConnection(ctx, w); err != nil {
		return err
	}
	if w.s.t.modern {
		if err := w.sendMethod(ctx, "server/discover", "", nil, nil); err != nil {
			return err
		}
	}
	fresh, err := take("on a fresh connection")
	if err != nil {
		return err
	}
	for _, s := range []*snapshot{after, fresh} {
		if diff := setDiff(first.set, s.set); diff != "" {
			return &Mismatch{Expected: "the same prompts " + s.label + " as on the first list",
				Actual: diff, Frames: append(append([]int{}, first.seqs...), s.seqs...)}
		}
	}
	return nil
}

// setDiff describes how b differs from a (missing, added and changed names), "" when equal.
func setDiff(a, b map[string]string) string {
	var missing, added, changed []string
	for k, v := range a {
		if bv, ok := b[k]; !ok {
			missing = append(missing, strconv.Quote(k))
		} else if bv != v {
			changed = append(changed, strconv.Quote(k))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			added = append(added, strconv.Quote(k))
		}
	}
	var parts []string
	for _, p := range []struct {
		label string
		names []string
	}{{"missing", missing}, {"added", added}, {"changed", changed}} {
		if len(p.names) > 0 {
			sort.Strings(p.names)
			parts = append(parts, p.label+" "+strings.Join(p.names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// placeholderArg is the value the suite gives a required prompt argument it knows nothing
// about: "x", or a valid URI (the static text fixture) for an argument named like a URI, so a
// server that echoes it back is not blamed for the suite's own input.
func placeholderArg(name string) string {
	n := strings.ToLower(name)
	if strings.Contains(n, "uri") || strings.Contains(n, "url") {
		return "test://static-text"
	}
	return "x"
}
