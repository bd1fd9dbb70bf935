package checks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func caps(t *testing.T, s string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}

func elicitFrame(seq int, params string) *harness.Frame {
	return serverFrame(seq, `{"jsonrpc":"2.0","id":`+itoa(seq)+`,"method":"elicitation/create","params":`+params+`}`)
}

func sampleFrame(seq int, params string) *harness.Frame {
	return serverFrame(seq, `{"jsonrpc":"2.0","id":`+itoa(seq)+`,"method":"sampling/createMessage","params":`+params+`}`)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const formParams = `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string","title":"Name"}}}}`
const urlParams = `{"mode":"url","message":"m","url":"https://example.com/connect/1","elicitationId":"1"}`

// TestUndeclaredModes: `elicitation: {}` is form only; `{url:{}}` url only; no elicitation
// declared is LEG-006's, not judged here.
func TestUndeclaredModes(t *testing.T) {
	frames := []*harness.Frame{elicitFrame(1, formParams), elicitFrame(2, urlParams)}
	n, m := UndeclaredModes(caps(t, `{"elicitation":{"form":{},"url":{}}}`), frames)
	assert.Equal(t, 2, n)
	assert.Nil(t, m)
	_, m = UndeclaredModes(caps(t, `{"elicitation":{}}`), frames)
	require.NotNil(t, m)
	assert.Equal(t, []int{2}, m.Frames)
	_, m = UndeclaredModes(caps(t, `{"elicitation":{"url":{}}}`), frames)
	require.NotNil(t, m)
	assert.Equal(t, []int{1}, m.Frames)
	n, m = UndeclaredModes(caps(t, `{}`), frames)
	assert.Zero(t, n)
	assert.Nil(t, m)
}

// TestSamplingToolsAndContext: INPUT-008 fails tools or toolChoice without sampling.tools;
// INPUT-009 warns on includeContext other than none without sampling.context.
func TestSamplingToolsAndContext(t *testing.T) {
	plain := sampleFrame(1, `{"maxTokens":5,"messages":[],"includeContext":"none"}`)
	tools := sampleFrame(2, `{"maxTokens":5,"messages":[],"tools":[{"name":"x","inputSchema":{"type":"object"}}]}`)
	choice := sampleFrame(3, `{"maxTokens":5,"messages":[],"toolChoice":{"mode":"auto"}}`)
	ctx := sampleFrame(4, `{"maxTokens":5,"messages":[],"includeContext":"thisServer"}`)
	n, m := SamplingTools(caps(t, `{"sampling":{}}`), []*harness.Frame{plain, ctx})
	assert.Equal(t, 2, n)
	assert.Nil(t, m)
	for _, f := range []*harness.Frame{tools, choice} {
		_, m = SamplingTools(caps(t, `{"sampling":{}}`), []*harness.Frame{plain, f})
		require.NotNil(t, m)
		assert.Equal(t, []int{f.Seq}, m.Frames)
	}
	_, m = SamplingTools(caps(t, `{"sampling":{"tools":{}}}`), []*harness.Frame{tools, choice})
	assert.Nil(t, m)

	_, m = IncludeContext(caps(t, `{"sampling":{}}`), []*harness.Frame{plain})
	assert.Nil(t, m)
	_, m = IncludeContext(caps(t, `{"sampling":{}}`), []*harness.Frame{ctx})
	require.NotNil(t, m)
	assert.Equal(t, reports.Warn, m.Grade)
	_, m = IncludeContext(caps(t, `{"sampling":{"context":{}}}`), []*harness.Frame{ctx})
	assert.Nil(t, m)
}

// TestToolLoopBalance: a tool use answered by matching tool results alone passes; a mixed
// message, a missing result or an assistant reply in between fails; a tool use in the last
// message is the client model's to answer.
func TestToolLoopBalance(t *testing.T) {
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"w","input":{}},{"type":"tool_use","id":"u2","name":"w","input":{}}]}`
	q := `{"role":"user","content":{"type":"text","text":"q"}}`
	params := func(msgs ...string) string {
		s := `{"maxTokens":5,"messages":[`
		for i, m := range msgs {
			if i > 0 {
				s += ","
			}
			s += m
		}
		return s + `]}`
	}
	res := func(blocks string) string { return `{"role":"user","content":[` + blocks + `]}` }
	r1 := `{"type":"tool_result","toolUseId":"u1","content":[]}`
	r2 := `{"type":"tool_result","toolUseId":"u2","content":[]}`
	n, m := ToolLoopBalance([]*harness.Frame{sampleFrame(1, params(q, use, res(r1+","+r2)))})
	assert.Equal(t, 1, n)
	assert.Nil(t, m)
	n, m = ToolLoopBalance([]*harness.Frame{sampleFrame(1, params(q, use))})
	assert.Equal(t, 1, n)
	assert.Nil(t, m)
	for name, msgs := range map[string][]string{
		"mixed":    {q, use, res(r1 + "," + r2 + `,{"type":"text","text":"x"}`)},
		"missing":  {q, use, res(r1)},
		"not next": {q, use, `{"role":"assistant","content":{"type":"text","text":"x"}}`, res(r1 + "," + r2)},
	} {
		_, m = ToolLoopBalance([]*harness.Frame{sampleFrame(1, params(msgs...))})
		assert.NotNil(t, m, name)
	}
	n, _ = ToolLoopBalance([]*harness.Frame{sampleFrame(1, params(q))})
	assert.Zero(t, n)
}

// TestInvalidContentHandled: an isError result, an error or a second elicitation pass; a
// successful result warns; no elicitation is untestable.
func TestInvalidContentHandled(t *testing.T) {
	call := &harness.Frame{Seq: 1, Dir: harness.DirClientToServer}
	ex := func(resp string, more ...*harness.Frame) *harness.Exchange {
		frames := append([]*harness.Frame{call}, more...)
		r := serverFrame(9, resp)
		return &harness.Exchange{Sent: call, Frames: append(frames, r), Response: r}
	}
	el := elicitFrame(2, formParams)
	na, m := InvalidContentHandled(ex(`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`, el))
	assert.Empty(t, na)
	assert.Nil(t, m)
	_, m = InvalidContentHandled(ex(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, el))
	assert.Nil(t, m)
	_, m = InvalidContentHandled(ex(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, el, elicitFrame(3, formParams)))
	assert.Nil(t, m, "asked again")
	_, m = InvalidContentHandled(ex(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, el))
	require.NotNil(t, m)
	assert.Equal(t, reports.Warn, m.Grade)
	na, _ = InvalidContentHandled(ex(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
	assert.NotEmpty(t, na)
}

// TestSecretField: INPUT-004's heuristic flags secrets by name, title or description and lets
// contact details through.
func TestSecretField(t *testing.T) {
	for _, ok := range []string{
		`{"properties":{"name":{"type":"string"},"email":{"type":"string","format":"email","description":"Your email address"},"username":{"type":"string"}}}`,
		`{"properties":{"tokenizer":{"type":"string","description":"Which tokenizer to use"}}}`,
	} {
		assert.Empty(t, SecretField(json.RawMessage(ok)), ok)
	}
	for schema, want := range map[string]string{
		`{"properties":{"password":{"type":"string"}}}`:                                        "password",
		`{"properties":{"key":{"type":"string","title":"API key"}}}`:                           "API key",
		`{"properties":{"k":{"type":"string","description":"Your OpenAI api_key"}}}`:           "api_key",
		`{"properties":{"t":{"type":"string","description":"A personal access token"}}}`:       "access token",
		`{"properties":{"cc":{"type":"string","title":"Credit card number"}}}`:                 "Credit card",
		`{"properties":{"cvv":{"type":"string"}}}`:                                             "cvv",
		`{"properties":{"s":{"type":"string","description":"The client secret of your app"}}}`: "secret",
		`{"properties":{"auth_token":{"type":"string"}}}`:                                      "_token",
	} {
		assert.Contains(t, SecretField(json.RawMessage(schema)), want, schema)
	}
}

// TestFormText: INPUT-004 over form elicitations only (a URL-mode one is not judged), and
// INPUT-007's URL heuristic in the message or the schema, graded warn.
func TestFormText(t *testing.T) {
	n, m := FormText([]*harness.Frame{elicitFrame(1, formParams), elicitFrame(2, urlParams)}, true)
	assert.Equal(t, 1, n)
	assert.Nil(t, m)
	_, m = FormText([]*harness.Frame{elicitFrame(1, `{"message":"m","requestedSchema":{"type":"object","properties":{"password":{"type":"string"}}}}`)}, true)
	require.NotNil(t, m)
	_, m = FormText([]*harness.Frame{elicitFrame(1, formParams), elicitFrame(2, urlParams)}, false)
	assert.Nil(t, m, "the url of a URL-mode elicitation is not form text")
	for _, p := range []string{
		`{"message":"See https://example.com/help","requestedSchema":{"type":"object","properties":{}}}`,
		`{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string","description":"see http://x.example/doc"}}}}`,
	} {
		_, m = FormText([]*harness.Frame{elicitFrame(1, p)}, false)
		require.NotNil(t, m, p)
		assert.Equal(t, reports.Warn, m.Grade)
	}
}

