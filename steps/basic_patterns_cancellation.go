package steps

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/client"
)

func init() { bindSteps("basic-patterns-cancellation", registerCancellationSteps) }

// registerCancellationSteps binds the steps of features/basic-patterns-cancellation.feature.
func registerCancellationSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client opens a session of its own, on a handshake-era target$`, wc(func(ctx context.Context, w *World) error {
		if w.Target.Modern {
			return nil
		}
		return w.OpenOwnSession(ctx)
	}))
	step(sc, `^the client sends the malformed notification:$`, func(ctx context.Context, doc *godog.DocString) error {
		return WorldOf(ctx).SendDoc(ctx, doc.Content, true, true)
	})
	step(sc, `^the client cancels the request it sent last$`, wc(func(ctx context.Context, w *World) error {
		if len(w.LastID) == 0 {
			return fmt.Errorf("feature bug: no request was sent before the cancellation")
		}
		return w.Send(ctx, w.Build(client.Call{Method: "notifications/cancelled", Notification: true,
			Params: map[string]any{"requestId": json.RawMessage(w.LastID), "reason": "conformance test: a late cancellation"}}))
	}))
}
