package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("basic-patterns-cancellation", registerCancellationSteps) }

// cancState is what the CANC-001 scenario keeps: what the cancellation observed, or why it did
// not take place.
type cancState struct {
	c   *client.Cancelled
	why string
	na  bool
}

func cancOf(w *World) *cancState { return stateOf(w, func() *cancState { return &cancState{} }) }

// registerCancellationSteps binds the steps of features/basic-patterns-cancellation.feature.
func registerCancellationSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client opens a session of its own, on a handshake-era target$`, wc(func(ctx context.Context, w *World) error {
		if w.Target.Modern {
			// The scenarios' notifications are written verbatim without the modern _meta,
			// which a dual-era stdio server takes for a legacy message (features/deviations.md).
			return w.SetSkip(reports.NA, "the stateless-era wire of this scenario is not written yet: its notifications carry no modern _meta")
		}
		return w.OpenOwnSession(ctx)
	}))
	step(sc, `^the client sends the malformed notification:$`, func(ctx context.Context, doc *godog.DocString) error {
		return WorldOf(ctx).SendDoc(ctx, doc.Content, true, true)
	})
	step(sc, `^the client cancels a call of the fixture tool "([^"]+)" while it runs$`, func(ctx context.Context, fixture string) error {
		w := WorldOf(ctx)
		st := cancOf(w)
		switch {
		case w.Target.Modern && w.OverStdio():
			st.why, st.na = "at this revision STDIO-008 judges what a stdio server sends after a cancellation", true
			return nil
		case w.Target.Modern:
			st.why, st.na = "at this revision a Streamable HTTP client cancels by closing the request's stream, after which nothing can be observed", true
			return nil
		}
		name, why := w.fixtureToolPresent(ctx, fixture)
		if why != "" {
			st.why = why
			return nil
		}
		tok := "mcpconform-progress-" + strconv.FormatInt(w.Env.IDs().Next(), 10)
		c, err := w.CancelDuring(ctx, w.Build(w.ToolsCall(name, nil, map[string]any{client.ProgressMeta: tok})), tok)
		st.c = c
		return err
	})
	step(sc, `^no response to the cancelled call arrived$`, wc(func(_ context.Context, w *World) error {
		st := cancOf(w)
		switch {
		case st.na:
			return w.SetSkip(reports.NA, st.why)
		case st.why != "":
			return w.SetSkip(reports.Untestable, st.why)
		}
		why, m := checks.CancelledUnanswered(st.c)
		if why != "" {
			return w.SetSkip(reports.Untestable, why)
		}
		if m != nil {
			return m
		}
		return nil
	}))
	step(sc, `^the client cancels the request it sent last$`, wc(func(ctx context.Context, w *World) error {
		if len(w.LastID) == 0 {
			return fmt.Errorf("feature bug: no request was sent before the cancellation")
		}
		return w.Send(ctx, w.Build(client.Call{Method: "notifications/cancelled", Notification: true,
			Params: map[string]any{"requestId": json.RawMessage(w.LastID), "reason": "conformance test: a late cancellation"}}))
	}))
}
