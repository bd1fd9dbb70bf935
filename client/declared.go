package client

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Elicitation answers a client can give (2025-11-25 client/elicitation#Response Actions):
// accept with content satisfying the requested schema, decline, cancel, or accept with
// content that violates it (INPUT-012's probe).
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
	ElicitInvalid = "invalid"
)

// DeclaredAnswer is the answer of a client that declared exactly caps (client capabilities as
// sent in initialize): ping always; roots/list, sampling/createMessage and elicitation/create
// as DefaultAnswer does, only when caps declares roots, sampling or elicitation, and an
// elicitation only in a mode caps allows (`elicitation: {}` is form only; `{url:{}}` url only;
// 2025-11-25 client/elicitation#Capabilities). elicit chooses the elicitation's action
// (ElicitAccept, ...). Anything else is refused with -32601.
func DeclaredAnswer(caps map[string]json.RawMessage, elicit string) Answerer {
	return func(method string, params json.RawMessage) (json.RawMessage, *AnswerError) {
		need := map[string]string{"roots/list": "roots", "sampling/createMessage": "sampling", "elicitation/create": "elicitation"}[method]
		if need != "" {
			if _, ok := caps[need]; !ok {
				return nil, &AnswerError{Code: -32601, Message: "Method not found: " + method + " (the client did not declare " + need + ")"}
			}
		}
		if method == "sampling/createMessage" {
			if res := toolUseAnswer(params); res != nil {
				return res, nil
			}
		}
		if method != "elicitation/create" {
			return DefaultAnswer(method, params)
		}
		if mode := ElicitMode(params); !ModeDeclared(caps["elicitation"], mode) {
			return nil, &AnswerError{Code: -32602, Message: "Invalid params: the client did not declare elicitation mode " + strconv.Quote(mode)}
		}
		switch elicit {
		case ElicitDecline, ElicitCancel:
			return mustJSON(map[string]any{"action": elicit}), nil
		case ElicitInvalid:
			return mustJSON(map[string]any{"action": "accept", "content": invalidContent(params)}), nil
		}
		return integralContent(DefaultAnswer(method, params))
	}
}

// integralContent truncates the non-integer numbers of an accepted elicitation's content:
// 2025-11-25's ElicitResult allows string, integer, boolean and string-array values only, so
// an integer is the valid answer to a number field (SEP-1034's default 95.5 included).
func integralContent(res json.RawMessage, refused *AnswerError) (json.RawMessage, *AnswerError) {
	var r map[string]json.RawMessage
	var content map[string]json.RawMessage
	if refused != nil || json.Unmarshal(res, &r) != nil || json.Unmarshal(r["content"], &content) != nil {
		return res, refused
	}
	for k, v := range content {
		var f float64
		if s := string(v); strings.ContainsAny(s, ".eE") && json.Unmarshal(v, &f) == nil {
			content[k] = mustJSON(int64(math.Trunc(f)))
		}
	}
	r["content"] = mustJSON(content)
	return mustJSON(r), nil
}

// ElicitMode returns the mode of an elicitation/create's params: "form" when absent.
func ElicitMode(params json.RawMessage) string {
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Mode == "" {
		return "form"
	}
	return p.Mode
}

// ModeDeclared reports whether the elicitation capability decl allows mode: an empty object
// (or one without form and url) means form only (client/elicitation#Capabilities).
func ModeDeclared(decl json.RawMessage, mode string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(decl, &m) != nil {
		return false
	}
	_, form := m["form"]
	_, url := m["url"]
	if !form && !url {
		form = true
	}
	return (mode == "form" && form) || (mode == "url" && url)
}

// invalidContent returns form content that violates the requested schema of params while
// staying a valid ElicitResult (string, integer, boolean or string-array values): every
// property gets a value of another type (an integer for a string, a string for a number or a
// boolean, an integer for an array).
func invalidContent(params json.RawMessage) map[string]any {
	var p struct {
		RequestedSchema struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	}
	_ = json.Unmarshal(params, &p)
	out := map[string]any{}
	for name, prop := range p.RequestedSchema.Properties {
		switch prop.Type {
		case "string", "array":
			out[name] = 12345
		default:
			out[name] = "not a " + prop.Type
		}
	}
	if len(out) == 0 {
		out["unexpected"] = 1
	}
	return out
}

// OpenSessionDeclaring initialises the scenario's fresh connection as a session of the legacy
// revision under test whose client declares exactly caps (a JSON object) and answers the
// server's requests as DeclaredAnswer(caps, elicit) does: OpenOwnSessionWith with that answerer
// set first. A handshake the server fails is a *PreconditionFailed naming LEG-001.
func (w *Session) OpenSessionDeclaring(ctx context.Context, caps json.RawMessage, elicit string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(caps, &m); err != nil || m == nil {
		return fmt.Errorf("feature bug: client capabilities %s are not a JSON object", caps)
	}
	if w.Conn == nil || !w.Fresh || w.Target.Modern {
		return fmt.Errorf("feature bug: a session declaring client capabilities needs a fresh connection to a legacy target")
	}
	if err := w.AnswerWith(DeclaredAnswer(m, elicit)); err != nil {
		return err
	}
	declared := make(map[string]any, len(m))
	for k, v := range m {
		declared[k] = v
	}
	return w.OpenOwnSessionWith(ctx, declared)
}

// ToolUseID is the id of the tool use DeclaredAnswer's model asks for.
const ToolUseID = "mcp-conform-tool-use-1"

// toolUseAnswer is the answer to a sampling request that offers tools and whose last message
// holds no tool result: the model uses the first tool (stopReason "toolUse", 2025-11-25
// client/sampling#Sampling with Tools), so that the server's follow-up request can be judged.
// nil when the request offers no tools or already carries the results.
func toolUseAnswer(params json.RawMessage) json.RawMessage {
	var p struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Tools) == 0 {
		return nil
	}
	if n := len(p.Messages); n > 0 && strings.Contains(string(p.Messages[n-1].Content), `"tool_result"`) {
		return nil
	}
	return mustJSON(map[string]any{"role": "assistant", "model": "mcp-conform", "stopReason": "toolUse",
		"content": []any{map[string]any{"type": "tool_use", "id": ToolUseID, "name": p.Tools[0].Name, "input": map[string]any{}}}})
}
