package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The checks of 2025-11-25 tasks (basic/utilities/tasks, LFEAT-006..010): each grades the
// exchanges a scenario recorded and returns why it could not judge (untestable) or a Mismatch
// citing the frames.

// codeMethodNotFound and codeInvalidParams are the JSON-RPC codes the tasks page prescribes.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// RelatedTaskKey is the `_meta` key that ties a message to its task (#Related Task Metadata).
const RelatedTaskKey = "io.modelcontextprotocol/related-task"

// taskStatuses are the statuses a task may have (#Task Status).
var taskStatuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

// TerminalTask reports whether status is terminal: completed, failed or cancelled.
func TerminalTask(status string) bool {
	return status == "completed" || status == "failed" || status == "cancelled"
}

// TaskTransition reports whether a task may move from status from to status to (#Task Status
// Lifecycle): staying is always allowed, a terminal status never changes, and input_required
// and working may move to any other status.
func TaskTransition(from, to string) bool {
	return from == to || !TerminalTask(from)
}

// rfc3339 is the date-time of RFC 3339 section 5.6, the format the page links for ISO 8601
// (a space for the "T" is allowed by its note).
var rfc3339 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`)

// taskObject is the part of a Task the checks read.
type taskObject struct {
	TaskID  json.RawMessage `json:"taskId"`
	Status  string          `json:"status"`
	Created json.RawMessage `json:"createdAt"`
	Updated json.RawMessage `json:"lastUpdatedAt"`
	TTL     json.RawMessage `json:"ttl"`
}

// TaskProblem says what is wrong with raw, a Task (#Task ID Requirements, #Task Status, #TTL
// and Resource Management): taskId not a non-empty string, an unknown status, createdAt or
// lastUpdatedAt not an RFC 3339 date-time, and, when needTTL (a tasks/get reply), ttl missing
// or neither a number nor null. It also returns the task's id and status; problem is "" when
// the task is well-formed.
func TaskProblem(raw json.RawMessage, needTTL bool) (id, status, problem string) {
	var t taskObject
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", "", "the task is not an object"
	}
	if json.Unmarshal(t.TaskID, &id) != nil || id == "" {
		return "", "", "taskId " + orMissing(t.TaskID) + " is not a non-empty string"
	}
	status = t.Status
	if !slices.Contains(taskStatuses, status) {
		return id, status, fmt.Sprintf("status %q is not a task status", status)
	}
	for name, v := range map[string]json.RawMessage{"createdAt": t.Created, "lastUpdatedAt": t.Updated} {
		var s string
		if json.Unmarshal(v, &s) != nil || !rfc3339.MatchString(s) {
			return id, status, name + " " + orMissing(v) + " is not an ISO 8601 (RFC 3339) date-time"
		}
	}
	if needTTL {
		ttl := strings.TrimSpace(string(t.TTL))
		var n float64
		if ttl != "null" && json.Unmarshal(t.TTL, &n) != nil {
			return id, status, "ttl " + orMissing(t.TTL) + " is neither a duration nor null"
		}
	}
	return id, status, ""
}

func orMissing(raw json.RawMessage) string {
	if raw == nil {
		return "(missing)"
	}
	return client.Short(raw)
}

// TaskRefusal grades one call of LFEAT-006 (#Tool-Level Negotiation): ex, a tools/call the
// server must refuse with -32601 (what says which), got that error; otherwise a Mismatch of
// grade (reports.Warn for the SHOULD of a forbidden tool called as a task, "" for the MUST).
func TaskRefusal(ex *harness.Exchange, what string, grade reports.Verdict) *client.Mismatch {
	msg := client.ResponseOf(ex)
	if msg != nil && msg.Kind == harness.KindError && msg.Error.Code == codeMethodNotFound {
		return nil
	}
	return &client.Mismatch{Expected: what + " to be refused with -32601 (Method not found)", Actual: client.DescribeExchange(ex), Grade: grade, Frames: ExchangeSeqs(ex)}
}

// TaskSupportRefusals grades LFEAT-006 on its two calls, nil when not made: required, a call
// without a task of a tool whose taskSupport is "required" (MUST), first; then forbidden, a
// task-augmented call of one whose taskSupport is forbidden or absent (SHOULD: a warning).
// judged is false when the required call was not made and nothing else failed: the MUST is
// undecided.
func TaskSupportRefusals(required, forbidden *harness.Exchange) (m *client.Mismatch, judged bool) {
	if required != nil {
		if m := TaskRefusal(required, `a call without a task of a tool whose taskSupport is "required"`, ""); m != nil {
			return m, true
		}
	}
	if forbidden != nil {
		if m := TaskRefusal(forbidden, "a task-augmented call of a tool whose taskSupport is forbidden or absent", reports.Warn); m != nil {
			return m, true
		}
	}
	return nil, required != nil
}

// CreatedTask reads the reply to a task-augmented request: the task's id when it is a
// CreateTaskResult; why (untestable) when the server refused the request with an error; a
// Mismatch when it answered with anything else (#Result Retrieval: a receiver that accepts a
// task-augmented request MUST return a CreateTaskResult) or a malformed task.
func CreatedTask(ex *harness.Exchange) (id, why string, m *client.Mismatch) {
	msg := client.ResponseOf(ex)
	switch {
	case msg == nil:
		return "", "the task-augmented tools/call got " + client.DescribeExchange(ex), nil
	case msg.Kind == harness.KindError:
		return "", "the task-augmented tools/call got " + client.Describe(msg) + ", so no task was created", nil
	}
	var r struct {
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(msg.Result, &r) != nil || r.Task == nil {
		return "", "", &client.Mismatch{Expected: "a CreateTaskResult (a task member) for the task-augmented tools/call", Actual: client.Short(msg.Result), Frames: ExchangeSeqs(ex)}
	}
	id, status, problem := TaskProblem(r.Task, false)
	if problem == "" && status != "working" {
		problem = fmt.Sprintf("the new task's status is %q; a task begins working", status)
	}
	if problem != "" {
		return id, "", &client.Mismatch{Expected: "a new task: a string taskId, status working, ISO 8601 createdAt and lastUpdatedAt", Actual: problem, Frames: ExchangeSeqs(ex)}
	}
	return id, "", nil
}

// TaskLifecycle grades LFEAT-007 (#Task ID Requirements, #Task Status Lifecycle, #TTL and
// Resource Management) on the ids of the tasks created (each read by CreatedTask) and polls,
// the tasks/get exchanges of the first task in order, the last one sent after it was
// terminal: every tasks/get is a well-formed task of that id with a ttl, each status follows
// the last by a valid transition, and no two tasks share an id.
func TaskLifecycle(ids []string, polls []*harness.Exchange) *client.Mismatch {
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			if ids[i] == ids[j] {
				return &client.Mismatch{Expected: "a unique task id for each task", Actual: fmt.Sprintf("two tasks got the id %q", ids[i])}
			}
		}
	}
	prev := "working"
	for _, ex := range polls {
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &client.Mismatch{Expected: "tasks/get of the task the server created to return the task", Actual: client.DescribeExchange(ex), Frames: ExchangeSeqs(ex)}
		}
		id, status, problem := TaskProblem(msg.Result, true)
		switch {
		case problem != "":
		case id != ids[0]:
			problem = fmt.Sprintf("tasks/get for %q returned task %q", ids[0], id)
		case !TaskTransition(prev, status):
			problem = fmt.Sprintf("the task moved from %q to %q; a terminal status never changes", prev, status)
		}
		if problem != "" {
			return &client.Mismatch{Expected: "each tasks/get to return the task with a ttl, ISO 8601 times and a valid status transition", Actual: problem, Frames: ExchangeSeqs(ex)}
		}
		prev = status
	}
	return nil
}

// TaskResult grades LFEAT-008 (#Result Retrieval, #Associating Task-Related Messages): res is
// the tasks/result exchange for task id, sent while the task may still work; after the
// tasks/get sent once res was answered; plain the same tool called as a normal request (nil
// for a tool that must be called as a task). The result carries the related-task `_meta` with
// id, the task was terminal when it came (tasks/result blocks until then), and it has the
// shape of the plain call's result (the same members, isError, and content block types); an
// error is compared with the plain call's error code.
func TaskResult(id string, res, after, plain *harness.Exchange) (why string, m *client.Mismatch) {
	msg := client.ResponseOf(res)
	if msg == nil {
		return "tasks/result got " + client.DescribeExchange(res) + " within --timeout", nil
	}
	plainMsg := client.ResponseOf(plain)
	frames := seqsOf(res, plain)
	if msg.Kind == harness.KindError {
		if plainMsg == nil {
			return "tasks/result answered " + client.Describe(msg) + " and the tool cannot be called without a task to compare", nil
		}
		if plainMsg.Kind != harness.KindError || plainMsg.Error.Code != msg.Error.Code {
			return "", &client.Mismatch{Expected: "tasks/result to return what the call returns without a task (" + client.Describe(plainMsg) + ")", Actual: client.Describe(msg), Frames: frames}
		}
		return "", nil
	}
	var r map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &r)
	var meta map[string]struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(r["_meta"], &meta)
	if rel, ok := meta[RelatedTaskKey]; !ok || rel.TaskID != id {
		return "", &client.Mismatch{Expected: fmt.Sprintf("the tasks/result result to carry _meta %q with taskId %q", RelatedTaskKey, id), Actual: "_meta " + orMissing(r["_meta"]), Frames: ExchangeSeqs(res)}
	}
	if am := client.ResponseOf(after); am != nil && am.Kind == harness.KindResult {
		if _, status, _ := TaskProblem(am.Result, false); status != "" && !TerminalTask(status) {
			return "", &client.Mismatch{Expected: "tasks/result to answer once the task is terminal", Actual: fmt.Sprintf("tasks/get after the result says %q", status), Frames: seqsOf(res, after)}
		}
	}
	if plainMsg == nil {
		return "", nil
	}
	if plainMsg.Kind != harness.KindResult {
		return "", &client.Mismatch{Expected: "tasks/result to return what the call returns without a task (" + client.Describe(plainMsg) + ")", Actual: "a result", Frames: frames}
	}
	if d := resultShapeDiff(plainMsg.Result, msg.Result); d != "" {
		return "", &client.Mismatch{Expected: "tasks/result to return the tool's result as the call without a task does", Actual: d, Frames: frames}
	}
	return "", nil
}

// seqsOf returns the seqs of the frames of exs, skipping nil exchanges.
func seqsOf(exs ...*harness.Exchange) []int {
	var out []int
	for _, ex := range exs {
		if ex != nil {
			out = append(out, ExchangeSeqs(ex)...)
		}
	}
	return out
}

// resultShapeDiff says how the tool result got differs in shape from want: its members
// (`_meta` aside), isError, or the types of its content blocks; "" when alike.
func resultShapeDiff(want, got json.RawMessage) string {
	shape := func(raw json.RawMessage) (members []string, isErr string, types []string) {
		var r map[string]json.RawMessage
		_ = json.Unmarshal(raw, &r)
		for k := range r {
			if k != "_meta" && k != "isError" { // isError is compared as a value, absent = false
				members = append(members, k)
			}
		}
		slices.Sort(members)
		isErr = strings.TrimSpace(string(r["isError"]))
		if isErr == "" {
			isErr = "false"
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(r["content"], &blocks)
		for _, b := range blocks {
			types = append(types, b.Type)
		}
		return members, isErr, types
	}
	wm, we, wt := shape(want)
	gm, ge, gt := shape(got)
	switch {
	case !slices.Equal(wm, gm):
		return fmt.Sprintf("members %v where the call without a task returns %v", gm, wm)
	case we != ge:
		return fmt.Sprintf("isError %s where the call without a task returns %s", ge, we)
	case !slices.Equal(wt, gt):
		return fmt.Sprintf("content of types %v where the call without a task returns %v", gt, wt)
	}
	return ""
}

// UnknownTask grades the unknown-id part of LFEAT-009 (#Protocol Errors): each exchange, a
// tasks/get, tasks/result or tasks/cancel for a task id the server never issued, got -32602.
func UnknownTask(exs []*harness.Exchange) *client.Mismatch {
	for _, ex := range exs {
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindError || msg.Error.Code != codeInvalidParams {
			return &client.Mismatch{Expected: client.SentMethod(ex) + " for an unknown taskId to be refused with -32602 (Invalid params)", Actual: client.DescribeExchange(ex), Frames: ExchangeSeqs(ex)}
		}
	}
	return nil
}

// TaskCancel grades the cancellation part of LFEAT-009 (#Task Cancellation) on a task the
// scenario created and cancelled twice: cancel1 is the first tasks/cancel, get1 a tasks/get
// after it, cancel2 the second tasks/cancel, get2 a tasks/get after that. A first cancel that
// succeeds returns the task cancelled and the task stays cancelled; a first cancel refused
// with -32602 is right only when the task was already terminal; the second cancel, of a
// terminal task, is refused with -32602.
func TaskCancel(cancel1, get1, cancel2, get2 *harness.Exchange) *client.Mismatch {
	status := func(ex *harness.Exchange) string {
		if msg := client.ResponseOf(ex); msg != nil && msg.Kind == harness.KindResult {
			_, st, _ := TaskProblem(msg.Result, false)
			return st
		}
		return ""
	}
	c1 := client.ResponseOf(cancel1)
	switch {
	case c1 != nil && c1.Kind == harness.KindResult:
		if st := status(cancel1); st != "cancelled" {
			return &client.Mismatch{Expected: "tasks/cancel of a working task to return it cancelled", Actual: fmt.Sprintf("status %q", st), Frames: ExchangeSeqs(cancel1)}
		}
		for _, ex := range []*harness.Exchange{get1, get2} {
			if st := status(ex); st != "cancelled" {
				return &client.Mismatch{Expected: "a cancelled task to stay cancelled", Actual: fmt.Sprintf("tasks/get says %s", describeStatus(st, ex)), Frames: seqsOf(cancel1, ex)}
			}
		}
	case c1 != nil && c1.Kind == harness.KindError && c1.Error.Code == codeInvalidParams:
		if st := status(get1); !TerminalTask(st) {
			return &client.Mismatch{Expected: "tasks/cancel of a task that is not terminal to cancel it", Actual: fmt.Sprintf("%s while tasks/get says %s", client.Describe(c1), describeStatus(st, get1)), Frames: seqsOf(cancel1, get1)}
		}
	default:
		return &client.Mismatch{Expected: "tasks/cancel of a task to cancel it, or -32602 when it was already terminal", Actual: client.DescribeExchange(cancel1), Frames: ExchangeSeqs(cancel1)}
	}
	if c2 := client.ResponseOf(cancel2); c2 == nil || c2.Kind != harness.KindError || c2.Error.Code != codeInvalidParams {
		return &client.Mismatch{Expected: "tasks/cancel of a task in a terminal status to be refused with -32602 (Invalid params)", Actual: client.DescribeExchange(cancel2), Frames: ExchangeSeqs(cancel2)}
	}
	return nil
}

func describeStatus(st string, ex *harness.Exchange) string {
	if st == "" {
		return client.DescribeExchange(ex)
	}
	return fmt.Sprintf("%q", st)
}

// TasksListed grades LFEAT-010 (#Task Listing): every id of ids, tasks the scenario created
// and found with tasks/get, is among listed, the task ids of a tasks/list traversal (following
// nextCursor to its end); frames are the traversal's.
func TasksListed(ids, listed []string, frames []int) *client.Mismatch {
	var missing []string
	for _, id := range ids {
		if !slices.Contains(listed, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &client.Mismatch{Expected: "every task retrievable via tasks/get to be listed by tasks/list (with nextCursor while more remain)",
		Actual: fmt.Sprintf("%d of %d tasks missing (%s) from %d listed", len(missing), len(ids), strings.Join(missing, ", "), len(listed)), Frames: frames}
}

// PickTool returns the first tool of tools whose taskSupport (client.TaskSupport, "" when
// absent) is one of supports, trying the support values in order and, for each, the tools
// named in prefer (the fixture names) first; allowed says whether the suite may call a tool
// and, if not, why. When none fits, why names the taskSupport values sought and up to three
// reasons tools were passed over.
func PickTool(tools []map[string]any, supports, prefer []string, allowed func(map[string]any) (bool, string)) (tool map[string]any, why string) {
	var skipped []string
	for _, s := range supports {
		for pass := 0; pass < 2; pass++ {
			for _, t := range tools {
				name, _ := t["name"].(string)
				if client.TaskSupport(t) != s || (pass == 0) != slices.Contains(prefer, name) {
					continue
				}
				ok, reason := allowed(t)
				if ok {
					return t, ""
				}
				if len(skipped) < 3 {
					skipped = append(skipped, reason)
				}
			}
		}
	}
	quoted := make([]string, len(supports))
	for i, s := range supports {
		quoted[i] = fmt.Sprintf("%q", s)
		if s == "" {
			quoted[i] = "absent"
		}
	}
	return nil, fmt.Sprintf("no listed tool whose execution.taskSupport is %s may be called (fixture tools: %s)", strings.Join(quoted, " or "), strings.Join(prefer, ", ")) + JoinWhy(skipped)
}

// TaskCapability reports whether caps, the server's capabilities, declare the member at path
// (dot-separated, e.g. "requests.tools.call") of the `tasks` capability (#Server Capabilities).
func TaskCapability(caps map[string]json.RawMessage, path string) bool {
	raw := caps["tasks"]
	for _, k := range strings.Split(path, ".") {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return false
		}
		var ok bool
		if raw, ok = m[k]; !ok {
			return false
		}
	}
	return raw != nil
}
