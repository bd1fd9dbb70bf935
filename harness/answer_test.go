package harness

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pingAnswer answers ping with an empty result and nothing else.
func pingAnswer(req *Message) []byte {
	if req.Method != "ping" {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{}})
	return b
}

// TestStdioAnswersServerRequests: a request the server writes is answered on its stdin by the
// answer hook, recorded as a client frame after the request and carrying its method; the
// server reads exactly that response (it reports the line back).
func TestStdioAnswersServerRequests(t *testing.T) {
	rec := NewRecorder(time.Now())
	script := `printf '%s\n' '{"jsonrpc":"2.0","id":"srv-1","method":"ping"}'; read l; ` +
		`printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%s}}\n' "$l"; cat >/dev/null`
	got := frameSignal(rec, "notifications/message")
	s, err := StartStdio(withTimeout(t, 10*time.Second), StdioConfig{Argv: []string{"sh", "-c", script}, Recorder: rec,
		ShutdownGrace: 500 * time.Millisecond, Answer: pingAnswer})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	note := await(t, got, "the server's report of the answer it read")
	var m struct {
		Params struct {
			Data json.RawMessage `json:"data"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(note.Raw, &m))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`, string(m.Params.Data))
	frames := rec.Frames()
	require.Len(t, frames, 3)
	assert.Equal(t, DirServerToClient, frames[0].Dir)
	assert.Equal(t, DirClientToServer, frames[1].Dir)
	assert.Equal(t, "ping", frames[1].Method, "the answer names the request it answers")
	assert.JSONEq(t, string(m.Params.Data), string(frames[1].Raw))
}

// TestHTTPAnswersServerRequestsOnTheStream: a request the server sends on the SSE stream of a
// POST is answered by a POST of the response (with the session's headers) while the stream is
// still open; the server needs that answer to finish the original request.
func TestHTTPAnswersServerRequestsOnTheStream(t *testing.T) {
	answered := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"id":"srv-1"`) {
			assert.Equal(t, "s-9", r.Header.Get(HeaderSessionID))
			answered <- body
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if strings.Contains(string(body), `"method":"initialize"`) {
			w.Header().Set(HeaderSessionID, "s-9")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-answered:
		case <-time.After(10 * time.Second):
			return
		}
		_, _ = io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}\n\n")
	}))
	defer srv.Close()
	rec := NewRecorder(time.Now())
	h, err := NewHTTP(HTTPConfig{URL: srv.URL, Recorder: rec, QuietWindow: 100 * time.Millisecond, Answer: pingAnswer})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	init := request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}})
	_, err = h.Send(withTimeout(t, 10*time.Second), init)
	require.NoError(t, err)
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(2, "tools/list", nil))
	require.NoError(t, err)
	require.NotNil(t, ex.Response, "the server finished the request once it had the answer")
	var answer *Frame
	for _, f := range rec.Frames() {
		if f.Dir == DirClientToServer && f.Method == "ping" {
			answer = f
		}
	}
	require.NotNil(t, answer, "the answer is recorded")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`, string(answer.Raw))
	assert.Greater(t, answer.Seq, ex.Frames[0].Seq, "the answer follows the request it answers")
}
