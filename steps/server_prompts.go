package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-prompts", registerServerPromptsSteps) }

// registerServerPromptsSteps binds the steps that only features/server-prompts.feature uses.
func registerServerPromptsSteps(sc *godog.ScenarioContext) {
	// Provocation.
	step(sc, `^the client gets every prompt the server lists$`, wc(getsEveryPromptLists))
	step(sc, `^the client lists every prompt$`, wc(listsEveryPrompt))
	step(sc, `^the client gets a prompt that needs no arguments$`, wc(getArgumentlessPrompt))
	step(sc, `^the client gets a prompt the server does not offer$`, wc(func(ctx context.Context, w *World) error {
		return w.SendParams(ctx, "prompts/get", map[string]any{"name": unknownPromptName}, nil, false)
	}))
	step(sc, `^the client gets a prompt without its required arguments$`, wc(getPromptWithoutArgs))

	// Run-wide content rules (package judge); na when the run carried nothing they judge.
	step(sc, `^every embedded resource in the prompt messages the server sent in this run has a URI, a MIME type and text or base64 data$`, AskJudge("PROMPT-006"))

	// Prompts.
	step(sc, `^every prompts/list page of this scenario is a ListPromptsResult whose prompts and arguments have names$`, wc(checkPromptPages))
	step(sc, `^the prompt result has messages with role user or assistant, each with a content block$`, wc(checkPromptResult))
	step(sc, `^the prompt list is the same after getting each prompt and on a fresh connection$`, wc(checkPromptSetStable))
}

func getsEveryPromptLists(ctx context.Context, w *World) error {
	_, err := w.getEveryPrompt(ctx)
	return err
}

func listsEveryPrompt(ctx context.Context, w *World) error {
	_, err := w.ListAll(ctx, "prompts/list", "prompts")
	return keepTransportErr(ctx, err)
}

// listPromptsForPick lists the prompts for a step that needs one: na when the capability is
// not declared or the list is empty, untestable when the list is refused.
func (w *World) listPromptsForPick(ctx context.Context) ([]map[string]any, error) {
	if !w.Declares("prompts") {
		return nil, w.Undeclared(`the server does not declare the "prompts" capability`)
	}
	lt, err := w.ListAll(ctx, "prompts/list", "prompts")
	if r, ok := err.(*client.ListRefused); ok {
		return nil, w.SetSkip(reports.Untestable, "prompts/list failed: "+client.ListFailureReason(r))
	}
	if err := keepTransportErr(ctx, err); err != nil {
		return nil, err
	}
	if len(lt.Items) == 0 {
		return nil, w.SetSkip(reports.NA, "the server lists no prompts")
	}
	return lt.Items, nil
}

// getArgumentlessPrompt gets the fixture prompt test_simple_prompt, or else the first listed
// prompt without required arguments.
func getArgumentlessPrompt(ctx context.Context, w *World) error {
	items, err := w.listPromptsForPick(ctx)
	if err != nil {
		return err
	}
	pick := ""
	fixture := w.Opts.FixtureName("test_simple_prompt")
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
		return w.SetSkip(reports.Untestable, `every listed prompt has required arguments (no prompt "test_simple_prompt")`)
	}
	return w.SendParams(ctx, "prompts/get", map[string]any{"name": pick}, nil, false)
}

