package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validAgainst compiles field (a JSON Schema, formats asserted) and reports whether v
// satisfies it, with the violation.
func validAgainst(t *testing.T, field string, v any) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(field)))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	require.NoError(t, c.AddResource("field.json", doc))
	s, err := c.Compile("field.json")
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(v)))
	require.NoError(t, err)
	return s.Validate(inst)
}

// TestSampleValueSatisfiesTheField: every field schema the 2025-11-25 elicitation allows gets
// a value its schema (formats asserted) accepts: each string format, with and without length
// bounds that force padding or the short form; bounded numbers and integers (an integer
// inside non-integer bounds; a negative maximum); single- and multi-select enums with their
// item bounds; and a default wins.
func TestSampleValueSatisfiesTheField(t *testing.T) {
	fields := []string{
		`{"type":"string"}`,
		`{"type":"string","minLength":30}`,
		`{"type":"string","maxLength":4}`,
		`{"type":"string","minLength":2,"maxLength":3}`,
		`{"type":"string","format":"email"}`,
		`{"type":"string","format":"email","minLength":40}`,
		`{"type":"string","format":"email","maxLength":10}`,
		`{"type":"string","format":"uri"}`,
		`{"type":"string","format":"uri","minLength":50}`,
		`{"type":"string","format":"uri","maxLength":5}`,
		`{"type":"string","format":"date"}`,
		`{"type":"string","format":"date-time"}`,
		`{"type":"string","format":"date","minLength":8,"maxLength":10}`,
		`{"type":"integer"}`,
		`{"type":"integer","minimum":18,"maximum":120}`,
		`{"type":"integer","minimum":2.5,"maximum":9}`,
		`{"type":"number","maximum":-5}`,
		`{"type":"number","minimum":0.25,"maximum":0.75}`,
		`{"type":"number","minimum":-3}`,
		`{"type":"boolean"}`,
		`{"type":"string","enum":["red","blue"]}`,
		`{"type":"string","enum":["red","blue"],"enumNames":["Red","Blue"]}`,
		`{"type":"string","oneOf":[{"const":"#f00","title":"Red"},{"const":"#00f","title":"Blue"}]}`,
		`{"type":"array","items":{"type":"string","enum":["a","b","c"]}}`,
		`{"type":"array","minItems":2,"items":{"type":"string","enum":["a","b","c"]}}`,
		`{"type":"array","minItems":2,"maxItems":2,"items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"},{"const":"c","title":"C"}]}}`,
		`{"type":"array","maxItems":0,"items":{"type":"string","enum":["a"]}}`,
		`{"type":"string","format":"email","default":"me@example.org"}`,
	}
	for _, f := range fields {
		v := SampleValue(json.RawMessage(f))
		assert.NoError(t, validAgainst(t, f, v), "%s got %s", f, mustJSON(v))
	}
	assert.NoError(t, validAgainst(t, `{"type":"string","format":"email"}`, "x"+"@example.com"))
	assert.Error(t, validAgainst(t, `{"type":"string","format":"email"}`, "mcp-conform"), "the validator asserts formats")
}

// TestSampleValueChoices pins the values chosen: the usual form of each format, the short form
// under a tight maxLength, padding to minLength, an integer within the bounds (minimum
// itself when none lies within), and minItems choices of a multi-select.
func TestSampleValueChoices(t *testing.T) {
	cases := []struct{ field, want string }{
		{`{"type":"string"}`, `"mcp-conform"`},
		{`{"type":"string","maxLength":3}`, `"mcp"`},
		{`{"type":"string","minLength":14}`, `"mcp-conformxxx"`},
		{`{"type":"string","format":"email"}`, `"mcp-conform@example.com"`},
		{`{"type":"string","format":"email","maxLength":8}`, `"a@b.co"`},
		{`{"type":"string","format":"email","maxLength":8,"minLength":8}`, `"axx@b.co"`},
		{`{"type":"string","format":"uri"}`, `"https://example.com/mcp-conform"`},
		{`{"type":"string","format":"uri","maxLength":4}`, `"a:b"`},
		{`{"type":"string","format":"date-time"}`, `"2000-01-01T00:00:00Z"`},
		{`{"type":"integer","minimum":2.5}`, `3`},
		{`{"type":"integer","minimum":0}`, `0`},
		{`{"type":"number","maximum":-5.5}`, `-6`},
		{`{"type":"number","minimum":0.25,"maximum":0.75}`, `0.25`},
		{`{"type":"number"}`, `1`},
		{`{"type":"array","minItems":2,"items":{"enum":["a","b","c"]}}`, `["a","b"]`},
		{`{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}`, `["x"]`},
		{`{"type":"array","items":{"enum":[]}}`, `[]`},
	}
	for _, c := range cases {
		assert.JSONEq(t, c.want, string(mustJSON(SampleValue(json.RawMessage(c.field)))), c.field)
	}
	assert.Len(t, fmt.Sprint(SampleValue(json.RawMessage(`{"type":"string","format":"date"}`))), 10)
}
