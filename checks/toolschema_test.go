package checks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
)

func TestCompileToolSchema(t *testing.T) {
	s, err := CompileToolSchema([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`))
	require.NoError(t, err)
	assert.Empty(t, ValidateAgainst(s, []byte(`{"n":2}`)))
	assert.Contains(t, ValidateAgainst(s, []byte(`{"n":0}`)), "minimum")
	assert.NotEmpty(t, ValidateAgainst(s, []byte(`{}`)))

	// 2020-12 is the default dialect: prefixItems is a keyword there.
	s, err = CompileToolSchema([]byte(`{"type":"array","prefixItems":[{"type":"string"}]}`))
	require.NoError(t, err)
	assert.NotEmpty(t, ValidateAgainst(s, []byte(`[1]`)))

	// Another dialect named by $schema is honoured (draft-07 has no prefixItems).
	s, err = CompileToolSchema([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","prefixItems":[{"type":"string"}]}`))
	require.NoError(t, err)
	assert.Empty(t, ValidateAgainst(s, []byte(`[1]`)))

	for name, bad := range map[string]string{
		"not a schema":      `{"type":"objekt"}`,
		"external ref":      `{"$ref":"https://example.com/s.json"}`,
		"unknown dialect":   `{"$schema":"https://example.com/my-dialect"}`,
		"not JSON":          `{`,
		"minimum as string": `{"minimum":"1"}`,
	} {
		_, err := CompileToolSchema([]byte(bad))
		assert.Error(t, err, name)
	}
}

// TestFixtureArgsAreValidForTheirSchema: a required argument gets a value its schema accepts
// (enum, const, default, format, bounds), not one fixed string; an object argument without a
// default makes the tool uncallable.
func TestFixtureArgsAreValidForTheirSchema(t *testing.T) {
	args, ok := FixtureArgs(json.RawMessage(`{"type":"object","required":["city","n","when","mode","flag"],"properties":{
		"city":{"type":"string","enum":["New York","Chicago"]},
		"n":{"type":"integer","minimum":5,"maximum":9},
		"when":{"type":"string","format":"date"},
		"mode":{"const":"fast"},
		"flag":{"type":"boolean"},
		"optional":{"type":"object"}}}`))
	require.True(t, ok)
	got, err := json.Marshal(args)
	require.NoError(t, err)
	assert.JSONEq(t, `{"city":"New York","n":5,"when":"`+sampleDate(t)+`","mode":"fast","flag":true}`, string(got))
	_, ok = FixtureArgs(json.RawMessage(`{"required":["o"],"properties":{"o":{"type":"object"}}}`))
	assert.False(t, ok)
}

// sampleDate is the date client.SampleValue gives a "format": "date" string.
func sampleDate(t *testing.T) string {
	v, ok := client.SampleValue(json.RawMessage(`{"type":"string","format":"date"}`)).(string)
	require.True(t, ok)
	return v
}
