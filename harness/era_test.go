package harness

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replyTransport is a stdio-like Transport whose every request is answered with one line: the
// reply with its "id":1 replaced by the request's id.
type replyTransport struct{ reply string }

func (r replyTransport) Name() string { return TransportStdio }
func (r replyTransport) Conn() int    { return 1 }
func (r replyTransport) Close() error { return nil }
func (r replyTransport) Send(ctx context.Context, req Request) (*Exchange, error) {
	body := strings.Replace(r.reply, `"id":1`, `"id":`+string(req.ID), 1)
	return &Exchange{Sent: &Frame{Raw: req.Raw}, Response: &Frame{Raw: []byte(body)}}, nil
}

// TestProbeModernAnswers: each kind of answer to the server/discover probe, on stdio, is
// classified as the stdio page's Backward Compatibility section says: a DiscoverResult or a
// recognised modern error (-32020, -32021, -32022 with data.supported) is modern; any other
// error (the legacy -32601 and -32602 included) and a reply that is no JSON-RPC response are
// legacy.
func TestProbeModernAnswers(t *testing.T) {
	for _, c := range []struct {
		name, reply string
		modern      bool
		supported   []string
		result      bool
		reason      string
	}{
		{"discover result", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`, true, []string{"2026-07-28", "2025-11-25"}, true, "DiscoverResult"},
		{"result without supportedVersions", `{"jsonrpc":"2.0","id":1,"result":{"capabilities":{}}}`, false, nil, false, "without supportedVersions"},
		{"header mismatch -32020", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"x"}}`, true, nil, false, "modern error -32020"},
		{"missing client capability -32021", `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"x","data":{"requiredCapabilities":{}}}}`, true, nil, false, "modern error -32021"},
		{"unsupported version -32022", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`, true, []string{"2026-07-28"}, false, "-32022"},
		{"-32022 without data.supported", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x"}}`, false, nil, false, "without data.supported"},
		{"legacy method not found -32601", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, false, nil, false, "error -32601"},
		{"legacy invalid params -32602", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"not initialized"}}`, false, nil, false, "error -32602"},
		{"other error -32000", `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"server not initialized"}}`, false, nil, false, "error -32000"},
		{"error code 0", `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"x"}}`, false, nil, false, "error 0"},
		{"not JSON", `hello, world`, false, nil, false, "not a JSON-RPC response"},
		{"JSON but not JSON-RPC", `{"hello":"world"}`, false, nil, false, "not a JSON-RPC response"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ids IDs
			p, err := ProbeModern(withTimeout(t, 5*time.Second), replyTransport{c.reply}, &ids, time.Second)
			require.NoError(t, err)
			assert.Equal(t, c.modern, p.Modern, p.Reason)
			assert.Equal(t, c.supported, p.Supported)
			assert.Equal(t, c.result, p.Result != nil, "DiscoverResult kept")
			assert.Contains(t, p.Reason, c.reason)
		})
	}
}

// TestProbeDiscoverAsksTheGivenVersion: the probe's _meta names the version asked for.
func TestProbeDiscoverAsksTheGivenVersion(t *testing.T) {
	var sent []byte
	tr := captureTransport{replyTransport{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`}, &sent}
	var ids IDs
	_, err := ProbeDiscover(withTimeout(t, 5*time.Second), tr, &ids, "2099-01-01", time.Second)
	require.NoError(t, err)
	var m struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(sent, &m))
	assert.Equal(t, "2099-01-01", m.Params.Meta[MetaProtocolVersion])
}

type captureTransport struct {
	replyTransport
	sent *[]byte
}

func (c captureTransport) Send(ctx context.Context, req Request) (*Exchange, error) {
	*c.sent = req.Raw
	return c.replyTransport.Send(ctx, req)
}

// TestProbeModernSilence: a server that answers nothing is legacy once the startup window has
// passed, but a run that ends before the window passed (interrupt, run timeout) is an error,
// never a legacy reading; a server that exits is an error too.
func TestProbeModernSilence(t *testing.T) {
	t.Run("window passed", func(t *testing.T) {
		s := startHostile(t, stdioOpts{grace: 100 * time.Millisecond}, "never-answers")
		var ids IDs
		began := time.Now()
		p, err := ProbeModern(withTimeout(t, 10*time.Second), s, &ids, 300*time.Millisecond)
		require.NoError(t, err)
		assert.False(t, p.Modern)
		assert.Contains(t, p.Reason, "within the startup window")
		assert.Less(t, time.Since(began), 5*time.Second, "the window, not the parent, bounded the wait")
	})
	t.Run("run ended before the window", func(t *testing.T) {
		s := startHostile(t, stdioOpts{grace: 100 * time.Millisecond}, "never-answers")
		var ids IDs
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		p, err := ProbeModern(ctx, s, &ids, time.Minute)
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
		assert.Contains(t, err.Error(), "before the startup window")
		assert.False(t, p.Modern)
	})
	t.Run("process exits", func(t *testing.T) {
		s := startHostile(t, stdioOpts{grace: 100 * time.Millisecond}, "exits-at-once")
		var ids IDs
		_, err := ProbeModern(withTimeout(t, 10*time.Second), s, &ids, 5*time.Second)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "era probe")
	})
}

// TestProbeModernHTTPStatuses: over Streamable HTTP a 400 whose body is a recognised modern
// error means modern; any other non-2xx reply (a 400 with another error, 404, 405, 401, a 500
// without JSON) means legacy, its reason naming the status (streamable-http#Backward
// Compatibility).
func TestProbeModernHTTPStatuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		ct     string
		body   string
		modern bool
		reason string
	}{
		{"200 DiscoverResult", 200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"resultType":"complete","ttlMs":0,"cacheScope":"public"}}`, true, "DiscoverResult"},
		{"400 UnsupportedProtocolVersion", 400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`, true, "-32022"},
		{"400 HeaderMismatch", 400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"x"}}`, true, "-32020"},
		{"400 legacy error", 400, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Bad Request: no session"}}`, false, "HTTP 400: server/discover returned error -32600"},
		{"400 empty", 400, "", ``, false, "HTTP 400"},
		{"404", 404, "text/plain", `not found`, false, "HTTP 404"},
		{"405", 405, "", ``, false, "HTTP 405"},
		{"401", 401, "application/json", `{"error":"unauthorized"}`, false, "HTTP 401"},
		{"500 not JSON", 500, "text/html", `<html>oops</html>`, false, "HTTP 500"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				id := requestID(t, r)
				if c.ct != "" {
					w.Header().Set("Content-Type", c.ct)
				}
				w.WriteHeader(c.status)
				io.WriteString(w, strings.Replace(c.body, `"id":1`, `"id":`+id, 1))
			}))
			defer srv.Close()
			h := newHTTPFor(t, srv, HTTPConfig{})
			var ids IDs
			p, err := ProbeModern(withTimeout(t, 10*time.Second), h, &ids, 5*time.Second)
			require.NoError(t, err)
			assert.Equal(t, c.modern, p.Modern, p.Reason)
			assert.Contains(t, p.Reason, c.reason)
		})
	}
}
