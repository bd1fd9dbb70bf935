package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() { bindSteps("server-index", registerServerIndexSteps) }

// registerServerIndexSteps binds the steps that only features/server-index.feature uses.
func registerServerIndexSteps(sc *godog.ScenarioContext) {
	// Capabilities declared versus features offered (CAP-001..004).
	step(sc, `^if the response is a result, the server declares the "([^"]+)" capability$`, func(ctx context.Context, name string) error {
		return WorldOf(ctx).offeredMeansDeclared(name)
	})
	step(sc, `^the client sends a completion request for an argument the server lists$`, wc(sendsCompletionRequestArgument))
	// CMPL-004 and CAP-007: a result to an undeclared feature's method is CAP-001..004's.
	step(sc, `^the response is an error with code -32601, unless it is a result offering the undeclared "([^"]+)" feature$`, func(ctx context.Context, name string) error {
		w := WorldOf(ctx)
		msg, err := w.ResponseMessage()
		if err != nil {
			return err
		}
		if rule := w.offersUndeclared(name, msg); rule != "" {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the server answered %s with a result although %s is not declared, which %s judges", client.SentMethod(w.Last), name, rule))
		}
		return w.expectCode(-32601, 0)
	})

	// CAP-005.
	step(sc, `^the client sends a list request for each declared capability asking for debug logs$`, wc(sendsListRequestEach))
	step(sc, `^no log message the server sent in this run came without the "logging" capability$`, AskJudge("CAP-005"))

	// CAP-007.
	step(sc, `^the client calls a method of each feature the server does not declare$`, callsMethodEachFeature)
	step(sc, `^each of those calls failed with method-not-found$`, eachThoseCallsFailed)

	// Client capabilities: CAP-008, ERR-008, STATE-001.
	step(sc, `^the client calls a fixture tool that needs a client capability, declaring only other capabilities$`, callsFixtureToolNeeds)
	step(sc, `^the server relied on no client capability the calls did not declare$`, reliedNoCapabilityCalls)

	// CAP-009, CAP-010.
	step(sc, `^the client reads the server's declared capabilities$`, wc(func(ctx context.Context, w *World) error {
		return w.readCapabilities(ctx, false)
	}))
}

func sendsCompletionRequestArgument(ctx context.Context, w *World) error {
	ref, arg, err := w.completionTarget(ctx)
	if err != nil {
		return err
	}
	return w.Send(ctx, w.StateRequest("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}, nil))
}

func sendsListRequestEach(ctx context.Context, w *World) error {
	sent := false
	for _, lm := range client.ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			if err := w.Send(ctx, w.StateRequest(lm.Method, nil, map[string]any{metaLogLevel: "debug"})); err != nil {
				return err
			}
			sent = true
		}
	}
	if !sent {
		return w.SendMethod(ctx, w.Harmless(), "", nil, nil)
	}
	return nil
}

func callsMethodEachFeature(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.probeUndeclared(ctx, stateWorldOf(w))
}

func eachThoseCallsFailed(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectMethodNotFound(stateWorldOf(w))
}

func callsFixtureToolNeeds(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.callFixture(ctx, stateWorldOf(w), "without", "others", "with")
}

func reliedNoCapabilityCalls(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectNoReliance(stateWorldOf(w))
}

// metaLogLevel is the request `_meta` key of the minimum log level (server/utilities/logging).
const metaLogLevel = "io.modelcontextprotocol/logLevel"

