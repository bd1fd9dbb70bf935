package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

func init() { bindSteps("architecture-index", registerArchitectureIndexSteps) }

// registerArchitectureIndexSteps binds the steps that only
// features/architecture-index.feature uses.
func registerArchitectureIndexSteps(sc *godog.ScenarioContext) {
	// CAP-009, CAP-010.
	step(sc, `^the client reads the server's declared capabilities twice, and once more on a fresh connection$`, wc(readsDeclaredCapabilitiesTwice))
	step(sc, `^every capability set the server declared is the same$`, wc(func(ctx context.Context, w *World) error {
		return w.expectSameCapabilities()
	}))
}

func readsDeclaredCapabilitiesTwice(ctx context.Context, w *World) error {
	if err := w.readCapabilities(ctx, false); err != nil {
		return err
	}
	if err := w.readCapabilities(ctx, false); err != nil {
		return err
	}
	return w.readCapabilities(ctx, true)
}

// expectSameCapabilities is CAP-010: every DiscoverResult / InitializeResult of the scenario
// declares the capabilities the server declared when the run began.
func (w *World) expectSameCapabilities() error {
	base := map[string]any{}
	for k, v := range w.Target.Caps {
		var x any
		_ = json.Unmarshal(v, &x)
		base[k] = x
	}
	n := 0
	for _, ex := range w.Exchanges {
		if ex.Sent == nil || (ex.Sent.Method != "server/discover" && ex.Sent.Method != "initialize") {
			continue
		}
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &client.Mismatch{Expected: "a result to " + client.SentMethod(ex), Actual: client.DescribeExchange(ex), Frames: checks.ExchangeSeqs(ex)}
		}
		var r struct {
			Capabilities map[string]any `json:"capabilities"`
		}
		_ = json.Unmarshal(msg.Result, &r)
		if r.Capabilities == nil {
			r.Capabilities = map[string]any{}
		}
		n++
		if !reflect.DeepEqual(base, r.Capabilities) {
			return &client.Mismatch{Expected: "the capabilities declared when the run began: " + checks.JSONText(base), Actual: checks.JSONText(r.Capabilities), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return fmt.Errorf("feature bug: no capabilities were read")
	}
	return nil
}
