package harness

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/revisions"
)

func newHTTPFor(t *testing.T, srv *httptest.Server, cfg HTTPConfig) *HTTP {
	t.Helper()
	cfg.URL = srv.URL + "/mcp"
	if cfg.QuietWindow == 0 {
		cfg.QuietWindow = 200 * time.Millisecond
	}
	h, err := NewHTTP(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// rpcIn decodes the JSON-RPC request a test server received.
func rpcIn(t *testing.T, r *http.Request) (id json.RawMessage, method string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &m)
	return m.ID, m.Method
}

func writeEvent(w http.ResponseWriter, data string) {
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

func TestNewHTTPValidatesURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x/mcp", "/mcp", "127.0.0.1:3000/mcp", "http://", "http://%zz"} {
		_, err := NewHTTP(HTTPConfig{URL: u})
		assert.Error(t, err, u)
	}
	h, err := NewHTTP(HTTPConfig{URL: "HTTPS://example.test/mcp"})
	require.NoError(t, err)
	assert.Equal(t, "https://example.test/mcp", h.URL())
	assert.Equal(t, "http", h.Name())
}

func TestHTTPJSONResponseAndHeaders(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		id, _ := rpcIn(t, r)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, id)
	}))
	defer srv.Close()
	rec := NewRecorder(time.Now())
	h := newHTTPFor(t, srv, HTTPConfig{Recorder: rec, Header: http.Header{"Authorization": {"Bearer s3cret"}}})

	req := request(1, "tools/call", map[string]any{"name": "echo"})
	req.Header = http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}
	ex, err := h.Send(withTimeout(t, 10*time.Second), req)
	require.NoError(t, err)

	assert.Equal(t, "application/json", got.Get("Content-Type"))
	assert.Equal(t, "application/json, text/event-stream", got.Get("Accept"))
	assert.Equal(t, "Bearer s3cret", got.Get("Authorization"), "the real value goes on the wire")
	assert.Equal(t, "tools/call", got.Get("Mcp-Method"))
	assert.Equal(t, "echo", got.Get("Mcp-Name"))
	assert.Equal(t, "mcp-conform", got.Get("User-Agent"))
	assert.Empty(t, got.Get("Accept-Encoding"), "no transparent compression")

	frames := rec.Frames()
	require.Len(t, frames, 2)
	sent := frames[0]
	assert.Equal(t, ex.Sent, sent)
	assert.Equal(t, "POST", sent.HTTP.Method)
	assert.Equal(t, []string{Redacted}, sent.HTTP.Headers["Authorization"])
	assert.Equal(t, "echo", sent.HTTP.Headers.Get("Mcp-Name"))
	assert.Equal(t, string(req.Raw), string(sent.Raw))
	assert.Equal(t, "tools/call", sent.Method)

	resp := frames[1]
	assert.Equal(t, ex.Response, resp)
	assert.Equal(t, []*Frame{resp}, ex.Frames)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`, string(resp.Raw))
	assert.Equal(t, 200, resp.HTTP.Status)
	assert.Equal(t, "application/json; charset=utf-8", resp.HTTP.Headers.Get("Content-Type"))
	assert.Equal(t, "tools/call", resp.Method)
	assert.Empty(t, resp.Problem)
	assert.Nil(t, resp.SSE)
	assert.Equal(t, 200, ex.HTTP.Status)
	for _, f := range frames {
		assert.Equal(t, "http", f.Transport)
		assert.Equal(t, h.Conn(), f.Conn)
	}
	assert.Equal(t, frames, h.Frames())
}

func TestHTTPRedactsUserHeadersWhateverTheCase(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{Header: http.Header{"X-Api-Key": {"k1", "k2"}}})
	req := notification("notifications/cancelled")
	req.Header = http.Header{"x-api-key": {"scenario"}}
	req.Omit = []string{"X-API-KEY"}
	ex, err := h.Send(withTimeout(t, 10*time.Second), req)
	require.NoError(t, err)
	assert.Equal(t, []string{"k1", "k2"}, got.Values("X-Api-Key"), "user headers win and are never omitted")
	for k, vs := range ex.Sent.HTTP.Headers {
		for _, v := range vs {
			assert.NotContains(t, v, "k1", k)
		}
	}
	assert.Equal(t, []string{Redacted, Redacted}, ex.Sent.HTTP.Headers["X-Api-Key"])
}

func TestHTTPOmitAndOverrideDefaults(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	req := request(1, "tools/list", nil)
	req.Header = http.Header{"content-type": {"text/plain"}, "mcp-protocol-version": {"2026-07-28"}}
	req.Omit = []string{"accept", "User-Agent"}
	ex, err := h.Send(withTimeout(t, 10*time.Second), req)
	require.NoError(t, err, "a 400 is an answer, not a transport error")
	assert.Equal(t, []string{"text/plain"}, got.Values("Content-Type"))
	assert.Empty(t, got.Values("Accept"))
	assert.Empty(t, got.Values("User-Agent"))
	assert.Equal(t, "2026-07-28", got.Get("Mcp-Protocol-Version"))
	_, ok := ex.Sent.HTTP.Headers["mcp-protocol-version"]
	assert.True(t, ok, "the scenario's spelling is kept")
	assert.NotContains(t, ex.Sent.HTTP.Headers, "User-Agent")
	assert.Equal(t, 400, ex.HTTP.Status)
	require.Len(t, ex.Frames, 1)
	assert.Nil(t, ex.Response)
	assert.Equal(t, 400, ex.Frames[0].HTTP.Status)
	assert.Equal(t, `unexpected Content-Type "" for a request (want application/json or text/event-stream)`, ex.Frames[0].Problem)
}

func TestHTTPEmpty202ForNotification(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, info := h.SendStream(withTimeout(t, 10*time.Second), notification("notifications/cancelled"))
	require.NoError(t, ex.Err)
	require.Len(t, ex.Frames, 1)
	f := ex.Frames[0]
	assert.Empty(t, f.Raw)
	assert.Equal(t, 0, f.Size)
	assert.Equal(t, 202, f.HTTP.Status)
	assert.Empty(t, f.Problem, "a notification expects no body")
	assert.Empty(t, f.Method)
	assert.Nil(t, ex.Response)
	assert.Equal(t, 202, ex.HTTP.Status)
	assert.Equal(t, EndEOF, info.End)
	assert.False(t, info.SSE)
}

func TestHTTPEmpty202ForRequestIsAProblem(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	require.Len(t, ex.Frames, 1)
	assert.Equal(t, 202, ex.Frames[0].HTTP.Status)
	assert.Contains(t, ex.Frames[0].Problem, "unexpected Content-Type")
	assert.Nil(t, ex.Response)
}

func TestHTTPJSONBodyProblems(t *testing.T) {
	// A wrong jsonrpc and invalid UTF-8 are read past (the repair names MSG-001, MSG-002).
	cases := map[string]struct {
		body, problem string
		response      bool
		repair        string
	}{
		"batch":         {`[{"jsonrpc":"2.0","id":1,"result":{}}]`, "not a JSON-RPC message: not a JSON object", false, ""},
		"empty":         {``, "empty application/json body", false, ""},
		"wrong jsonrpc": {`{"jsonrpc":"1.0","id":1,"result":{}}`, "", true, "MSG-001"},
		"bad utf8":      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"}}", "", true, "MSG-002"},
		"too big":       {`{"jsonrpc":"2.0","id":1,"result":{"pad":"` + strings.Repeat("x", 200) + `"}}`, "body exceeds --max-frame (100 bytes)", false, ""},
		"wrong id":      {`{"jsonrpc":"2.0","id":2,"result":{}}`, "", true, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, c.body)
			}))
			defer srv.Close()
			h := newHTTPFor(t, srv, HTTPConfig{MaxFrame: 100})
			ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
			require.NoError(t, err)
			require.Len(t, ex.Frames, 1)
			f := ex.Frames[0]
			assert.True(t, strings.HasPrefix(f.Problem, c.problem), "problem %q", f.Problem)
			if c.problem == "" {
				assert.Empty(t, f.Problem)
			}
			assert.Equal(t, c.response, ex.Response != nil)
			if c.repair != "" {
				require.Len(t, f.Repairs, 1)
				assert.Equal(t, c.repair, f.Repairs[0].Rule)
			} else {
				assert.Empty(t, f.Repairs)
			}
			assert.Equal(t, len(c.body), f.Size)
			assert.LessOrEqual(t, len(f.Raw), 100)
		})
	}
}

func TestHTTPSSEResponseAfterNotifications(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := rpcIn(t, r)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Accel-Buffering", "no")
		io.WriteString(w, ": hello\n\n")
		writeEvent(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`)
		fmt.Fprintf(w, "event: message\nid: 7\ndata: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
		writeEvent(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id))
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, info := h.SendStream(withTimeout(t, 10*time.Second), request("r1", "tools/call", nil))
	require.NoError(t, ex.Err)
	require.Len(t, ex.Frames, 3)
	first := ex.Frames[0]
	require.NotNil(t, first.HTTP, "the first event carries the HTTP status and headers")
	assert.Equal(t, 200, first.HTTP.Status)
	assert.Equal(t, "no", first.HTTP.Headers.Get("X-Accel-Buffering"))
	assert.Equal(t, "notifications/progress", first.Method)
	assert.Nil(t, ex.Frames[1].HTTP)
	assert.Equal(t, &SSEMeta{Event: "message", ID: "7", HasID: true, Retry: -1}, ex.Frames[1].SSE)
	assert.Equal(t, "notifications/message", ex.Frames[1].Method)
	assert.Equal(t, ex.Frames[2], ex.Response)
	assert.Equal(t, "tools/call", ex.Response.Method)
	assert.Equal(t, &SSEMeta{Retry: -1}, ex.Response.SSE)
	for _, f := range ex.Frames {
		assert.Empty(t, f.Problem)
	}
	assert.True(t, info.SSE)
	assert.Equal(t, 3, info.Events)
	assert.Equal(t, 0, info.EventsAfterResponse)
	assert.Equal(t, 1, info.Comments)
	assert.Equal(t, EndEOF, info.End, "the stream closed after the response")
}

