package steps

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// clientWorld is a world on a target of revision rev over transport, for the builder tests.
func clientWorld(transport, rev string) *World {
	w, _ := targetWorld(client.Target{Revision: rev, Modern: revisions.IsModern(rev)},
		client.Options{Transport: transport, FixtureMap: map[string]string{"test_echo": "echo"}})
	return w
}

func decodeRequest(t *testing.T, req harness.Request) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(req.Raw, &m))
	return m
}

func TestBuildModernRequestCarriesDefaultMetaAndDerivedHeaders(t *testing.T) {
	w := clientWorld(harness.TransportHTTP, revisions.Modern().ID)
	req := w.Build(client.Call{Method: "tools/list", Meta: map[string]any{"io.modelcontextprotocol/logLevel": "debug"}})
	m := decodeRequest(t, req)
	require.Equal(t, "tools/list", m["method"])
	meta := m["params"].(map[string]any)["_meta"].(map[string]any)
	require.Equal(t, revisions.Modern().ID, meta[harness.MetaProtocolVersion])
	require.Contains(t, meta, harness.MetaClientCapabilities)
	require.Equal(t, "debug", meta["io.modelcontextprotocol/logLevel"])
	require.Equal(t, string(req.ID), checks.JSONText(m["id"]))
	require.Equal(t, revisions.Modern().ID, req.Header.Get(harness.HeaderProtocolVersion))
	require.Equal(t, "tools/list", req.Header.Get("Mcp-Method"))
	require.False(t, req.Intentional)
}

func TestBuildLegacyRequestHasNoDefaultMeta(t *testing.T) {
	w := clientWorld(harness.TransportHTTP, revisions.LatestLegacy().ID)
	m := decodeRequest(t, w.Build(client.Call{Method: "ping"}))
	require.NotContains(t, m, "params")
	req := w.Build(client.Call{Method: "tools/list", Meta: map[string]any{"progressToken": "p"}})
	require.Equal(t, map[string]any{"_meta": map[string]any{"progressToken": "p"}}, decodeRequest(t, req)["params"])
	require.Equal(t, revisions.LatestLegacy().ID, req.Header.Get(harness.HeaderProtocolVersion))
	require.Empty(t, req.Header.Get("Mcp-Method"))
}

func TestBuildEditedHeadersAreOmittedAndIDsKept(t *testing.T) {
	w := clientWorld(harness.TransportHTTP, revisions.Modern().ID)
	req := w.Build(client.Call{Method: "server/discover", ID: "abc", Intentional: true,
		EditHeaders: func(h http.Header) { h.Del("Mcp-Method") }})
	require.Equal(t, `"abc"`, string(req.ID))
	require.Contains(t, req.Omit, "Mcp-Method")
	require.True(t, req.Intentional)

	note := w.Build(client.Call{Method: "notifications/cancelled", Era: client.EraPlain, Notification: true, Params: map[string]any{"requestId": 1}})
	require.Nil(t, note.ID)
	require.NotContains(t, decodeRequest(t, note), "id")
	require.NotContains(t, decodeRequest(t, note)["params"], "_meta")
}

func TestBuildOnStdioSetsNoHeaders(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	require.Nil(t, w.Build(client.Call{Method: "tools/list"}).Header)
}

func TestToolCallsApplyTheFixtureMapAndTheCallPolicy(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	require.Equal(t, map[string]any{"name": "echo", "arguments": map[string]any{}}, w.FixtureToolCall("test_echo", nil, nil).Params)
	require.Equal(t, map[string]any{"arguments": "x"}, w.ToolsCall(nil, "x", nil).Params)
	_, ok, why := w.ListedToolCall(map[string]any{"name": "delete_everything"}, nil, nil)
	require.False(t, ok)
	require.Contains(t, why, "--call-tools")
	c, ok, _ := w.ListedToolCall(map[string]any{"name": "echo"}, map[string]any{"message": "hi"}, nil)
	require.True(t, ok)
	require.Equal(t, "echo", c.Params["name"])
}

func TestSentMethodOfAnUnsentRequest(t *testing.T) {
	require.Equal(t, "a request that could not be sent", client.SentMethod(&harness.Exchange{Err: errors.New("transport closed")}))
	require.Equal(t, "a request that could not be sent", client.SentMethod(nil))
	require.Equal(t, "ping", client.SentMethod(&harness.Exchange{Sent: &harness.Frame{Method: "ping"}}))
}

// subscriptions/listen exists in the modern revision only: a legacy target never sends it (a
// 2025-11-25 run sent it for HTTP-006 and then judged the reply against the legacy schema).
func TestNoListenOnALegacyTarget(t *testing.T) {
	w := clientWorld(harness.TransportHTTP, revisions.LatestLegacy().ID)
	called := false
	require.NoError(t, w.HoldListen(context.Background(), func(context.Context) error { called = true; return nil }, 0))
	require.True(t, called, "the rest of the scenario still runs")
	require.Empty(t, w.Own, "no connection was opened for a listen stream")
}
