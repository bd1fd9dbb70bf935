package client

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func decodeRequest(t *testing.T, req harness.Request) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(req.Raw, &m))
	return m
}

// jsonText is v as JSON text, cut as a report shows it (checks.JSONText, which this package
// cannot import).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return Short(b)
}

func TestBuildModernRequestCarriesDefaultMetaAndDerivedHeaders(t *testing.T) {
	s := targetSession(harness.TransportHTTP, revisions.Modern().ID)
	req := s.Build(Call{Method: "tools/list", Meta: map[string]any{"io.modelcontextprotocol/logLevel": "debug"}})
	m := decodeRequest(t, req)
	require.Equal(t, "tools/list", m["method"])
	meta := m["params"].(map[string]any)["_meta"].(map[string]any)
	require.Equal(t, revisions.Modern().ID, meta[harness.MetaProtocolVersion])
	require.Contains(t, meta, harness.MetaClientCapabilities)
	require.Equal(t, "debug", meta["io.modelcontextprotocol/logLevel"])
	require.Equal(t, string(req.ID), jsonText(m["id"]))
	require.Equal(t, revisions.Modern().ID, req.Header.Get(harness.HeaderProtocolVersion))
	require.Equal(t, "tools/list", req.Header.Get("Mcp-Method"))
	require.False(t, req.Intentional)
}

func TestBuildLegacyRequestHasNoDefaultMeta(t *testing.T) {
	s := targetSession(harness.TransportHTTP, revisions.LatestLegacy().ID)
	m := decodeRequest(t, s.Build(Call{Method: "ping"}))
	require.NotContains(t, m, "params")
	req := s.Build(Call{Method: "tools/list", Meta: map[string]any{"progressToken": "p"}})
	require.Equal(t, map[string]any{"_meta": map[string]any{"progressToken": "p"}}, decodeRequest(t, req)["params"])
	require.Equal(t, revisions.LatestLegacy().ID, req.Header.Get(harness.HeaderProtocolVersion))
	require.Empty(t, req.Header.Get("Mcp-Method"))
}

func TestBuildEditedHeadersAreOmittedAndIDsKept(t *testing.T) {
	s := targetSession(harness.TransportHTTP, revisions.Modern().ID)
	req := s.Build(Call{Method: "server/discover", ID: "abc", Intentional: true,
		EditHeaders: func(h http.Header) { h.Del("Mcp-Method") }})
	require.Equal(t, `"abc"`, string(req.ID))
	require.Contains(t, req.Omit, "Mcp-Method")
	require.True(t, req.Intentional)

	note := s.Build(Call{Method: "notifications/cancelled", Era: EraPlain, Notification: true, Params: map[string]any{"requestId": 1}})
	require.Nil(t, note.ID)
	require.NotContains(t, decodeRequest(t, note), "id")
	require.NotContains(t, decodeRequest(t, note)["params"], "_meta")
}

func TestBuildOnStdioSetsNoHeaders(t *testing.T) {
	s := targetSession(harness.TransportStdio, revisions.Modern().ID)
	require.Nil(t, s.Build(Call{Method: "tools/list"}).Header)
}

func TestToolCallsApplyTheFixtureMapAndTheCallPolicy(t *testing.T) {
	s := targetSession(harness.TransportStdio, revisions.Modern().ID)
	require.Equal(t, map[string]any{"name": "echo", "arguments": map[string]any{}}, s.FixtureToolCall("test_echo", nil, nil).Params)
	require.Equal(t, map[string]any{"arguments": "x"}, s.ToolsCall(nil, "x", nil).Params)
	_, ok, why := s.ListedToolCall(map[string]any{"name": "delete_everything"}, nil, nil)
	require.False(t, ok)
	require.Contains(t, why, "--call-tools")
	c, ok, _ := s.ListedToolCall(map[string]any{"name": "echo"}, map[string]any{"message": "hi"}, nil)
	require.True(t, ok)
	require.Equal(t, "echo", c.Params["name"])
}
