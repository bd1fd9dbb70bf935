package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// Tasks of the handshake era (2025-11-25 basic/utilities/tasks): the task-augmented request,
// and the poll of tasks/get to a terminal status.

// TaskTTL is the ttl, in milliseconds, the suite asks for in a task-augmented request
// (#Creating Tasks).
const TaskTTL = 60000

// pollBounds bound the wait between two polls of tasks/get: the server's pollInterval
// (#Getting Tasks: requestors SHOULD respect it), at least pollFloor, at most pollCeil.
const (
	pollFloor = 10 * time.Millisecond
	pollCeil  = time.Second
)

// AsTask returns c, a request, augmented with a task: params.task with ttl TaskTTL.
func AsTask(c Call) Call {
	p := make(map[string]any, len(c.Params)+1)
	for k, v := range c.Params {
		p[k] = v
	}
	p["task"] = map[string]any{"ttl": TaskTTL}
	c.Params = p
	return c
}

// TaskSupport returns a tools/list entry's execution.taskSupport, "" when absent (which means
// "forbidden", #Tool-Level Negotiation).
func TaskSupport(tool map[string]any) string {
	ex, _ := tool["execution"].(map[string]any)
	s, _ := ex["taskSupport"].(string)
	return s
}

// SendTaskRequest sends method (tasks/get, tasks/result, tasks/cancel) for taskID.
func (w *Session) SendTaskRequest(ctx context.Context, method, taskID string) error {
	return w.Send(ctx, w.Build(Call{Method: method, Params: map[string]any{"taskId": taskID}}))
}

// TaskPoll is the outcome of PollTask: every tasks/get exchange, in order, and the status of
// the last one that had one.
type TaskPoll struct {
	Polls  []*harness.Exchange
	Status string
}

// PollTask sends tasks/get for taskID until the status is terminal (completed, failed or
// cancelled), waiting the server's pollInterval between polls (bounded by pollFloor and
// pollCeil). It stops at the first reply that is not a result with a string status (the
// caller judges it) and returns an untestable Outcome when the task is not terminal within
// --timeout of the first poll.
func (w *Session) PollTask(ctx context.Context, taskID string) (*TaskPoll, error) {
	out := &TaskPoll{}
	deadline := time.Now().Add(w.Opts.Timeout)
	for {
		if err := w.SendTaskRequest(ctx, "tasks/get", taskID); err != nil {
			return out, err
		}
		out.Polls = append(out.Polls, w.Last)
		msg := ResponseOf(w.Last)
		if msg == nil || msg.Kind != harness.KindResult {
			return out, nil
		}
		var t struct {
			Status       string `json:"status"`
			PollInterval *int64 `json:"pollInterval"`
		}
		if json.Unmarshal(msg.Result, &t) != nil || t.Status == "" {
			return out, nil
		}
		out.Status = t.Status
		if t.Status == "completed" || t.Status == "failed" || t.Status == "cancelled" {
			return out, nil
		}
		wait := pollFloor
		if t.PollInterval != nil {
			wait = min(max(time.Duration(*t.PollInterval)*time.Millisecond, pollFloor), pollCeil)
		}
		if time.Now().Add(wait).After(deadline) {
			return out, skip(reports.Untestable, fmt.Sprintf("task %s was still %q after %d polls of tasks/get within --timeout (%s); a longer --timeout may let it finish", taskID, t.Status, len(out.Polls), w.Opts.Timeout))
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return out, ctx.Err()
		case <-timer.C:
		}
	}
}
