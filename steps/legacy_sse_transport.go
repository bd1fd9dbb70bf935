package steps

import (
	"context"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("legacy-sse-transport", registerLegacySSETransportSteps) }

// sseOrigin is what the Origin step of features/legacy-sse-transport.feature leaves for its
// Then-step: the origin sent, the first server frame of the GET (nil when none), and the seqs
// of that connection's frames.
type sseOrigin struct {
	origin string
	first  *harness.Frame
	seqs   []int
}

func sseOriginOf(w *World) *sseOrigin { return stateOf(w, func() *sseOrigin { return &sseOrigin{} }) }

// registerLegacySSETransportSteps binds the steps of features/legacy-sse-transport.feature,
// which judge the frames of the scenario's own HTTP+SSE connection (checks/sse.go).
func registerLegacySSETransportSteps(sc *godog.ScenarioContext) {
	step(sc, `^the first event of the SSE stream is an endpoint event naming a URI$`, wc(func(_ context.Context, w *World) error {
		return w.untestableOrMismatch(checks.SSEEndpointFirst(w.Conn.Frames()))
	}))
	step(sc, `^every message the client POSTed to the endpoint URI was accepted with a 2xx status$`, wc(func(_ context.Context, w *World) error {
		return w.untestableOrMismatch(checks.SSEPostsAccepted(w.Conn.Frames()))
	}))
	step(sc, `^every server message on the SSE stream came as a message event$`, wc(func(_ context.Context, w *World) error {
		return w.untestableOrMismatch(checks.SSEMessageEvents(w.Conn.Frames()))
	}))
	step(sc, `^the client opens an SSE stream with Origin "([^"]+)"$`, func(ctx context.Context, origin string) error {
		w := WorldOf(ctx)
		st := sseOriginOf(w)
		st.origin = origin
		var err error
		st.first, st.seqs, err = w.OpenSSEWithOrigin(ctx, origin)
		return err
	})
	step(sc, `^the server opened no SSE stream for it$`, wc(func(_ context.Context, w *World) error {
		st := sseOriginOf(w)
		return w.untestableOrMismatch(checks.SSEOriginRefused(st.first, st.origin, st.seqs))
	}))
}

// untestableOrMismatch turns a check's outcome into the step's: untestable with its reason
// when why is set, else the mismatch m, else nil (the rule holds).
func (w *World) untestableOrMismatch(why string, m *client.Mismatch) error {
	if why != "" {
		return w.SetSkip(reports.Untestable, why)
	}
	if m != nil {
		return m
	}
	return nil
}
