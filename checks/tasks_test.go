package checks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// taskEx is an exchange whose request is method and whose reply is the JSON-RPC response
// resp ("" for none), with frames seq and seq+1.
func taskEx(seq int, method, resp string) *harness.Exchange {
	ex := &harness.Exchange{Sent: &harness.Frame{Seq: seq, Method: method, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `"}`)}}
	if resp != "" {
		ex.Response = &harness.Frame{Seq: seq + 1, Raw: []byte(resp)}
		ex.Frames = []*harness.Frame{ex.Response}
	}
	return ex
}

func taskJSON(id, status string, extra string) string {
	return `{"taskId":"` + id + `","status":"` + status + `","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00.5+01:00"` + extra + `}`
}

func resultOf(body string) string { return `{"jsonrpc":"2.0","id":1,"result":` + body + `}` }

func errorOf(code string) string {
	return `{"jsonrpc":"2.0","id":1,"error":{"code":` + code + `,"message":"m"}}`
}

// TestTaskProblem: a well-formed task passes (ttl a number or null when asked for); a missing
// or empty id, an unknown status, a non-RFC 3339 time and a missing ttl are named.
func TestTaskProblem(t *testing.T) {
	id, st, p := TaskProblem(json.RawMessage(taskJSON("a", "working", `,"ttl":null`)), true)
	assert.Equal(t, []string{"a", "working", ""}, []string{id, st, p})
	_, _, p = TaskProblem(json.RawMessage(taskJSON("a", "working", "")), false)
	assert.Empty(t, p, "ttl is asked of tasks/get only")
	for raw, want := range map[string]string{
		taskJSON("a", "working", ""):            "ttl (missing)",
		taskJSON("", "working", `,"ttl":1`):     "taskId",
		`{"taskId":7,"status":"working"}`:       "taskId 7",
		taskJSON("a", "done", `,"ttl":1`):       `status "done"`,
		taskJSON("a", "working", `,"ttl":"1m"`): `ttl "1m"`,
		strings.Replace(taskJSON("a", "working", `,"ttl":1`), "2025-11-25T10:30:00Z", "Tue Nov 25 10:30:00 2025", 1): "createdAt",
	} {
		_, _, p := TaskProblem(json.RawMessage(raw), true)
		assert.Contains(t, p, want, raw)
	}
}

// TestTaskTransition: a terminal status never changes; working and input_required move freely.
func TestTaskTransition(t *testing.T) {
	assert.True(t, TaskTransition("working", "completed"))
	assert.True(t, TaskTransition("input_required", "working"))
	assert.True(t, TaskTransition("completed", "completed"))
	assert.False(t, TaskTransition("completed", "working"))
	assert.False(t, TaskTransition("cancelled", "completed"))
}

// TestTaskSupportRefusals: the required call's defect first, then the forbidden one's as a
// warning; without the required call, a refused forbidden call leaves the rule unjudged.
func TestTaskSupportRefusals(t *testing.T) {
	refused, served := taskEx(1, "tools/call", errorOf("-32601")), taskEx(2, "tools/call", resultOf(`{"content":[]}`))
	m, judged := TaskSupportRefusals(refused, refused)
	assert.Nil(t, m)
	assert.True(t, judged)
	m, _ = TaskSupportRefusals(served, served)
	require.NotNil(t, m)
	assert.Empty(t, m.Grade, "the required call's MUST comes first")
	m, judged = TaskSupportRefusals(nil, served)
	require.NotNil(t, m)
	assert.Equal(t, reports.Warn, m.Grade)
	assert.True(t, judged)
	m, judged = TaskSupportRefusals(nil, refused)
	assert.Nil(t, m)
	assert.False(t, judged)
}

// TestTaskRefusal: -32601 passes; a result or another code fails at the grade asked.
func TestTaskRefusal(t *testing.T) {
	assert.Nil(t, TaskRefusal(taskEx(1, "tools/call", errorOf("-32601")), "x", ""))
	m := TaskRefusal(taskEx(1, "tools/call", resultOf(`{"content":[]}`)), "x", reports.Warn)
	require.NotNil(t, m)
	assert.Equal(t, reports.Warn, m.Grade)
	assert.Equal(t, []int{1, 2}, m.Frames)
	assert.NotNil(t, TaskRefusal(taskEx(1, "tools/call", errorOf("-32600")), "x", ""))
}

