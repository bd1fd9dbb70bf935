package client

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// scriptConn is a Conn whose server is a Go function from each request (decoded) to its
// result; it records what was sent.
type scriptConn struct {
	serve func(req map[string]any) any
	sent  []map[string]any
	seq   int
}

func (c *scriptConn) Name() string                 { return harness.TransportStdio }
func (c *scriptConn) Conn() int                    { return 1 }
func (c *scriptConn) Close() error                 { return nil }
func (c *scriptConn) Frames() []*harness.Frame     { return nil }
func (c *scriptConn) Shared() bool                 { return false }
func (c *scriptConn) SetShared()                   {}
func (c *scriptConn) Process() (Process, bool)     { return nil, false }
func (c *scriptConn) Endpoint() (Endpoint, bool)   { return nil, false }
func (c *scriptConn) SSEStream() (SSEStream, bool) { return nil, false }
func (c *scriptConn) SetAnswerer(Answerer)         {}
func (c *scriptConn) SetRevision(string)           {}
func (c *scriptConn) Send(_ context.Context, req harness.Request) (*harness.Exchange, error) {
	var m map[string]any
	if err := json.Unmarshal(req.Raw, &m); err != nil {
		return nil, err
	}
	c.sent = append(c.sent, m)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": c.serve(m)})
	if err != nil {
		return nil, err
	}
	c.seq += 2
	resp := &harness.Frame{Seq: c.seq, Conn: 1, Dir: harness.DirServerToClient, Raw: body}
	return &harness.Exchange{Sent: &harness.Frame{Seq: c.seq - 1, Conn: 1, Dir: harness.DirClientToServer, Raw: req.Raw},
		Response: resp, Frames: []*harness.Frame{resp}}, nil
}

// scriptEnv is the run as a client test sees it: ids and a recorder, no server to dial.
type scriptEnv struct {
	ids harness.IDs
	rec *harness.Recorder
}

func (e *scriptEnv) IDs() *harness.IDs                          { return &e.ids }
func (e *scriptEnv) Recorder() *harness.Recorder                { return e.rec }
func (e *scriptEnv) SetRev(int, string)                         {}
func (e *scriptEnv) ConnRev(int) string                         { return revisions.Modern().ID }
func (e *scriptEnv) Conns() []Conn                              { return nil }
func (e *scriptEnv) Startup() time.Duration                     { return 0 }
func (e *scriptEnv) ReplyRequest(*harness.Frame) *harness.Frame { return nil }
func (e *scriptEnv) Dial(context.Context, string) (Conn, error) { return nil, errors.New("no dialing") }
func (e *scriptEnv) Shared(context.Context) (Conn, error)       { return nil, errors.New("no shared") }

func scriptSession(serve func(map[string]any) any) (*Session, *scriptConn) {
	c := &scriptConn{serve: serve}
	s := NewSession(&scriptEnv{rec: harness.NewRecorder(time.Now())},
		Target{Revision: revisions.Modern().ID, Modern: true},
		Options{Transport: harness.TransportStdio, Timeout: time.Second, StartupTimeout: time.Second})
	s.Conn = c
	return s, c
}

// targetSession is a session on a target of revision rev over transport, with no connection
// and test_echo mapped to echo: what a step test's clientWorld holds, without the World.
func targetSession(transport, rev string) *Session {
	return NewSession(&scriptEnv{rec: harness.NewRecorder(time.Now())},
		Target{Revision: rev, Modern: revisions.IsModern(rev)},
		Options{Transport: transport, FixtureMap: map[string]string{"test_echo": "echo"}})
}

// TestCompleteRetriesInputRequired: an InputRequiredResult is answered by retrying the call with
// a new id, inputResponses keyed as the server's inputRequests (each answered by the policy)
// and requestState echoed byte for byte, round after round, until a complete result; the
// retries keep the call's own params.
func TestCompleteRetriesInputRequired(t *testing.T) {
	round := 0
	s, c := scriptSession(func(req map[string]any) any {
		round++
		switch round {
		case 1:
			return map[string]any{"resultType": "input_required", "requestState": "opaque-1",
				"inputRequests": map[string]any{
					"who":   map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer", "minimum": 3}}}}},
					"roots": map[string]any{"method": "roots/list"},
				}}
		case 2:
			return map[string]any{"resultType": "input_required", "requestState": "opaque-2"}
		}
		return map[string]any{"resultType": "complete", "content": []any{}}
	})
	n, err := s.Complete(context.Background(), Call{Method: "tools/call", Params: map[string]any{"name": "t"}}, DefaultAnswer, 5)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	require.Len(t, c.sent, 3)
	ids := map[any]bool{}
	for _, m := range c.sent {
		ids[m["id"]] = true
		assert.Equal(t, "t", m["params"].(map[string]any)["name"])
	}
	assert.Len(t, ids, 3, "every retry has a new id")
	_, has := c.sent[0]["params"].(map[string]any)["inputResponses"]
	assert.False(t, has)
	p1 := c.sent[1]["params"].(map[string]any)
	assert.Equal(t, "opaque-1", p1["requestState"])
	responses := p1["inputResponses"].(map[string]any)
	assert.Equal(t, map[string]any{"action": "accept", "content": map[string]any{"name": "mcp-conform", "n": float64(3)}}, responses["who"])
	assert.Equal(t, Root, responses["roots"].(map[string]any)["roots"].([]any)[0].(map[string]any)["uri"])
	p2 := c.sent[2]["params"].(map[string]any)
	assert.Equal(t, "opaque-2", p2["requestState"])
	assert.Empty(t, p2["inputResponses"])
	ir, ok, err := s.LastInputRequired()
	require.NoError(t, err)
	assert.False(t, ok, "the last answer is complete: %+v", ir)
}

