package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sseTestServer is a minimal HTTP+SSE server: GET /sse opens the stream (first an endpoint
// event with a relative URI unless first says otherwise), POST /messages?s=1 answers 202 and
// replies on the stream with reply(msg) (nil: nothing).
type sseTestServer struct {
	mu     sync.Mutex
	out    chan string
	first  string // an event written before the endpoint event ("" none)
	status int    // the POST status (0 = 202)
	reply  func(method string, id json.RawMessage) []string
	posts  [][]byte
}

func (ts *sseTestServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		if ts.first != "" {
			fmt.Fprint(w, ts.first)
		}
		fmt.Fprint(w, "event: endpoint\ndata: /messages?s=1\n\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case ev := <-ts.out:
				fmt.Fprint(w, ev)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.Method == http.MethodPost && r.URL.Path == "/messages" && r.URL.Query().Get("s") == "1":
		b, _ := io.ReadAll(r.Body)
		ts.mu.Lock()
		ts.posts = append(ts.posts, b)
		ts.mu.Unlock()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		st := ts.status
		if st == 0 {
			st = http.StatusAccepted
		}
		w.WriteHeader(st)
		_, _ = w.Write([]byte("Accepted"))
		if ts.reply != nil {
			for _, ev := range ts.reply(m.Method, m.ID) {
				ts.out <- ev
			}
		}
	default:
		http.NotFound(w, r)
	}
}

func newSSEFor(t *testing.T, ts *sseTestServer, path string) *SSE {
	t.Helper()
	ts.out = make(chan string, 16)
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)
	s, err := DialSSE(context.Background(), SSEConfig{URL: srv.URL + path, QuietWindow: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSSECorrelatesResponsesOnTheStream(t *testing.T) {
	ts := &sseTestServer{reply: func(method string, id json.RawMessage) []string {
		if method == "ping" {
			return []string{
				`event: message` + "\n" + `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n\n",
				`event: message` + "\n" + `data: {"jsonrpc":"2.0","id":` + string(id) + `,"result":{}}` + "\n\n",
			}
		}
		return nil
	}}
	s := newSSEFor(t, ts, "/sse")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ex, err := s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`), ID: json.RawMessage("7"), Method: "ping"})
	require.NoError(t, err)
	require.NotNil(t, ex.Response)
	assert.Equal(t, "ping", ex.Response.Method)
	assert.Equal(t, "message", ex.Response.SSE.Event)
	assert.Equal(t, TransportSSE, ex.Response.Transport)
	require.Len(t, ex.Frames, 2, "the notification read while the ping was the only pending request goes with it")
	assert.Equal(t, 202, ex.HTTP.Status)
	ep, err := s.Endpoint(ctx)
	require.NoError(t, err)
	assert.Equal(t, "/messages", ep.Path, "resolved against the GET URL")

	frames := s.Frames()
	require.GreaterOrEqual(t, len(frames), 6) // GET, endpoint, POST, POST reply, two events
	assert.Equal(t, http.MethodGet, frames[0].HTTP.Method)
	assert.Equal(t, "endpoint", frames[1].SSE.Event)
	assert.Equal(t, 200, frames[1].HTTP.Status, "the first event carries the GET reply's status")
	assert.Zero(t, frames[1].ReplyTo, "events are attributed by id, not to the GET")
	assert.Equal(t, http.MethodPost, frames[2].HTTP.Method)
	var reply *Frame
	for _, f := range frames[3:] {
		if f.SSE == nil {
			reply = f
		}
	}
	require.NotNil(t, reply, "the POST's reply is recorded")
	assert.Equal(t, 202, reply.HTTP.Status)
	assert.Equal(t, frames[2].Seq, reply.ReplyTo)
	assert.Equal(t, "text/event-stream", frames[0].HTTP.Headers.Get("Accept"))
}

func TestSSERefusedPostEndsTheWait(t *testing.T) {
	ts := &sseTestServer{status: http.StatusBadRequest}
	s := newSSEFor(t, ts, "/sse")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ex, err := s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), ID: json.RawMessage("1"), Method: "ping"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 400")
	assert.Equal(t, 400, ex.HTTP.Status)
	assert.NoError(t, ctx.Err(), "the wait ended without waiting for the deadline")
}

func TestSSEWithoutStreamFailsSend(t *testing.T) {
	s := newSSEFor(t, &sseTestServer{}, "/nowhere")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), ID: json.RawMessage("1"), Method: "ping"})
	require.ErrorIs(t, err, ErrSSEClosed)
	assert.Contains(t, err.Error(), "HTTP 404")
	frames := s.Frames()
	require.Len(t, frames, 2)
	assert.Equal(t, 404, frames[1].HTTP.Status)
}

func TestSSERecordsEventsBeforeTheEndpoint(t *testing.T) {
	ts := &sseTestServer{first: "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"early\"}}\n\n"}
	s := newSSEFor(t, ts, "/sse")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Endpoint(ctx)
	require.NoError(t, err, "an event before the endpoint event is recorded, and the endpoint still read")
	frames := s.Frames()
	require.GreaterOrEqual(t, len(frames), 3)
	assert.Equal(t, "", frames[1].SSE.Event)
	assert.Equal(t, "notifications/message", frames[1].Method)
	assert.Equal(t, "endpoint", frames[2].SSE.Event)
	assert.Len(t, s.Unsolicited(), 1)
}

func TestSSEAnswersServerRequestsByPost(t *testing.T) {
	ts := &sseTestServer{reply: func(method string, _ json.RawMessage) []string {
		if method == "notifications/initialized" {
			return []string{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n"}
		}
		return nil
	}}
	s := newSSEFor(t, ts, "/sse")
	s.SetAnswer(func(req *Message) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{}}`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), Method: "notifications/initialized", Notification: true})
	require.NoError(t, err)
	f := s.WaitFrame(ctx, 0, func(f *Frame) bool { return f.Method == "ping" })
	require.NotNil(t, f)
	require.Eventually(t, func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return len(ts.posts) == 2 && string(ts.posts[1]) == `{"jsonrpc":"2.0","id":"s1","result":{}}`
	}, 5*time.Second, 10*time.Millisecond)
}

func TestSSESentinelProvesNoReply(t *testing.T) {
	ts := &sseTestServer{reply: func(method string, id json.RawMessage) []string {
		if method == "ping" {
			return []string{"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + string(id) + ",\"result\":{}}\n\n"}
		}
		return nil // the malformed request is accepted and rightly left unanswered
	}}
	s := newSSEFor(t, ts, "/sse")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sentinel := Request{Raw: []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), ID: json.RawMessage("2"), Method: "ping"}
	began := time.Now()
	ex, err := s.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":42}`), ID: json.RawMessage("1"), Intentional: true, Sentinel: &sentinel})
	var nr *NoReplyError
	require.ErrorAs(t, err, &nr)
	assert.Nil(t, ex.Response)
	assert.Less(t, time.Since(began), 10*time.Second, "concluded a quiet window after the sentinel's reply, not at the deadline")
	var marked bool
	for _, f := range s.Frames() {
		marked = marked || f.Sentinel
	}
	assert.True(t, marked, "the sentinel's frame is marked")
}
