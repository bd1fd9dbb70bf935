package steps

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The handshake-era session features (LFEAT-002 resource subscriptions in
// server-resources.feature, LFEAT-003 list-change notifications in server-tools.feature): each
// scenario opens a session of its own, since a subscription and the notifications a change
// sends belong to the session; the change is made by a trigger fixture tool.

func init() { bindSteps("legacy-features", registerLegacyFeaturesSteps) }

const (
	// triggerResourceUpdate is the reference fixture's tool that changes its resources (no
	// official conformance fixture changes a resource on demand; --fixture-map names a
	// server's own, e.g. test_trigger_resource_update=toggle-subscriber-updates for the npm
	// server-everything).
	triggerResourceUpdate = "test_trigger_resource_update"
	// subscribableResource is the official conformance fixture resource meant for
	// subscriptions.
	subscribableResource = "test://watched-resource"
	// noGETHead is why a notification the HTTP client did not see may still have been sent:
	// the GET got no reply head in time (a server may hold it back until its first event), so
	// the client read no stream the server may have set up for the session (holdGET).
	noGETHead = "the GET got no reply head within --timeout, so a stream the server may have set up for the session's notifications was not read"
	// endedGET is why: the server ended the GET stream it had opened before the trigger's
	// result came, leaving a notification sent after it no stream of the client's to go on.
	endedGET = "the server ended its GET stream before the trigger's result came, so a notification sent after had no stream to go on"
)

// lfeatState is what the LFEAT send steps leave for their assertion steps.
type lfeatState struct {
	sub, unsub *harness.Exchange   // LFEAT-002: the subscribe and unsubscribe exchanges
	record     checks.Subscription // LFEAT-002: the notifications around them
	untrigger  string              // why no change was triggered ("" when it was)
	changed    []checks.Notice     // LFEAT-003: the session's notifications after the trigger
	frames     []int               // the trigger exchanges' frames
	unread     string              // why a notification may have been missed (noGETHead, endedGET), "" when none
}

// lfeatOf returns the scenario's LFEAT state (see stateOf).
func lfeatOf(w *World) *lfeatState { return stateOf(w, func() *lfeatState { return &lfeatState{} }) }

// registerLegacyFeaturesSteps binds the LFEAT-002/003 steps.
func registerLegacyFeaturesSteps(sc *godog.ScenarioContext) {
	step(sc, `^the server declares "([^"]+)" in its "([^"]+)" capability$`, declaresSubCapability)
	step(sc, `^the client subscribes to a resource in a session of its own, triggers an update, unsubscribes and triggers again$`, wc(subscribeFlow))
	step(sc, `^subscribe and unsubscribe got empty results and the updates named only the subscribed resource, until it was unsubscribed$`, wc(subscriptionJudged))
	step(sc, `^the client triggers a tool list change in a session of its own$`, wc(toolChangeFlow))
	step(sc, `^the session was sent "([^"]+)"$`, func(ctx context.Context, method string) error {
		w := WorldOf(ctx)
		st := lfeatOf(w)
		if st.untrigger != "" {
			return w.SetSkip(reports.Untestable, st.untrigger)
		}
		why, m := checks.ListChanged(method, st.changed, st.unread, st.frames)
		return verdictOf(w, why, m)
	})
}

// declaresSubCapability makes the scenario na unless the server's capability name has member
// true (resources.subscribe, tools.listChanged).
func declaresSubCapability(ctx context.Context, member, name string) error {
	w := WorldOf(ctx)
	if err := serverDeclaresCapability(ctx, name); err != nil {
		return err
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(w.Target.Caps[name], &caps)
	if string(caps[member]) != "true" {
		return w.Undeclared(fmt.Sprintf("the server does not declare %s.%s", name, member))
	}
	return nil
}

// verdictOf turns a check's untestable reason or Mismatch into the step's result.
func verdictOf(w *World, untestable string, m *client.Mismatch) error {
	switch {
	case m != nil:
		return m
	case untestable != "":
		return w.SetSkip(reports.Untestable, untestable)
	}
	return nil
}

// lastSeq returns the seq of the last frame of the scenario's connection, 0 before any.
func lastSeq(w *World) int {
	fs := w.Conn.Frames()
	if len(fs) == 0 {
		return 0
	}
	return fs[len(fs)-1].Seq
}

// listedTool returns the tools/list entry of fixture (or its --fixture-map alias) when the
// server lists it and the run may call it; why says otherwise.
func (w *World) listedTool(ctx context.Context, fixture string) (tool map[string]any, why string, err error) {
	name := w.Opts.FixtureName(fixture)
	if !w.Declares("tools") {
		return nil, fmt.Sprintf("no tool %q: the server declares no tools (%s)", name, undeclaredToolsJudge), nil
	}
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	if p, failed := client.ListProblem(err); failed {
		return nil, fmt.Sprintf("the fixture tool %q could not be looked up: %s", name, p), nil
	}
	if err != nil {
		return nil, "", err
	}
	for _, t := range lt.Items {
		if t["name"] == name {
			if ok, why := w.Opts.MayCall(t); !ok {
				return nil, why, nil
			}
			return t, "", nil
		}
	}
	return nil, fmt.Sprintf("no fixture tool %q (--fixture-map %s=<tool> names the server's own)", name, fixture), nil
}

// holdGET opens the GET stream of the scenario's session on Streamable HTTP (client.OpenGET,
// once per scenario; a no-op on stdio) before a trigger is sent. OpenGET returns once the
// reply's head came, so a 2xx text/event-stream head is itself the proof that the stream on
// which the server may send the session's notifications (basic/transports#Listening for
// Messages from the Server) existed before the trigger: a notification missing from it and
// from the POST's reply is then missing, not unseen. A 405 (or any answer that is no stream)
// leaves the server no GET stream, so the notification is due on the POST's reply, as before.
// It returns noGETHead when no reply head came in time, "" otherwise.
func (w *World) holdGET(ctx context.Context) (unread string, err error) {
	if !w.OverHTTP() || len(w.Held) > 0 {
		return "", nil
	}
	if _, err := w.OpenGET(ctx, ""); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return noGETHead, nil
	}
	return "", nil
}

// trigger calls the trigger tool with the session's GET stream held (holdGET), then waits
// until the stream has been quiet for one window (client.SettleHeld) on Streamable HTTP, or
// lets one quiet window pass on stdio, so that what the server sends after the result
// arrives. It returns why the change may not have happened ("" when it did) and records in
// the state whether a notification could have been missed (unread: the GET got no head, or
// the server ended its stream before the trigger's result).
func (w *World) trigger(ctx context.Context, tool map[string]any) (string, error) {
	c, ok, why := w.ListedToolCall(tool, map[string]any{}, nil)
	if !ok {
		return why, nil
	}
	st := lfeatOf(w)
	unread, err := w.holdGET(ctx)
	if err != nil {
		return "", err
	}
	if err := w.Send(ctx, w.Build(c)); err != nil {
		return "", err
	}
	call := w.Last
	for _, g := range w.Held {
		if g.Listening() && g.Ended() {
			unread = endedGET
		}
	}
	if unread != "" {
		st.unread = unread
	}
	st.frames = append(st.frames, checks.ExchangeSeqs(call)...)
	if msg := client.ResponseOf(call); msg == nil || msg.Kind != harness.KindResult {
		return fmt.Sprintf("the trigger %q got %s", tool["name"], client.DescribeExchange(call)), nil
	}
	w.SettleHeld(ctx)
	w.SettleStream(ctx)
	return "", ctx.Err()
}

// subscribeFlow (LFEAT-002) opens a session of its own, picks a listed resource (the official
// fixture test://watched-resource, else test://static-text, else the first listed), subscribes
// to it, triggers a change, unsubscribes and triggers again; over Streamable HTTP the session's
// GET stream is held from the first trigger to the end (holdGET). Without the trigger the two
// requests are still sent, so that their results are judged.
func subscribeFlow(ctx context.Context, w *World) error {
	if err := w.OpenOwnSession(ctx); err != nil {
		return err
	}
	defer w.CloseStreams()
	lr, err := w.ListAll(ctx, "resources/list", "resources")
	if err != nil {
		return client.ListPrecondition(err, "RES-001")
	}
	uri := ""
	for _, pick := range []string{subscribableResource, w.Opts.FixtureName("test://static-text"), ""} {
		for _, r := range lr.Items {
			if u, _ := r["uri"].(string); u != "" && uri == "" && (pick == "" || u == pick) {
				uri = u
			}
		}
	}
	if uri == "" {
		return w.SetSkip(reports.Untestable, "the server lists no resource to subscribe to")
	}
	st := lfeatOf(w)
	st.record.URI = uri
	tool, why, err := w.listedTool(ctx, triggerResourceUpdate)
	if err != nil {
		return err
	}
	st.untrigger = why
	if err := w.SendParams(ctx, "resources/subscribe", map[string]any{"uri": uri}, nil, false); err != nil {
		return err
	}
	st.sub = w.Last
	from := lastSeq(w)
	if tool != nil && st.untrigger == "" {
		if st.untrigger, err = w.trigger(ctx, tool); err != nil {
			return err
		}
	}
	st.record.While = checks.NoticesAfter(w.Conn.Frames(), from)
	if err := w.SendParams(ctx, "resources/unsubscribe", map[string]any{"uri": uri}, nil, false); err != nil {
		return err
	}
	st.unsub = w.Last
	from = lastSeq(w)
	if tool != nil && st.untrigger == "" {
		if st.untrigger, err = w.trigger(ctx, tool); err != nil {
			return err
		}
	}
	w.CloseStreams()
	st.record.After = checks.NoticesAfter(w.Conn.Frames(), from)
	return nil
}

// subscriptionJudged judges LFEAT-002: the two results first (checks.EmptyResult), then the
// updates (checks.SubscriptionUpdates), untestable without a trigger.
func subscriptionJudged(_ context.Context, w *World) error {
	st := lfeatOf(w)
	for _, ex := range []*harness.Exchange{st.sub, st.unsub} {
		if what := checks.EmptyResult(ex.Sent.Method, client.ResponseOf(ex)); what != "" {
			return &client.Mismatch{Expected: "an empty result to " + ex.Sent.Method + " (server/resources#Subscriptions)", Actual: what, Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if st.untrigger != "" {
		return w.SetSkip(reports.Untestable, "no resource change could be triggered: "+st.untrigger)
	}
	st.record.Unread = st.unread
	why, m := checks.SubscriptionUpdates(st.record, st.frames)
	return verdictOf(w, why, m)
}

// toolChangeFlow (LFEAT-003) opens a session of its own and calls the official fixture tool
// test_trigger_tool_change (with the session's GET stream held over Streamable HTTP, holdGET);
// the notifications after it are kept.
func toolChangeFlow(ctx context.Context, w *World) error {
	if err := w.OpenOwnSession(ctx); err != nil {
		return err
	}
	st := lfeatOf(w)
	tool, why, err := w.listedTool(ctx, triggerToolChange)
	if err != nil || why != "" {
		st.untrigger = why
		return err
	}
	from := lastSeq(w)
	st.untrigger, err = w.trigger(ctx, tool)
	w.CloseStreams()
	if err != nil {
		return err
	}
	st.changed = checks.NoticesAfter(w.Conn.Frames(), from)
	return nil
}
