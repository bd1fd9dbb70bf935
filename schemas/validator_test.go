package schemas

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Message infos used below.
var (
	serverResult = func(method string) MessageInfo {
		return MessageInfo{FromServer: true, Kind: KindResult, Method: method}
	}
	serverError = func(method string) MessageInfo {
		return MessageInfo{FromServer: true, Kind: KindError, Method: method}
	}
)

// requireViolation fails unless vs holds a violation at instance path inst whose schema path
// ends with schemaSuffix and whose message contains msg.
func requireViolation(t *testing.T, vs []Violation, inst, schemaSuffix, msg string) {
	t.Helper()
	for _, v := range vs {
		if v.InstancePath == inst && strings.HasSuffix(v.SchemaPath, schemaSuffix) && strings.Contains(v.Message, msg) {
			return
		}
	}
	t.Fatalf("no violation at %q with schema path ending %q and message containing %q; got:\n%s",
		inst, schemaSuffix, msg, render(vs))
}

func render(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	return b.String()
}

func TestEveryRevisionCompiles(t *testing.T) {
	dir := schemaDir(t)
	for _, rev := range Revisions() {
		t.Run(rev, func(t *testing.T) {
			v := validator(t, rev)
			var doc struct {
				Schema      string                     `json:"$schema"`
				Defs        map[string]json.RawMessage `json:"$defs"`
				Definitions map[string]json.RawMessage `json:"definitions"`
			}
			b, err := os.ReadFile(filepath.Join(dir, rev, "schema.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &doc))
			require.Equal(t, doc.Schema, v.Dialect(), "the dialect comes from the file's $schema")
			if rev < "2025-11-25" {
				require.Contains(t, v.Dialect(), "draft-07")
				require.Len(t, v.Types(), len(doc.Definitions))
			} else {
				require.Contains(t, v.Dialect(), "2020-12")
				require.Len(t, v.Types(), len(doc.Defs))
			}
			for _, n := range []string{"JSONRPCMessage", "JSONRPCRequest", "JSONRPCNotification", "Implementation"} {
				require.True(t, v.Has(n), n)
			}
			require.False(t, v.Has("NoSuchType"))
		})
	}
}

// Every upstream example validates against $defs/<its folder name> (RULES.md note 8).
func TestUpstreamExamplesValidate(t *testing.T) {
	v := validator(t, rev26)
	root := filepath.Join(schemaDir(t), rev26, "examples")
	files, err := filepath.Glob(filepath.Join(root, "*", "*.json"))
	require.NoError(t, err)
	require.Greater(t, len(files), 100, "the upstream examples are missing from %s", root)
	validated := 0
	for _, f := range files {
		typeName := filepath.Base(filepath.Dir(f))
		rel, _ := filepath.Rel(root, f)
		require.True(t, v.Has(typeName), "%s: no $defs/%s", rel, typeName)
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		vs, err := v.ValidateAs(raw, typeName, "")
		require.NoError(t, err, rel)
		require.Empty(t, vs, "%s:\n%s", rel, render(vs))
		validated++
	}
	require.Equal(t, len(files), validated)
	t.Logf("%d upstream examples validated", validated)
}

// Broken copies of valid frames fail, at the expected paths; the unbroken frame is checked
// first as a positive control.
func TestBrokenFramesFail(t *testing.T) {
	image := example(t, "ImageContent", "image-png-content-with-annotations.json")
	discoverFrame := func(t *testing.T) map[string]any {
		return example(t, "DiscoverResultResponse", "discover-result-response.json")
	}
	cases := []struct {
		name       string
		rev        string
		info       MessageInfo
		frame      func(t *testing.T) map[string]any
		breakIt    func(m map[string]any)
		wantType   string
		inst       string
		schemaPath string // suffix
		msg        string
	}{
		{
			name: "discover without cacheScope", rev: rev26, info: serverResult("server/discover"),
			frame:    discoverFrame,
			breakIt:  func(m map[string]any) { delete(obj(m, "result"), "cacheScope") },
			wantType: "DiscoverResultResponse", inst: "/result", schemaPath: "/$defs/DiscoverResult/required", msg: "cacheScope",
		},
		{
			name: "discover with negative ttlMs", rev: rev26, info: serverResult("server/discover"),
			frame:    discoverFrame,
			breakIt:  func(m map[string]any) { obj(m, "result")["ttlMs"] = -1 },
			wantType: "DiscoverResultResponse", inst: "/result/ttlMs", schemaPath: "/$defs/DiscoverResult/properties/ttlMs/minimum",
		},
		{
			name: "discover with bad cacheScope", rev: rev26, info: serverResult("server/discover"),
			frame:    discoverFrame,
			breakIt:  func(m map[string]any) { obj(m, "result")["cacheScope"] = "shared" },
			wantType: "DiscoverResultResponse", inst: "/result/cacheScope", schemaPath: "/enum",
		},
		{
			name: "serverInfo without version", rev: rev26, info: serverResult("server/discover"),
			frame: discoverFrame,
			breakIt: func(m map[string]any) {
				delete(obj(obj(obj(m, "result"), "_meta"), "io.modelcontextprotocol/serverInfo"), "version")
			},
			wantType: "DiscoverResultResponse", inst: "/result/_meta/io.modelcontextprotocol~1serverInfo",
			schemaPath: "/$defs/Implementation/required", msg: "version",
		},
		{
			name: "image content that is not base64", rev: rev26, info: serverResult("tools/call"),
			frame: func(t *testing.T) map[string]any {
				m := example(t, "CallToolResultResponse", "call-tool-result-response.json")
				obj(m, "result")["content"] = []any{image}
				return m
			},
			breakIt: func(m map[string]any) {
				obj(m, "result")["content"].([]any)[0].(map[string]any)["data"] = "not base64!"
			},
			wantType: "CallToolResultResponse+CallToolResult", inst: "/result/content/0/data",
			schemaPath: "/$defs/ImageContent/properties/data/format", msg: "byte",
		},
		{
			name: "error response with null id", rev: rev26, info: serverError("tools/call"),
			frame: func(t *testing.T) map[string]any {
				return decodeJSON(t, []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool"}}`)).(map[string]any)
			},
			breakIt:  func(m map[string]any) { m["id"] = nil },
			wantType: "JSONRPCErrorResponse+InvalidParamsError", inst: "/id", schemaPath: "/$defs/RequestId/type",
		},
		{
			name: "error response with null id (2025-11-25)", rev: "2025-11-25", info: serverError("tools/call"),
			frame: func(t *testing.T) map[string]any {
				return decodeJSON(t, []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool"}}`)).(map[string]any)
			},
			breakIt:  func(m map[string]any) { m["id"] = nil },
			wantType: "JSONRPCErrorResponse", inst: "/id", schemaPath: "/$defs/RequestId/type",
		},
		{
			name: "error response with null id (2024-11-05)", rev: "2024-11-05", info: serverError("tools/call"),
			frame: func(t *testing.T) map[string]any {
				return decodeJSON(t, []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool"}}`)).(map[string]any)
			},
			breakIt:  func(m map[string]any) { m["id"] = nil },
			wantType: "JSONRPCError", inst: "/id", schemaPath: "/definitions/RequestId/type",
		},
		{
			name: "error code with a fraction is not an integer", rev: rev26, info: serverError("tools/call"),
			frame: func(t *testing.T) map[string]any {
				return decodeJSON(t, []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool"}}`)).(map[string]any)
			},
			breakIt:  func(m map[string]any) { obj(m, "error")["code"] = json.Number("-32602.5") },
			wantType: "JSONRPCErrorResponse", inst: "/error/code", schemaPath: "/type",
		},
		{
			name: "icon src that is not a URI", rev: rev26, info: serverResult("server/discover"),
			frame: discoverFrame,
			breakIt: func(m map[string]any) {
				obj(obj(obj(m, "result"), "_meta"), "io.modelcontextprotocol/serverInfo")["icons"] = []any{map[string]any{"src": "icons/logo.png"}}
			},
			wantType: "DiscoverResultResponse", inst: "/result/_meta/io.modelcontextprotocol~1serverInfo/icons/0/src",
			schemaPath: "/$defs/Icon/properties/src/format", msg: "uri",
		},
		{
			name: "resource template with a broken uriTemplate", rev: rev26, info: serverResult("resources/templates/list"),
			frame: func(t *testing.T) map[string]any {
				return decodeJSON(t, []byte(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public",
					"resourceTemplates":[{"name":"files","uriTemplate":"file:///{path}"}]}}`)).(map[string]any)
			},
			breakIt: func(m map[string]any) {
				obj(m, "result")["resourceTemplates"].([]any)[0].(map[string]any)["uriTemplate"] = "file:///{path"
			},
			wantType: "ListResourceTemplatesResultResponse", inst: "/result/resourceTemplates/0/uriTemplate",
			schemaPath: "/$defs/ResourceTemplate/properties/uriTemplate/format", msg: "uri-template",
		},
		{
			name: "progress notification with a string progress", rev: rev26,
			info:     MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/progress"},
			frame:    func(t *testing.T) map[string]any { return example(t, "ProgressNotification", "progress-message.json") },
			breakIt:  func(m map[string]any) { obj(m, "params")["progress"] = "50%" },
			wantType: "ProgressNotification", inst: "/params/progress", schemaPath: "/type",
		},
		{
			name: "tools/call request without name", rev: rev26,
			info:     MessageInfo{Kind: KindRequest, Method: "tools/call"},
			frame:    func(t *testing.T) map[string]any { return example(t, "CallToolRequest", "call-tool-request.json") },
			breakIt:  func(m map[string]any) { delete(obj(m, "params"), "name") },
			wantType: "CallToolRequest", inst: "/params", schemaPath: "/$defs/CallToolRequestParams/required", msg: "name",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := validator(t, c.rev)
			m := c.frame(t)
			_, vs, err := v.Validate(encodeJSON(t, m), c.info)
			require.NoError(t, err)
			require.Empty(t, vs, "positive control:\n%s", render(vs))
			c.breakIt(m)
			typeName, vs, err := v.Validate(encodeJSON(t, m), c.info)
			require.NoError(t, err)
			require.Equal(t, c.wantType, typeName)
			requireViolation(t, vs, c.inst, c.schemaPath, c.msg)
		})
	}
}

func obj(m map[string]any, key string) map[string]any {
	return m[key].(map[string]any)
}

// RULES.md note 1: a tools/list result without tools passes the generic envelope; only the
// method-specific type catches it.
func TestMethodSpecificResultIsStricterThanGeneric(t *testing.T) {
	cases := []struct {
		rev, frame, specific, generic, schemaPath string
	}{
		{rev26, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`,
			"ListToolsResultResponse", "JSONRPCResultResponse", "/$defs/ListToolsResult/required"},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"JSONRPCResultResponse+ListToolsResult", "JSONRPCResultResponse", "/$defs/ListToolsResult/required"},
		{"2025-06-18", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"JSONRPCResponse+ListToolsResult", "JSONRPCResponse", "/definitions/ListToolsResult/required"},
		{"2024-11-05", `{"jsonrpc":"2.0","id":1,"result":{}}`,
			"JSONRPCResponse+ListToolsResult", "JSONRPCResponse", "/definitions/ListToolsResult/required"},
	}
	for _, c := range cases {
		t.Run(c.rev, func(t *testing.T) {
			v := validator(t, c.rev)
			typeName, vs, err := v.Validate([]byte(c.frame), serverResult("tools/list"))
			require.NoError(t, err)
			require.Equal(t, c.specific, typeName)
			requireViolation(t, vs, "/result", c.schemaPath, "tools")

			typeName, vs, err = v.Validate([]byte(c.frame), serverResult(""))
			require.NoError(t, err)
			require.Equal(t, c.generic, typeName)
			require.True(t, IsGeneric(typeName))
			require.Empty(t, vs, "the generic result type accepts it:\n%s", render(vs))

			vs, err = v.ValidateAs([]byte(c.frame), "JSONRPCMessage", "")
			require.NoError(t, err)
			require.Empty(t, vs, "JSONRPCMessage accepts it too")
		})
	}
}

// CallToolResultResponse admits InputRequiredResult, which accepts nearly any object with a
// resultType; the branch is picked by resultType so that a result without content fails.
func TestCallToolResultBranchByResultType(t *testing.T) {
	v := validator(t, rev26)
	noContent := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
	vs, err := v.ValidateAs(noContent, "CallToolResultResponse", "")
	require.NoError(t, err)
	require.Empty(t, vs, "the wrapper alone accepts it through InputRequiredResult")
	typeName, vs, err := v.Validate(noContent, serverResult("tools/call"))
	require.NoError(t, err)
	require.Equal(t, "CallToolResultResponse+CallToolResult", typeName)
	requireViolation(t, vs, "/result", "/$defs/CallToolResult/required", "content")

	for _, f := range []string{
		"input-required-result-with-elicitation-and-sampling-and-request-state.json",
		"input-required-result-with-request-state-only.json",
	} {
		frame := map[string]any{"jsonrpc": "2.0", "id": 1, "result": example(t, "InputRequiredResult", f)}
		typeName, vs, err = v.Validate(encodeJSON(t, frame), serverResult("tools/call"))
		require.NoError(t, err)
		require.Equal(t, "CallToolResultResponse+InputRequiredResult", typeName, f)
		require.Empty(t, vs, "%s:\n%s", f, render(vs))
	}
	typeName, _, err = v.Validate(noContent, serverResult("prompts/get"))
	require.NoError(t, err)
	require.Equal(t, "GetPromptResultResponse+GetPromptResult", typeName)
}

// RULES.md notes 7 and 9: legacy initialize results validate against InitializeResult, in
// 2020-12 ($defs) and in draft-07 (definitions).
func TestInitializeResult(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{"tools":{"listChanged":true}},
		"serverInfo":{"name":"ref","version":"1.2.3"},"instructions":"hi"}}`
	bad := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"%s","capabilities":{}}}`
	cases := []struct{ rev, typeName, schemaPath string }{
		{"2025-11-25", "JSONRPCResultResponse+InitializeResult", "/$defs/InitializeResult/required"},
		{"2025-06-18", "JSONRPCResponse+InitializeResult", "/definitions/InitializeResult/required"},
		{"2025-03-26", "JSONRPCResponse+InitializeResult", "/definitions/InitializeResult/required"},
		{"2024-11-05", "JSONRPCResponse+InitializeResult", "/definitions/InitializeResult/required"},
	}
	for _, c := range cases {
		t.Run(c.rev, func(t *testing.T) {
			v := validator(t, c.rev)
			typeName, vs, err := v.Validate([]byte(fmt.Sprintf(good, c.rev)), serverResult("initialize"))
			require.NoError(t, err)
			require.Equal(t, c.typeName, typeName)
			require.Empty(t, vs, render(vs))

			typeName, vs, err = v.Validate([]byte(fmt.Sprintf(bad, c.rev)), serverResult("initialize"))
			require.NoError(t, err)
			require.Equal(t, c.typeName, typeName)
			requireViolation(t, vs, "/result", c.schemaPath, "serverInfo")

			vs, err = v.ValidateAs([]byte(`{"name":"ref"}`), "Implementation", "/result/serverInfo")
			require.NoError(t, err)
			requireViolation(t, vs, "/result/serverInfo", "Implementation/required", "version")
		})
	}
	_, _, err := validator(t, rev26).Validate([]byte(fmt.Sprintf(good, rev26)), serverResult("initialize"))
	require.NoError(t, err)
	typeName, _, _ := validator(t, rev26).Validate([]byte(fmt.Sprintf(good, rev26)), serverResult("initialize"))
	require.Equal(t, "JSONRPCResultResponse", typeName, "2026-07-28 has no initialize: generic")
}

func TestClassification(t *testing.T) {
	cases := []struct {
		name, rev string
		info      MessageInfo
		frame     string
		typeName  string
		valid     bool
	}{
		{"2026 server progress", rev26, MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/progress"},
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`, "ProgressNotification", true},
		{"2026 server cancelled", rev26, MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/cancelled"},
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`, "CancelledNotification", true},
		{"2026 client cancelled", rev26, MessageInfo{Kind: KindNotification, Method: "notifications/cancelled"},
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`, "ClientNotification", true},
		{"2026 acknowledged", rev26, MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/subscriptions/acknowledged"},
			`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}`, "SubscriptionsAcknowledgedNotification", false},
		{"2026 unknown server notification", rev26, MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/bogus"},
			`{"jsonrpc":"2.0","method":"notifications/bogus"}`, "JSONRPCNotification", true},
		{"2026 server request is unknown", rev26, MessageInfo{FromServer: true, Kind: KindRequest, Method: "sampling/createMessage"},
			`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`, "JSONRPCRequest", true},
		{"2026 unknown client request", rev26, MessageInfo{Kind: KindRequest, Method: "mcpconform/nonexistent"},
			`{"jsonrpc":"2.0","id":1,"method":"mcpconform/nonexistent","params":{}}`, "JSONRPCRequest", true},
		{"2026 result of unknown method", rev26, serverResult("mcpconform/nonexistent"),
			`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`, "JSONRPCResultResponse", true},
		{"2026 result without resultType", rev26, serverResult(""),
			`{"jsonrpc":"2.0","id":1,"result":{}}`, "JSONRPCResultResponse", false},
		{"2026 frame of unknown kind", rev26, MessageInfo{FromServer: true},
			`{"jsonrpc":"2.0","id":1}`, "JSONRPCMessage", false},
		{"2026 invalid frame the schema admits (method+result)", rev26, MessageInfo{FromServer: true, Kind: "invalid"},
			`{"jsonrpc":"2.0","method":"x","result":{}}`, "JSONRPCMessage", true},
		{"2026 unsupported version", rev26, serverError("server/discover"),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"1900-01-01","supported":["2026-07-28"]}}}`,
			"UnsupportedProtocolVersionError", true},
		{"2026 unsupported version without data", rev26, serverError("server/discover"),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version"}}`,
			"UnsupportedProtocolVersionError", false},
		{"2026 header mismatch", rev26, serverError("tools/call"),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}`, "HeaderMismatchError", true},
		{"2026 parse error without id", rev26, serverError(""),
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, "JSONRPCErrorResponse+ParseError", true},
		{"2026 method not found", rev26, serverError("x/y"),
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found"}}`, "JSONRPCErrorResponse+MethodNotFoundError", true},
		{"2026 application error code", rev26, serverError("tools/call"),
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32000,"message":"Busy"}}`, "JSONRPCErrorResponse", true},
		{"2026 error without message", rev26, serverError("tools/call"),
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32603}}`, "JSONRPCErrorResponse+InternalError", false},
		{"2025-11-25 ping result", "2025-11-25", serverResult("ping"),
			`{"jsonrpc":"2.0","id":1,"result":{}}`, "JSONRPCResultResponse+EmptyResult", true},
		{"2025-11-25 client answers sampling", "2025-11-25", MessageInfo{Kind: KindResult, Method: "sampling/createMessage"},
			`{"jsonrpc":"2.0","id":1,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`,
			"JSONRPCResultResponse+CreateMessageResult", true},
		{"2025-11-25 server answers sampling is unknown", "2025-11-25", serverResult("sampling/createMessage"),
			`{"jsonrpc":"2.0","id":1,"result":{}}`, "JSONRPCResultResponse", true},
		{"2025-11-25 task-augmented tools/call", "2025-11-25", MessageInfo{FromServer: true, Kind: KindResult, Method: "tools/call", Task: true},
			`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:00:00Z","lastUpdatedAt":"2025-11-25T10:00:00Z","ttl":null}}}`,
			"JSONRPCResultResponse+CreateTaskResult", true},
		{"2025-11-25 server sends a client notification", "2025-11-25", MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/initialized"},
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "JSONRPCNotification", true},
		{"2025-11-25 client initialized", "2025-11-25", MessageInfo{Kind: KindNotification, Method: "notifications/initialized"},
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "InitializedNotification", true},
		{"2025-11-25 URL elicitation required", "2025-11-25", serverError("tools/call"),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"Auth needed"}}`, "URLElicitationRequiredError", false},
		{"2025-11-25 server ping request", "2025-11-25", MessageInfo{FromServer: true, Kind: KindRequest, Method: "ping"},
			`{"jsonrpc":"2.0","id":"p","method":"ping"}`, "PingRequest", true},
		{"2025-06-18 server progress", "2025-06-18", MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/progress"},
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":"half"}}`,
			"JSONRPCNotification+ProgressNotification", false},
		{"2024-11-05 client tools/call", "2024-11-05", MessageInfo{Kind: KindRequest, Method: "tools/call"},
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, "JSONRPCRequest+CallToolRequest", true},
		{"2024-11-05 client tools/call without name", "2024-11-05", MessageInfo{Kind: KindRequest, Method: "tools/call"},
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}`, "JSONRPCRequest+CallToolRequest", false},
		{"2024-11-05 request without id", "2024-11-05", MessageInfo{Kind: KindRequest, Method: "tools/list"},
			`{"jsonrpc":"2.0","method":"tools/list"}`, "JSONRPCRequest+ListToolsRequest", false},
		{"2024-11-05 error without id", "2024-11-05", serverError(""),
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`, "JSONRPCError", false},
		{"2024-11-05 resource uri is not a URI", "2024-11-05", serverResult("resources/list"),
			`{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"not a uri","name":"x"}]}}`, "JSONRPCResponse+ListResourcesResult", false},
		{"2024-11-05 resource uri", "2024-11-05", serverResult("resources/list"),
			`{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"test://static/1","name":"x"}]}}`, "JSONRPCResponse+ListResourcesResult", true},
		{"2025-03-26 image data is not base64", "2025-03-26", serverResult("tools/call"),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"aGk","mimeType":"image/png"}]}}`, "JSONRPCResponse+CallToolResult", false},
		{"2025-03-26 image data", "2025-03-26", serverResult("tools/call"),
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}]}}`, "JSONRPCResponse+CallToolResult", true},
		{"2024-11-05 unknown notification", "2024-11-05", MessageInfo{FromServer: true, Kind: KindNotification, Method: "notifications/x"},
			`{"jsonrpc":"2.0","method":"notifications/x"}`, "JSONRPCNotification", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := validator(t, c.rev)
			typeName, vs, err := v.Validate([]byte(c.frame), c.info)
			require.NoError(t, err)
			require.Equal(t, c.typeName, typeName)
			if c.valid {
				require.Empty(t, vs, render(vs))
			} else {
				require.NotEmpty(t, vs)
			}
			if c.info.Kind != KindError {
				tn, err := v.TypeFor(c.info)
				require.NoError(t, err)
				require.Equal(t, typeName, tn)
			}
		})
	}
}

