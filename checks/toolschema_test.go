package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
