package harness

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBatch(t *testing.T) {
	members, ok := ParseBatch([]byte(` [{"jsonrpc":"2.0","id":1,"result":{}}, {"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"x"}}] `))
	require.True(t, ok, "a batched pair of responses")
	require.Len(t, members, 2)
	assert.Equal(t, KindResult, members[0].Kind)
	assert.Equal(t, KindError, members[1].Kind)
	assert.Equal(t, `{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"x"}}`, string(members[1].Raw))

	members, ok = ParseBatch([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`))
	require.True(t, ok, "a lone response in an array")
	assert.Len(t, members, 1)

	members, ok = ParseBatch([]byte(`[{"jsonrpc":"1.0","id":1}]`))
	require.True(t, ok, "a member that is no valid message is the message rules' to judge")
	assert.Equal(t, KindInvalid, members[0].Kind)

	for _, raw := range []string{`[]`, ` [ ] `, `[1]`, `[{"jsonrpc":"2.0","id":1,"result":{}}, 2]`, `[{"jsonrpc":"2.0","id":1,"result":{}}] x`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}][]`, `{"jsonrpc":"2.0","id":1,"result":{}}`, "[\"\xff\"]", ``, `[`} {
		_, ok := ParseBatch([]byte(raw))
		assert.False(t, ok, "%q is no batch", raw)
	}
}

// replying returns a request the echo fixture answers with the lines replies, waiting (as a
// batch) for the responses with ids batch.
func replying(replies []string, batch ...any) Request {
	req := request("trigger", "x", map[string]any{"replies": replies})
	req.ID = nil
	for _, id := range batch {
		raw, _ := json.Marshal(id)
		req.Batch = append(req.Batch, raw)
	}
	return req
}

// TestStdioReadsBatchesWhereAllowed: on a connection that reads batches, a batch line answers
// each request it holds a response to (Responses are its member frames, the batch's Seq), and
// responses one per line answer theirs; elsewhere the array is no message and answers nothing.
func TestStdioReadsBatchesWhereAllowed(t *testing.T) {
	pair := `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","result":{"n":2}}]`
	start := func(batches bool) (*Stdio, *Recorder) {
		rec := NewRecorder(time.Now())
		s, err := StartStdio(withTimeout(t, 20*time.Second), StdioConfig{Argv: []string{hostileBin(t, "echo")}, Recorder: rec,
			QuietWindow: 200 * time.Millisecond, Batches: batches})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, s.Close()) })
		return s, rec
	}
	s, rec := start(true)
	ex, err := s.Send(withTimeout(t, 10*time.Second), replying([]string{pair}, 1, "b"))
	require.NoError(t, err)
	require.Len(t, ex.Responses, 2)
	batch := rec.Frames()[1]
	assert.Empty(t, batch.Problem, "a batch is a message on this connection")
	for i, want := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":"b","result":{"n":2}}`} {
		require.NotNil(t, ex.Responses[i])
		assert.Equal(t, want, string(ex.Responses[i].Raw))
		assert.Equal(t, batch.Seq, ex.Responses[i].Seq)
		assert.Equal(t, i+1, ex.Responses[i].Member)
	}
	assert.Equal(t, []*Frame{batch}, ex.Frames)
	assert.Empty(t, s.Unsolicited())

	ex, err = s.Send(withTimeout(t, 10*time.Second), replying([]string{`{"jsonrpc":"2.0","id":"b","result":{}}`, `{"jsonrpc":"2.0","id":1,"result":{}}`}, 1, "b"))
	require.NoError(t, err, "responses one by one")
	assert.Equal(t, 0, ex.Responses[0].Member)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(ex.Responses[0].Raw))
	assert.Equal(t, ex.Responses[0], ex.Response, "the last response completes the batch")

	ex, err = s.Send(withTimeout(t, 2*time.Second), replying([]string{`[{"jsonrpc":"2.0","id":1,"result":{}}]`}, 1, "b"))
	require.Error(t, err, "id b is never answered")
	assert.NotNil(t, ex.Responses[0], "the lone response in an array")
	assert.Nil(t, ex.Responses[1])

	s, rec = start(false)
	ex, err = s.Send(withTimeout(t, 2*time.Second), replying([]string{pair}, 1))
	require.Error(t, err, "no batches on this connection")
	assert.Nil(t, ex.Responses[0])
	var arr *Frame
	for _, f := range rec.Frames() {
		if f.Dir == DirServerToClient {
			arr = f
		}
	}
	require.NotNil(t, arr)
	assert.Contains(t, arr.Problem, "not a JSON-RPC message")

	s.SetBatches(true) // the handshake settled a revision with batches
	ex, err = s.Send(withTimeout(t, 10*time.Second), replying([]string{pair}, 1, "b"))
	require.NoError(t, err)
	assert.Equal(t, 2, ex.Responses[1].Member)
}

