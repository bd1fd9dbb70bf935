package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

func TestContentValueChecks(t *testing.T) {
	for _, s := range []string{"2025-01-12T15:00:58Z", "2025-01-12", "2025-01-12T15:00", "2025-01-12T15:00:58.250+01:00", "2024-02-29T00:00:00-0530", "2025-01-12T15:00:58,5Z"} {
		assert.True(t, isISO8601(s), s)
	}
	for _, s := range []string{"", "last Tuesday", "2025-13-01", "2025-02-30", "2025-01-12 15:00:58", "2025-01-12T25:00:00Z", "12/01/2025", "2025-01-12T15:00:58+24:00", "1736694058"} {
		assert.False(t, isISO8601(s), s)
	}
	for _, s := range []string{"image/png", "audio/wav", "image/svg+xml", "text/plain; charset=utf-8", "application/vnd.api+json"} {
		assert.True(t, wellFormedMIME(s), s)
	}
	for _, s := range []string{"", "png", "image/", "/png", "image/png/x", "image png", "image/p ng"} {
		assert.False(t, wellFormedMIME(s), s)
	}
	assert.Empty(t, base64Problem("aGk=", "aGk="))
	assert.Empty(t, base64Problem("", ""))
	for _, s := range []string{"aGk", "aGk=\n", "a-_k", "aGk= ", "aGl="} {
		assert.NotEmpty(t, base64Problem(s, s), s)
	}
	assert.NotEmpty(t, base64Problem("", 12))
}

// contFrames builds a conversation of one client request with method and the server's result.
func contFrames(method, result string) []*harness.Frame {
	return []*harness.Frame{
		{Seq: 1, Conn: 1, Dir: harness.DirClientToServer, Method: method, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)},
		{Seq: 2, Conn: 1, Dir: harness.DirServerToClient, Method: method, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`)},
	}
}

func TestContentSweeps(t *testing.T) {
	prompt := func(content string) string { return `{"messages":[{"role":"user","content":` + content + `}]}` }
	tool := func(content string) string { return `{"content":[` + content + `]}` }
	png := `"iVBORw0KGgo="`
	cases := []struct {
		name    string
		rule    string
		method  string
		good    string
		bad     string
		noMatch string // a result that bears nothing on the rule
	}{
		{"CONT-001", "CONT-001", "tools/call", tool(`{"type":"text","text":"x"},{"type":"resource","resource":{"uri":"a:b","blob":` + png + `}}`),
			tool(`{"type":"resource","resource":{"uri":"a:b","text":"x","blob":` + png + `}}`), `{"tools":[]}`},
		{"CONT-001 type", "CONT-001", "prompts/get", prompt(`{"type":"text","text":"x"}`), prompt(`{"type":"video","data":"x"}`), ""},
		{"CONT-002", "CONT-002", "tools/call", tool(`{"type":"image","data":` + png + `,"mimeType":"image/png"}`),
			tool(`{"type":"audio","data":"not base64!","mimeType":"audio/wav"}`), tool(`{"type":"text","text":"x"}`)},
		{"CONT-002 mime", "CONT-002", "prompts/get", prompt(`{"type":"image","data":` + png + `,"mimeType":"image/png"}`),
			prompt(`{"type":"image","data":` + png + `,"mimeType":"png"}`), ""},
		{"CONT-002 read", "CONT-002", "resources/read", `{"contents":[{"uri":"a:b","blob":` + png + `}]}`,
			`{"contents":[{"uri":"a:b","blob":"aGk","mimeType":"image/png"}]}`, `{"contents":[{"uri":"a:b","text":"x"}]}`},
		{"CONT-003", "CONT-003", "resources/list", `{"resources":[{"uri":"a:b","name":"n","annotations":{"audience":["user"],"priority":1,"lastModified":"2025-01-12"}}]}`,
			`{"resources":[{"uri":"a:b","name":"n","annotations":{"audience":["system"]}}]}`, `{"resources":[{"uri":"a:b","name":"n"}]}`},
		{"CONT-003 priority", "CONT-003", "tools/call", tool(`{"type":"text","text":"x","annotations":{"priority":0}}`),
			tool(`{"type":"text","text":"x","annotations":{"priority":1.5}}`), ""},
		{"CONT-004", "CONT-004", "prompts/list", `{"prompts":[{"name":"p","icons":[{"src":"https://x/i.png","sizes":["48x48"],"theme":"dark"}]}]}`,
			`{"prompts":[{"name":"p","icons":[{"src":"https://x/i.png","sizes":"48x48"}]}]}`, `{"prompts":[{"name":"p"}]}`},
		{"CONT-004 src", "CONT-004", "tools/list", `{"tools":[{"name":"t","icons":[{"src":"data:image/png;base64,aGk="}]}]}`,
			`{"tools":[{"name":"t","icons":[{"src":"icon.png"}]}]}`, ""},
		{"CONT-005", "CONT-005", "resources/templates/list", `{"resourceTemplates":[{"uriTemplate":"a:{x}","name":"n","icons":[{"src":"HTTPS://x/i.png"}]}]}`,
			`{"resourceTemplates":[{"uriTemplate":"a:{x}","name":"n","icons":[{"src":"http://x/i.png"}]}]}`, ""},
		{"CONT-006", "CONT-006", "initialize", `{"serverInfo":{"name":"s","version":"1","websiteUrl":"https://x"}}`,
			`{"serverInfo":{"name":"s","version":1}}`, `{}`},
		{"CONT-006 meta", "CONT-006", "tools/list", `{"tools":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`,
			`{"tools":[],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1","websiteUrl":"not a url"}}}`, ""},
		{"CONT-007", "CONT-007", "tools/call", tool(`{"type":"resource_link","uri":"file:///a","name":"a"}`),
			tool(`{"type":"resource_link","uri":"file:///a"}`), tool(`{"type":"text","text":"x"}`)},
		{"PROMPT-006", "PROMPT-006", "prompts/get", prompt(`{"type":"resource","resource":{"uri":"a:b","mimeType":"text/plain","text":"x"}}`),
			prompt(`{"type":"resource","resource":{"uri":"a:b","text":"x"}}`), tool(`{"type":"resource","resource":{"uri":"a:b","text":"x"}}`)},
	}
	judge := func(rule string, frames []*harness.Frame) (material bool, expected string) {
		o := judgeRule(t, rule, frames)
		if o.Mismatch != nil {
			expected = o.Mismatch.Expected
		}
		return o.Judged > 0, expected
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, exp := judge(c.rule, contFrames(c.method, c.good))
			require.True(t, m, "good result must bear on the rule")
			assert.Empty(t, exp)
			m, exp = judge(c.rule, contFrames(c.method, c.bad))
			require.True(t, m, "bad result must bear on the rule")
			assert.NotEmpty(t, exp)
			if c.noMatch != "" {
				method := c.method
				if c.name == "PROMPT-006" {
					method = "tools/call"
				}
				m, _ = judge(c.rule, contFrames(method, c.noMatch))
				assert.False(t, m, "a result without material")
			}
		})
	}
}