// getPromptWithoutArgs gets the fixture prompt test_prompt_with_arguments, or else the first
// listed prompt with a required argument, with empty arguments.
func getPromptWithoutArgs(ctx context.Context, w *World) error {
	items, err := w.listPromptsForPick(ctx)
	if err != nil {
		return err
	}
	pick := ""
	fixture := w.Opts.FixtureName("test_prompt_with_arguments")
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
		return w.SetSkip(reports.Untestable, `no listed prompt declares a required argument (no prompt "test_prompt_with_arguments")`)
	}
	return w.SendParams(ctx, "prompts/get", map[string]any{"name": pick, "arguments": map[string]any{}}, nil, false)
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
func checkPromptPages(ctx context.Context, w *World) error {
	pages := 0
	for _, ex := range w.Exchanges {
		if ex.Sent == nil || ex.Sent.Method != "prompts/list" {
			continue
		}
		pages++
		seqs := checks.ExchangeSeqs(ex)
		if ex.Response == nil {
			return &client.Mismatch{Expected: "a prompts/list result", Actual: "no response", Frames: seqs}
		}
		msg, _ := harness.ParseMessage(ex.Response.Body())
		if msg.Kind == harness.KindError && pages == 1 && w.Target.Modern {
			// A declared feature whose list is refused is CAP-006's (server/prompts#Capabilities).
			return w.SetSkip(reports.Untestable, fmt.Sprintf("prompts/list was answered with %s although prompts are declared, which CAP-006 judges", client.Describe(msg)))
		}
		if msg.Kind != harness.KindResult {
			return &client.Mismatch{Expected: "a prompts/list result (the prompts capability is declared)", Actual: client.Describe(msg), Frames: seqs}
		}
		if err := w.validateAt(msg.Raw, "/result", "ListPromptsResult", seqs); err != nil {
			return err
		}
		res, _ := decodeAny(msg.Result).(map[string]any)
		list, ok := res["prompts"].([]any)
		if !ok {
			return &client.Mismatch{Expected: "a prompts array", Actual: client.Short(msg.Result), Frames: seqs}
		}
		for i, e := range list {
			p, _ := e.(map[string]any)
			if _, ok := p["name"].(string); !ok {
				return &client.Mismatch{Expected: "every prompt to have a string name", Actual: fmt.Sprintf("prompts[%d] is %s", i, checks.JSONText(e)), Frames: seqs}
			}
			args, present := p["arguments"]
			if !present {
				continue
			}
			arr, ok := args.([]any)
			if !ok {
				return &client.Mismatch{Expected: "prompt arguments to be an array", Actual: fmt.Sprintf("prompts[%d].arguments is %s", i, checks.JSONText(args)), Frames: seqs}
			}
			for j, a := range arr {
				am, _ := a.(map[string]any)
				if _, ok := am["name"].(string); !ok {
					return &client.Mismatch{Expected: "every prompt argument to have a string name", Actual: fmt.Sprintf("prompts[%d].arguments[%d] is %s", i, j, checks.JSONText(a)), Frames: seqs}
				}
				if v, ok := am["required"]; ok {
					if _, isBool := v.(bool); !isBool {
						return &client.Mismatch{Expected: "argument required to be a boolean", Actual: fmt.Sprintf("prompts[%d].arguments[%d].required is %s", i, j, checks.JSONText(v)), Frames: seqs}
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
func checkPromptResult(ctx context.Context, w *World) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	if msg.Kind == harness.KindInvalid && msg.Problem == "both result and error" {
		return w.SetSkip(reports.Untestable, "the prompts/get reply has both result and error, which MSG-004 judges")
	}
	if msg.Kind != harness.KindResult {
		return &client.Mismatch{Expected: "a prompts/get result", Actual: client.Describe(msg), Frames: w.LastSeqs()}
	}
	res, isObject := decodeAny(msg.Result).(map[string]any)
	if !isObject {
		return w.SetSkip(reports.Untestable, "the prompts/get result is not a JSON object, which MSG-005 judges")
	}
	if res["resultType"] == "input_required" {
		return w.SetSkip(reports.Untestable, "the prompt asked for more input (input_required), which RT-003 judges; the suite does not answer it here")
	}
	if err := w.validateAt(msg.Raw, "/result", "GetPromptResult", w.LastSeqs()); err != nil {
		return err
	}
	msgs, ok := res["messages"].([]any)
	if !ok {
		return &client.Mismatch{Expected: "a messages array", Actual: client.Short(msg.Result), Frames: w.LastSeqs()}
	}
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		if r := mm["role"]; r != "user" && r != "assistant" {
			return &client.Mismatch{Expected: `every message role "user" or "assistant"`, Actual: fmt.Sprintf("messages[%d].role %s", i, checks.JSONText(r)), Frames: w.LastSeqs()}
		}
		c, ok := mm["content"].(map[string]any)
		if t, _ := c["type"].(string); !ok || !contentTypes[t] {
			return &client.Mismatch{Expected: "every message to carry one content block", Actual: fmt.Sprintf("messages[%d].content %s", i, checks.JSONText(mm["content"])), Frames: w.LastSeqs()}
		}
	}
	return nil
}

// checkPromptSetStable (PROMPT-002): the prompt list of this connection, the list after a
// prompts/get of every prompt, and the list on a fresh connection hold the same prompts
// (compared by name and definition, `_meta` aside).
func checkPromptSetStable(ctx context.Context, w *World) error {
	if !w.Declares("prompts") {
		return w.Undeclared(`the server does not declare the "prompts" capability`)
	}
	type snapshot struct {
		label string
		set   map[string]string
		seqs  []int
	}
	take := func(label string) (*snapshot, error) {
		from := len(w.Exchanges)
		lt, err := w.ListAll(ctx, "prompts/list", "prompts")
		if r, ok := err.(*client.ListRefused); ok {
			return nil, w.SetSkip(reports.Untestable, "prompts/list failed "+label+": "+r.Error()+" ("+client.ListRefusalJudges+")")
		}
		if err := keepTransportErr(ctx, err); err != nil {
			return nil, err
		}
		if lm := (*client.ListMalformed)(nil); errors.As(err, &lm) {
			return nil, w.SetSkip(reports.Untestable, "prompts/list "+label+" could not be followed to its end: "+lm.Mismatch.Error()+" ("+lm.Rule+" judges that)")
		}
		if m := (*client.Mismatch)(nil); errors.As(err, &m) {
			return nil, w.SetSkip(reports.Untestable, "prompts/list "+label+" could not be followed to its end: "+err.Error())
		}
		s := &snapshot{label: label, set: map[string]string{}}
		for _, ex := range w.Exchanges[from:] {
			s.seqs = append(s.seqs, checks.ExchangeSeqs(ex)...)
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
	if w.Target.Modern {
		if err := w.SendMethod(ctx, "server/discover", "", nil, nil); err != nil {
			return err
		}
	}
	fresh, err := take("on a fresh connection")
	if err != nil {
		return err
	}
	for _, s := range []*snapshot{after, fresh} {
		if diff := setDiff(first.set, s.set); diff != "" {
			return &client.Mismatch{Expected: "the same prompts " + s.label + " as on the first list",
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
