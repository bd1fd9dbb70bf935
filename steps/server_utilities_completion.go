package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-utilities-completion", registerServerUtilitiesCompletionSteps) }

// registerServerUtilitiesCompletionSteps binds the steps that only
// features/server-utilities-completion.feature uses.
func registerServerUtilitiesCompletionSteps(sc *godog.ScenarioContext) {
	// CMPL.
	step(sc, `^the client requests completions for a prompt argument and a resource template variable$`, requestsCompletionsPromptArgument)
	step(sc, `^every completion result carries at most 100 string values, an integer total and a boolean hasMore$`, everyCompletionResultCarries)
	step(sc, `^every completion result that has fewer values than its total says hasMore$`, everyCompletionResultFewer)
	step(sc, `^every completion request got a result$`, everyCompletionRequestGot)
	step(sc, `^the client requests completions for a prompt that does not exist$`, requestsCompletionsPromptDoes)
	step(sc, `^the server does not declare the "([^"]+)" capability$`, doesNotDeclareCapability)
	step(sc, `^the client requests completions for the first prompt argument or template variable it lists$`, wc(requestsCompletionsFirstPrompt))
}

func requestsCompletionsPromptArgument(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.requestCompletions(ctx, resOf(w))
}

func everyCompletionResultCarries(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectCompletionShape(resOf(w))
}

func everyCompletionResultFewer(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectHasMore(resOf(w))
}

func everyCompletionRequestGot(ctx context.Context) error {
	for _, c := range resOf(WorldOf(ctx)).completions {
		if msg := client.ResponseOf(c.ex); msg == nil || msg.Kind != harness.KindResult {
			return &client.Mismatch{Expected: "a completion result for a " + c.kind + " reference", Actual: client.DescribeExchange(c.ex), Frames: checks.ExchangeSeqs(c.ex)}
		}
	}
	return nil
}

func requestsCompletionsPromptDoes(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.Send(ctx, w.StateRequest("completion/complete", map[string]any{
		"ref":      map[string]any{"type": "ref/prompt", "name": "mcpconform_missing_" + randomHex()},
		"argument": map[string]any{"name": "arg", "value": ""},
	}, nil))
}

func doesNotDeclareCapability(ctx context.Context, name string) error {
	w := WorldOf(ctx)
	if why := w.Target.CapsUnknown; why != "" {
		return w.SetSkip(reports.Untestable, why)
	}
	if _, ok := w.Target.Caps[name]; ok {
		return w.SetSkip(reports.NA, fmt.Sprintf("the server declares the %q capability", name))
	}
	return nil
}

