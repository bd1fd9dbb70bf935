package judge

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestServerRequestIDs: LEG-009 passes on string and integer ids unique per connection (the
// same id on two connections is fine), fails on a null, a fractional id and a reused one, and
// judges nothing without server requests.
func TestServerRequestIDs(t *testing.T) {
	req := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"roots/list"}`
	}
	good := msgFrames(req(`1`), req(`"a"`), `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	other := msgFrames(req(`1`))
	other[0].Conn, other[0].Seq = 2, 9
	o := judgeRule(t, "LEG-009", append(good, other...))
	assert.Nil(t, o.Mismatch)
	assert.Equal(t, 3, o.Judged)
	for name, frames := range map[string][]string{
		"null": {req(`null`)}, "fraction": {req(`1.5`)}, "reused": {req(`1`), req(`2`), req(`1`)}, "reused string": {req(`"x"`), req(`"x"`)},
	} {
		o := judgeRule(t, "LEG-009", msgFrames(frames...))
		require.NotNil(t, o.Mismatch, name)
	}
	assert.Zero(t, judgeRule(t, "LEG-009", msgFrames(`{"jsonrpc":"2.0","id":1,"result":{}}`)).Judged)
}

// TestElicitationShape: INPUT-002 accepts form and url elicitations with what their mode
// needs and names what is missing.
func TestElicitationShape(t *testing.T) {
	for params, want := range map[string]string{
		`{"message":"m","requestedSchema":{"type":"object","properties":{}}}`:               "",
		`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}`: "",
		`{"mode":"url","message":"m","url":"https://example.com/x","elicitationId":"e"}`:    "",
		`{"requestedSchema":{"type":"object","properties":{}}}`:                             "no string message",
		`{"message":"m"}`: "without an object requestedSchema",
		`{"mode":"url","message":"m","url":"not a url","elicitationId":"e"}`: "absolute url",
		`{"mode":"telepathy","message":"m"}`:                                 "unknown mode",
	} {
		got := ElicitationShape(json.RawMessage(params))
		if want == "" {
			assert.Empty(t, got, params)
		} else {
			assert.Contains(t, got, want, params)
		}
	}
	frames := msgFrames(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`)
	assert.Nil(t, judgeRule(t, "INPUT-002", frames).Mismatch)
	frames = msgFrames(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"requestedSchema":{"type":"object","properties":{}}}}`)
	assert.NotNil(t, judgeRule(t, "INPUT-002", frames).Mismatch)
}

// TestRequestedSchemaProblem: INPUT-003 accepts every primitive of the spec (the SEP-1034
// defaults and SEP-1330 enums included) and refuses nesting, arrays of free items and
// unknown string formats; url elicitations are not its subject.
func TestRequestedSchemaProblem(t *testing.T) {
	ok := `{"requestedSchema":{"type":"object","properties":{
		"a":{"type":"string","format":"email"},"b":{"type":"integer","default":3},"c":{"type":"number"},"d":{"type":"boolean"},
		"e":{"type":"string","oneOf":[{"const":"x","title":"X"}]},"f":{"type":"array","items":{"type":"string","enum":["p","q"]}},
		"g":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}}}}`
	assert.Empty(t, RequestedSchemaProblem(json.RawMessage(ok)))
	assert.Empty(t, RequestedSchemaProblem(json.RawMessage(`{"mode":"url","url":"https://x"}`)))
	for params, want := range map[string]string{
		`{"requestedSchema":{"type":"object","properties":{"a":{"type":"object","properties":{}}}}}`:          `"a" is of type "object"`,
		`{"requestedSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}}`: "not a multi-select",
		`{"requestedSchema":{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}}`:          `"ipv4"`,
		`{"requestedSchema":{"type":"array"}}`:                                                                `not of type "object"`,
	} {
		assert.Contains(t, RequestedSchemaProblem(json.RawMessage(params)), want, params)
	}
}

