package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// stateWorld is what the statelessness and capability steps of one scenario pass from their
// When steps to their Then steps.
type stateWorld struct {
	// untestable, when set, says why the scenario could not reach what it needs.
	untestable string
	// fixture is the capability-needing fixture tool used, and calls its calls in order.
	fixture *fixtureTool
	calls   []fixtureCall
	// probes are the calls of CAP-007 (one per undeclared feature), probeCaps their features.
	probes    []*harness.Exchange
	probeCaps []string
	// version is set by the STATE-001 protocol-version case.
	version bool
	// turns are the interleaved requests of STATE-004 and what each should get.
	turns []turn
	// pairs are the requests META-007 sent as each of two clients.
	pairs [][2]*harness.Exchange
	names [2]string
}

// stateWorldOf returns the scenario's state for statelessness and capabilities (STATE, CAP,
// META-007, ERR-008), made on first use (see stateOf).
func stateWorldOf(w *World) *stateWorld {
	return stateOf(w, func() *stateWorld { return &stateWorld{} })
}

// completionTarget finds something to complete: the first argument of the first prompt that
// has arguments, else the first variable of the first resource template, else a made-up
// prompt (a server that offers completions then still answers, if only with -32602).
func (w *World) completionTarget(ctx context.Context) (map[string]any, string, error) {
	lt, err := w.ListAll(ctx, "prompts/list", "prompts")
	if _, failed := client.ListProblem(err); err != nil && !failed {
		return nil, "", err
	}
	for _, raw := range lt.Raw {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(raw, &p)
		if len(p.Arguments) > 0 && p.Arguments[0].Name != "" {
			return map[string]any{"type": "ref/prompt", "name": p.Name}, p.Arguments[0].Name, nil
		}
	}
	lt, err = w.ListAll(ctx, "resources/templates/list", "resourceTemplates")
	if _, failed := client.ListProblem(err); err != nil && !failed {
		return nil, "", err
	}
	for _, raw := range lt.Raw {
		var t struct {
			URITemplate string `json:"uriTemplate"`
		}
		_ = json.Unmarshal(raw, &t)
		if m := templateVar.FindStringSubmatch(t.URITemplate); m != nil {
			return map[string]any{"type": "ref/resource", "uri": t.URITemplate}, m[1], nil
		}
	}
	return map[string]any{"type": "ref/prompt", "name": "mcpconform_prompt"}, "arg", nil
}

// templateVar matches the first variable of an RFC 6570 URI template (its operator skipped).
var templateVar = regexp.MustCompile(`\{[+#./;?&]?([A-Za-z0-9_%.]+)`)

// capabilityFixtures are the tools of the official conformance suite's everything servers
// that need a client capability (client.FixtureAsks names it), in the order the suite prefers
// them.
var capabilityFixtures = []string{
	"test_elicitation", "test_tool_with_elicitation", "test_sampling", "test_incomplete_result_sampling", "test_incomplete_result_list_roots",
}

// inputCapability maps the method of an input request (or of a legacy server-to-client
// request) to the client capability it needs.
var inputCapability = map[string]string{
	"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots",
}

// fixtureTool is a capability-needing fixture tool the server lists, with arguments built
// from its inputSchema.
type fixtureTool struct {
	name, needs string
	args        map[string]any
}

// fixtureCall is one call of the fixture tool: the client capabilities it declared and what
// came back.
type fixtureCall struct {
	kind     string // "without" (no capabilities), "others" (all but the needed one), "with"
	declared map[string]any
	ex       *harness.Exchange
}

func fixtureNames() string {
	return strings.Join(capabilityFixtures, ", ")
}

