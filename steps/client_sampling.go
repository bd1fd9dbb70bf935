package steps

import (
	"context"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

func init() { bindSteps("client-sampling", registerClientSamplingSteps) }

// registerClientSamplingSteps binds the steps that only features/client-sampling.feature uses
// (the session and the fixture calls are client-elicitation's).
func registerClientSamplingSteps(sc *godog.ScenarioContext) {
	step(sc, `^no sampling request carried tools or toolChoice$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("sampling", func(f []*harness.Frame) (int, *client.Mismatch) { return checks.SamplingTools(inputOf(w).declared, f) })
	}))
	step(sc, `^no sampling request asked to include context$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("sampling", func(f []*harness.Frame) (int, *client.Mismatch) { return checks.IncludeContext(inputOf(w).declared, f) })
	}))
	step(sc, `^every tool use was answered by a user message of matching tool results only$`, wc(func(ctx context.Context, w *World) error {
		return w.judgeInput("sampling tool loop (tool use then tool results)", checks.ToolLoopBalance)
	}))
}