// TestSamplingMessagesProblem: INPUT-013 accepts user and assistant messages with one block
// or an array of blocks, and names another role or an untyped block.
func TestSamplingMessagesProblem(t *testing.T) {
	assert.Empty(t, SamplingMessagesProblem(json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}},
		{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"x","input":{}}]}],"maxTokens":5}`)))
	assert.Contains(t, SamplingMessagesProblem(json.RawMessage(`{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`)), `role "system"`)
	assert.Contains(t, SamplingMessagesProblem(json.RawMessage(`{"messages":[{"role":"user","content":{"text":"x"}}]}`)), "without a type")
	assert.Contains(t, SamplingMessagesProblem(json.RawMessage(`{"messages":[{"role":"user","content":[{"text":"x"}]}]}`)), "without a type")
}

// TestRequestIDProblem: strings and integers are ids; null, fractions, objects are not.
func TestRequestIDProblem(t *testing.T) {
	for _, ok := range []string{`1`, `"x"`, `-3`, `""`} {
		assert.Empty(t, RequestIDProblem(json.RawMessage(ok)), ok)
	}
	for _, bad := range []string{`null`, `1.0`, `1e3`, `{}`, `true`} {
		assert.NotEmpty(t, RequestIDProblem(json.RawMessage(bad)), bad)
	}
}

// TestInputClaims: a violation of a server request goes to LEG-010 unless a client page's
// rule owns its shape, and the URL-branch echo of a broken requested schema is INPUT-003's.
func TestInputClaims(t *testing.T) {
	cases := []struct {
		e    SchemaError
		want string
	}{
		{SchemaError{Type: "CreateMessageRequest", InstancePath: "/params", SchemaPath: "/$defs/CreateMessageRequestParams/required", Members: []string{"maxTokens"}}, "LEG-010"},
		{SchemaError{Type: "CreateMessageRequest", InstancePath: "/params/messages/0/role", SchemaPath: "/$defs/Role/enum"}, "INPUT-013"},
		{SchemaError{Type: "ElicitRequest", InstancePath: "/params", SchemaPath: "/$defs/ElicitRequestFormParams/required", Members: []string{"message"}}, "INPUT-002"},
		{SchemaError{Type: "ElicitRequest", InstancePath: "/params/requestedSchema/properties/email/type", SchemaPath: "/$defs/NumberSchema/properties/type/enum"}, "INPUT-003"},
		{SchemaError{Type: "ElicitRequest", InstancePath: "/params", SchemaPath: "/$defs/ElicitRequestURLParams/required", Members: []string{"url"}}, "INPUT-003"},
		{SchemaError{Type: "ListRootsRequest", InstancePath: "/method", SchemaPath: "/$defs/ListRootsRequest/properties/method/const"}, "LEG-010"},
	}
	for _, c := range cases {
		assert.Equal(t, []string{c.want}, Claimants(c.e), "%+v", c.e)
	}
	assert.Contains(t, claimedBy(cases[4].e), "INPUT-002", "a broken INPUT-002 takes the URL-branch echo from SCHEMA-001 too")
}

// The server-to-client request rules' passing and failing conversations (TestEveryRuleHasCases).
func init() {
	elicit := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":` + params + `}`
	}
	form := `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string"}}}}`
	sample := func(role string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"` + role + `","content":{"type":"text","text":"x"}}]}}`
	}
	tableCases = append(tableCases,
		tableCase{"LEG-009", func(c *conv) { c.srv(elicit(form), "elicitation/create"); c.srv(sample("user"), "") },
			func(c *conv) { c.srv(elicit(form), "elicitation/create"); c.srv(elicit(form), "elicitation/create") }},
		tableCase{"LEG-011", func(c *conv) {
			c.srv(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`, "")
			c.srv(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"p1"}}`, "")
		}, func(c *conv) {
			c.cli(`{"jsonrpc":"2.0","id":"p1","method":"tools/call","params":{"name":"t"}}`)
			c.srv(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"p1"}}`, "")
		}},
		tableCase{"INPUT-002", func(c *conv) { c.srv(elicit(form), "") }, func(c *conv) { c.srv(elicit(`{"requestedSchema":{"type":"object","properties":{}}}`), "") }},
		tableCase{"INPUT-003", func(c *conv) { c.srv(elicit(form), "") },
			func(c *conv) {
				c.srv(elicit(`{"message":"m","requestedSchema":{"type":"object","properties":{"o":{"type":"object"}}}}`), "")
			}},
		tableCase{"INPUT-013", func(c *conv) { c.srv(sample("assistant"), "") }, func(c *conv) { c.srv(sample("system"), "") }},
	)
}

// TestRequestSchema: LEG-010 fails a server request that breaks the schema where no client
// page's rule owns the shape (a missing maxTokens), and leaves a wrong message role to
// INPUT-013.
func TestRequestSchema(t *testing.T) {
	set := testutil.Schemas(t)
	run := func(raw string) Outcome {
		f := &harness.Frame{Seq: 1, Conn: 1, Dir: harness.DirServerToClient, Transport: harness.TransportStdio, Raw: []byte(raw), Method: "sampling/createMessage"}
		j := New(Config{Schemas: set, Rules: []string{"LEG-010", "INPUT-013"}})
		j.Feed(revisions.LatestLegacy().ID, f)
		j.Finish()
		o, ok := j.Outcome(revisions.LatestLegacy().ID, "LEG-010")
		require.True(t, ok)
		return o
	}
	ok := `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}}`
	o := run(ok)
	assert.Nil(t, o.Mismatch)
	assert.Equal(t, 1, o.Judged)
	o = run(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}]}}`)
	require.NotNil(t, o.Mismatch)
	assert.Contains(t, o.Mismatch.Actual, "maxTokens")
	o = run(`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}}`)
	assert.Nil(t, o.Mismatch, "the role is INPUT-013's")
}
