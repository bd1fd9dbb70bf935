package steps

import "github.com/cucumber/godog"

// registerHdrSteps binds the steps of HTTP header validation and x-mcp-header (HDR-005..019).
func registerHdrSteps(sc *godog.ScenarioContext) {
	_ = sc
}
