package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEraProbeNamesTheHTTPStatus: a 401 whose JSON body is no JSON-RPC reply is read as
// legacy (no modern era), and both the probe's reason and initialize's error name the status,
// not only "error is not an object".
func TestEraProbeNamesTheHTTPStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("WWW-Authenticate", "Bearer")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":"unauthorized"}`)
	}))
	defer srv.Close()
	h := newHTTPFor(t, srv, HTTPConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var ids IDs
	p, err := ProbeModern(ctx, h, &ids, 5*time.Second)
	require.NoError(t, err)
	require.False(t, p.Modern)
	require.True(t, strings.HasPrefix(p.Reason, "HTTP 401: "), p.Reason)
	_, err = Initialize(ctx, h, &ids, "2025-11-25")
	require.ErrorContains(t, err, "HTTP 401")
}

// TestRefusedConnectionSaysTheURLOnce: a connection refused names the method and URL once
// (it read `POST http://…/mcp: Post "http://…/mcp": dial tcp …`).
func TestRefusedConnectionSaysTheURLOnce(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	h := newHTTPFor(t, srv, HTTPConfig{})
	srv.Close() // nothing listens on its port any more
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ex, err := h.Send(ctx, Request{ID: json.RawMessage(`1`), Method: "ping", Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	if err == nil && ex != nil {
		err = ex.Err
	}
	require.Error(t, err)
	require.Equal(t, 1, strings.Count(err.Error(), srv.URL), err.Error())
	require.Contains(t, err.Error(), "POST "+srv.URL)
}
