package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestAsTaskAddsTheTaskMember: params.task carries the ttl; the call's own params are kept and
// the original call is not modified.
func TestAsTaskAddsTheTaskMember(t *testing.T) {
	s := targetSession(harness.TransportStdio, revisions.LatestLegacy().ID)
	c := s.ToolsCall("test_task_tool", nil, nil)
	req := decodeRequest(t, s.Build(AsTask(c)))
	params := req["params"].(map[string]any)
	assert.Equal(t, "test_task_tool", params["name"])
	assert.Equal(t, map[string]any{"ttl": float64(TaskTTL)}, params["task"])
	assert.NotContains(t, c.Params, "task")
}

// TestRequiredTaskToolsAreNeverCalledPlain: a tool whose taskSupport is "required" is not
// called as a normal request whatever the policy, though the policy allows it.
func TestRequiredTaskToolsAreNeverCalledPlain(t *testing.T) {
	s := policySession(CallAll)
	required := map[string]any{"name": "job", "execution": map[string]any{"taskSupport": "required"}}
	ok, why := s.Opts.MayCall(required)
	assert.False(t, ok)
	assert.Contains(t, why, `"required"`)
	ok, _ = s.Opts.PolicyAllows(required)
	assert.True(t, ok)
	for _, support := range []string{"optional", "forbidden", ""} {
		tool := map[string]any{"name": "job", "execution": map[string]any{"taskSupport": support}}
		ok, _ := s.Opts.MayCall(tool)
		assert.True(t, ok, support)
		assert.Equal(t, support, TaskSupport(tool))
	}
	assert.Equal(t, "", TaskSupport(map[string]any{"name": "plain"}))
}

// TestPollTaskStopsAtATerminalStatus: tasks/get is repeated while the task works and stops at
// the first terminal status or the first reply without a status.
func TestPollTaskStopsAtATerminalStatus(t *testing.T) {
	n := 0
	s, c := scriptSession(func(req map[string]any) any {
		n++
		if n < 3 {
			return map[string]any{"taskId": "t1", "status": "working", "pollInterval": 1}
		}
		return map[string]any{"taskId": "t1", "status": "completed"}
	})
	p, err := s.PollTask(context.Background(), "t1")
	require.NoError(t, err)
	assert.Equal(t, "completed", p.Status)
	assert.Len(t, p.Polls, 3)
	assert.Equal(t, "tasks/get", c.sent[0]["method"])
	assert.Equal(t, "t1", c.sent[0]["params"].(map[string]any)["taskId"])

	s, _ = scriptSession(func(map[string]any) any { return map[string]any{"oops": true} })
	p, err = s.PollTask(context.Background(), "t1")
	require.NoError(t, err)
	assert.Len(t, p.Polls, 1, "a reply without a status is the caller's to judge")
}

// TestPollTaskIsBoundedByTheTimeout: a task that keeps working ends the poll untestable once
// the next wait would pass --timeout.
func TestPollTaskIsBoundedByTheTimeout(t *testing.T) {
	s, _ := scriptSession(func(map[string]any) any {
		return map[string]any{"taskId": "t1", "status": "working", "pollInterval": 40}
	})
	s.Opts.Timeout = 100 * time.Millisecond
	p, err := s.PollTask(context.Background(), "t1")
	var o *Outcome
	require.True(t, errors.As(err, &o), "%v", err)
	assert.Equal(t, reports.Untestable, o.Verdict)
	assert.Contains(t, o.Reason, `still "working"`)
	assert.GreaterOrEqual(t, len(p.Polls), 1)
	assert.LessOrEqual(t, len(p.Polls), 3, "polls every 40 ms within 100 ms")
}
