package steps

import (
	"context"
	"fmt"
	"regexp"

	"github.com/cucumber/godog"
	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
)

func init() { bindSteps("server-discover", registerServerDiscoverSteps) }

// registerServerDiscoverSteps binds the steps that only features/server-discover.feature uses.
func registerServerDiscoverSteps(sc *godog.ScenarioContext) {
	// Observe.
	step(sc, `^the value at "([^"]*)" contains `+checks.JSONLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return WorldOf(ctx).containsAt(ptr, lit, true)
	})
	step(sc, `^every entry at "([^"]*)" matches "([^"]+)"$`, everyEntryMatches)
	step(sc, `^the response validates as "([^"]+)"$`, responseValidates)
}

func everyEntryMatches(ctx context.Context, ptr, expr string) error {
	w := WorldOf(ctx)
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("feature bug: %w", err)
	}
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	arr, _ := v.([]any)
	for _, x := range arr {
		if s, ok := x.(string); !ok || !re.MatchString(s) {
			return &client.Mismatch{Expected: fmt.Sprintf("every entry at %s to match %s", ptr, expr), Actual: "entry " + checks.JSONText(x), Frames: w.LastSeqs()}
		}
	}
	return nil
}

func responseValidates(ctx context.Context, typ string) error {
	w := WorldOf(ctx)
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	return w.validateAt(msg.Raw, "", typ, w.LastSeqs())
}
