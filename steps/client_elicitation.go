package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("client-elicitation", registerClientElicitationSteps) }

// inputState is what the scenarios about the server's requests to the client remember: the
// client capabilities declared and the fixture tool calls made.
type inputState struct {
	declared map[string]json.RawMessage
	calls    []*harness.Exchange
}

func inputOf(w *World) *inputState { return stateOf(w, func() *inputState { return &inputState{} }) }

// fixtureArgs are the arguments the suite calls the input fixture tools with.
var fixtureArgs = map[string]map[string]any{
	"test_sampling":    {"prompt": "Say hello."},
	"test_elicitation": {"message": "Please provide your details."},
}

// registerClientElicitationSteps binds the steps of the scenarios about the requests a server
// makes of the client (features/client-elicitation.feature, client-sampling.feature,
// legacy-basic-index.feature and LEG-006).
func registerClientElicitationSteps(sc *godog.ScenarioContext) {
	step(sc, "^the client opens a session of its own declaring client capabilities `([^`]*)`$", func(ctx context.Context, caps string) error {
		return openDeclaring(ctx, caps, client.ElicitAccept)
	})
	step(sc, "^the client opens a session of its own declaring client capabilities `([^`]*)` and answering elicitations with \"(accept|decline|cancel|invalid)\"$", openDeclaring)
	step(sc, `^the client calls the fixture tools "([^"]+)"$`, callInputFixtures)
	step(sc, `^the server offers one of the fixture tools "([^"]+)"$`, serverOffersFixtures)
	step(sc, `^the client calls the fixture tools "([^"]+)" that the server offers$`, func(ctx context.Context, list string) error {
		return callFixtures(ctx, list, false)
	})
	step(sc, `^the server sent the client no request for a capability the client did not declare$`, wc(func(ctx context.Context, w *World) error {
		return nilIfNil(checks.UndeclaredRequests(inputOf(w).declared, scenarioFrames(w)))
	}))
	step(sc, `^every request the server sent in this run has a string or integer id unused before in its session$`, AskJudge("LEG-009"))
	step(sc, `^every request the server sent in this run validates against the schema$`, AskJudge("LEG-010"))
	step(sc, `^every elicitation the server sent in this run has a message and what its mode needs$`, AskJudge("INPUT-002"))
	step(sc, `^every requested schema the server sent in this run is a flat object of primitive properties$`, AskJudge("INPUT-003"))
	step(sc, `^every sampling message the server sent in this run has a user or assistant role and typed content$`, AskJudge("INPUT-013"))
	step(sc, `^every elicitation the server sent used a mode the client declared$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("elicitation", func(f []*harness.Frame) (int, *client.Mismatch) {
			return checks.UndeclaredModes(inputOf(w).declared, f)
		})
	}))
	step(sc, `^no form elicitation asked for a secret$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("form elicitation", func(f []*harness.Frame) (int, *client.Mismatch) { return checks.FormText(f, true) })
	}))
	step(sc, `^no form elicitation holds a clickable URL$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("form elicitation", func(f []*harness.Frame) (int, *client.Mismatch) { return checks.FormText(f, false) })
	}))
	step(sc, `^no URL elicitation carries credentials or personal data$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("URL-mode elicitation", func(f []*harness.Frame) (int, *client.Mismatch) { return checks.URLElicitations(f, false) })
	}))
	step(sc, `^every URL elicitation uses HTTPS unless on loopback$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("URL-mode elicitation", func(f []*harness.Frame) (int, *client.Mismatch) { return checks.URLElicitations(f, true) })
	}))
	step(sc, `^the invalid content was rejected or asked for again$`, wc(func(ctx context.Context, w *World) error {
		for _, ex := range inputOf(w).calls {
			na, m := checks.InvalidContentHandled(ex)
			if na != "" {
				return w.SetSkip(reports.Untestable, na)
			}
			if m != nil {
				return m
			}
		}
		return nil
	}))
	step(sc, `^every cancellation the server sent in this run names a request it issued$`, AskJudge("LEG-011"))
	step(sc, `^every call got a JSON-RPC response$`, wc(func(ctx context.Context, w *World) error {
		if checks.AnsweredElicitations(scenarioFrames(w)) == 0 {
			return w.SetSkip(reports.Untestable, "the server sent no elicitation/create, so no declined or cancelled elicitation could be judged")
		}
		return nilIfNil(checks.EveryCallAnswered(inputOf(w).calls))
	}))
}

func openDeclaring(ctx context.Context, caps, elicit string) error {
	w := WorldOf(ctx)
	st := inputOf(w)
	if err := json.Unmarshal([]byte(caps), &st.declared); err != nil {
		return fmt.Errorf("feature bug: capabilities %s: %w", caps, err)
	}
	return w.OpenSessionDeclaring(ctx, json.RawMessage(caps), elicit)
}

// serverOffersFixtures ends the scenario untestable before it opens a connection of its own
// when a legacy server offers none of the listed fixture tools (by their --fixture-map names)
// to a client declaring every capability the suite answers (client.ToolsOfferedDeclaring,
// one probe session per target): over stdio each such scenario otherwise started a server
// process only to learn the tool was absent. A probe that fails decides nothing: the scenario
// goes on and judges as before.
func serverOffersFixtures(ctx context.Context, list string) error {
	w := WorldOf(ctx)
	if w.Target.Modern || !w.Declares("tools") {
		return nil
	}
	v, err := w.oncePerTargetValue("tools-offered-declaring", func() (any, error) { return w.ToolsOfferedDeclaring(ctx) })
	if err != nil {
		return nil
	}
	offered := v.(map[string]bool)
	var names []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if offered[w.Opts.FixtureName(name)] {
			return nil
		}
		names = append(names, name)
	}
	return w.SetSkip(reports.Untestable, "the server offers none of the fixture tools "+strings.Join(names, ", ")+", even to a client declaring every capability (--fixture-map maps a server's own names)")
}

// callInputFixtures calls each fixture tool of the comma-separated list that the server
// offers (by its --fixture-map name); none offered is untestable naming them.
func callInputFixtures(ctx context.Context, list string) error {
	return callFixtures(ctx, list, true)
}

// callFixtures is callInputFixtures; when required is false a server offering none of the
// tools leaves the scenario to judge what else it did.
func callFixtures(ctx context.Context, list string, required bool) error {
	w := WorldOf(ctx)
	if !required && !w.Declares("tools") {
		return nil
	}
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	if err != nil {
		if !required {
			return nil
		}
		return client.ListPrecondition(err, "TOOL-001")
	}
	offered := map[string]bool{}
	for _, t := range lt.Items {
		if name, ok := t["name"].(string); ok {
			offered[name] = true
		}
	}
	var missing []string
	st := inputOf(w)
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if !offered[w.Opts.FixtureName(name)] {
			missing = append(missing, name)
			continue
		}
		var args any
		if a, ok := fixtureArgs[name]; ok {
			args = a
		}
		if err := w.Send(ctx, w.Build(w.FixtureToolCall(name, args, nil))); err != nil {
			return err
		}
		st.calls = append(st.calls, w.Last)
	}
	if len(st.calls) == 0 && required {
		return w.SetSkip(reports.Untestable, "the server offers none of the fixture tools "+strings.Join(missing, ", ")+" (--fixture-map maps a server's own names)")
	}
	return nil
}

// scenarioFrames are every frame of the scenario's exchanges, in order.
func scenarioFrames(w *World) []*harness.Frame {
	var out []*harness.Frame
	for _, ex := range w.Exchanges {
		out = append(out, ex.Frames...)
	}
	return out
}

// judgeInput grades the scenario's frames with check; a check that found no subject (no
// request of kind what) is untestable: the server's fixture tools made none.
func (w *World) judgeInput(what string, check func([]*harness.Frame) (int, *client.Mismatch)) error {
	n, m := check(scenarioFrames(w))
	if m != nil {
		return m
	}
	if n == 0 {
		return w.SetSkip(reports.Untestable, "the fixture tools called made no "+what+" request of the client")
	}
	return nil
}
