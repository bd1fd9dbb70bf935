package judge

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// msgFrames builds a conversation on connection 1 (stdio unless a frame says otherwise): lines
// starting with "> " are client frames, others server frames.
func msgFrames(lines ...string) []*harness.Frame {
	var out []*harness.Frame
	for i, l := range lines {
		f := &harness.Frame{Seq: i + 1, Conn: 1, Transport: harness.TransportStdio, Dir: harness.DirServerToClient, Raw: []byte(l)}
		if len(l) > 2 && l[:2] == "> " {
			f.Dir, f.Raw = harness.DirClientToServer, []byte(l[2:])
		}
		out = append(out, f)
	}
	return out
}

func TestMsgSweepsOnRawFrames(t *testing.T) {
	req := `> {"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`
	ok := `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","tools":[]}}`
	cases := []struct {
		name  string
		check string
		good  []string
		bad   []string
	}{
		{"MSG-001 jsonrpc", "MSG-001", []string{req, ok, "not json at all"}, []string{req, `{"jsonrpc":"2.0 ","id":7,"result":{}}`}},
		{"MSG-001 shape", "MSG-001", []string{req, `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`}, []string{req, `{"jsonrpc":"2.0","result":{}}`}},
		{"MSG-002 BOM", "MSG-002", []string{req, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"héllo 🚀"}}`}, []string{req, "\xef\xbb\xbf" + ok}},
		{"MSG-002 invalid", "MSG-002", []string{req, ok}, []string{req, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"x\":\"\xff\"}}"}},
		{"MSG-004", "MSG-004", []string{req, ok}, []string{req, `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"x"}}`}},
		{"MSG-005", "MSG-005", []string{req, ok}, []string{req, `{"jsonrpc":"2.0","id":7,"result":null}`}},
		{"MSG-007", "MSG-007", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}`}, []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602.0,"message":"x"}}`}},
		{"MSG-010", "MSG-010", []string{req, `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, []string{req, `{"jsonrpc":"2.0","id":1,"method":"notifications/progress"}`}},
		{"MSG-012", "MSG-012", []string{req, `{"jsonrpc":"2.0","method":"notifications/progress"}`}, []string{req, `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage"}`}},
		{"MSG-013 duplicate", "MSG-013", []string{req, ok, req, ok}, []string{req, ok, ok}},
		{"MSG-013 unknown", "MSG-013", []string{req, ok, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`}, []string{req, `{"jsonrpc":"2.0","id":8,"result":{}}`}},
		// The request's id with another JSON type is MSG-003's (a scenario judges it).
		{"MSG-013 leaves a retyped id to MSG-003", "MSG-013", []string{req, `{"jsonrpc":"2.0","id":"7","result":{}}`}, []string{req, `{"jsonrpc":"2.0","id":"7 8","result":{}}`}},
		{"MSG-017", "MSG-017", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"Unknown tool."}}`}, []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"a\nb"}}`}},
		// The spec names no length: a long one-line message is no violation.
		{"MSG-017 long line", "MSG-017", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"` + strings.Repeat("long message ", 40) + `"}}`}, []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"a\r\nb"}}`}},
		{"META-008", "META-008", []string{req, `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"com.example/x":1,"progressToken":1,"a/":1,"x-y.z_1":1},"tools":[{"inputSchema":{"properties":{"_meta":{"1bad/":1}}}}]}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"t","_meta":{"com.example-/x":1}}]}}`}},
		{"META-009", "META-009", []string{req, `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{},"com.example.mcp/x":1}}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"dev.mcp/x":1}}}`}},
		{"META-010", "META-010", []string{req, `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"congo=t61rcWkgMzE, rojo@vendor=00f067aa0ba902b7","baggage":"userId=alice; p1=v, serverNode=DF%2028"}}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"result":{"_meta":{"traceparent":"00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"}}}`}},
		{"RT-003", "RT-003", []string{req, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","requestState":"s"}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"input_required","requestState":"s","content":[]}}`}},
		{"RT-004", "RT-004", []string{req, ok}, []string{req, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"task"}}`}},
		{"ERR-001", "ERR-001", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32042,"message":"x"}}`}, []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32099,"message":"x"}}`}},
		{"ERR-003", "ERR-003", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"x"}}`}, []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"x"}}`}},
		{"ERR-006", "ERR-006", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"x"}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-31999,"message":"x"}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32100,"message":"x"}}`}},
		{"ERR-002 -32021", "ERR-002", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32021,"message":"x","data":{"requiredCapabilities":{"sampling":{}}}}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32021,"message":"x"}}`}},
		{"ERR-002 -32020 on stdio", "ERR-002", []string{req, ok}, []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"x"}}`}},
		{"ERR-002 -32022", "ERR-002", []string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"1"}}}`},
			[]string{req, `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"x","data":{"requested":"1"}}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Nil(t, judgeRule(t, c.check, msgFrames(c.good...)).Mismatch, "good frames")
			o := judgeRule(t, c.check, msgFrames(c.bad...))
			assert.NotZero(t, o.Judged, "bad frames are judged")
			m := o.Mismatch
			require.NotNil(t, m, "bad frames")
			assert.NotEmpty(t, m.Frames)
		})
	}
}

