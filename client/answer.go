package client

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcp-conform/mcp-conform/harness"
)

// Answerer decides the client's answer to a request the server makes of it: a legacy
// server-to-client JSON-RPC request (2025-11-25 client/roots, client/sampling,
// client/elicitation, basic/utilities/ping) or an entry of a 2026-07-28 InputRequiredResult's
// inputRequests (basic/patterns#Multi Round-Trip Requests). method and params are the
// request's; it returns the result object (an InputResponse for an input request), or a
// JSON-RPC error when the client refuses.
type Answerer func(method string, params json.RawMessage) (result json.RawMessage, refusal *AnswerError)

// AnswerError is a JSON-RPC error the client answers a server's request with: Code and
// Message as in the error object.
type AnswerError struct {
	Code    int    // the JSON-RPC error code, e.g. -32601
	Message string // the error message, one line
}

// Error returns the error as "code: message".
func (e *AnswerError) Error() string { return fmt.Sprintf("%d: %s", e.Code, e.Message) }

// Root is the one root DefaultAnswer lists for roots/list.
const Root = "file:///mcp-conform/root"

// DefaultAnswer is the answer of a cooperative client that declared every client capability:
// ping gets an empty result; roots/list lists Root; sampling/createMessage gets a text reply
// from model "mcp-conform"; elicitation/create in form mode is accepted with content that
// satisfies the requested schema's properties (SampleValue: a field's default, its first
// choice, a number within its bounds, a string of its format and length, true for a
// boolean), in url mode accepted without content. Any other method is refused with -32601 (method not found).
func DefaultAnswer(method string, params json.RawMessage) (json.RawMessage, *AnswerError) {
	switch method {
	case "ping":
		return json.RawMessage(`{}`), nil
	case "roots/list":
		return mustJSON(map[string]any{"roots": []map[string]any{{"uri": Root, "name": "mcp-conform"}}}), nil
	case "sampling/createMessage":
		return mustJSON(map[string]any{"role": "assistant", "model": "mcp-conform", "stopReason": "endTurn",
			"content": map[string]any{"type": "text", "text": "mcp-conform sampled reply"}}), nil
	case "elicitation/create":
		var p struct {
			Mode            string `json:"mode"`
			RequestedSchema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"requestedSchema"`
		}
		_ = json.Unmarshal(params, &p)
		if p.Mode == "url" {
			return json.RawMessage(`{"action":"accept"}`), nil
		}
		content := map[string]any{}
		names := make([]string, 0, len(p.RequestedSchema.Properties))
		for name := range p.RequestedSchema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			content[name] = SampleValue(p.RequestedSchema.Properties[name])
		}
		return mustJSON(map[string]any{"action": "accept", "content": content}), nil
	}
	return nil, &AnswerError{Code: -32601, Message: "Method not found: " + method}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// PingOnly is the answer of a client that declared no client capability, as the suite's
// initialize does (2025-11-25 basic/lifecycle#Capability Negotiation): ping gets an empty
// result (basic/utilities/ping: either party may ping), anything else -32601.
func PingOnly(method string, _ json.RawMessage) (json.RawMessage, *AnswerError) {
	if method == "ping" {
		return json.RawMessage(`{}`), nil
	}
	return nil, &AnswerError{Code: -32601, Message: "Method not found: " + method}
}

// Respond turns a into the transport's answer hook: the JSON-RPC response to the server's
// request req, with req's id as sent (its JSON type kept), a result or a's error.
func Respond(a Answerer) harness.AnswerFunc {
	return func(req *harness.Message) []byte {
		res, refused := a(req.Method, req.Params)
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if refused != nil {
			resp["error"] = map[string]any{"code": refused.Code, "message": refused.Message}
		} else {
			resp["result"] = res
		}
		return mustJSON(resp)
	}
}

// AnswerWith makes the session's connection answer the server's requests with a (see
// DialConfig.Revision for the default). It is refused on a connection the scenarios share, where it would
// change what every other scenario's client declares; a scenario takes a connection of its own.
func (w *Session) AnswerWith(a Answerer) error {
	if w.Conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	if w.Conn.Shared() {
		return fmt.Errorf("the answers to server requests change what the client declares and were refused on the connection the scenarios share")
	}
	w.Conn.SetAnswerer(a)
	return nil
}
