package steps

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// toolWorld is what the tool steps of one scenario pass from their When steps to their Then
// steps: the tools/list traversals (each with the frames it exchanged, and the error that ended
// it), and the tools/call exchanges.
type toolWorld struct {
	listings []toolListing
	calls    []toolCall
	// why says why no call was made (untestable), when calls is empty.
	why string
}

type toolListing struct {
	lt     *listTraversal
	err    error
	frames []int
}

// toolCall is one tools/call the scenario made: the listed tool, the arguments sent, the
// problem the arguments have on purpose (TOOL-016, "" when valid) and the exchange.
type toolCall struct {
	tool    map[string]any
	args    map[string]any
	problem string
	ex      *harness.Exchange
}

// codeInvalidParamsTool is JSON-RPC Invalid params, the spec's example code for an unknown
// tool and a malformed tools/call.
const codeInvalidParamsTool = -32602

// toolListing lists every tool on the scenario's connection and keeps the frames it exchanged.
func (w *world) toolListing(ctx context.Context) toolListing {
	before := len(w.exchanges)
	lt, err := w.listAll(ctx, "tools/list", "tools")
	var frames []int
	for _, ex := range w.exchanges[before:] {
		frames = append(frames, exchangeSeqs(ex)...)
	}
	return toolListing{lt: lt, err: err, frames: frames}
}

func toolName(t map[string]any) string {
	if name, ok := t["name"].(string); ok {
		return fmt.Sprintf("%q", name)
	}
	return jsonText(t["name"])
}

func inputRequired(msg *harness.Message) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(msg.Result, &r)
	return r.ResultType == "input_required"
}

// expectRejected is TOOL-016: every call with invalid arguments got a tool execution error
// (isError: true) or -32602; another JSON-RPC error is a warning.
func (w *world) expectRejected(st *toolWorld) error {
	var warn *Mismatch
	for _, c := range st.calls {
		msg := responseOf(c.ex)
		what := fmt.Sprintf("tool %s called with %s (%s)", toolName(c.tool), jsonText(c.args), c.problem)
		switch {
		case msg == nil:
			return &Mismatch{Expected: "the " + what + " to be rejected", Actual: describeExchange(c.ex), Frames: exchangeSeqs(c.ex)}
		case msg.Kind == harness.KindError:
			if msg.Error.Code != codeInvalidParamsTool && warn == nil {
				warn = &Mismatch{Expected: "the " + what + " to be rejected with isError: true or -32602", Actual: describe(msg), Grade: reports.Warn, Frames: exchangeSeqs(c.ex)}
			}
		case msg.Kind == harness.KindResult:
			if inputRequired(msg) {
				continue
			}
			var r struct {
				IsError any `json:"isError"`
			}
			_ = json.Unmarshal(msg.Result, &r)
			if r.IsError != true {
				return &Mismatch{Expected: "the " + what + " to be rejected (isError: true or -32602)", Actual: "a successful result: " + short(msg.Result), Frames: exchangeSeqs(c.ex)}
			}
		default:
			return &Mismatch{Expected: "the " + what + " to be rejected", Actual: describe(msg), Frames: exchangeSeqs(c.ex)}
		}
	}
	if warn != nil {
		return warn
	}
	return nil
}