// TestStdioBatchSentinel: a batch with a Sentinel that the server leaves unanswered is
// settled by the sentinel (NoReplyError for every request), not by the context's deadline.
func TestStdioBatchSentinel(t *testing.T) {
	rec := NewRecorder(time.Now())
	s, err := StartStdio(withTimeout(t, 20*time.Second), StdioConfig{Argv: []string{hostileBin(t, "echo")}, Recorder: rec,
		QuietWindow: 200 * time.Millisecond, Batches: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	req := replying([]string{`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`}, 1, "b")
	sentinel := request(99, "ping", nil)
	req.Sentinel = &sentinel
	ex, err := s.Send(withTimeout(t, time.Minute), req)
	var absent *NoReplyError
	require.ErrorAs(t, err, &absent, "the sentinel, not the minute, concludes the batch")
	assert.Contains(t, absent.Sentinel, "ping (id 99)")
	assert.Nil(t, ex.Responses[0])
	assert.Nil(t, ex.Responses[1])
}

// TestStdioEmptyArrayIsNoBatch: an empty array is no batch even where batches are read.
func TestStdioEmptyArrayIsNoBatch(t *testing.T) {
	rec := NewRecorder(time.Now())
	s, err := StartStdio(withTimeout(t, 20*time.Second), StdioConfig{Argv: []string{hostileBin(t, "echo")}, Recorder: rec,
		QuietWindow: 200 * time.Millisecond, Batches: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	ex, err := s.Send(withTimeout(t, 2*time.Second), replying([]string{`[]`}, 1))
	require.Error(t, err)
	f := rec.Frames()[1]
	assert.Equal(t, "[]", string(f.Raw))
	assert.Contains(t, f.Problem, "not a JSON-RPC message")
	assert.Equal(t, []*Frame{f}, ex.Frames, "a frame that answers nothing, read while one request was pending")
	assert.Nil(t, ex.Responses[0])
}

// TestHTTPReadsBatchesWhereAllowed: a batch POST is answered by a JSON array body or by SSE
// events (a batch event and a single one); at a connection without batches the array body is
// no message.
func TestHTTPReadsBatchesWhereAllowed(t *testing.T) {
	pair := `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`
	mode := "json"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		require.True(t, strings.HasPrefix(string(body), "["), "%s", body)
		if mode == "json" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, pair)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: [{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"y\"}}]\n\n")
		fmt.Fprintf(w, "data: [{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]\n\n")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}))
	defer srv.Close()
	batch := func() Request {
		raw := BuildBatch([][]byte{request(1, "ping", nil).Raw, request(2, "tools/list", nil).Raw})
		return Request{Raw: raw, Batch: []json.RawMessage{json.RawMessage("1"), json.RawMessage("2")}}
	}
	h := newHTTPFor(t, srv, HTTPConfig{Batches: true})
	ex, err := h.Send(withTimeout(t, 10*time.Second), batch())
	require.NoError(t, err)
	require.Len(t, ex.Responses, 2)
	assert.Equal(t, "ping", ex.Responses[0].Method)
	assert.Equal(t, "tools/list", ex.Responses[1].Method)
	assert.Equal(t, 2, ex.Responses[1].Member)
	assert.Empty(t, ex.Frames[0].Problem)

	mode = "sse"
	ex, err = h.Send(withTimeout(t, 10*time.Second), batch())
	require.NoError(t, err)
	assert.Equal(t, 1, ex.Responses[1].Member, "the lone response of an array event")
	assert.Equal(t, 0, ex.Responses[0].Member, "a response event of its own")
	assert.Equal(t, ex.Responses[0], ex.Response)
	require.Len(t, ex.Frames, 3)
	for _, f := range ex.Frames {
		assert.Empty(t, f.Problem, "%s", f.Raw)
	}

	mode = "json"
	h = newHTTPFor(t, srv, HTTPConfig{})
	ex, _ = h.Send(withTimeout(t, 10*time.Second), batch())
	assert.Nil(t, ex.Responses[0])
	assert.Contains(t, ex.Frames[0].Problem, "not a JSON-RPC message")
	h.SetBatches(true)
	ex, err = h.Send(withTimeout(t, 10*time.Second), batch())
	require.NoError(t, err)
	assert.NotNil(t, ex.Responses[0])
}
