package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTimeoutErrorSaysHowLongItWaited: a request that times out says how long it waited, on
// stdio and on an HTTP SSE stream, and the flag when the caller names it.
func TestTimeoutErrorSaysHowLongItWaited(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		s := startHostile(t, stdioOpts{}, "never-answers")
		_, err := s.Send(withTimeout(t, 300*time.Millisecond), request(4, "tools/list", nil))
		var te *TimeoutError
		require.ErrorAs(t, err, &te)
		// The deadline's own wait, however late a loaded machine wakes the reader after it.
		require.GreaterOrEqual(t, te.Waited, 290*time.Millisecond)
		require.Less(t, te.Waited, 10*time.Second)
		require.Regexp(t, `^no response within \d+ms to tools/list \(id 4\)$`, err.Error())
		te.Flag = "--timeout"
		require.Regexp(t, `^no response within \d+ms \(--timeout\) to tools/list \(id 4\)$`, te.Error())
	})
	t.Run("http sse", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		defer srv.Close()
		h := newHTTPFor(t, srv, HTTPConfig{QuietWindow: 5 * time.Second})
		ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
		defer cancel()
		ex, _ := h.Send(ctx, Request{Raw: BuildRequest(3, "ping", nil), ID: []byte("3"), Method: "ping"})
		var te *TimeoutError
		require.ErrorAs(t, ex.Err, &te)
		require.Regexp(t, `^no response within 1\.\ds to ping \(id 3\) on the SSE stream$`, ex.Err.Error())
	})
	require.Equal(t, "no response within the timeout to x", (&TimeoutError{What: "x", Err: context.DeadlineExceeded}).Error())
}
