package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// replied sets w's last exchange to a malformed tools/call answered with reply.
func replied(w *World, reply string) {
	w.Last = &harness.Exchange{
		Sent:     &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":"x"}}`)},
		Response: &harness.Frame{Seq: 2, Raw: []byte(reply)},
	}
}

// TOOL-014 asks for a protocol error; -32602 is what JSON-RPC's meaning asks for, so another
// code is info (the TypeScript SDKs answer -32603 and were warned), a result still a warning.
func TestTOOL014GradesTheErrorCode(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	replied(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad arguments"}}`)
	require.NoError(t, responseJSONRPCError(context.Background(), w))

	replied(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Invalid arguments"}}`)
	var m *client.Mismatch
	require.ErrorAs(t, responseJSONRPCError(context.Background(), w), &m)
	require.Equal(t, reports.Info, m.Grade)

	replied(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`)
	require.ErrorAs(t, responseJSONRPCError(context.Background(), w), &m)
	require.Empty(t, m.Grade, "a result is graded by the rule's level (warn)")
}

// listedTools sets w's tools listing to tools, each a JSON object.
func listedTools(t *testing.T, w *World, tools ...string) {
	t.Helper()
	lt := &client.ListTraversal{Method: "tools/list"}
	for _, s := range tools {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		lt.Items, lt.Raw = append(lt.Items, m), append(lt.Raw, json.RawMessage(s))
	}
	toolOf(w).listings = []toolListing{{lt: lt, frames: []int{1, 2}}}
}

// TOOL-019: server/tools#Tool calls {"type":"object"} a valid inputSchema for a tool without
// parameters and only "Recommended" (no BCP 14 keyword) the additionalProperties false form:
// an observation (info), the same for every shape that admits any object (an empty properties
// or required list adds no parameter).
func TestTOOL019IsAnObservationForEveryOpenShape(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	for _, schema := range []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{}}`,
		`{"type":"object","required":[]}`,
		`{"type":"object","properties":{},"required":[]}`,
	} {
		listedTools(t, w, `{"name":"closed","inputSchema":{"type":"object","additionalProperties":false}}`,
			`{"name":"open","inputSchema":`+schema+`}`)
		var m *client.Mismatch
		require.ErrorAs(t, everyListedToolWithout(context.Background(), w), &m, schema)
		require.Equal(t, reports.Info, m.Grade, schema)
		require.Contains(t, m.Actual, `tool "open"`, schema)
	}
	for _, schema := range []string{
		`{"type":"object","additionalProperties":false}`,
		`{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
	} {
		listedTools(t, w, `{"name":"tool","inputSchema":`+schema+`}`)
		require.NoError(t, everyListedToolWithout(context.Background(), w), schema)
	}
}

// toolExchange is a tools/call of tool with args answered with reply.
func toolExchange(t *testing.T, seq int, tool string, args map[string]any, reply string) *harness.Exchange {
	t.Helper()
	sent, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": seq, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	require.NoError(t, err)
	return &harness.Exchange{Sent: &harness.Frame{Seq: seq, Raw: sent}, Response: &harness.Frame{Seq: seq + 1, Raw: []byte(reply)}}
}

// TOOL-016 needs evidence that the server validated: -32602, or a refusal by a tool that serves
// valid arguments (its control call). A tool that fails for every input (a missing browser)
// shows nothing: untestable, never a pass.
func TestTOOL016NeedsEvidenceOfValidation(t *testing.T) {
	const (
		isError  = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"browser not found"}],"isError":true}}`
		success  = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`
		invalid  = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad arguments"}}`
		internal = `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal"}}`
	)
	type tc struct{ reply, control string } // control "": no control call
	for _, c := range []struct {
		name  string
		calls []tc
		want  reports.Verdict
	}{
		{"every call fails, the valid one too", []tc{{isError, isError}, {isError, internal}}, reports.Untestable},
		{"no control could be built", []tc{{isError, ""}}, reports.Untestable},
		{"refused, served when valid", []tc{{isError, success}}, reports.Pass},
		{"-32602 needs no control", []tc{{invalid, ""}}, reports.Pass},
		{"one tool shows validation", []tc{{isError, isError}, {isError, success}}, reports.Pass},
		{"another code, served when valid", []tc{{internal, success}}, reports.Warn},
		{"another code, fails for every input", []tc{{internal, internal}}, reports.Untestable},
		{"invalid arguments served", []tc{{isError, isError}, {success, ""}}, reports.Fail},
	} {
		w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
		for i, call := range c.calls {
			name := fmt.Sprintf("tool%d", i)
			tcall := checks.ToolCall{Tool: map[string]any{"name": name}, Args: map[string]any{"x": 42}, Problem: "argument \"x\" has the wrong type",
				Ex: toolExchange(t, 10*i+1, name, map[string]any{"x": 42}, call.reply)}
			if call.control != "" {
				tcall.Control = toolExchange(t, 10*i+3, name, map[string]any{"x": "mcp-conform"}, call.control)
			}
			toolOf(w).calls = append(toolOf(w).calls, tcall)
		}
		err := w.expectRejected(toolOf(w))
		var m *client.Mismatch
		switch c.want {
		case reports.Pass:
			require.NoError(t, err, c.name)
		case reports.Untestable:
			require.ErrorIs(t, err, ErrSkip, c.name)
			require.Equal(t, reports.Untestable, w.Skip.Verdict, c.name)
			require.Contains(t, w.Skip.Reason, "no ", c.name)
		case reports.Warn:
			require.ErrorAs(t, err, &m, c.name)
			require.Equal(t, reports.Warn, m.Grade, c.name)
		case reports.Fail:
			require.ErrorAs(t, err, &m, c.name)
			require.Empty(t, m.Grade, c.name)
		}
	}
}
