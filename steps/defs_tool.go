package steps

import "github.com/cucumber/godog"

// registerToolSteps binds the steps of tools (TOOL).
func registerToolSteps(sc *godog.ScenarioContext) {
	_ = sc
}
