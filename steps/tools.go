package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// toolWorld is what the tool steps of one scenario pass from their When steps to their Then
// steps: the tools/list traversals (each with the frames it exchanged, and the error that ended
// it), and the tools/call exchanges.
type toolWorld struct {
	listings []toolListing
	calls    []checks.ToolCall
	// why says why no call was made (untestable), when calls is empty.
	why string
}

// toolOf returns the scenario's state for tools (TOOL), made on first use (see stateOf).
func toolOf(w *World) *toolWorld {
	return stateOf(w, func() *toolWorld { return &toolWorld{} })
}

type toolListing struct {
	lt     *client.ListTraversal
	err    error
	frames []int
}

// codeInvalidParamsTool is JSON-RPC Invalid params, the spec's example code for an unknown
// tool and a malformed tools/call.
const codeInvalidParamsTool = -32602

// toolListing lists every tool on the scenario's connection and keeps the frames it exchanged.
func (w *World) toolListing(ctx context.Context) toolListing {
	before := len(w.Exchanges)
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	var frames []int
	for _, ex := range w.Exchanges[before:] {
		frames = append(frames, checks.ExchangeSeqs(ex)...)
	}
	return toolListing{lt: lt, err: err, frames: frames}
}

// expectRejected is TOOL-016 (server/tools#Security Considerations: "Servers MUST validate all
// tool inputs"): every call with invalid arguments got a tool execution error (isError: true)
// or -32602; another JSON-RPC error is a warning. A refusal is evidence of validation only when
// it is -32602 or the same tool served valid arguments (its control call): a tool that fails
// for every input (a missing browser, a test_error_handling) shows nothing, and a run without
// any evidence is untestable, with the reasons.
func (w *World) expectRejected(st *toolWorld) error {
	var warn *client.Mismatch
	var noEvidence []string
	evidence := 0
	for _, c := range st.calls {
		if c.Problem == "" {
			continue
		}
		msg := client.ResponseOf(c.Ex)
		what := fmt.Sprintf("tool %s called with %s (%s)", checks.ToolName(c.Tool), checks.JSONText(c.Args), c.Problem)
		switch {
		case msg == nil:
			return &client.Mismatch{Expected: "the " + what + " to be rejected", Actual: client.DescribeExchange(c.Ex), Frames: checks.ExchangeSeqs(c.Ex)}
		case msg.Kind == harness.KindError && msg.Error.Code == codeInvalidParamsTool:
			evidence++
			continue
		case msg.Kind == harness.KindResult:
			if checks.InputRequired(msg) {
				continue
			}
			var r struct {
				IsError any `json:"isError"`
			}
			_ = json.Unmarshal(msg.Result, &r)
			if r.IsError != true {
				return &client.Mismatch{Expected: "the " + what + " to be rejected (isError: true or -32602)", Actual: "a successful result: " + client.Short(msg.Result), Frames: checks.ExchangeSeqs(c.Ex)}
			}
		case msg.Kind != harness.KindError:
			return &client.Mismatch{Expected: "the " + what + " to be rejected", Actual: client.Describe(msg), Frames: checks.ExchangeSeqs(c.Ex)}
		}
		// Refused with isError: true or another JSON-RPC error: evidence only if the tool
		// serves valid arguments.
		if why := controlFailed(c); why != "" {
			noEvidence = append(noEvidence, why)
			continue
		}
		evidence++
		if msg.Kind == harness.KindError && warn == nil {
			warn = &client.Mismatch{Expected: "the " + what + " to be rejected with isError: true or -32602", Actual: client.Describe(msg), Grade: reports.Warn, Frames: append(checks.ExchangeSeqs(c.Ex), checks.ExchangeSeqs(c.Control)...)}
		}
	}
	if evidence == 0 {
		if len(noEvidence) == 0 {
			return w.SetSkip(reports.Untestable, "every call with invalid arguments got an interim input_required result, which shows no validation")
		}
		if len(noEvidence) > 3 {
			noEvidence = append(noEvidence[:3], fmt.Sprintf("and %d more", len(noEvidence)-3))
		}
		return w.SetSkip(reports.Untestable, "no refusal shows that the server validated the arguments: "+strings.Join(noEvidence, "; "))
	}
	if warn != nil {
		return warn
	}
	return nil
}

// controlFailed says why the control call of c, a refused call with invalid arguments, does not
// show that the tool serves valid arguments ("" when it does: a result without isError, or an
// interim input_required result).
func controlFailed(c checks.ToolCall) string {
	if c.Control == nil {
		return fmt.Sprintf("tool %s: no valid arguments could be built to tell a validation error from a tool that fails for every input", checks.ToolName(c.Tool))
	}
	msg := client.ResponseOf(c.Control)
	if msg != nil && msg.Kind == harness.KindResult {
		var r struct {
			IsError any `json:"isError"`
		}
		_ = json.Unmarshal(msg.Result, &r)
		if r.IsError != true || checks.InputRequired(msg) {
			return ""
		}
		return fmt.Sprintf("tool %s failed with valid arguments %s too (isError: true: %s)", checks.ToolName(c.Tool), checks.JSONText(controlArgs(c.Control)), client.Short(msg.Result))
	}
	return fmt.Sprintf("tool %s failed with valid arguments %s too (%s)", checks.ToolName(c.Tool), checks.JSONText(controlArgs(c.Control)), client.DescribeExchange(c.Control))
}

// controlArgs returns the arguments of the tools/call sent in ex.
func controlArgs(ex *harness.Exchange) any {
	var req struct {
		Params struct {
			Arguments any `json:"arguments"`
		} `json:"params"`
	}
	if ex.Sent != nil {
		_ = json.Unmarshal(ex.Sent.Raw, &req)
	}
	return req.Params.Arguments
}
