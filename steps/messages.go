package steps

import (
	"context"
	"encoding/json"

	"github.com/mcp-conform/mcp-conform/harness"
)

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

// sendParams sends method with params (nil: none) as a request of the revision under test: on
// a modern target with the default `_meta` plus extraMeta, on a legacy target with extraMeta
// (if any) as `_meta`. intentional marks a request that is invalid on purpose.
func (w *session) sendParams(ctx context.Context, method string, params, extraMeta map[string]any, intentional bool) error {
	return w.send(ctx, w.build(call{Method: method, Params: params, Meta: extraMeta, Intentional: intentional}))
}

// lastResult returns the result object of the last response, nil when it is not a result.
func (w *session) lastResult() map[string]json.RawMessage {
	if w.last == nil || w.last.Response == nil {
		return nil
	}
	msg, err := harness.ParseMessage(w.last.Response.Body())
	if err != nil || msg.Kind != harness.KindResult {
		return nil
	}
	var res map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &res)
	return res
}

// listed returns the entries of the array member of the last result (tools, resources, ...).
func (w *session) listed(member string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	_ = json.Unmarshal(w.lastResult()[member], &out)
	return out
}

func (w *session) declares(capability string) bool {
	_, ok := w.t.Caps[capability]
	return ok
}

func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
