package client

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeclaredAnswer: a client answers only what it declared, elicitations only in a declared
// mode, with the chosen action; number content is made integral for the 2025-11-25 schema;
// accepted content honours each field's format and bounds.
func TestDeclaredAnswer(t *testing.T) {
	caps := func(s string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		return m
	}
	form := json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"score":{"type":"number","default":95.5},"n":{"type":"string"}}}}`)
	url := json.RawMessage(`{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}`)

	none := DeclaredAnswer(caps(`{}`), ElicitAccept)
	for _, m := range []string{"sampling/createMessage", "elicitation/create", "roots/list"} {
		_, e := none(m, form)
		require.NotNil(t, e, m)
		assert.Equal(t, -32601, e.Code)
	}
	res, e := none("ping", nil)
	assert.Nil(t, e)
	assert.JSONEq(t, `{}`, string(res))

	formOnly := DeclaredAnswer(caps(`{"elicitation":{}}`), ElicitAccept)
	res, e = formOnly("elicitation/create", form)
	require.Nil(t, e)
	assert.JSONEq(t, `{"action":"accept","content":{"n":"mcp-conform","score":95}}`, string(res))
	_, e = formOnly("elicitation/create", url)
	require.NotNil(t, e)
	_, e = DeclaredAnswer(caps(`{"elicitation":{"url":{}}}`), ElicitAccept)("elicitation/create", form)
	require.NotNil(t, e, "url only: no form")

	res, _ = DeclaredAnswer(caps(`{"elicitation":{"form":{}}}`), ElicitDecline)("elicitation/create", form)
	assert.JSONEq(t, `{"action":"decline"}`, string(res))
	res, _ = DeclaredAnswer(caps(`{"elicitation":{}}`), ElicitInvalid)("elicitation/create", form)
	assert.JSONEq(t, `{"action":"accept","content":{"n":12345,"score":"not a number"}}`, string(res))
	withFormat := json.RawMessage(`{"message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":2},"email":{"type":"string","format":"email"},"age":{"type":"integer","minimum":18.5,"maximum":120}},"required":["name","email"]}}`)
	res, e = formOnly("elicitation/create", withFormat)
	require.Nil(t, e)
	assert.JSONEq(t, `{"action":"accept","content":{"name":"mcp-conform","email":"mcp-conform@example.com","age":19}}`, string(res), "a format-valid email, an integer within the bounds")
	res, e = DeclaredAnswer(caps(`{"sampling":{}}`), ElicitAccept)("sampling/createMessage", nil)
	require.Nil(t, e)
	assert.Contains(t, string(res), "mcp-conform sampled reply")
}
