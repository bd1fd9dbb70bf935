package steps

import "github.com/cucumber/godog"

// registerStdioSteps binds the steps of stdio transport and versioning (STDIO, VER).
func registerStdioSteps(sc *godog.ScenarioContext) {
	_ = sc
}
