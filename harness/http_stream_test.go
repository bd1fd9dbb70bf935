package harness

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenStreamHoldsAnSSEStreamUntilClosed(t *testing.T) {
	more := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))
		assert.Equal(t, "7", r.Header.Get("Last-Event-ID"))
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "id: a1\nretry: 500\ndata:\n\n")
		w.(http.Flusher).Flush()
		<-more
		_, _ = io.WriteString(w, "id: a2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	h, err := NewHTTP(HTTPConfig{URL: srv.URL, QuietWindow: 50 * time.Millisecond})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s := h.OpenStream(ctx, http.MethodGet, http.Header{"Accept": {"text/event-stream"}, "Last-Event-ID": {"7"}}, nil, nil)
	meta := s.Head(ctx)
	require.NotNil(t, meta)
	assert.Equal(t, http.StatusOK, meta.Status)
	first := s.Wait(ctx, func(f *Frame) bool { return f.SSE != nil && f.SSE.HasID })
	require.NotNil(t, first)
	assert.Equal(t, "a1", first.SSE.ID)
	assert.Equal(t, 500, first.SSE.Retry)
	close(more)
	second := s.Wait(ctx, func(f *Frame) bool { return f.Method == "notifications/message" })
	require.NotNil(t, second, "a frame arriving after the first is seen too")
	ex, info := s.Close()
	assert.Equal(t, EndQuiet, info.End, "the client closed the stream the server held open")
	assert.Len(t, ex.Frames, 2)
	assert.Len(t, s.Frames(), 2)
	ex2, _ := s.Close()
	assert.Same(t, ex, ex2)
}

func TestOpenStreamReadsA405ToItsEnd(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", "POST")
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}))
	defer srv.Close()
	h, err := NewHTTP(HTTPConfig{URL: srv.URL})
	require.NoError(t, err)
	s := h.OpenStream(context.Background(), http.MethodGet, nil, nil, nil)
	require.Equal(t, http.StatusMethodNotAllowed, s.Head(context.Background()).Status)
	assert.Nil(t, s.Wait(context.Background(), func(*Frame) bool { return false }), "the ended stream ends Wait")
	ex, info := s.Close()
	assert.Equal(t, EndEOF, info.End)
	assert.Equal(t, http.StatusMethodNotAllowed, ex.HTTP.Status)
}

func TestStreamDropEndsTheReadingAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "id: 1-1\ndata:\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	h, err := NewHTTP(HTTPConfig{URL: srv.URL, QuietWindow: time.Hour})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s := h.OpenStream(ctx, http.MethodPost, http.Header{"Content-Type": {"application/json"}}, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NotNil(t, s.Wait(ctx, func(f *Frame) bool { return f.SSE != nil && f.SSE.HasID }))
	ex, info := s.Drop()
	assert.Equal(t, EndContext, info.End, "dropped, not concluded after the (hour-long) quiet window")
	assert.Nil(t, ex.Response)
	ex2, _ := s.Close()
	assert.Same(t, ex, ex2)
}
