package steps

import "github.com/cucumber/godog"

// registerStateSteps binds the steps of statelessness and capabilities (STATE, CAP, META-007, ERR-008).
func registerStateSteps(sc *godog.ScenarioContext) {
	_ = sc
}