func capNames(caps map[string]json.RawMessage) string {
	names := make([]string, 0, len(caps))
	for k := range caps {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// offeredMeansDeclared is CAP-001..004: a feature request answered with a result means the
// feature is offered, so it must be declared. An error, or a list result with no entry and no
// next page (a server that answers every list method, offering nothing), means it is not
// offered, which is consistent with either declaration (CAP-006 judges a declared feature
// that fails; CAP-007 the undeclared method that does not fail).
func (w *World) offeredMeansDeclared(name string) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	if msg.Kind != harness.KindResult {
		return nil
	}
	if _, ok := w.Target.Caps[name]; ok {
		return nil
	}
	if member, isList := listMembers[name]; isList && emptyPage(msg.Result, member) {
		return nil
	}
	if why := w.Target.CapsUnknown; why != "" {
		return w.SetSkip(reports.Untestable, why)
	}
	where := "DiscoverResult"
	if !w.Target.Modern {
		where = "InitializeResult"
	}
	return &client.Mismatch{
		Expected: fmt.Sprintf("capabilities.%s in the %s, since the server answered %s with a result", name, where, client.SentMethod(w.Last)),
		Actual:   "declared capabilities: " + capNames(w.Target.Caps),
		Frames:   w.LastSeqs(),
	}
}

// undeclaredProbes are the methods CAP-007 calls for a feature the server does not declare.
var undeclaredProbes = []struct {
	capability, method string
	params             map[string]any
	since, until       string
}{
	{capability: "tools", method: "tools/list"},
	{capability: "resources", method: "resources/list"},
	{capability: "prompts", method: "prompts/list"},
	// completion/complete is CMPL-004's: the rule of the completion page says the same for
	// that one feature, and one defect fails one rule.
	// The modern revision has no logging method: the level travels in each request's _meta.
	{capability: "logging", method: "logging/setLevel", until: revisions.LoggingMethodUntil().ID, params: map[string]any{"level": "info"}},
}

func (w *World) probeUndeclared(ctx context.Context, st *stateWorld) error {
	if why := w.Target.CapsUnknown; why != "" {
		return w.SetSkip(reports.Untestable, why)
	}
	if !w.Target.Modern {
		// logging/setLevel, if the server takes it, sets the level of the session it is sent
		// in: the probes go in a session of their own, never the one the scenarios share.
		if err := w.OpenOwnSession(ctx); err != nil {
			return err
		}
	}
	rev := w.Target.Revision
	var skipped []string
	for _, p := range undeclaredProbes {
		if _, ok := w.Target.Caps[p.capability]; ok {
			continue
		}
		if !revisions.InRange(rev, p.since, p.until) {
			skipped = append(skipped, p.capability)
			continue
		}
		if err := w.Send(ctx, w.StateRequest(p.method, p.params, nil)); err != nil {
			return err
		}
		st.probes = append(st.probes, w.Last)
		st.probeCaps = append(st.probeCaps, p.capability)
	}
	if len(st.probes) == 0 {
		why := "the server declares every feature that has a method at " + rev + " (" + capNames(w.Target.Caps) + ")"
		if len(skipped) > 0 {
			why += "; " + strings.Join(skipped, ", ") + " has no capability-gated method at " + rev
		}
		return w.SetSkip(reports.NA, why)
	}
	return nil
}

// methodNotFoundBasis returns, for CAP-007 on w's target, the sentence that makes -32601 for a
// method of an undeclared feature normative and the grade of a probe that gets something else.
// Only 2026-07-28 Streamable HTTP has one: "If the server does not implement the requested RPC
// method, it MUST respond with 404 Not Found and a JSON-RPC error with code -32601"
// (streamable-http#Protocol Version Header); its condition, a method the server does not
// implement, is what an undeclared capability suggests but cannot prove from outside, so a
// miss is graded at the catalogue's SHOULD (warn), not fail. The -32601 line of the completion
// page's Error Handling governs completion/complete alone (CMPL-004). On 2026-07-28 stdio only
// the schema's MethodNotFoundError description (no keyword) names the case, and on a handshake
// revision no sentence does (the lifecycle page even asks both parties to "only use
// capabilities that were successfully negotiated", so the probe itself is outside the
// protocol): there a miss is info.
func (w *World) methodNotFoundBasis() (cite string, grade reports.Verdict) {
	switch {
	case w.Target.Modern && w.OverHTTP():
		return "basic/transports/streamable-http#Protocol Version Header: a method the server does not implement gets 404 Not Found and -32601 (MUST; graded SHOULD, since an undeclared capability does not prove the method unimplemented)", ""
	case w.Target.Modern:
		return "only the schema's MethodNotFoundError description (no MUST or SHOULD) names an undeclared capability's method; observed as info", reports.Info
	}
	return "no sentence of " + w.Target.Revision + " makes -32601 normative for an undeclared feature's method (basic/lifecycle#Operation asks both parties to use only negotiated capabilities); observed as info", reports.Info
}

// expectMethodNotFound is CAP-007: every probe of an undeclared feature got -32601 (and HTTP
// 404 on modern Streamable HTTP), graded by methodNotFoundBasis. A probe answered with a
// result that offers the feature is not judged: offering an undeclared feature is the
// capability rule's defect (offeredRules), and when every probe was such, CAP-007 is
// untestable naming that rule.
func (w *World) expectMethodNotFound(st *stateWorld) error {
	cite, grade := w.methodNotFoundBasis()
	var offered []string
	for i, ex := range st.probes {
		msg := client.ResponseOf(ex)
		if rule := w.offersUndeclared(st.probeCaps[i], msg); rule != "" {
			offered = append(offered, fmt.Sprintf("the server answered %s with a result although %s is not declared, which %s judges", client.SentMethod(ex), st.probeCaps[i], rule))
			continue
		}
		want := "error -32601"
		status := w.Target.Modern && w.OverHTTP()
		if status {
			want += " with HTTP 404"
		}
		want += " for " + client.SentMethod(ex) + " (its capability is not declared; " + cite + ")"
		switch {
		case msg == nil || msg.Kind != harness.KindError || msg.Error.Code != -32601:
			return &client.Mismatch{Expected: want, Actual: client.DescribeExchange(ex), Grade: grade, Frames: checks.ExchangeSeqs(ex)}
		case status && (ex.HTTP == nil || ex.HTTP.Status != 404):
			got := "no HTTP status"
			if ex.HTTP != nil {
				got = fmt.Sprintf("HTTP %d", ex.HTTP.Status)
			}
			return &client.Mismatch{Expected: want, Actual: "-32601 with " + got, Grade: grade, Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if len(offered) == len(st.probes) && len(offered) > 0 {
		return w.SetSkip(reports.Untestable, strings.Join(offered, "; "))
	}
	return nil
}

// undeclaredToolsJudge names the rule that judges a server offering tools it does not declare,
// for the reasons of the rules that need a tool.
const undeclaredToolsJudge = "CAP-001 judges a server that offers tools it does not declare"

// offeredRules are the rules that a result to an undeclared feature's method breaks (CAP-001..
// 004: a server offering a feature declares it), by capability.
var offeredRules = map[string]string{"tools": "CAP-001", "resources": "CAP-002", "prompts": "CAP-003", "completions": "CAP-004"}

// offersUndeclared returns the rule judging msg, the response to a method of capability name
// that the server does not declare, when msg is a result offering the feature (as
// offeredMeansDeclared judges it), else "".
func (w *World) offersUndeclared(name string, msg *harness.Message) string {
	rule, ok := offeredRules[name]
	if !ok || msg == nil || msg.Kind != harness.KindResult {
		return ""
	}
	if member, isList := listMembers[name]; isList && emptyPage(msg.Result, member) {
		return ""
	}
	return rule
}

func declaredText(d map[string]any) string {
	b, _ := json.Marshal(d)
	return string(b)
}

// expectNoReliance is CAP-008: the calls lacking the needed capability got -32021 or a result
// that asks for nothing undeclared; any other error is a failure unless the call declaring the
// capability fails too (then the fixture is not usable as the suite calls it).
func (w *World) expectNoReliance(st *stateWorld) error {
	if st.untestable != "" {
		return w.SetSkip(reports.Untestable, st.untestable)
	}
	var with *fixtureCall
	for i := range st.calls {
		if st.calls[i].kind == "with" {
			with = &st.calls[i]
		}
	}
	for _, c := range st.calls {
		if c.kind == "with" {
			continue
		}
		if r := reliance(c); r != "" {
			return &client.Mismatch{Expected: fmt.Sprintf("-32021, or a result asking for nothing undeclared, for %s called with clientCapabilities %s", st.fixture.name, declaredText(c.declared)),
				Actual: r, Frames: checks.ExchangeSeqs(c.ex)}
		}
		msg := client.ResponseOf(c.ex)
		if msg == nil || msg.Kind == harness.KindResult || (msg.Kind == harness.KindError && msg.Error.Code == -32021) {
			if msg == nil {
				return &client.Mismatch{Expected: "a response to " + st.fixture.name, Actual: client.DescribeExchange(c.ex), Frames: checks.ExchangeSeqs(c.ex)}
			}
			continue
		}
		if wm := client.ResponseOf(with.ex); wm == nil || wm.Kind != harness.KindResult {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the fixture tool %s fails even when %s is declared (%s), so its reply without it says nothing about the capability",
				st.fixture.name, st.fixture.needs, client.DescribeExchange(with.ex)))
		}
		return &client.Mismatch{Expected: fmt.Sprintf("-32021 (MissingRequiredClientCapability) for %s called with clientCapabilities %s; it succeeds when %s is declared", st.fixture.name, declaredText(c.declared), st.fixture.needs),
			Actual: client.Describe(msg), Frames: checks.ExchangeSeqs(c.ex)}
	}
	return nil
}

// listMembers maps a capability to the array member of its list result.
var listMembers = map[string]string{"tools": "tools", "resources": "resources", "prompts": "prompts"}

// emptyPage reports whether a list result has an empty (or no) member array and no nextCursor.
func emptyPage(result json.RawMessage, member string) bool {
	var page map[string]json.RawMessage
	if json.Unmarshal(result, &page) != nil {
		return false
	}
	if _, more := page["nextCursor"]; more {
		return false
	}
	var items []json.RawMessage
	_ = json.Unmarshal(page[member], &items)
	return len(items) == 0
}