func TestHTTPSSEKeepsReadingAfterTheResponse(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := rpcIn(t, r)
		w.Header().Set("Content-Type", "text/event-stream")
		// Both events in one write, so they reach the client together.
		writeEvent(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)+"\n\n"+
			`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"late"}}`)
		select { // keep the stream open until the client goes away
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	h := newHTTPFor(t, srv, HTTPConfig{QuietWindow: 150 * time.Millisecond})
	ex, info := h.SendStream(withTimeout(t, 10*time.Second), request(5, "tools/call", nil))
	require.NoError(t, ex.Err)
	require.Len(t, ex.Frames, 2)
	assert.Equal(t, ex.Frames[0], ex.Response)
	assert.Equal(t, EndQuiet, info.End, "the stream stayed open after the response")
	assert.Equal(t, 1, info.EventsAfterResponse)
	assert.GreaterOrEqual(t, info.AfterResponse, 150*time.Millisecond)
}

func TestHTTPSSEIDlessErrorIsTheResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		writeEvent(w, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	require.Len(t, ex.Frames, 2)
	assert.Empty(t, ex.Frames[0].Method, "a response to another id is not ours")
	assert.Equal(t, ex.Frames[1], ex.Response)
}

func TestHTTPSSEStreamEndsWithoutResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n") // no blank line
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.ErrorIs(t, err, ErrStreamEnded)
	assert.Contains(t, err.Error(), "tools/list (id 1)")
	require.Len(t, ex.Frames, 2)
	assert.Nil(t, ex.Response, "an unterminated event is discarded")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(ex.Frames[1].Raw))
	assert.Contains(t, ex.Frames[1].Problem, "event discarded")
}

