package steps

import "github.com/cucumber/godog"

// registerHTTPSteps binds the steps of Streamable HTTP transport (HTTP, ERR-010, VER-005/006).
func registerHTTPSteps(sc *godog.ScenarioContext) {
	_ = sc
}
