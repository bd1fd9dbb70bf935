package checks

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// batchExpected is what MSG-018 wants, with the clause of basic/index#Batching of the revision
// with batches (the result links that page).
const batchExpected = "a response to each request of the batch, in one array or one by one (basic/index#Batching: implementations \"MUST support receiving JSON-RPC batches\")"

// codeInvalidRequest is JSON-RPC 2.0's Invalid Request, the usual refusal of a batch.
const codeInvalidRequest = -32600

// BatchAnswered grades MSG-018 on ex, the exchange of a JSON-RPC batch of requests the client
// sent at a revision that has batches (client.Session.SendBatch): every request of the batch
// (the ids of ex.Sent) must get a response, carried by an array or by frames of their own
// (ex.Responses). A refusal fails, citing its frames: an HTTP 4xx, or among the frames that
// answered the batch (alone or in an array) an error -32600 or an error naming no request (a
// parse error with id null: the server read no request of the batch); so does a request left
// without a response within the timeout. It returns nil when every request was answered.
func BatchAnswered(ex *harness.Exchange) *client.Mismatch {
	if ex == nil || ex.Sent == nil {
		return &client.Mismatch{Expected: batchExpected, Actual: "the batch was not sent"}
	}
	cite := []int{ex.Sent.Seq}
	for _, f := range ex.Frames {
		cite = append(cite, f.Seq)
	}
	fail := func(format string, args ...any) *client.Mismatch {
		return &client.Mismatch{Expected: batchExpected, Actual: fmt.Sprintf(format, args...), Frames: cite}
	}
	if ex.HTTP != nil && ex.HTTP.Status >= 400 && ex.HTTP.Status < 500 {
		return fail("HTTP %d for the batch (frame %d)", ex.HTTP.Status, ex.Sent.Seq)
	}
	for _, f := range ex.Frames {
		if why := batchRefusal(f); why != "" {
			return fail("frame %d: %s", f.Seq, why)
		}
	}
	ids := batchIDs(ex.Sent)
	var missing []string
	for i, key := range ids {
		if i >= len(ex.Responses) || ex.Responses[i] == nil {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		why := "no response"
		if ex.Err != nil {
			why = ex.Err.Error()
		}
		return fail("no response to the request with id %s of the batch (%s)", strings.Join(missing, ", "), why)
	}
	return nil
}

// batchIDs returns the IDKey of every request in the batch frame sent, in order.
func batchIDs(sent *harness.Frame) []string {
	members, _ := harness.ParseBatch(sent.Raw)
	var out []string
	for _, m := range members {
		if m.Kind == harness.KindRequest {
			out = append(out, harness.IDKey(m.ID))
		}
	}
	return out
}

// batchRefusal returns how server frame f, an answer to the batch, refuses it: f is, or is an
// array holding, an error -32600 or an error without an id (or with id null); "" when f
// refuses nothing.
func batchRefusal(f *harness.Frame) string {
	if f.Dir != harness.DirServerToClient {
		return ""
	}
	msgs, ok := harness.ParseBatch(f.Raw)
	if !ok {
		m, err := harness.ParseMessage(f.Body())
		if err != nil {
			return ""
		}
		msgs = []*harness.Message{m}
	}
	for _, m := range msgs {
		if m.Kind != harness.KindError || m.Error == nil {
			continue
		}
		switch {
		case m.Error.Code == codeInvalidRequest:
			return fmt.Sprintf("error %d (%q) for the batch", m.Error.Code, m.Error.Message)
		case !m.HasID || harness.IDKey(m.ID) == "null":
			return fmt.Sprintf("error %d (%q) naming no request: the batch was refused as a whole", m.Error.Code, m.Error.Message)
		}
	}
	return ""
}