func TestValidateErrors(t *testing.T) {
	v := validator(t, rev26)
	_, _, err := v.Validate([]byte(`{"jsonrpc":`), serverResult("tools/list"))
	require.Error(t, err)
	_, _, err = v.Validate([]byte(`{} {}`), serverResult("tools/list"))
	require.Error(t, err)
	_, _, err = v.Validate([]byte(`{}`), MessageInfo{Kind: "response"})
	require.ErrorContains(t, err, "unknown message kind")
	_, err = v.ValidateAs([]byte(`{}`), "NoSuchType", "")
	require.ErrorContains(t, err, "NoSuchType")
	_, err = v.TypeFor(MessageInfo{Kind: "bogus"})
	require.Error(t, err)
}

func TestViolationsAreSortedDeduplicatedAndStable(t *testing.T) {
	v := validator(t, rev26)
	frame := []byte(`{"jsonrpc":"1.0","id":null,"result":{"resultType":7,"ttlMs":-5,"cacheScope":"x",
		"tools":[{"name":1,"inputSchema":{"type":"array"}},{"inputSchema":{}}]}}`)
	_, first, err := v.Validate(frame, serverResult("tools/list"))
	require.NoError(t, err)
	require.Greater(t, len(first), 5)
	require.True(t, sort.SliceIsSorted(first, func(i, j int) bool {
		a, b := first[i], first[j]
		if a.InstancePath != b.InstancePath {
			return a.InstancePath < b.InstancePath
		}
		if a.SchemaPath != b.SchemaPath {
			return a.SchemaPath < b.SchemaPath
		}
		return a.Message < b.Message
	}), render(first))
	seen := map[string]bool{}
	for _, x := range first {
		require.False(t, seen[x.String()], "duplicate %v", x)
		seen[x.String()] = true
		require.True(t, strings.HasPrefix(x.SchemaPath, "/$defs/"), x.SchemaPath)
		require.NotEmpty(t, x.Message)
	}
	for i := 0; i < 5; i++ {
		_, again, err := v.Validate(frame, serverResult("tools/list"))
		require.NoError(t, err)
		require.Equal(t, first, again)
	}
	requireViolation(t, first, "/jsonrpc", "/const", "")
	requireViolation(t, first, "/result/tools/1", "/$defs/Tool/required", "name")
	// A required violation names its missing members, so a rule can claim it by member.
	for _, x := range first {
		if x.InstancePath == "/result/tools/1" && x.SchemaPath == "/$defs/Tool/required" {
			require.Equal(t, []string{"name"}, x.Members)
		}
	}
	requireViolation(t, first, "/result/tools/0/inputSchema/type", "/const", "")
}

