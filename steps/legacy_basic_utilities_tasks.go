package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("legacy-basic-utilities-tasks", registerLegacyTasksSteps) }

// taskFixtures are the reference's task tools: taskSupport optional, required, forbidden.
var taskFixtures = []string{"test_task_tool", "test_task_required_tool", "test_task_forbidden_tool"}

// taskWorld is what the task steps of one scenario pass from their When steps to their Then
// steps (LFEAT-006..010).
type taskWorld struct {
	why                          string            // why the scenario could not be judged (untestable)
	created                      *client.Mismatch  // LFEAT-007: a task-augmented call not answered with a new task
	required, forbidden          *harness.Exchange // LFEAT-006: the calls that must be refused
	requiredWhy                  string            // LFEAT-006: why no required tool was called
	ids                          []string          // the tasks created
	polls                        []*harness.Exchange
	result, after, plain         *harness.Exchange // LFEAT-008
	unknown                      []*harness.Exchange
	cancel1, get1, cancel2, get2 *harness.Exchange // LFEAT-009
	listed                       []string          // LFEAT-010
	listFrames                   []int
}

func taskOf(w *World) *taskWorld { return stateOf(w, func() *taskWorld { return &taskWorld{} }) }

// registerLegacyTasksSteps binds the steps of features/legacy-basic-utilities-tasks.feature.
func registerLegacyTasksSteps(sc *godog.ScenarioContext) {
	// Setup.
	step(sc, `^the server's tasks capability declares "([^"]+)"$`, func(ctx context.Context, path string) error {
		w := WorldOf(ctx)
		if !checks.TaskCapability(w.Target.Caps, path) {
			return w.Undeclared(fmt.Sprintf("the server's tasks capability does not declare %q", path))
		}
		return nil
	})

	// Send.
	step(sc, `^the client calls a "required" tool without a task and a "forbidden" one as a task$`, wc(callAgainstTaskSupport))
	step(sc, `^the client creates two tasks and polls the first until it is terminal, then once more$`, wc(createAndPoll))
	step(sc, `^the client creates a task and asks for its result at once$`, wc(createAndFetch))
	step(sc, `^the client asks about an unknown task id, then creates a task and cancels it twice$`, wc(unknownAndCancel))
	step(sc, `^the client creates three tasks and pages through tasks/list$`, wc(createAndList))

	// Observe.
	step(sc, `^both calls are refused with -32601 \(the "forbidden" one as a warning\)$`, taskThen(taskSupportVerdict))
	step(sc, `^every task reply is a well-formed task that began working and never left a terminal status$`, taskThen(func(st *taskWorld) error {
		if st.created != nil {
			return st.created
		}
		return nilIfNil(checks.TaskLifecycle(st.ids, st.polls))
	}))
	step(sc, `^the task result is the tool's result with the related-task metadata, once the task is terminal$`, wc(func(_ context.Context, w *World) error {
		st := taskOf(w)
		if st.why != "" {
			return w.SetSkip(reports.Untestable, st.why)
		}
		why, m := checks.TaskResult(st.ids[0], st.result, st.after, st.plain)
		if why != "" {
			return w.SetSkip(reports.Untestable, why)
		}
		return nilIfNil(m)
	}))
	step(sc, `^the unknown task id is refused with -32602 and the cancelled task stays cancelled$`, wc(func(_ context.Context, w *World) error {
		st := taskOf(w)
		if m := checks.UnknownTask(st.unknown); m != nil {
			return m
		}
		if st.why != "" {
			return w.SetSkip(reports.Untestable, "the unknown task id was refused with -32602; no task could be cancelled: "+st.why)
		}
		if st.cancel1 == nil {
			return nil // tasks/cancel is not declared: the unknown id is the rule's whole subject
		}
		return nilIfNil(checks.TaskCancel(st.cancel1, st.get1, st.cancel2, st.get2))
	}))
	step(sc, `^every task created is listed$`, taskThen(func(st *taskWorld) error {
		return nilIfNil(checks.TasksListed(st.ids, st.listed, st.listFrames))
	}))
}

// taskThen wraps a Then step: untestable with the scenario's reason when its When step could
// not run, else check.
func taskThen(check func(*taskWorld) error) func(context.Context) error {
	return wc(func(_ context.Context, w *World) error {
		st := taskOf(w)
		if st.why != "" && st.required == nil && st.forbidden == nil {
			return w.SetSkip(reports.Untestable, st.why)
		}
		err := check(st)
		var o *client.Outcome
		if errors.As(err, &o) {
			return w.SetSkip(o.Verdict, o.Reason)
		}
		return err
	})
}

