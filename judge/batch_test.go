package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// batchRules are the rules a batch touches: the schema, the envelope, the ids, the stdout
// framing.
var batchRules = []string{"SCHEMA-001", "MSG-001", "MSG-013", "STDIO-002"}

const (
	batchOfPings = `>[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}]`
	pong1        = `{"jsonrpc":"2.0","id":1,"result":{}}`
	pongB        = `{"jsonrpc":"2.0","id":"b","result":{}}`
)

// judgeBatch feeds frames at rev to a judge with the schemas and batchRules, and returns it.
func judgeBatch(t *testing.T, rev string, frames []*harness.Frame) *Judge {
	t.Helper()
	j := New(Config{Schemas: testutil.Schemas(t), Rules: batchRules})
	for _, f := range frames {
		j.Feed(rev, f)
	}
	j.Finish()
	return j
}

func outcome(t *testing.T, j *Judge, rev, rule string) Outcome {
	t.Helper()
	o, ok := j.Outcome(rev, rule)
	require.True(t, ok, rule)
	return o
}

// TestBatchesAtTheirRevision: at the revision with batches a client batch and the server's
// answers, one array or one message per line, are valid messages: each member is judged as a
// message (two responses judged by SCHEMA-001, their ids matched to the batch's requests),
// and the client's batch is no suite fault.
func TestBatchesAtTheirRevision(t *testing.T) {
	rev := revisions.BatchRevisions()[0]
	for name, replies := range map[string][]string{
		"one array":     {"<[" + pong1 + "," + pongB + "]"},
		"one by one":    {"<" + pongB, "<" + pong1},
		"lone in array": {"<[" + pong1 + "]", "<" + pongB},
	} {
		j := judgeBatch(t, rev, stdioFrames(append([]string{batchOfPings}, replies...)...))
		for _, rule := range batchRules {
			assert.Nil(t, outcome(t, j, rev, rule).Mismatch, "%s: %s", name, rule)
		}
		assert.Equal(t, 2, outcome(t, j, rev, "SCHEMA-001").Judged, name)
		assert.Equal(t, 2, outcome(t, j, rev, "MSG-001").Judged, name)
		_, fault := j.SuiteFault(1)
		assert.False(t, fault, "%s: a batch of requests is a JSONRPCMessage of %s", name, rev)
	}
}

// TestBatchMembersAreJudgedStrictly: a member that is no valid message fails MSG-001, a batch
// mixing a response and a request is no JSONRPCMessage (SCHEMA-001), a response id the batch
// never sent fails MSG-013, and an empty array is no batch: a stdout line that is no message.
func TestBatchMembersAreJudgedStrictly(t *testing.T) {
	rev := revisions.BatchRevisions()[0]
	j := judgeBatch(t, rev, stdioFrames(batchOfPings, `<[`+pong1+`,{"jsonrpc":"1.0","id":"b","result":{}}]`))
	m := outcome(t, j, rev, "MSG-001").Mismatch
	require.NotNil(t, m)
	assert.Equal(t, []int{2}, m.Frames)

	j = judgeBatch(t, rev, stdioFrames(batchOfPings, `<[`+pong1+`,{"jsonrpc":"2.0","id":9,"method":"ping"}]`, "<"+pongB))
	m = outcome(t, j, rev, "SCHEMA-001").Mismatch
	require.NotNil(t, m, "a batch response holds responses only")
	assert.Equal(t, []int{2}, m.Frames)

	j = judgeBatch(t, rev, stdioFrames(batchOfPings, `<[`+pong1+`,`+pongB+`,{"jsonrpc":"2.0","id":77,"result":{}}]`))
	assert.NotNil(t, outcome(t, j, rev, "MSG-013").Mismatch, "id 77 was never sent")

	empty := stdioFrames(batchOfPings, `<[]`)
	empty[1].Problem = "not a JSON-RPC message: not a JSON object: json: cannot unmarshal array"
	j = judgeBatch(t, rev, empty)
	assert.NotNil(t, outcome(t, j, rev, "STDIO-002").Mismatch, "an empty array is an Invalid Request, no message")
	assert.Zero(t, outcome(t, j, rev, "SCHEMA-001").Judged)
}

// TestBatchesElsewhereUnchanged: at a revision without batches an array stays a frame that is
// no JSON object: its members are not judged as messages, the schema does not validate it,
// and the stdout rule tolerates it only as the answer to a batch probe (PROBE-003).
func TestBatchesElsewhereUnchanged(t *testing.T) {
	rev := revisions.Legacy()[1].ID // the revision after the one with batches
	require.False(t, revisions.AllowsBatches(rev))
	frames := stdioFrames(batchOfPings, `<[`+pong1+`,{"jsonrpc":"1.0","id":"b","result":{}}]`)
	frames[0].Intentional = true
	frames[1].Problem = "not a JSON-RPC message: not a JSON object"
	j := judgeBatch(t, rev, frames)
	assert.Nil(t, outcome(t, j, rev, "MSG-001").Mismatch, "the invalid member is not judged as a message")
	assert.Zero(t, outcome(t, j, rev, "SCHEMA-001").Judged)
	o := outcome(t, j, rev, "STDIO-002")
	assert.Nil(t, o.Mismatch)
	assert.Equal(t, 1, o.Judged)
}
