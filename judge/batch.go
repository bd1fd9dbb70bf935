package judge

import (
	"fmt"
	"strconv"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/schemas"
)

// JSON-RPC batches at the revision that has them (revisions.AllowsBatches, basic/index#Batching
// of that revision). There a frame that is a batch (harness.ParseBatch: a non-empty array of
// JSON objects) is a valid message, judged as the messages it holds: every check observes each
// member as a frame of its own (harness.MemberFrame, the batch's Seq), a member response is
// linked to the request with its id, and SCHEMA-001 validates the array against that
// revision's JSONRPCMessage (whose anyOf holds JSONRPCBatchRequest and JSONRPCBatchResponse)
// and each member against its own type. At every other revision an array is what it always
// was: a frame that is no JSON object, which the framing rules judge.

// batchOf returns the members of frame hf of revision rev when rev has batches and hf's body is
// a batch; nil otherwise.
func batchOf(rev string, hf *harness.Frame) []*harness.Message {
	if !revisions.AllowsBatches(rev) || hf.Truncated {
		return nil
	}
	members, ok := harness.ParseBatch(hf.Body())
	if !ok {
		return nil
	}
	return members
}

// feedBatch is Feed for a batch frame hf of revision rev with its members: the whole array is
// validated and remembered (a client batch, for the replies over HTTP), then each member is
// linked, validated and observed as a frame of its own. j.mu must be held.
func (j *Judge) feedBatch(rs *revState, rev string, hf *harness.Frame, members []*harness.Message) {
	whole := &Frame{Frame: hf}
	whole.Msg, _, _ = harness.ParseMessageMembers(hf.Body()) // an invalid message: no object
	whole.NotJSON = true
	if !whole.FromServer() {
		whole.Excused = whole.Intentional
		rs.batches[hf.Seq] = true
		// The members link under their ids; the seq names the whole batch (a reply to the
		// batch POST that names none of its requests links to it).
		defer func() { rs.clients[hf.Seq] = whole }()
	}
	var arrayErrs []SchemaError
	if j.cfg.Schemas != nil {
		var err error
		arrayErrs, err = validateBatch(j.cfg.Schemas, rev, hf)
		if err != nil {
			j.notes = append(j.notes, fmt.Sprintf("frame %d not validated: %v", hf.Seq, err))
		}
	}
	for i, m := range members {
		method := m.Method
		mf := &Frame{Frame: harness.MemberFrame(hf, i, m, method)}
		msg, mem, err := harness.ParseMessageMembers(mf.Raw)
		mf.Msg, mf.Members, mf.NotJSON = msg, mem, err != nil
		rs.link(mf)
		if mf.FromServer() && mf.Request != nil && mf.Method == "" {
			mf.Method = mf.Request.Method
		}
		if i == 0 {
			mf.Schema = arrayErrs
		}
		j.validateFrame(rev, mf, "/"+strconv.Itoa(i))
		rs.observe(mf)
	}
}

// validateBatch validates the whole batch frame hf against the JSONRPCMessage of revision rev.
func validateBatch(set *schemas.Set, rev string, hf *harness.Frame) ([]SchemaError, error) {
	v, err := set.Validator(rev)
	if err != nil {
		return nil, err
	}
	typ, vs, err := v.Validate(hf.Body(), schemas.MessageInfo{FromServer: hf.Dir == harness.DirServerToClient})
	if err != nil {
		return nil, err
	}
	var out []SchemaError
	for _, x := range vs {
		out = append(out, SchemaError{Frame: hf.Seq, Type: typ, InstancePath: x.InstancePath, SchemaPath: x.SchemaPath, Message: x.Message, Members: x.Members})
	}
	return out, nil
}