// TestCompleteStopsAfterRounds: a server that keeps asking is retried rounds times, no more;
// a malformed InputRequiredResult is an error, not a guess.
func TestCompleteStopsAfterRounds(t *testing.T) {
	s, c := scriptSession(func(map[string]any) any {
		return map[string]any{"resultType": "input_required", "requestState": "again"}
	})
	n, err := s.Complete(context.Background(), Call{Method: "prompts/get", Params: map[string]any{"name": "p"}}, DefaultAnswer, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Len(t, c.sent, 3)

	s, _ = scriptSession(func(map[string]any) any {
		return map[string]any{"resultType": "input_required", "requestState": 7}
	})
	_, err = s.Complete(context.Background(), Call{Method: "prompts/get"}, DefaultAnswer, 2)
	require.ErrorContains(t, err, "requestState is not a string")
}

// TestDefaultAnswer: the cooperative client's answers are valid results of each method; a
// method it does not know is refused with -32601; url-mode elicitation is accepted without
// content; a form field takes its default, its first enum value or a typed placeholder.
func TestDefaultAnswer(t *testing.T) {
	res, refused := DefaultAnswer("ping", nil)
	require.Nil(t, refused)
	assert.JSONEq(t, `{}`, string(res))
	res, refused = DefaultAnswer("elicitation/create", json.RawMessage(`{"mode":"url","url":"https://example.com","elicitationId":"e","message":"go"}`))
	require.Nil(t, refused)
	assert.JSONEq(t, `{"action":"accept"}`, string(res))
	res, refused = DefaultAnswer("elicitation/create", json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{
		"color":{"type":"string","enum":["red","blue"]},"ok":{"type":"boolean"},"size":{"type":"number","default":2.5},
		"tags":{"type":"array","items":{"enum":["a","b"]}}}}}`))
	require.Nil(t, refused)
	assert.JSONEq(t, `{"action":"accept","content":{"color":"red","ok":true,"size":2.5,"tags":["a"]}}`, string(res))
	res, refused = DefaultAnswer("sampling/createMessage", json.RawMessage(`{"messages":[],"maxTokens":5}`))
	require.Nil(t, refused)
	assert.Contains(t, string(res), `"role":"assistant"`)
	_, refused = DefaultAnswer("tasks/get", nil)
	require.NotNil(t, refused)
	assert.Equal(t, -32601, refused.Code)
}

// TestDefaultAnswersValidate: each default answer is a valid result of its method under the
// official schema of every revision that has the method.
func TestDefaultAnswersValidate(t *testing.T) {
	cases := []struct{ method, typ, params string }{
		{"roots/list", "ListRootsResult", `{}`},
		{"sampling/createMessage", "CreateMessageResult", `{"messages":[],"maxTokens":5}`},
		{"elicitation/create", "ElicitResult", `{"message":"m","requestedSchema":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","minimum":1}}}}`},
	}
	for _, rev := range []string{revisions.Modern().ID, revisions.LatestLegacy().ID} {
		v, err := testutil.Schemas(t).Validator(rev)
		require.NoError(t, err)
		for _, c := range cases {
			res, refused := DefaultAnswer(c.method, json.RawMessage(c.params))
			require.Nil(t, refused)
			vs, err := v.ValidateAs(res, c.typ, "")
			require.NoError(t, err, "%s %s", rev, c.typ)
			assert.Empty(t, vs, "%s %s: %s", rev, c.typ, res)
		}
	}
}

// TestRespondEchoesTheIDAndItsType: the answer to a server request carries the request's id
// as sent (a string stays a string, a number a number) and a result, or PingOnly's -32601
// for a request the client declared no capability for.
func TestRespondEchoesTheIDAndItsType(t *testing.T) {
	answer := Respond(PingOnly)
	for _, c := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","id":"7","method":"ping"}`, `{"jsonrpc":"2.0","id":"7","result":{}}`},
		{`{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{`{"jsonrpc":"2.0","id":8,"method":"roots/list"}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"Method not found: roots/list"}}`},
	} {
		msg, err := harness.ParseMessage([]byte(c.req))
		require.NoError(t, err)
		assert.JSONEq(t, c.want, string(answer(msg)), c.req)
	}
}