func requestsCompletionsFirstPrompt(ctx context.Context, w *World) error {
	ref, arg, err := w.completionTarget(ctx)
	if err != nil {
		return err
	}
	return w.Send(ctx, w.StateRequest("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}, nil))
}

// requestCompletions sends completion/complete with an empty value for a prompt argument
// (test_prompt_with_arguments, else the first listed prompt with arguments) and for a template
// variable (test://template/{id}/data, else the first listed template with a variable).
func (w *World) requestCompletions(ctx context.Context, r *resWorld) error {
	var refs []struct {
		kind string
		ref  map[string]any
		arg  string
	}
	if lt, err := w.ListAll(ctx, "prompts/list", "prompts"); err == nil {
		want := w.Opts.FixtureName("test_prompt_with_arguments")
		var pick map[string]any
		for _, p := range lt.Items {
			args, _ := p["arguments"].([]any)
			if len(args) == 0 {
				continue
			}
			if pick == nil || p["name"] == want {
				pick = p
			}
		}
		if pick != nil {
			arg, _ := pick["arguments"].([]any)[0].(map[string]any)
			name, _ := arg["name"].(string)
			refs = append(refs, struct {
				kind string
				ref  map[string]any
				arg  string
			}{"ref/prompt", map[string]any{"type": "ref/prompt", "name": pick["name"]}, name})
		}
	}
	if lt, err := w.ListAll(ctx, "resources/templates/list", "resourceTemplates"); err == nil {
		want := w.Opts.FixtureName("test://template/{id}/data")
		var pick string
		for _, t := range lt.Items {
			tpl, _ := t["uriTemplate"].(string)
			if !templateVar.MatchString(tpl) {
				continue
			}
			if pick == "" || tpl == want {
				pick = tpl
			}
		}
		if pick != "" {
			refs = append(refs, struct {
				kind string
				ref  map[string]any
				arg  string
			}{"ref/resource", map[string]any{"type": "ref/resource", "uri": pick}, templateVar.FindStringSubmatch(pick)[1]})
		}
	}
	if len(refs) == 0 {
		return w.SetSkip(reports.Untestable, `the server lists no prompt with arguments and no resource template with a variable (fixtures "test_prompt_with_arguments", "test://template/{id}/data")`)
	}
	for _, c := range refs {
		if err := w.Send(ctx, w.StateRequest("completion/complete", map[string]any{"ref": c.ref, "argument": map[string]any{"name": c.arg, "value": ""}}, nil)); err != nil {
			return err
		}
		r.completions = append(r.completions, resCompletion{kind: c.kind, ex: w.Last})
	}
	return nil
}

// completionResults returns the completion objects of the scenario's completion results.
func completionResults(r *resWorld) (out []map[string]json.RawMessage, exs []*harness.Exchange) {
	for _, c := range r.completions {
		msg := client.ResponseOf(c.ex)
		if msg == nil || msg.Kind != harness.KindResult {
			continue
		}
		var res struct {
			Completion map[string]json.RawMessage `json:"completion"`
		}
		_ = json.Unmarshal(msg.Result, &res)
		out = append(out, res.Completion)
		exs = append(exs, c.ex)
	}
	return out, exs
}

func (w *World) expectCompletionShape(r *resWorld) error {
	comps, exs := completionResults(r)
	if len(comps) == 0 {
		return w.SetSkip(reports.Untestable, "no completion request got a result to judge (see CMPL-005)")
	}
	for i, c := range comps {
		ex := exs[i]
		if err := w.validateAt(ex.Response.Body(), "/result", "CompleteResult", checks.ExchangeSeqs(ex)); err != nil {
			return err
		}
		var values []any
		if err := json.Unmarshal(c["values"], &values); err != nil || values == nil {
			return &client.Mismatch{Expected: "completion.values to be an array", Actual: client.Short(c["values"]), Frames: checks.ExchangeSeqs(ex)}
		}
		for _, v := range values {
			if _, ok := v.(string); !ok {
				return &client.Mismatch{Expected: "completion.values to hold strings", Actual: checks.JSONText(v), Frames: checks.ExchangeSeqs(ex)}
			}
		}
		if len(values) > 100 {
			return &client.Mismatch{Expected: "at most 100 completion values", Actual: fmt.Sprintf("%d values", len(values)), Frames: checks.ExchangeSeqs(ex)}
		}
		if raw, ok := c["total"]; ok {
			var n json.Number
			if d := json.NewDecoder(strings.NewReader(string(raw))); d.Decode(&n) != nil || strings.ContainsAny(n.String(), ".eE") {
				return &client.Mismatch{Expected: "completion.total to be an integer", Actual: client.Short(raw), Frames: checks.ExchangeSeqs(ex)}
			}
		}
		if raw, ok := c["hasMore"]; ok {
			if s := strings.TrimSpace(string(raw)); s != "true" && s != "false" {
				return &client.Mismatch{Expected: "completion.hasMore to be a boolean", Actual: client.Short(raw), Frames: checks.ExchangeSeqs(ex)}
			}
		}
	}
	return nil
}

func (w *World) expectHasMore(r *resWorld) error {
	comps, exs := completionResults(r)
	if len(comps) == 0 {
		return w.SetSkip(reports.Untestable, "no completion request got a result to judge (see CMPL-005)")
	}
	for i, c := range comps {
		var values []json.RawMessage
		var total *int64
		var hasMore bool
		_ = json.Unmarshal(c["values"], &values)
		_ = json.Unmarshal(c["total"], &total)
		_ = json.Unmarshal(c["hasMore"], &hasMore)
		if total == nil {
			continue
		}
		switch {
		case *total < int64(len(values)):
			return &client.Mismatch{Expected: "completion.total to count at least the values returned", Actual: fmt.Sprintf("total %d with %d values", *total, len(values)), Frames: checks.ExchangeSeqs(exs[i])}
		case *total > int64(len(values)) && !hasMore:
			return &client.Mismatch{Expected: "hasMore: true when total exceeds the values returned", Actual: fmt.Sprintf("total %d, %d values, hasMore %s", *total, len(values), orAbsent(c["hasMore"])), Frames: checks.ExchangeSeqs(exs[i])}
		}
	}
	return nil
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}
