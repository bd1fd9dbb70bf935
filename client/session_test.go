package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// sessionServer is a legacy Streamable HTTP server with sessions, as SDK 1.x servers are: an
// initialize opens session "s-1", a request without it is refused 400, malformed JSON in the
// session gets -32700. It records the method and session headers of every request.
type sessionServer struct {
	mu   sync.Mutex
	seen []string
}

func (s *sessionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	bad := json.Unmarshal(b, &m) != nil
	what := r.Method + " " + m.Method
	if bad && r.Method == http.MethodPost {
		what = "POST malformed"
	}
	s.mu.Lock()
	s.seen = append(s.seen, fmt.Sprintf("%s sid=%s ver=%s", what, r.Header.Get("Mcp-Session-Id"), r.Header.Get("MCP-Protocol-Version")))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case m.Method == "initialize":
		w.Header().Set("Mcp-Session-Id", "s-1")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, m.ID, revisions.LatestLegacy().ID)
	case r.Header.Get("Mcp-Session-Id") != "s-1":
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`)
	case bad:
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
	case len(m.ID) > 0:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func (s *sessionServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// httpSession is a session on a legacy HTTP target whose connection is a new one to srv.
func httpSession(t *testing.T, srv *httptest.Server) (*Session, *harness.HTTP) {
	t.Helper()
	s := targetSession(harness.TransportHTTP, revisions.LatestLegacy().ID)
	s.Opts.Timeout, s.Opts.QuietWindow = 10*time.Second, 100*time.Millisecond
	h, err := harness.NewHTTP(harness.HTTPConfig{URL: srv.URL, QuietWindow: 100 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	s.Conn, s.Fresh = Wrap(h), true
	return s, h
}

// TestMalformedMessageOnAFreshLegacyHTTPConnectionGoesInASession: MSG-014's malformed body,
// sent on a fresh connection of a legacy HTTP target, goes in a session of its own with both
// session headers, so the server's -32700 is what is judged, not its refusal of a request
// outside any session; and every later request on the connection carries both headers.
func TestMalformedMessageOnAFreshLegacyHTTPConnectionGoesInASession(t *testing.T) {
	srv := httptest.NewServer(&sessionServer{})
	defer srv.Close()
	ss := srv.Config.Handler.(*sessionServer)
	s, h := httpSession(t, srv)
	ctx := context.Background()
	require.NoError(t, s.SendDoc(ctx, `{"jsonrpc":"2.0",`, true, false))
	msg, err := s.ResponseMessage()
	require.NoError(t, err)
	require.Equal(t, harness.KindError, msg.Kind, "the reply judged is the server's answer in the session: %s", Describe(msg))
	require.Equal(t, int64(-32700), msg.Error.Code)
	require.NoError(t, s.Send(ctx, s.Build(Call{Method: "tools/list"})))
	require.NoError(t, s.SendBare(ctx, http.MethodGet))
	v := revisions.LatestLegacy().ID
	require.Equal(t, []string{
		"POST initialize sid= ver=",
		"POST notifications/initialized sid=s-1 ver=" + v,
		"POST malformed sid=s-1 ver=" + v,
		"POST tools/list sid=s-1 ver=" + v,
		"GET  sid=s-1 ver=" + v,
	}, ss.requests())
	require.Equal(t, harness.Session{Open: true, ID: "s-1", Version: v}, h.Session())
}

// TestClientRefusesSessionStateOnASharedConnection: a request that changes session state
// (logging/setLevel, resources/subscribe, subscriptions/listen, initialize, a DELETE of the
// session) is refused on a connection the scenarios share, before anything is sent, and the
// scenario's verdict is error; other requests go, and a connection of the scenario's own takes
// them.
func TestClientRefusesSessionStateOnASharedConnection(t *testing.T) {
	srv := httptest.NewServer(&sessionServer{})
	defer srv.Close()
	ss := srv.Config.Handler.(*sessionServer)
	s, h := httpSession(t, srv)
	ctx := context.Background()
	require.NoError(t, s.OpenOwnSession(ctx))
	h.SetShared()
	before := len(ss.requests())
	for _, m := range []string{"logging/setLevel", "resources/subscribe", "resources/unsubscribe", ListenMethod, "initialize"} {
		err := s.Send(ctx, s.Build(Call{Method: m, Params: map[string]any{"level": "info"}}))
		require.ErrorContains(t, err, m+" changes session state and was refused on the connection the scenarios share", m)
		var mm *Mismatch
		var o *Outcome
		require.False(t, errors.As(err, &mm) || errors.As(err, &o), "a refusal is the suite's error, neither a verdict nor a skip: %v", err)
		require.ErrorContains(t, s.SendStream(ctx, s.Build(Call{Method: m})), "refused", m)
	}
	require.ErrorContains(t, s.SendBare(ctx, http.MethodDelete), "an HTTP DELETE, which ends the session, changes session state and was refused")
	require.Len(t, ss.requests(), before, "nothing refused reached the server")
	require.NoError(t, s.Send(ctx, s.Build(Call{Method: "tools/list"})))
	require.Len(t, ss.requests(), before+1)

	own, _ := httpSession(t, srv)
	require.NoError(t, own.OpenOwnSession(ctx))
	require.NoError(t, own.Send(ctx, own.Build(Call{Method: "logging/setLevel", Params: map[string]any{"level": "info"}})))
	require.True(t, strings.HasPrefix(ss.requests()[len(ss.requests())-1], "POST logging/setLevel sid=s-1"))
}