// taskSupportVerdict grades LFEAT-006 (checks.TaskSupportRefusals): untestable with the
// scenario's reason when the MUST could not be judged.
func taskSupportVerdict(st *taskWorld) error {
	m, judged := checks.TaskSupportRefusals(st.required, st.forbidden)
	if !judged {
		return &client.Outcome{Verdict: reports.Untestable, Reason: st.why}
	}
	return nilIfNil(m)
}

// taskTool lists the tools and picks one the suite may call whose taskSupport is one of
// supports (checks.PickTool; the reference's fixtures first); with allowed nil, the run's
// call policy for a normal call. It returns the tool and its arguments, or why there is none.
func (w *World) taskTool(ctx context.Context, allowed func(map[string]any) (bool, string), supports ...string) (map[string]any, map[string]any, string) {
	l := w.toolListing(ctx)
	if l.err != nil {
		return nil, nil, "tools/list failed: " + client.ListFailureReason(l.err)
	}
	if allowed == nil {
		allowed = w.Opts.PolicyAllows
	}
	t, why := checks.PickTool(l.lt.Items, supports, taskFixtures, allowed)
	if t == nil {
		return nil, nil, why
	}
	raw, _ := json.Marshal(t["inputSchema"])
	args, ok := checks.FixtureArgs(raw)
	if !ok {
		return nil, nil, fmt.Sprintf("tool %s has required arguments the suite cannot fill", checks.ToolName(t))
	}
	return t, args, ""
}

// augmentableTool is taskTool for a task-augmented call (taskSupport "optional" or
// "required"); when there is none it returns a nil tool with st.why set.
func (w *World) augmentableTool(ctx context.Context, st *taskWorld) (tool, args map[string]any) {
	t, args, why := w.taskTool(ctx, nil, "optional", "required")
	if t == nil {
		st.why = why
	}
	return t, args
}

// createTask calls tool as a task and returns the new task's id, or "" with st.why set when
// the server refused it; a reply that is no new task is the precondition LFEAT-007 judges.
func (w *World) createTask(ctx context.Context, st *taskWorld, tool, args map[string]any) (string, error) {
	if err := w.Send(ctx, w.Build(client.AsTask(w.ToolsCall(tool["name"], args, nil)))); err != nil {
		return "", err
	}
	id, why, m := checks.CreatedTask(w.Last)
	switch {
	case m != nil:
		return "", &client.PreconditionFailed{What: "the task-augmented call of " + checks.ToolName(tool) + ": " + m.Actual, Rule: "LFEAT-007"}
	case why != "":
		st.why = why
	default:
		st.ids = append(st.ids, id)
	}
	return id, nil
}

// callAgainstTaskSupport makes LFEAT-006's two calls: a tool whose taskSupport is "required"
// called without a task, one whose taskSupport is "forbidden" or absent called as a task.
func callAgainstTaskSupport(ctx context.Context, w *World) error {
	st := taskOf(w)
	if t, args, why := w.taskTool(ctx, nil, "required"); t != nil {
		if err := w.Send(ctx, w.Build(w.ToolsCall(t["name"], args, nil))); err != nil {
			return err
		}
		st.required = w.Last
	} else {
		st.requiredWhy = why
	}
	t, args, why := w.taskTool(ctx, nil, "forbidden", "")
	if t != nil {
		if err := w.Send(ctx, w.Build(client.AsTask(w.ToolsCall(t["name"], args, nil)))); err != nil {
			return err
		}
		st.forbidden = w.Last
	}
	if st.requiredWhy != "" {
		st.why = st.requiredWhy
		if st.forbidden == nil {
			st.why += "; " + why
		}
	}
	return nil
}

// createAndPoll is LFEAT-007's traffic: two tasks, the first polled with tasks/get until it is
// terminal, then once more.
func createAndPoll(ctx context.Context, w *World) error {
	st := taskOf(w)
	t, args := w.augmentableTool(ctx, st)
	if t == nil {
		return nil
	}
	for i := 0; i < 2 && st.why == ""; i++ {
		if err := w.Send(ctx, w.Build(client.AsTask(w.ToolsCall(t["name"], args, nil)))); err != nil {
			return err
		}
		id, why, m := checks.CreatedTask(w.Last)
		if m != nil {
			st.created = m
			return nil
		}
		st.why = why
		if id != "" {
			st.ids = append(st.ids, id)
		}
	}
	if st.why != "" {
		return nil
	}
	poll, err := w.PollTask(ctx, st.ids[0])
	if err != nil {
		return err
	}
	st.polls = poll.Polls
	if err := w.SendTaskRequest(ctx, "tasks/get", st.ids[0]); err != nil {
		return err
	}
	st.polls = append(st.polls, w.Last)
	return nil
}

