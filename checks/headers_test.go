package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func annotationsOf(t *testing.T, schema string) []XMCPAnnotation {
	t.Helper()
	var v any
	require.NoError(t, DecodeNumbers([]byte(schema), &v))
	return XmcpAnnotations(v)
}

func TestXmcpAnnotationsReachability(t *testing.T) {
	anns := annotationsOf(t, `{
		"type": "object",
		"x-mcp-header": "Root",
		"properties": {
			"region": {"type": "string", "x-mcp-header": "Region"},
			"opts": {"type": "object", "properties": {"prio": {"type": "integer", "x-mcp-header": "Prio"}}},
			"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}},
			"choice": {"anyOf": [{"type": "string", "x-mcp-header": "Choice"}]},
			"x-mcp-header": {"type": "string", "default": {"x-mcp-header": "NotASchema"}}
		},
		"$defs": {"d": {"type": "string", "x-mcp-header": "Def"}},
		"if": {"properties": {"c": {"type": "string", "x-mcp-header": "Cond"}}}
	}`)
	got := map[string]bool{}
	for _, a := range anns {
		got[a.ptr] = a.reachable
	}
	assert.Equal(t, map[string]bool{
		"":                                 false,
		"/properties/region":               true,
		"/properties/opts/properties/prio": true,
		"/properties/list/items":           false,
		"/properties/choice/anyOf/0":       false,
		"/$defs/d":                         false,
		"/if/properties/c":                 false,
	}, got)
	for _, a := range anns {
		if a.ptr == "/properties/opts/properties/prio" {
			assert.Equal(t, []string{"opts", "prio"}, a.Path)
			assert.Equal(t, "integer", a.Typ())
		}
	}
}

func TestXmcpChecks(t *testing.T) {
	one := func(prop string) XMCPAnnotation {
		anns := annotationsOf(t, `{"type":"object","properties":{"p":`+prop+`}}`)
		require.Len(t, anns, 1)
		return anns[0]
	}
	for _, c := range []struct {
		prop  string
		check XmcpCheck
		bad   bool
	}{
		{`{"type":"string","x-mcp-header":"Region"}`, CheckToken, false},
		{`{"type":"string","x-mcp-header":"Zone Name"}`, CheckToken, true},
		{`{"type":"string","x-mcp-header":""}`, CheckToken, true},
		{`{"type":"string","x-mcp-header":7}`, CheckToken, true},
		{`{"type":"string","x-mcp-header":"A\r\nB"}`, CheckToken, true},
		{`{"type":"string","x-mcp-header":"Région"}`, CheckToken, true},
		{`{"type":"string","x-mcp-header":"a!#$%&'*+-.^_|~1"}`, CheckToken, false},
		{`{"type":"integer","x-mcp-header":"N"}`, CheckType, false},
		{`{"type":["boolean","null"],"x-mcp-header":"N"}`, CheckType, false},
		{`{"enum":["a","b"],"x-mcp-header":"N"}`, CheckType, false},
		{`{"type":"number","x-mcp-header":"N"}`, CheckType, true},
		{`{"type":"object","x-mcp-header":"N"}`, CheckType, true},
		{`{"type":["string","integer"],"x-mcp-header":"N"}`, CheckType, true},
		{`{"x-mcp-header":"N"}`, CheckType, true},
		{`{"type":"integer","maximum":9007199254740991,"minimum":-9007199254740991,"x-mcp-header":"N"}`, CheckType, false},
		{`{"type":"integer","maximum":9007199254740992,"x-mcp-header":"N"}`, CheckType, true},
		{`{"type":"integer","exclusiveMinimum":-9007199254740993,"x-mcp-header":"N"}`, CheckType, true},
		{`{"type":"integer","enum":[1,1e300],"x-mcp-header":"N"}`, CheckType, true},
		{`{"type":"string","x-mcp-header":"Region"}`, CheckReachable, false},
		{`{"type":"string","x-mcp-header":"Api-Key"}`, CheckSensitive, true},
		{`{"type":"string","x-mcp-header":"Region"}`, CheckSensitive, false},
	} {
		assert.Equal(t, c.bad, c.check(one(c.prop)) != "", "%s", c.prop)
	}
}

func TestXmcpUnique(t *testing.T) {
	tool := &HdrTool{Name: "t", Anns: annotationsOf(t, `{"properties":{"a":{"x-mcp-header":"Zone"},"b":{"x-mcp-header":"ZONE"},"c":{"x-mcp-header":"Other"}}}`)}
	assert.Contains(t, CheckUnique(tool), `"ZONE"`)
	tool.Anns = tool.Anns[1:]
	assert.Empty(t, CheckUnique(tool))
}

func TestSensitiveWord(t *testing.T) {
	for name, want := range map[string]string{
		"api_key": "api key", "apiKey": "api key", "X-API-Key": "api key", "password": "password",
		"userPassword": "password", "authToken": "auth", "Authorization": "authorization", "client_secret": "secret",
		"user_email": "email", "ssn": "ssn",
		"region": "", "author": "", "page_token": "", "nextPageToken": "", "max_tokens": "", "keyword": "", "tenant_id": "",
	} {
		assert.Equal(t, want, sensitiveWord(name), name)
	}
	assert.Equal(t, []string{"x", "api", "key"}, splitWords("X-API-Key"))
	assert.Equal(t, []string{"html", "parser", "v2"}, splitWords("HTMLParserV2"))
}