func TestValidatorIsSafeForConcurrentUse(t *testing.T) {
	v := validator(t, rev26)
	good := encodeJSON(t, example(t, "DiscoverResultResponse", "discover-result-response.json"))
	bad := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				_, vs, err := v.Validate(good, serverResult("server/discover"))
				if err != nil || len(vs) != 0 {
					errs <- fmt.Errorf("good frame: %v %v", err, vs)
					return
				}
				_, vs, err = v.Validate(bad, serverResult("server/discover"))
				if err != nil || len(vs) != 1 {
					errs <- fmt.Errorf("bad frame: %v\n%s", err, render(vs))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// The loader refuses every reference outside the schema document itself.
func TestCompileRefusesExternalReferences(t *testing.T) {
	for _, ref := range []string{
		"http://127.0.0.1:1/other.json",
		"file:///etc/passwd",
		"other.json#/x",
	} {
		t.Run(ref, func(t *testing.T) {
			doc := fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"A":{"$ref":%q}}}`, ref)
			_, err := Compile("test", []byte(doc))
			require.Error(t, err)
			require.Contains(t, err.Error(), "refused")
		})
	}
	_, err := Compile("test", []byte(`{"$defs":{}}`))
	require.ErrorContains(t, err, "$schema")
	_, err = Compile("test", []byte(`[]`))
	require.Error(t, err)
}

func BenchmarkValidate(b *testing.B) {
	v := validator(b, rev26)
	frame := encodeJSON(b, example(b, "DiscoverResultResponse", "discover-result-response.json"))
	info := serverResult("server/discover")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		typeName, vs, err := v.Validate(frame, info)
		if err != nil || len(vs) != 0 || typeName != "DiscoverResultResponse" {
			b.Fatal(typeName, vs, err)
		}
	}
}
