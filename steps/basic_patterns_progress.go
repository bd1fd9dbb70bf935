package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("basic-patterns-progress", registerProgressSteps) }

// progressFixtureTool is the official conformance fixture tool that reports progress.
const progressFixtureTool = "test_tool_with_progress"

// registerProgressSteps binds the steps of features/basic-patterns-progress.feature; the rules
// themselves are the judge's (judge/progress.go).
func registerProgressSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client calls the fixture tool "([^"]+)" (without a progress token|with a fresh progress token|with progress token (\S+))(, if the server has it)?$`,
		func(ctx context.Context, fixture, how, literal, optional string) error {
			var tok any
			switch {
			case how == "with a fresh progress token":
				tok = "mcpconform-progress-" + strconv.FormatInt(WorldOf(ctx).Env.IDs().Next(), 10)
			case literal != "":
				if err := json.Unmarshal([]byte(literal), &tok); err != nil {
					return fmt.Errorf("feature bug: progress token %s is not JSON", literal)
				}
			}
			return WorldOf(ctx).callFixtureWithProgress(ctx, fixture, tok, optional == "")
		})
	step(sc, `^every progress notification of the run names a progress token the client set on that connection$`, AskJudge("PROG-001"))
	step(sc, `^every progress notification of the run carries its token with the JSON type the request gave it$`, AskJudge("PROG-002"))
	step(sc, `^the progress of every progress token of the run increases with each notification$`, AskJudge("PROG-003"))
	step(sc, `^no progress notification of the run follows the response of its request$`, AskJudge("PROG-004"))
	step(sc, `^every progress notification of the run has a valid token, a numeric progress and, if present, a numeric total and a string message$`, AskJudge("PROG-006"))
}

// callFixtureWithProgress calls the fixture tool fixture (or its --fixture-map alias) with
// `_meta.progressToken` tok (none when nil). A server without the tool, or without tools,
// makes the scenario untestable when required; otherwise the step does nothing and the judge
// judges what the run shows.
func (w *World) callFixtureWithProgress(ctx context.Context, fixture string, tok any, required bool) error {
	name, why := w.fixtureToolPresent(ctx, fixture)
	if why != "" {
		if required {
			return w.SetSkip(reports.Untestable, why)
		}
		return nil
	}
	var meta map[string]any
	if tok != nil {
		meta = map[string]any{client.ProgressMeta: tok}
	}
	return w.Send(ctx, w.Build(w.ToolsCall(name, nil, meta)))
}

// fixtureToolPresent returns the server's name for the fixture tool fixture, or why it cannot
// be called: capabilities unknown (DISC-001's), no tools declared, a tools/list that failed (the listing rules' to judge), or no
// tool of that name.
func (w *World) fixtureToolPresent(ctx context.Context, fixture string) (name, why string) {
	name = w.Opts.FixtureName(fixture)
	if why := w.Target.CapsUnknown; why != "" {
		return name, why // names DISC-001
	}
	if !w.Declares("tools") {
		return name, fmt.Sprintf("no tool %q: the server declares no tools (%s)", name, undeclaredToolsJudge)
	}
	l := w.toolListing(ctx)
	if l.err != nil {
		return name, fmt.Sprintf("no tool %q could be looked up: tools/list failed: %s", name, client.ListFailureReason(l.err))
	}
	for _, t := range l.lt.Items {
		if t["name"] == name {
			return name, ""
		}
	}
	return name, fmt.Sprintf("no tool %q (the fixture tool of the official conformance suite; --fixture-map %s=<name> maps it)", name, fixture)
}
