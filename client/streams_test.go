package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// getServer answers initialize (recording the client capabilities it declared), any other
// POST with an empty result, and a GET with a stream carrying one notification once the ping
// came, held open until the client closes it (stream), or with 405.
type getServer struct {
	stream bool
	caps   string
	pinged chan struct{} // closed when the ping arrives; the stream's event waits for it
}

func (g *getServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		if !g.stream {
			w.Header().Set("Allow", "POST")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-g.pinged
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // held open until the client closes it
		return
	}
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Capabilities json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	_ = json.Unmarshal(b, &m)
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if m.Method == "initialize" {
		g.caps = string(m.Params.Capabilities)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, m.ID, revisions.LatestLegacy().ID)
		return
	}
	if m.Method == "ping" {
		close(g.pinged)
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
}

// TestOpenOwnSessionWithAndOpenGET: the initialize declares the capabilities given; OpenGET
// returns once the GET's head came (Listening for a 2xx text/event-stream, not for a 405,
// whose GET is no error), before the request that makes the server send on the stream;
// SettleHeld waits until the stream's notification, sent after that request, is among the
// connection's frames, and leaves the stream open; CloseStreams notes its exchange.
func TestOpenOwnSessionWithAndOpenGET(t *testing.T) {
	for _, stream := range []bool{true, false} {
		g := &getServer{stream: stream, pinged: make(chan struct{})}
		srv := httptest.NewServer(g)
		s, _ := httpSession(t, srv)
		ctx := context.Background()
		require.NoError(t, s.OpenOwnSessionWith(ctx, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}))
		assert.JSONEq(t, `{"elicitation":{"url":{}}}`, g.caps)
		held, err := s.OpenGET(ctx, "")
		require.NoError(t, err)
		assert.Equal(t, stream, held.Listening())
		require.NoError(t, s.Send(ctx, s.Build(Call{Method: "ping"})))
		s.SettleHeld(ctx)
		seen := false
		for _, f := range s.Conn.Frames() {
			if m, err := harness.ParseMessage(f.Body()); err == nil && m.Method == "notifications/tools/list_changed" {
				seen = true
			}
		}
		assert.Equal(t, stream, seen)
		assert.Nil(t, held.Ex, "SettleHeld leaves the stream open")
		if stream {
			assert.False(t, held.Ended(), "the stream is held until closed")
		}
		s.CloseStreams()
		require.NotNil(t, held.Ex)
		assert.True(t, held.Ended())
		want := http.StatusOK
		if !stream {
			want = http.StatusMethodNotAllowed
		}
		assert.Equal(t, want, held.Ex.HTTP.Status)
		assert.Contains(t, s.Exchanges, held.Ex, "CloseStreams notes the exchange")
		srv.Close()
	}
}

// TestOpenSessionDeclaring: the initialize declares exactly the capabilities given, in a
// session of its own (OpenOwnSessionWith); capabilities that are not an object, and a
// connection that is not fresh, are the feature's bug and send nothing.
func TestOpenSessionDeclaring(t *testing.T) {
	g := &getServer{pinged: make(chan struct{})}
	srv := httptest.NewServer(g)
	defer srv.Close()
	s, _ := httpSession(t, srv)
	ctx := context.Background()
	require.Error(t, s.OpenSessionDeclaring(ctx, json.RawMessage(`[]`), ElicitAccept))
	assert.Empty(t, s.Conn.Frames())
	require.NoError(t, s.OpenSessionDeclaring(ctx, json.RawMessage(`{"elicitation":{"form":{}},"roots":{}}`), ElicitAccept))
	assert.JSONEq(t, `{"elicitation":{"form":{}},"roots":{}}`, g.caps)
	require.Len(t, s.Inits, 1)
	s.Fresh = false
	require.Error(t, s.OpenSessionDeclaring(ctx, json.RawMessage(`{}`), ElicitAccept))
	assert.Len(t, s.Inits, 1)
}