func TestERR002JudgesHTTPHeaderMismatchByIntent(t *testing.T) {
	fs := msgFrames(`> {"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"x"}}`)
	for _, f := range fs {
		f.Transport = harness.TransportHTTP
		f.HTTP = &harness.HTTPMeta{Status: http.StatusBadRequest}
	}
	fs[0].HTTP.Headers = http.Header{"Mcp-Method": {"tools/list"}, "Mcp-Protocol-Version": {"2026-07-28"}}
	require.NotNil(t, judgeRule(t, "ERR-002", fs).Mismatch, "headers built from the body cannot mismatch")
	fs[0].Intentional = true
	assert.Nil(t, judgeRule(t, "ERR-002", fs).Mismatch)
	// A legacy-shaped POST (no MCP headers) fails header validation as much as a mismatch.
	fs[0].Intentional = false
	fs[0].HTTP.Headers = http.Header{}
	assert.Nil(t, judgeRule(t, "ERR-002", fs).Mismatch)
	// A tools/call refused with -32020 is the header rules' (HDR-005..019): an undecoded
	// base64 Mcp-Name fails HDR-007 alone.
	call := msgFrames(`> {"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"t"}}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32020,"message":"x"}}`)
	for _, f := range call {
		f.Transport = harness.TransportHTTP
		f.HTTP = &harness.HTTPMeta{Status: http.StatusBadRequest}
	}
	call[0].Method = "tools/call"
	call[0].HTTP.Headers = http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?dA==?="}, "Mcp-Protocol-Version": {"2026-07-28"}}
	assert.Nil(t, judgeRule(t, "ERR-002", call).Mismatch)
	// -32022 for a version the server advertises.
	fs = msgFrames(
		`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"]}}`,
		`> {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`)
	fs[1].Method = "server/discover"
	require.NotNil(t, judgeRule(t, "ERR-002", fs).Mismatch)
}

func TestMetaKeyGrammar(t *testing.T) {
	for _, k := range []string{"", "x", "progressToken", "traceparent", "a/", "com.example/x", "io.modelcontextprotocol/serverInfo", "a-1.b2/n_a-m.e", "A/Z9"} {
		assert.True(t, validMetaKey(k), k)
	}
	for _, k := range []string{"1bad/x", "-a/x", "a-/x", "a..b/x", "/x", "a/b/c", "_x", "x-", "x y", "é", "com.example/x!"} {
		assert.False(t, validMetaKey(k), k)
	}
	assert.True(t, reservedPrefix("dev.mcp/x"))
	assert.True(t, reservedPrefix("org.modelcontextprotocol.api/x"))
	assert.False(t, reservedPrefix("com.example.mcp/x"))
	assert.False(t, reservedPrefix("mcp/x"))
}

func TestTraceContextSyntax(t *testing.T) {
	assert.Empty(t, traceparentProblem("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
	assert.Empty(t, traceparentProblem("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra"))
	for _, v := range []string{"", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
		"00-00000000000000000000000000000000-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x", "00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01"} {
		assert.NotEmpty(t, traceparentProblem(v), v)
	}
	assert.Empty(t, tracestateProblem("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"))
	assert.Empty(t, tracestateProblem(""))
	assert.NotEmpty(t, tracestateProblem("Rojo=1"))
	assert.NotEmpty(t, tracestateProblem("rojo=a,b"))
	assert.NotEmpty(t, tracestateProblem("rojo=a=b"))
	assert.Empty(t, baggageProblem("key1=value1;property1;property2, key2 = value2, key3=value3; propertyKey=propertyValue"))
	assert.NotEmpty(t, baggageProblem("key1"))
	assert.NotEmpty(t, baggageProblem("k=v v"))
	assert.NotEmpty(t, baggageProblem("k(=v"))
}

// msgCaseRules are the rules TestMsgSweepsOnRawFrames covers.
var msgCaseRules = []string{"ERR-001", "ERR-002", "ERR-003", "ERR-006", "META-008", "META-009", "META-010", "MSG-001", "MSG-002", "MSG-004", "MSG-005", "MSG-007", "MSG-010", "MSG-012", "MSG-013", "MSG-017", "RT-003", "RT-004"}

// TestCodeRuleAgreesWithTheCodeChecks: CodeRule names, for each code, the one ERR rule whose
// check flags an error with it, and none for the codes no rule forbids.
func TestCodeRuleAgreesWithTheCodeChecks(t *testing.T) {
	rules := []string{"ERR-001", "ERR-003", "ERR-004", "ERR-005", "ERR-006"}
	for _, code := range []int64{-32700, -32601, -32602, -32603, -32000, -32001, -32002, -32019, -32020, -32021, -32022, -32042, -32050, -32099, -32100, -32500, -32768, -32769, -1, 1} {
		frames := msgFrames(`> {"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"error":{"code":%d,"message":"x"}}`, code))
		frames[0].Method, frames[1].Method = "tools/list", "tools/list"
		var flagged []string
		for _, r := range rules {
			if judgeRule(t, r, frames).Mismatch != nil {
				flagged = append(flagged, r)
			}
		}
		want := CodeRule(testRev, code)
		if want == "" {
			assert.Empty(t, flagged, "code %d", code)
		} else {
			assert.Equal(t, []string{want}, flagged, "code %d", code)
		}
		assert.Empty(t, CodeRule("2025-11-25", code), "the ERR rules are 2026-07-28's")
	}
}