// createAndFetch is LFEAT-008's traffic: a task, its tasks/result at once, a tasks/get after
// it and, for a tool whose taskSupport is optional, the same call without a task.
func createAndFetch(ctx context.Context, w *World) error {
	st := taskOf(w)
	t, args := w.augmentableTool(ctx, st)
	if t == nil {
		return nil
	}
	id, err := w.createTask(ctx, st, t, args)
	if err != nil || id == "" {
		return err
	}
	if err := w.SendTaskRequest(ctx, "tasks/result", id); err != nil {
		return err
	}
	st.result = w.Last
	if err := w.SendTaskRequest(ctx, "tasks/get", id); err != nil {
		return err
	}
	st.after = w.Last
	if client.TaskSupport(t) == "optional" {
		if err := w.Send(ctx, w.Build(w.ToolsCall(t["name"], args, nil))); err != nil {
			return err
		}
		st.plain = w.Last
	}
	return nil
}

// unknownAndCancel is LFEAT-009's traffic: tasks/get, tasks/result and (when declared)
// tasks/cancel for a task id the server never issued, then a task cancelled twice with a
// tasks/get after each cancel.
func unknownAndCancel(ctx context.Context, w *World) error {
	st := taskOf(w)
	methods := []string{"tasks/get", "tasks/result"}
	cancel := checks.TaskCapability(w.Target.Caps, "cancel")
	if cancel {
		methods = append(methods, "tasks/cancel")
	}
	for _, m := range methods {
		if err := w.SendTaskRequest(ctx, m, "mcp-conform-unknown-task"); err != nil {
			return err
		}
		st.unknown = append(st.unknown, w.Last)
	}
	if !cancel {
		return nil
	}
	if !checks.TaskCapability(w.Target.Caps, "requests.tools.call") {
		st.why = "the server declares tasks.cancel but no task-augmented tools/call (tasks.requests.tools.call), so the suite cannot create a task to cancel"
		return nil
	}
	t, args := w.augmentableTool(ctx, st)
	if t == nil {
		return nil
	}
	id, err := w.createTask(ctx, st, t, args)
	if err != nil || id == "" {
		return err
	}
	for _, p := range []**harness.Exchange{&st.cancel1, &st.get1, &st.cancel2, &st.get2} {
		m := "tasks/get"
		if p == &st.cancel1 || p == &st.cancel2 {
			m = "tasks/cancel"
		}
		if err := w.SendTaskRequest(ctx, m, id); err != nil {
			return err
		}
		*p = w.Last
	}
	return nil
}

// createAndList is LFEAT-010's traffic: three tasks, each looked up with tasks/get, then
// tasks/list followed to its end.
func createAndList(ctx context.Context, w *World) error {
	st := taskOf(w)
	t, args := w.augmentableTool(ctx, st)
	if t == nil {
		return nil
	}
	var found []string
	for i := 0; i < 3 && st.why == ""; i++ {
		id, err := w.createTask(ctx, st, t, args)
		if err != nil {
			return err
		}
		if id == "" {
			break
		}
		if err := w.SendTaskRequest(ctx, "tasks/get", id); err != nil {
			return err
		}
		if msg := client.ResponseOf(w.Last); msg != nil && msg.Kind == harness.KindResult {
			found = append(found, id)
		}
	}
	if len(found) == 0 {
		if st.why == "" {
			st.why = "no task the suite created could be read back with tasks/get (LFEAT-007 judges that)"
		}
		return nil
	}
	st.ids, st.why = found, ""
	lt, err := w.ListAll(ctx, "tasks/list", "tasks")
	if lt != nil {
		st.listFrames = lt.Frames
		for _, item := range lt.Items {
			if id, ok := item["taskId"].(string); ok {
				st.listed = append(st.listed, id)
			}
		}
	}
	var refused *client.ListRefused
	var lm *client.ListMalformed
	switch {
	case err == nil, errors.As(err, &refused): // a refused tasks/list lists nothing: judged
		return nil
	case errors.As(err, &lm) && lm.Rule != "":
		return client.ListPrecondition(err, lm.Rule)
	}
	return client.ListPrecondition(err, "SCHEMA-001") // the page is no ListTasksResult
}