// TestURLProblem: INPUT-005 flags user info, credential-like or personal query parameters and
// email addresses; INPUT-006 flags http except on loopback.
func TestURLProblem(t *testing.T) {
	for _, ok := range []string{"https://example.com/connect/abc", "https://example.com/oauth/start?elicitation=1&state=xyz", "https://pay.example.com/checkout/42"} {
		assert.Empty(t, URLProblem(ok, false), ok)
		assert.Empty(t, URLProblem(ok, true), ok)
	}
	for u, want := range map[string]string{
		"https://user:pw@example.com/x":                 "user information",
		"https://example.com/x?access_token=abc":        "access_token",
		"https://example.com/x?token=abc":               "token",
		"https://example.com/x?auth_token=abc":          "auth_token",
		"https://example.com/x?code=123":                "code",
		"https://example.com/x?session=s1":              "session",
		"https://example.com/x?email=a%40b.example":     "email",
		"https://example.com/users/someone@example.com": "email address",
	} {
		assert.Contains(t, URLProblem(u, false), want, u)
	}
	assert.Contains(t, URLProblem("http://example.com/x", true), "http URL on example.com")
	for _, dev := range []string{"http://localhost:8080/x", "http://127.0.0.1/x", "http://[::1]:3000/x"} {
		assert.Empty(t, URLProblem(dev, true), dev)
	}
	n, m := URLElicitations([]*harness.Frame{elicitFrame(1, formParams), elicitFrame(2, urlParams)}, true)
	assert.Equal(t, 1, n)
	assert.Nil(t, m)
	_, m = URLElicitations([]*harness.Frame{elicitFrame(1, `{"mode":"url","message":"m","url":"http://example.com/x","elicitationId":"1"}`)}, true)
	require.NotNil(t, m)
	assert.Equal(t, reports.Warn, m.Grade)
	_, m = URLElicitations([]*harness.Frame{elicitFrame(1, `{"mode":"url","message":"m","url":"https://example.com/x?password=p","elicitationId":"1"}`)}, false)
	require.NotNil(t, m)
	assert.Empty(t, m.Grade)
}