func TestHTTPSSEInvalidEvents(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "not json")
		writeEvent(w, "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"d\":\"\xff\"}}")
		writeEvent(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	require.Len(t, ex.Frames, 3)
	assert.True(t, strings.HasPrefix(ex.Frames[0].Problem, "not a JSON-RPC message: "))
	// Invalid UTF-8 is MSG-002's defect: the event is read past it, its bytes kept as sent.
	assert.Empty(t, ex.Frames[1].Problem)
	require.Len(t, ex.Frames[1].Repairs, 1)
	assert.Equal(t, "MSG-002", ex.Frames[1].Repairs[0].Rule)
	assert.Contains(t, string(ex.Frames[1].Raw), "\xff")
	assert.Contains(t, string(ex.Frames[1].Body()), "\uFFFD")
	assert.Equal(t, ex.Frames[2], ex.Response)
}

// neverEnds is the sse-never-ends behaviour, in process: a comment every 100 ms, no response.
func neverEnds(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		io.WriteString(w, ": keep-alive\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

func TestHTTPSSENeverEndsTimesOut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(neverEnds))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	start := time.Now()
	ex, info := h.SendStream(withTimeout(t, 500*time.Millisecond), request(1, "tools/call", nil))
	assert.Less(t, time.Since(start), 5*time.Second)
	require.Error(t, ex.Err)
	assert.ErrorIs(t, ex.Err, context.DeadlineExceeded)
	assert.Contains(t, ex.Err.Error(), "tools/call (id 1)")
	assert.Equal(t, EndContext, info.End)
	assert.GreaterOrEqual(t, info.Comments, 1)
	require.Len(t, ex.Frames, 1, "the status stays visible")
	assert.Equal(t, 200, ex.Frames[0].HTTP.Status)
	assert.Empty(t, ex.Frames[0].Raw)
	assert.NotNil(t, ex.Frames[0].SSE)
	assert.Equal(t, 200, ex.HTTP.Status)
}

