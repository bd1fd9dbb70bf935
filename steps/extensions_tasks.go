package steps

import (
	"context"
	"fmt"

	"github.com/cucumber/godog"
)

func init() { bindSteps("extensions-tasks", registerExtensionsTasksSteps) }

// registerExtensionsTasksSteps binds the steps that only features/extensions-tasks.feature uses.
func registerExtensionsTasksSteps(sc *godog.ScenarioContext) {
	// Setup.
	step(sc, `^the server advertises the "([^"]+)" extension$`, advertisesExtension)

	// Observe.
	step(sc, `^no task handle in this run went to a request that did not declare the tasks extension$`, AskJudge("EXT-005"))
}

func advertisesExtension(ctx context.Context, id string) error {
	w := WorldOf(ctx)
	if _, ok := w.ServerExtensions()[id]; !ok {
		return w.Undeclared(fmt.Sprintf("the server does not advertise the %q extension", id))
	}
	return nil
}
