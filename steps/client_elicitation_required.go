package steps

import (
	"context"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("client-elicitation-url-required", registerURLElicitationRequiredSteps) }

// urlElicitationTool is the reference fixture's tool that needs a URL mode elicitation (no
// official conformance fixture exists for it; --fixture-map names a server's own).
const urlElicitationTool = "test_url_elicitation_required"

// elicitState is what the elicitation send step leaves for its assertions.
type elicitState struct {
	first     *harness.Exchange // the first call, expected to fail with -32042
	untrigger string            // why the fixture could not be called ("" when it was)
	from      int               // the seq after which the session's notifications are judged
}

// elicitOf returns the scenario's elicitation state (see stateOf).
func elicitOf(w *World) *elicitState {
	return stateOf(w, func() *elicitState { return &elicitState{} })
}

// registerURLElicitationRequiredSteps binds the steps of the URL elicitation required scenarios
// (LFEAT-011, LFEAT-012) of features/client-elicitation.feature.
func registerURLElicitationRequiredSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client calls the URL elicitation fixture tool in a session of its own that supports URL elicitation, then retries it$`, wc(urlElicitationFlow))
	step(sc, `^the -32042 error listed URL mode elicitations, each with an elicitationId, a url and a message$`, wc(func(_ context.Context, w *World) error {
		st := elicitOf(w)
		if st.untrigger != "" {
			return w.SetSkip(reports.Untestable, st.untrigger)
		}
		_, why, m := checks.URLElicitationRequired(client.ResponseOf(st.first), checks.ExchangeSeqs(st.first))
		return verdictOf(w, why, m)
	}))
	step(sc, `^every notifications/elicitation/complete of the session named an elicitationId the server issued in it$`, wc(func(_ context.Context, w *World) error {
		st := elicitOf(w)
		if st.untrigger != "" {
			return w.SetSkip(reports.Untestable, st.untrigger)
		}
		frames := w.Conn.Frames()
		issued, _, bad := checks.URLElicitationRequired(client.ResponseOf(st.first), nil)
		if bad != nil {
			return w.SetSkip(reports.Untestable, "the elicitations the -32042 error lists cannot be told apart ("+bad.Actual+"), which LFEAT-011 judges")
		}
		issued = append(issued, checks.IssuedElicitations(frames)...)
		return w.naOrMismatch(checks.ElicitationCompletes(issued, checks.NoticesAfter(frames, st.from)))
	}))
}

// urlElicitationFlow opens a session of its own whose client declares URL mode elicitation
// (client/elicitation#Capabilities), calls the fixture tool and, whatever it answered, calls
// it again (the retry after the out-of-band interaction), holding a GET stream meanwhile on
// Streamable HTTP (client.OpenGET, before the retry; a GET that got no reply head in time is
// left to the LHTTP rules) and one quiet window on stdio.
func urlElicitationFlow(ctx context.Context, w *World) error {
	if err := w.OpenOwnSessionWith(ctx, map[string]any{"elicitation": map[string]any{"url": map[string]any{}}}); err != nil {
		return err
	}
	st := elicitOf(w)
	st.from = lastSeq(w)
	tool, why, err := w.listedTool(ctx, urlElicitationTool)
	if err != nil || why != "" {
		st.untrigger = why
		return err
	}
	c, ok, why := w.ListedToolCall(tool, map[string]any{}, nil)
	if !ok {
		st.untrigger = why
		return nil
	}
	if err := w.Send(ctx, w.Build(c)); err != nil {
		return err
	}
	st.first = w.Last
	if w.OverHTTP() {
		if _, err := w.OpenGET(ctx, ""); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	err = w.Send(ctx, w.Build(c))
	w.CloseStreams()
	if err != nil {
		return err
	}
	w.SettleStream(ctx)
	return ctx.Err()
}