func TestHTTPSSENeverEndsFixture(t *testing.T) {
	cmd := exec.Command(hostileBin(t, "sse-never-ends"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		stdin.Close() // the fixture exits at end of stdin
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	h, err := NewHTTP(HTTPConfig{URL: strings.TrimSpace(line), QuietWindow: 100 * time.Millisecond})
	require.NoError(t, err)
	defer h.Close()
	ex, info := h.SendStream(withTimeout(t, 400*time.Millisecond), request(1, "tools/call", nil))
	assert.ErrorIs(t, ex.Err, context.DeadlineExceeded)
	assert.Equal(t, EndContext, info.End)
	assert.GreaterOrEqual(t, info.Comments, 1)
}

func TestHTTPRedirectIsNotFollowed(t *testing.T) {
	var followed atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) { followed.Store(true) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	assert.False(t, followed.Load())
	assert.Equal(t, 307, ex.HTTP.Status)
	assert.Equal(t, "/elsewhere", ex.HTTP.Headers.Get("Location"))
	require.Len(t, ex.Frames, 1)
	assert.Contains(t, ex.Frames[0].Problem, "unexpected Content-Type")
}

func TestHTTPConcurrentSendsCorrelate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, method := rpcIn(t, r)
		time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond) // server-side jitter only
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"echo":%s,"method":%q}}`, id, id, method)
		if strings.Contains(string(id), "1") { // some answers as SSE, with a notification first
			w.Header().Set("Content-Type", "text/event-stream")
			writeEvent(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
			writeEvent(w, body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ids := []any{1, "1", -5, "abc", 0, "-5", 10, " "}
	ctx := withTimeout(t, 20*time.Second)
	got := make([]*Exchange, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = h.Send(ctx, request(id, "ping", nil))
		}()
	}
	wg.Wait()
	for i, id := range ids {
		want, _ := json.Marshal(id)
		require.NoError(t, got[i].Err, "id %s", want)
		assert.Equal(t, string(want), echoed(t, got[i].Response), "id %s", want)
	}
}

func TestHTTPFreshUsesANewConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ctx := withTimeout(t, 10*time.Second)
	for i := 0; i < 3; i++ {
		_, err := h.Send(ctx, notification("notifications/x"))
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), conns.Load(), "requests reuse one connection")
	f := h.Fresh()
	defer f.Close()
	assert.NotEqual(t, h.Conn(), f.Conn())
	_, err := f.Send(ctx, notification("notifications/x"))
	require.NoError(t, err)
	assert.Equal(t, int32(2), conns.Load(), "a fresh client opens a new connection")
}

func TestHTTPDoRawRequests(t *testing.T) {
	var gotMethod string
	var gotHeader http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotMethod, gotHeader = r.Method, r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMethodNotAllowed)
		io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no"}}`)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{Header: http.Header{"Authorization": {"Bearer t"}}})
	ex, err := h.Do(withTimeout(t, 10*time.Second), http.MethodGet, http.Header{"Accept": {"text/event-stream"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, "GET", gotMethod)
	assert.Equal(t, "text/event-stream", gotHeader.Get("Accept"))
	assert.Empty(t, gotHeader.Get("Content-Type"), "Do adds no defaults")
	assert.Equal(t, "Bearer t", gotHeader.Get("Authorization"))
	assert.Equal(t, "GET", ex.Sent.HTTP.Method)
	assert.Equal(t, 405, ex.HTTP.Status)
	require.Len(t, ex.Frames, 1)
	assert.Equal(t, ex.Frames[0], ex.Response)
	assert.Empty(t, ex.Frames[0].Problem)
}

func TestHTTPDoReadsAnSSEStreamUntilQuiet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
		<-r.Context().Done()
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{QuietWindow: 100 * time.Millisecond})
	ex, err := h.Do(withTimeout(t, 10*time.Second), http.MethodGet, nil, nil)
	require.NoError(t, err)
	require.Len(t, ex.Frames, 1)
	assert.Equal(t, "notifications/message", ex.Frames[0].Method)
	assert.Nil(t, ex.Response)
}

func TestHTTPConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	h, err := NewHTTP(HTTPConfig{URL: url + "/mcp"})
	require.NoError(t, err)
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "POST "+url+"/mcp")
	assert.Nil(t, ex.HTTP)
	assert.NotNil(t, ex.Sent)
	assert.Empty(t, ex.Frames)
}

func TestModernHeaders(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	cases := []struct {
		name string
		body string
		want http.Header
	}{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}`,
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}}},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather",` + meta + `}}`,
			http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"get_weather"}}},
		{"prompts/get non-ascii", `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"Hello, 世界"}}`,
			http.Header{"Mcp-Method": {"prompts/get"}, "Mcp-Name": {"=?base64?SGVsbG8sIOS4lueVjA==?="}}},
		{"resources/read uri", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a b.txt","name":"ignored"}}`,
			http.Header{"Mcp-Method": {"resources/read"}, "Mcp-Name": {"file:///a b.txt"}}},
		{"padded", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":" padded "}}`,
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?IHBhZGRlZCA=?="}}},
		{"newline", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"line1\nline2"}}`,
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?bGluZTEKbGluZTI=?="}}},
		{"sentinel lookalike", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"=?base64?literal?="}}`,
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}}},
		{"tab", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a\tb"}}`,
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {b64("a\tb")}}},
		{"name not a string", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":42}}`,
			http.Header{"Mcp-Method": {"tools/call"}}},
		{"no params", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`,
			http.Header{"Mcp-Method": {"server/discover"}}},
		{"params not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`,
			http.Header{"Mcp-Method": {"tools/call"}}},
		{"name on other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"name":"x"}}`,
			http.Header{"Mcp-Method": {"tools/list"}}},
		{"bad _meta keeps name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":"x"}}`,
			http.Header{"Mcp-Method": {"tools/call"}, "Mcp-Name": {"t"}}},
		{"not json", `{"jsonrpc":`, http.Header{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, ModernHeaders([]byte(c.body)))
		})
	}
	assert.Equal(t, "2026-07-28", ModernHeaders([]byte(`{"method":"x","params":{`+meta+`}}`)).Get(HeaderProtocolVersion))
}

func TestLegacyHeaders(t *testing.T) {
	assert.Equal(t, http.Header{}, LegacyHeaders(""))
	assert.Equal(t, "2025-11-25", LegacyHeaders("2025-11-25").Get("MCP-Protocol-Version"))
}

func TestHTTPJSONReplyWithWrongContentTypeIsStillRead(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ex, err := h.Send(withTimeout(t, 10*time.Second), request(1, "tools/list", nil))
	require.NoError(t, err)
	require.NotNil(t, ex.Response)
	assert.Equal(t, "tools/list", ex.Response.Method)
	assert.Equal(t, `unexpected Content-Type "text/plain" for a request (want application/json or text/event-stream)`, ex.Response.Problem)
}

func TestHTTPContextDoneBeforeSending(t *testing.T) {
	rec := NewRecorder(time.Now())
	h, err := NewHTTP(HTTPConfig{URL: "http://127.0.0.1:1/mcp", Recorder: rec})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ex, err := h.Send(ctx, request(1, "tools/list", nil))
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, ex.Sent)
	assert.Zero(t, rec.Len())
}

func TestHTTPLegacySessionIDIsSentBack(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, method := rpcIn(t, r)
		seen = append(seen, method+"="+r.Header.Get("Mcp-Session-Id"))
		if method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "sess-1")
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q}}`, id, revisions.LatestLegacy().ID)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{Recorder: NewRecorder(time.Now())})
	send := func(n int, method string, hdr http.Header) {
		req := request(n, method, map[string]any{})
		req.Header = hdr
		_, err := h.Send(withTimeout(t, 10*time.Second), req)
		require.NoError(t, err)
	}
	send(1, "initialize", LegacyHeaders(revisions.LatestLegacy().ID))
	send(2, "tools/list", LegacyHeaders(revisions.LatestLegacy().ID))
	send(3, "server/discover", http.Header{"Mcp-Protocol-Version": {revisions.Modern().ID}, "Mcp-Method": {"server/discover"}})
	assert.Equal(t, []string{"initialize=", "tools/list=sess-1", "server/discover="}, seen,
		"the legacy session id goes back on legacy requests only")
}

