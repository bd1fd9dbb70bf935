package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// InputRequired is a 2026-07-28 InputRequiredResult as the client reads it
// (basic/patterns#Multi Round-Trip Requests): the server's input requests by key, and the
// opaque requestState to echo (HasState false when the result carried none).
type InputRequired struct {
	Requests map[string]InputRequest // inputRequests by the server's key; nil when absent
	State    string                  // requestState, echoed unchanged on the retry
	HasState bool                    // whether the result carried requestState
}

// InputRequest is one entry of inputRequests: the method of the request the server needs the
// client to fulfil (sampling/createMessage, roots/list, elicitation/create) and its params.
type InputRequest struct {
	Method string          `json:"method"` // sampling/createMessage, roots/list or elicitation/create
	Params json.RawMessage `json:"params"` // the request's params as the server sent them
}

// LastInputRequired reads the last exchange's response as an InputRequiredResult (resultType
// "input_required"); ok is false when it is no such result. A malformed inputRequests member
// is an error: the caller judges it, the client does not guess.
func (w *Session) LastInputRequired() (ir InputRequired, ok bool, err error) {
	res := w.LastResult()
	var rt string
	if res == nil || json.Unmarshal(res["resultType"], &rt) != nil || rt != "input_required" {
		return InputRequired{}, false, nil
	}
	if raw, has := res["inputRequests"]; has {
		if err := json.Unmarshal(raw, &ir.Requests); err != nil {
			return InputRequired{}, true, fmt.Errorf("inputRequests is not a map of input requests: %w", err)
		}
	}
	if raw, has := res["requestState"]; has {
		if err := json.Unmarshal(raw, &ir.State); err != nil {
			return InputRequired{}, true, fmt.Errorf("requestState is not a string: %w", err)
		}
		ir.HasState = true
	}
	return ir, true, nil
}

// Retry answers the InputRequiredResult ir of call c and sends c again with a new id, its
// params carrying inputResponses (each key's answer from answer) and ir's requestState
// unchanged (basic/patterns#Multi Round-Trip Requests). An input request answer refuses gets
// no entry, as a client that cannot fulfil it. The retry is the session's last exchange.
func (w *Session) Retry(ctx context.Context, c Call, ir InputRequired, answer Answerer) error {
	responses := map[string]json.RawMessage{}
	keys := make([]string, 0, len(ir.Requests))
	for k := range ir.Requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if res, refused := answer(ir.Requests[k].Method, ir.Requests[k].Params); refused == nil {
			responses[k] = res
		}
	}
	retry := c
	retry.ID = nil
	retry.Params = make(map[string]any, len(c.Params)+2)
	for k, v := range c.Params {
		retry.Params[k] = v
	}
	retry.Params["inputResponses"] = responses
	if ir.HasState {
		retry.Params["requestState"] = ir.State
	}
	return w.Send(ctx, w.Build(retry))
}

// Complete sends c and, while the server answers with an InputRequiredResult, retries it with
// answer's input responses, at most rounds retries. It returns the number of retries made; the
// last exchange holds the final answer. A malformed InputRequiredResult ends it with an error.
func (w *Session) Complete(ctx context.Context, c Call, answer Answerer, rounds int) (int, error) {
	if err := w.Send(ctx, w.Build(c)); err != nil {
		return 0, err
	}
	for n := 0; ; n++ {
		ir, ok, err := w.LastInputRequired()
		if err != nil || !ok || n == rounds {
			return n, err
		}
		if err := w.Retry(ctx, c, ir, answer); err != nil {
			return n + 1, err
		}
	}
}