// TestCreatedTask: a CreateTaskResult with a working task gives its id; an error is
// untestable; a plain tool result or a task that is not working is a mismatch.
func TestCreatedTask(t *testing.T) {
	id, why, m := CreatedTask(taskEx(1, "tools/call", resultOf(`{"task":`+taskJSON("t1", "working", `,"ttl":1`)+`}`)))
	assert.Equal(t, "t1", id)
	assert.Empty(t, why)
	assert.Nil(t, m)
	_, why, m = CreatedTask(taskEx(1, "tools/call", errorOf("-32601")))
	assert.Contains(t, why, "error -32601")
	assert.Nil(t, m)
	_, _, m = CreatedTask(taskEx(1, "tools/call", resultOf(`{"content":[{"type":"text","text":"hi"}]}`)))
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "CreateTaskResult")
	_, _, m = CreatedTask(taskEx(1, "tools/call", resultOf(`{"task":`+taskJSON("t1", "completed", "")+`}`)))
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "begins working")
}

// TestTaskLifecycle: working then completed twice passes; a terminal status that changes, a
// reused id, a missing ttl or a refused tasks/get fail.
func TestTaskLifecycle(t *testing.T) {
	get := func(seq int, status, extra string) *harness.Exchange {
		return taskEx(seq, "tasks/get", resultOf(taskJSON("t1", status, extra)))
	}
	ttl := `,"ttl":60000,"pollInterval":50`
	assert.Nil(t, TaskLifecycle([]string{"t1", "t2"}, []*harness.Exchange{get(1, "working", ttl), get(3, "completed", ttl), get(5, "completed", ttl)}))
	m := TaskLifecycle([]string{"t1", "t2"}, []*harness.Exchange{get(1, "completed", ttl), get(3, "working", ttl)})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, `from "completed" to "working"`)
	assert.Equal(t, []int{3, 4}, m.Frames)
	assert.NotNil(t, TaskLifecycle([]string{"t1", "t1"}, nil), "ids must be unique")
	assert.NotNil(t, TaskLifecycle([]string{"t1"}, []*harness.Exchange{get(1, "working", "")}), "ttl missing")
	assert.NotNil(t, TaskLifecycle([]string{"t1"}, []*harness.Exchange{taskEx(1, "tasks/get", errorOf("-32602"))}))
	assert.NotNil(t, TaskLifecycle([]string{"t1"}, []*harness.Exchange{taskEx(1, "tasks/get", resultOf(taskJSON("t9", "working", ttl)))}), "another task")
}

