package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestSendBatch: at the revision with batches the calls go out as one array (requests with
// ids, the notification without) and the exchange holds a response per request; at a revision
// without batches the scenario is a feature bug and nothing is sent.
func TestSendBatch(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		var in []struct {
			ID json.RawMessage `json:"id"`
		}
		require.NoError(t, json.Unmarshal(got, &in))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"jsonrpc":"2.0","id":`+string(in[1].ID)+`,"result":{}},{"jsonrpc":"2.0","id":`+string(in[0].ID)+`,"result":{}}]`)
	}))
	defer srv.Close()
	rev := revisions.BatchRevisions()[0]
	s := targetSession(harness.TransportHTTP, rev)
	s.Opts.Timeout, s.Opts.QuietWindow = 10*time.Second, 100*time.Millisecond
	h, err := harness.NewHTTP(harness.HTTPConfig{URL: srv.URL, QuietWindow: 100 * time.Millisecond, Batches: revisions.AllowsBatches(rev)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	s.Conn, s.Fresh = Wrap(h), true

	calls := []Call{{Method: "ping"}, {Method: "ping"}, {Method: "notifications/cancelled", Params: map[string]any{"requestId": "x"}, Notification: true}}
	require.NoError(t, s.SendBatch(context.Background(), calls))
	members, ok := harness.ParseBatch(got)
	require.True(t, ok, "%s", got)
	require.Len(t, members, 3)
	assert.Equal(t, harness.KindRequest, members[0].Kind)
	assert.Equal(t, harness.KindNotification, members[2].Kind)
	require.Len(t, s.Last.Responses, 2)
	for i, r := range s.Last.Responses {
		require.NotNil(t, r, "response %d", i)
		m, err := harness.ParseMessage(r.Raw)
		require.NoError(t, err)
		assert.Equal(t, harness.IDKey(members[i].ID), harness.IDKey(m.ID), "in the order of the batch's requests")
		assert.Equal(t, "ping", r.Method)
	}

	got = nil
	s.Target.Revision = revisions.LatestLegacy().ID
	require.Error(t, s.SendBatch(context.Background(), calls))
	assert.Nil(t, got, "nothing sent")
}
