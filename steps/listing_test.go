package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// pager is a fake connection whose list method answers page n with one item and the cursor
// next(n) ("" ends the list).
type pager struct {
	seq  atomic.Int64
	next func(n int) string
}

func (p *pager) Name() string { return "fake" }
func (p *pager) Conn() int    { return 1 }
func (p *pager) Close() error { return nil }
func (p *pager) Send(_ context.Context, req harness.Request) (*harness.Exchange, error) {
	var r struct {
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	_ = json.Unmarshal(req.Raw, &r)
	n := 1
	if r.Params.Cursor != "" {
		_, _ = fmt.Sscanf(r.Params.Cursor, "c%d", &n)
	}
	result := map[string]any{"resultType": "complete", "tools": []any{map[string]any{"name": fmt.Sprintf("t%d", n)}}}
	if c := p.next(n); c != "" {
		result["nextCursor"] = c
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(req.ID), "result": result})
	sent := &harness.Frame{Seq: int(p.seq.Add(1)), Dir: harness.DirClientToServer, Raw: req.Raw, Method: req.Method}
	resp := &harness.Frame{Seq: int(p.seq.Add(1)), Dir: harness.DirServerToClient, Raw: raw, Method: req.Method}
	return &harness.Exchange{Sent: sent, Frames: []*harness.Frame{resp}, Response: resp}, nil
}

func pagerWorld(next func(int) string) *World {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	w.Opts.Timeout = time.Second
	w.Conn = client.Wrap(&pager{next: next})
	return w
}

// A list longer than 100 pages is followed to its end (the spec sets no page limit); one that
// never ends is untestable at the suite's cap, never a failure; a repeated cursor is a loop.
func TestListAllPageLimits(t *testing.T) {
	lt, err := pagerWorld(func(n int) string {
		if n < 150 {
			return fmt.Sprintf("c%d", n+1)
		}
		return ""
	}).ListAll(context.Background(), "tools/list", "tools")
	require.NoError(t, err)
	require.Equal(t, 150, lt.Pages)

	_, err = pagerWorld(func(n int) string { return fmt.Sprintf("c%d", n+1) }).ListAll(context.Background(), "tools/list", "tools")
	var m *client.Mismatch
	require.ErrorAs(t, err, &m)
	require.Equal(t, reports.Untestable, m.Grade, "%v", m)

	_, err = pagerWorld(func(n int) string { return "c2" }).ListAll(context.Background(), "tools/list", "tools")
	require.ErrorAs(t, err, &m)
	require.Empty(t, m.Grade, "a repeated cursor is a failure at the rule's level")
}

// MSG-009 needs a response to judge: silence (or an HTTP error without a JSON-RPC body) is no
// evidence, so the case is na, never a pass.
func TestMSG009WithoutAResponseIsNoPass(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	w.Last = &harness.Exchange{Sent: &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0",`)}}
	require.ErrorIs(t, responseHasNoNullID(context.Background(), w), ErrSkip)
	require.Equal(t, reports.NA, w.Skip.Verdict)

	w = clientWorld(harness.TransportStdio, revisions.Modern().ID)
	w.Last = &harness.Exchange{Sent: &harness.Frame{Seq: 1}, Response: &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)}}
	require.NoError(t, responseHasNoNullID(context.Background(), w))
}

// STDIO-008 and STDIO-010 need a tool list change to have been triggered: without the fixture
// tool (or when its call fails) they are untestable, never passed on silence; a response to
// the cancelled request still fails STDIO-008, trigger or not.
func TestSubscriptionRulesNeedATrigger(t *testing.T) {
	w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
	require.Equal(t, "the scenario triggered no tool list change", stdioOf(w).untriggered)
	stdioOf(w).untriggered = `no tool list change could be triggered: the fixture tool "test_trigger_tool_change" got error -32602 (Unknown tool)`
	stdioOf(w).listens = []*openListen{{id: []byte(`"listen-1"`)}}
	stdioOf(w).cancelFrame = -1
	stdio, err := harness.StartStdio(context.Background(), harness.StdioConfig{Argv: []string{"true"}, Recorder: harness.NewRecorder(time.Now())})
	require.NoError(t, err)
	t.Cleanup(func() { _ = stdio.Close() })
	w.Conn = client.Wrap(stdio)
	require.ErrorIs(t, stdioOf(w).expectNothingAfterCancel(w), ErrSkip)
	require.Equal(t, reports.Untestable, w.Skip.Verdict)
	require.Contains(t, w.Skip.Reason, "test_trigger_tool_change")
}

// MSG-014/MSG-015 grade by the party at fault: silence on stdio (the suite wrote what a stdio
// client must not write) and a 4xx without JSON-RPC over HTTP are warnings; a 2xx without an
// error, and a wrong answer, fail.
func TestMalformedInputGrading(t *testing.T) {
	sent := &harness.Frame{Seq: 1, Raw: []byte(`{"jsonrpc":"2.0",`)}
	cases := []struct {
		name  string
		ex    *harness.Exchange
		grade reports.Verdict
		ok    bool
	}{
		{"stdio silence", &harness.Exchange{Sent: sent}, reports.Warn, false},
		{"http 400 text/plain", &harness.Exchange{Sent: sent, HTTP: &harness.HTTPMeta{Status: 400}}, reports.Warn, false},
		{"http 200 without error", &harness.Exchange{Sent: sent, HTTP: &harness.HTTPMeta{Status: 200}}, "", false},
		{"wrong code", &harness.Exchange{Sent: sent, Response: &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`)}}, "", false},
		{"parse error", &harness.Exchange{Sent: sent, Response: &harness.Frame{Seq: 2, Raw: []byte(`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`)}}, "", true},
	}
	for _, tc := range cases {
		w := clientWorld(harness.TransportStdio, revisions.Modern().ID)
		w.Last = tc.ex
		err := w.expectMalformedAnswered(-32700)
		if tc.ok {
			require.NoError(t, err, tc.name)
			continue
		}
		var m *client.Mismatch
		require.ErrorAs(t, err, &m, tc.name)
		require.Equal(t, tc.grade, m.Grade, tc.name)
	}
}