// TestTaskResult: the tool's result with the related-task _meta, once terminal, passes, also
// with another text; a missing _meta, an early answer, another shape or an error where the
// plain call succeeds fail; an error with nothing to compare is untestable.
func TestTaskResult(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}`
	res := taskEx(1, "tasks/result", resultOf(`{"content":[{"type":"text","text":"a"}],`+meta+`}`))
	done := taskEx(3, "tasks/get", resultOf(taskJSON("t1", "completed", `,"ttl":1`)))
	plain := taskEx(5, "tools/call", resultOf(`{"content":[{"type":"text","text":"b"}],"isError":false}`))
	why, m := TaskResult("t1", res, done, plain)
	assert.Empty(t, why)
	assert.Nil(t, m)
	_, m = TaskResult("t1", res, done, nil)
	assert.Nil(t, m, "a required tool has no plain call to compare")

	_, m = TaskResult("t1", taskEx(1, "tasks/result", resultOf(`{"content":[{"type":"text","text":"a"}]}`)), done, plain)
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "io.modelcontextprotocol/related-task")
	_, m = TaskResult("t2", res, done, plain)
	assert.NotNil(t, m, "the _meta names another task")
	_, m = TaskResult("t1", res, taskEx(3, "tasks/get", resultOf(taskJSON("t1", "working", `,"ttl":1`))), plain)
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "once the task is terminal")
	_, m = TaskResult("t1", taskEx(1, "tasks/result", resultOf(`{"content":[{"type":"image","data":"","mimeType":"image/png"}],`+meta+`}`)), done, plain)
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "content of types [image]")
	_, m = TaskResult("t1", taskEx(1, "tasks/result", errorOf("-32603")), done, plain)
	assert.NotNil(t, m)
	why, m = TaskResult("t1", taskEx(1, "tasks/result", errorOf("-32603")), done, nil)
	assert.Contains(t, why, "cannot be called without a task")
	assert.Nil(t, m)
	_, m = TaskResult("t1", taskEx(1, "tasks/result", errorOf("-32603")), done, taskEx(5, "tools/call", errorOf("-32603")))
	assert.Nil(t, m, "the same error as the plain call")
	why, _ = TaskResult("t1", taskEx(1, "tasks/result", ""), done, plain)
	assert.Contains(t, why, "within --timeout")
}

// TestUnknownTask: -32602 for each passes; a result or another code fails.
func TestUnknownTask(t *testing.T) {
	ok := []*harness.Exchange{taskEx(1, "tasks/get", errorOf("-32602")), taskEx(3, "tasks/cancel", errorOf("-32602"))}
	assert.Nil(t, UnknownTask(ok))
	m := UnknownTask(append(ok, taskEx(5, "tasks/result", errorOf("-32601"))))
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "tasks/result")
}

// TestTaskCancel: a cancel that works, then -32602, passes; so does a first -32602 for a task
// already completed; a second cancel accepted, a task that leaves cancelled, or a first
// -32602 for a working task fail.
func TestTaskCancel(t *testing.T) {
	cancelled := taskEx(1, "tasks/cancel", resultOf(taskJSON("t1", "cancelled", `,"ttl":1`)))
	getC := taskEx(3, "tasks/get", resultOf(taskJSON("t1", "cancelled", `,"ttl":1`)))
	refused := taskEx(5, "tasks/cancel", errorOf("-32602"))
	assert.Nil(t, TaskCancel(cancelled, getC, refused, getC))
	getDone := taskEx(3, "tasks/get", resultOf(taskJSON("t1", "completed", `,"ttl":1`)))
	assert.Nil(t, TaskCancel(taskEx(1, "tasks/cancel", errorOf("-32602")), getDone, refused, getDone))

	m := TaskCancel(cancelled, getC, taskEx(5, "tasks/cancel", resultOf(taskJSON("t1", "cancelled", ""))), getC)
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "terminal status")
	m = TaskCancel(cancelled, getC, refused, getDone)
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "stay cancelled")
	getW := taskEx(3, "tasks/get", resultOf(taskJSON("t1", "working", `,"ttl":1`)))
	assert.NotNil(t, TaskCancel(taskEx(1, "tasks/cancel", errorOf("-32602")), getW, refused, getW))
	assert.NotNil(t, TaskCancel(taskEx(1, "tasks/cancel", resultOf(taskJSON("t1", "working", ""))), getC, refused, getC))
	assert.NotNil(t, TaskCancel(taskEx(1, "tasks/cancel", errorOf("-32601")), getC, refused, getC))
}

// TestTasksListed: every created task listed passes, among others; one missing fails.
func TestTasksListed(t *testing.T) {
	assert.Nil(t, TasksListed([]string{"a", "b"}, []string{"x", "b", "a"}, nil))
	m := TasksListed([]string{"a", "b", "c"}, []string{"a", "b"}, []int{4})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "1 of 3 tasks missing (c)")
	assert.Equal(t, []int{4}, m.Frames)
}

// TestPickTool: the first support value wins over the second, fixture names over others, and
// the reasons tools were passed over are named.
func TestPickTool(t *testing.T) {
	tool := func(name, support string) map[string]any {
		m := map[string]any{"name": name}
		if support != "" {
			m["execution"] = map[string]any{"taskSupport": support}
		}
		return m
	}
	tools := []map[string]any{tool("deploy", "optional"), tool("plain", ""), tool("fx_req", "required"), tool("fx_opt", "optional")}
	all := func(map[string]any) (bool, string) { return true, "" }
	got, _ := PickTool(tools, []string{"optional", "required"}, []string{"fx_opt", "fx_req"}, all)
	assert.Equal(t, "fx_opt", got["name"])
	got, _ = PickTool(tools, []string{"forbidden", ""}, nil, all)
	assert.Equal(t, "plain", got["name"])
	fixturesOnly := func(m map[string]any) (bool, string) {
		if strings.HasPrefix(m["name"].(string), "fx_") {
			return true, ""
		}
		return false, "tool " + m["name"].(string) + " is not a fixture tool"
	}
	got, why := PickTool(tools, []string{"forbidden", ""}, nil, fixturesOnly)
	assert.Nil(t, got)
	assert.Contains(t, why, `"forbidden" or absent`)
	assert.Contains(t, why, "tool plain is not a fixture tool")
}

// TestTaskCapability reads nested members of the tasks capability.
func TestTaskCapability(t *testing.T) {
	caps := map[string]json.RawMessage{"tasks": json.RawMessage(`{"list":{},"requests":{"tools":{"call":{}}}}`)}
	assert.True(t, TaskCapability(caps, "list"))
	assert.True(t, TaskCapability(caps, "requests.tools.call"))
	assert.False(t, TaskCapability(caps, "cancel"))
	assert.False(t, TaskCapability(caps, "requests.sampling.createMessage"))
	assert.False(t, TaskCapability(nil, "list"))
}