// findFixture lists the tools (following nextCursor) and returns the first capability fixture
// whose required arguments the suite can fill; why says what is missing otherwise.
func (w *World) findFixture(ctx context.Context) (*fixtureTool, string, error) {
	type tool struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	if p, ok := client.ListProblem(err); ok {
		return nil, "the server did not list its tools (" + p + "; " + client.ListRefusalJudges + "), so no fixture tool (" + fixtureNames() + ") could be found", nil
	}
	if err != nil {
		return nil, "", err
	}
	listed := map[string]tool{}
	for _, raw := range lt.Raw {
		var t tool
		_ = json.Unmarshal(raw, &t)
		listed[t.Name] = t
	}
	for _, fixture := range capabilityFixtures {
		name := w.Opts.FixtureName(fixture)
		t, ok := listed[name]
		if !ok {
			continue
		}
		if args, ok := checks.FixtureArgs(t.InputSchema); ok {
			return &fixtureTool{name: name, needs: client.FixtureAsks[fixture], args: args}, "", nil
		}
		return nil, "the fixture tool " + fixture + " has required arguments the suite cannot fill (only strings, numbers and booleans)", nil
	}
	return nil, "the server lists none of the fixture tools that need a client capability (" + fixtureNames() + ")", nil
}

// callFixture finds the fixture tool and calls it once per kind, in order, on the scenario's
// connection: "without" declares no client capability, "others" every other known one,
// "with" only the one it needs. Without a fixture it records why (the Then step decides).
func (w *World) callFixture(ctx context.Context, st *stateWorld, kinds ...string) error {
	if !w.Target.Modern {
		return fmt.Errorf("feature bug: the fixture calls need a %s target", revisions.Modern().ID)
	}
	ft, why, err := w.findFixture(ctx)
	if err != nil {
		return err
	}
	if ft == nil {
		st.untestable = why
		return nil
	}
	st.fixture = ft
	for _, kind := range kinds {
		declared := map[string]any{}
		switch kind {
		case "with":
			declared[ft.needs] = map[string]any{}
		case "others":
			for _, c := range []string{"elicitation", "sampling", "roots"} {
				if c != ft.needs {
					declared[c] = map[string]any{}
				}
			}
		}
		req := w.Build(w.ToolsCall(ft.name, ft.args, map[string]any{harness.MetaClientCapabilities: declared}))
		if err := w.Send(ctx, req); err != nil {
			return err
		}
		st.calls = append(st.calls, fixtureCall{kind: kind, declared: declared, ex: w.Last})
	}
	return nil
}

// reliance says how the reply to c relies on a client capability c did not declare: an input
// request of an undeclared kind in an InputRequiredResult, or a server-to-client request of
// such a kind among the frames of the exchange. "" when it does not.
func reliance(c fixtureCall) string {
	for _, f := range c.ex.Frames {
		if f == c.ex.Response {
			continue
		}
		if msg, err := harness.ParseMessage(f.Body()); err == nil && msg.Kind == harness.KindRequest {
			if need, ok := inputCapability[msg.Method]; ok && c.declared[need] == nil {
				return fmt.Sprintf("a %s request to the client (frame %d), which needs the undeclared %s capability", msg.Method, f.Seq, need)
			}
		}
	}
	msg := client.ResponseOf(c.ex)
	if msg == nil || msg.Kind != harness.KindResult {
		return ""
	}
	var r struct {
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	_ = json.Unmarshal(msg.Result, &r)
	keys := make([]string, 0, len(r.InputRequests))
	for k := range r.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := r.InputRequests[k].Method
		if need, ok := inputCapability[m]; ok && c.declared[need] == nil {
			return fmt.Sprintf("inputRequests[%q] is a %s, which needs the undeclared %s capability", k, m, need)
		}
	}
	return ""
}

// turn is one interleaved request of STATE-004 and the outcome it should get.
type turn struct {
	client string
	ex     *harness.Exchange
	want   string // outcome of the same request on its own; "" means a result
}

// readCapabilities asks for the declared capabilities: server/discover (2026-07-28) on the
// scenario's connection, or initialize (legacy) on a fresh one (a session initializes once).
// fresh asks for a fresh connection on a modern target too.
func (w *World) readCapabilities(ctx context.Context, fresh bool) error {
	if !w.Target.Modern {
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
		return w.Initialize(ctx, w.Target.Revision)
	}
	if fresh {
		if err := freshConnection(ctx, w); err != nil {
			return err
		}
	}
	return w.SendMethod(ctx, "server/discover", "", nil, nil)
}
