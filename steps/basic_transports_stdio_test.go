package steps

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// stdioFrames numbers lines as frames of one stdio connection; a line starting with ">" is
// written by the client, "<" by the server.
func stdioFrames(lines ...string) []*harness.Frame {
	var out []*harness.Frame
	for i, l := range lines {
		dir := harness.DirServerToClient
		if l[0] == '>' {
			dir = harness.DirClientToServer
		}
		out = append(out, &harness.Frame{Seq: i + 1, Dir: dir, Transport: harness.TransportStdio, Conn: 1, Raw: []byte(l[1:])})
	}
	return out
}

func TestUnanswered(t *testing.T) {
	lost, seqs := unanswered(stdioFrames(
		`>{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`>{"jsonrpc":"2.0","id":"1","method":"prompts/list"}`,
		`>{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{}}`,
	))
	assert.Equal(t, []string{`prompts/list (id "1")`}, lost)
	assert.Equal(t, []int{2}, seqs)

	// The sentinel after malformed input is the harness's, not a request the server dropped
	// when it exited on that input.
	frames := stdioFrames(`>{"jsonrpc":"2.0",`, `>{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	frames[1].Sentinel = true
	lost, _ = unanswered(frames)
	assert.Empty(t, lost)
}

// stdioWorld returns a world whose run has one stdio process running script (sh -c).
func stdioWorld(t *testing.T, script string) (*World, *harness.Stdio) {
	t.Helper()
	rec := harness.NewRecorder(time.Now())
	s, err := harness.StartStdio(context.Background(), harness.StdioConfig{Argv: []string{"sh", "-c", script}, Recorder: rec, ShutdownGrace: 500 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	w, e := targetWorld(client.Target{Revision: revisions.Modern().ID, Modern: true}, client.Options{}, client.Wrap(s))
	e.rec = rec
	return w, s
}

func TestStderrIsUTF8(t *testing.T) {
	w, s := stdioWorld(t, `printf 'fine, ünïcode\n' >&2; cat >/dev/null`)
	w.Own = append(w.Own, client.Wrap(s))
	assert.NoError(t, stderrIsUTF8(context.Background(), w))

	w, s = stdioWorld(t, `printf 'bad \377\376 bytes\n' >&2; cat >/dev/null`)
	w.Own = append(w.Own, client.Wrap(s))
	err := stderrIsUTF8(context.Background(), w)
	var m *client.Mismatch
	require.ErrorAs(t, err, &m)
	assert.Contains(t, m.Actual, "not UTF-8")
}

func TestNoLostRequests(t *testing.T) {
	// Exits on its own after reading one request, without answering it.
	w, s := stdioWorld(t, `read l; exit 3`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Send(ctx, harness.Request{Raw: harness.BuildRequest(1, "tools/list", nil), ID: []byte("1"), Method: "tools/list"})
	require.ErrorIs(t, err, harness.ErrServerExited)
	err = noLostRequests(ctx, w)
	var m *client.Mismatch
	require.ErrorAs(t, err, &m)
	assert.Contains(t, m.Actual, "exited (code 3) with 1 request(s) unanswered: tools/list (id 1)")

	// Shut down by the client: not the server ending the session.
	w, s = stdioWorld(t, `cat >/dev/null`)
	require.NoError(t, s.Close())
	assert.NoError(t, noLostRequests(ctx, w))

	// Stdout closed while the process keeps running, past the --timeout bound on its exit.
	w, s = stdioWorld(t, `exec 1>&-; cat >/dev/null`)
	w.Opts.Timeout = 100 * time.Millisecond
	_, err = s.Send(ctx, harness.Request{Raw: harness.BuildRequest(2, "ping", nil), ID: []byte("2"), Method: "ping"})
	require.ErrorIs(t, err, harness.ErrServerExited, "stdout EOF is the connection's end")
	require.True(t, s.IsDead(), "a Send that failed with ErrServerExited sees the connection dead")
	err = noLostRequests(ctx, w)
	require.ErrorAs(t, err, &m)
	assert.Contains(t, m.Actual, "closed its stdout but kept running")
}

func TestIsBatchReply(t *testing.T) {
	assert.True(t, harness.IsBatchReply([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`)))
	assert.True(t, harness.IsBatchReply([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"x"}}]`)))
	for _, junk := range []string{`[]`, `[1]`, `[{"id":1}]`, `{"jsonrpc":"2.0"}`, `starting`, `[{"jsonrpc":"2.0"},"x"]`} {
		assert.False(t, harness.IsBatchReply([]byte(junk)), junk)
	}
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
