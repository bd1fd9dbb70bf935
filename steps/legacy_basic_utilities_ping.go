package steps

import (
	"context"
	"strconv"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("legacy-basic-utilities-ping", registerLegacyPingSteps) }

// pingState is what the LEG-008 scenario keeps: the ping sent while a tool ran.
type pingState struct {
	during *client.During
	why    string // why no ping could be sent while the tool ran
}

func pingOf(w *World) *pingState { return stateOf(w, func() *pingState { return &pingState{} }) }

// registerLegacyPingSteps binds the steps of features/legacy-basic-utilities-ping.feature.
func registerLegacyPingSteps(sc *godog.ScenarioContext) {
	step(sc, `^the ping is answered with an empty result$`, wc(func(_ context.Context, w *World) error {
		return nilIfNil(checks.EmptyPingResult(w.Last, "", nil))
	}))
	step(sc, `^the client sends a "([^"]+)" request while the fixture tool "([^"]+)" runs$`, func(ctx context.Context, method, fixture string) error {
		w := WorldOf(ctx)
		st := pingOf(w)
		name, why := w.fixtureToolPresent(ctx, fixture)
		if why != "" {
			st.why = why
			return nil
		}
		tok := "mcpconform-progress-" + strconv.FormatInt(w.Env.IDs().Next(), 10)
		long := w.Build(w.ToolsCall(name, nil, map[string]any{client.ProgressMeta: tok}))
		d, err := w.SendDuring(ctx, long, tok, w.Build(client.Call{Method: method}))
		st.during = d
		if d != nil && !d.Running {
			st.why = "tool " + strconv.Quote(name) + " reported no progress for the token before its response, so no request could be sent while it provably ran"
		}
		return err
	})
	step(sc, `^the ping sent while the tool ran is answered with an empty result$`, wc(func(_ context.Context, w *World) error {
		st := pingOf(w)
		if st.why != "" {
			return w.SetSkip(reports.Untestable, "ping while a tool runs: "+st.why)
		}
		var cite []int
		if st.during.Long != nil {
			cite = checks.ExchangeSeqs(st.during.Long)
		}
		return nilIfNil(checks.EmptyPingResult(st.during.Second, " sent while a tool ran", cite))
	}))
}