// TestProbeServes: a server whose 2026-07-28 tools/list gets a result with resultType, or a
// recognised modern error, serves 2026-07-28 requests; a legacy server answering before
// initialize in the legacy shape, another error, or nothing at all does not.
func TestProbeServes(t *testing.T) {
	for _, c := range []struct {
		name, body string
		modern     bool
	}{
		{"modern result", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`, true},
		{"unsupported version", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`, true},
		{"legacy result", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, false},
		{"method not found", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`, false},
		{"not json-rpc", `hello`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, strings.Replace(c.body, `"id":1`, `"id":`+requestID(t, r), 1))
			}))
			defer srv.Close()
			h := newHTTPFor(t, srv, HTTPConfig{})
			var ids IDs
			p, err := ProbeServes(withTimeout(t, 10*time.Second), h, &ids)
			require.NoError(t, err)
			assert.Equal(t, c.modern, p.Modern, p.Reason)
			assert.NotEmpty(t, p.Reason)
		})
	}
}

// requestID returns the id of the JSON-RPC request in r's body, as JSON text.
func requestID(t *testing.T, r *http.Request) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	require.NoError(t, json.NewDecoder(r.Body).Decode(&m))
	return string(m.ID)
}

// TestHTTPSessionHeadersOnEveryRequest: once initialize opened a session, every request on the
// connection carries its Mcp-Session-Id and MCP-Protocol-Version, whatever the caller set: a
// request built without headers, a deliberately malformed body, a notification, a GET and a
// DELETE. A request that opts out (WithoutSession) carries neither, a header the caller sets
// itself keeps the caller's value, and a failed initialize on another connection opens nothing.
func TestHTTPSessionHeadersOnEveryRequest(t *testing.T) {
	v := revisions.LatestLegacy().ID
	type seen struct{ what, sid, ver string }
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &m)
		what := r.Method + " " + m.Method
		if json.Unmarshal(b, &m) != nil && r.Method == http.MethodPost {
			what = "POST malformed"
		}
		mu.Lock()
		got = append(got, seen{what, r.Header.Get("Mcp-Session-Id"), r.Header.Get("MCP-Protocol-Version")})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case m.Method == "initialize" && r.Header.Get("X-Fail") != "":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"no"}}`, m.ID)
		case m.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "sess-9")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q}}`, m.ID, v)
		case len(m.ID) > 0:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		case r.Method == http.MethodPost && what == "POST malformed":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{Recorder: NewRecorder(time.Now())})
	ctx := withTimeout(t, 10*time.Second)
	assert.False(t, h.Session().Open)
	_, err := h.Send(ctx, Request{Raw: InitializeRequest(1, v), ID: json.RawMessage("1"), Method: "initialize", Header: LegacyHeaders("")})
	require.NoError(t, err)
	assert.Equal(t, Session{Open: true, ID: "sess-9", Version: v}, h.Session())

	_, err = h.Send(ctx, request(2, "tools/list", nil)) // no headers at all
	require.NoError(t, err)
	_, _ = h.Send(ctx, Request{Raw: []byte(`{"jsonrpc":"2.0",`), Intentional: true})
	_, err = h.Send(ctx, Request{Raw: BuildRequest(nil, "notifications/initialized", nil), Method: "notifications/initialized", Notification: true})
	require.NoError(t, err)
	_, err = h.Do(ctx, http.MethodGet, http.Header{"Accept": {"text/event-stream"}}, nil)
	require.NoError(t, err)
	_, err = h.Do(ctx, http.MethodDelete, nil, nil)
	require.NoError(t, err)
	out := request(3, "ping", nil)
	out.Header, out.Omit = LegacyHeaders(v), WithoutSession
	_, err = h.Send(ctx, out)
	require.NoError(t, err)
	_, err = h.DoOmit(ctx, http.MethodGet, nil, WithoutSession, nil)
	require.NoError(t, err)
	wrong := request(4, "ping", nil)
	wrong.Header = http.Header{"Mcp-Session-Id": {"not-mine"}, "Mcp-Protocol-Version": {"1999-01-01"}}
	_, err = h.Send(ctx, wrong)
	require.NoError(t, err)

	other := h.Fresh()
	_, _ = other.Send(ctx, Request{Raw: InitializeRequest(5, v), ID: json.RawMessage("5"), Method: "initialize", Header: http.Header{"X-Fail": {"1"}}})
	assert.False(t, other.Session().Open, "a failed initialize opens no session")
	_, err = other.Send(ctx, request(6, "ping", nil))
	require.NoError(t, err)

	assert.Equal(t, []seen{
		{"POST initialize", "", ""},
		{"POST tools/list", "sess-9", v},
		{"POST malformed", "sess-9", v},
		{"POST notifications/initialized", "sess-9", v},
		{"GET ", "sess-9", v},
		{"DELETE ", "sess-9", v},
		{"POST ping", "", ""},
		{"GET ", "", ""},
		{"POST ping", "not-mine", "1999-01-01"},
		{"POST initialize", "", ""},
		{"POST ping", "", ""},
	}, got)
}

// TestHTTPClientRetiresIdleConnections: the pool never reuses a connection idle long enough
// for a server's keep-alive timer (Node's is 5 s) to close it under a POST, with the
// default transport and with one the caller passes.
func TestHTTPClientRetiresIdleConnections(t *testing.T) {
	for name, base := range map[string]*http.Client{
		"default":   nil,
		"caller's":  {Transport: &http.Transport{IdleConnTimeout: time.Minute}},
		"caller's0": {Transport: &http.Transport{}},
	} {
		t.Run(name, func(t *testing.T) {
			c, own := newHTTPClient(base)
			require.NotNil(t, own)
			assert.Same(t, own, c.Transport)
			assert.Greater(t, own.IdleConnTimeout, time.Duration(0))
			assert.Less(t, own.IdleConnTimeout, 5*time.Second)
		})
	}
}
