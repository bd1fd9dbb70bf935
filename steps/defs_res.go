package steps

import "github.com/cucumber/godog"

// registerResSteps binds the steps of resources and completion (RES, CMPL).
func registerResSteps(sc *godog.ScenarioContext) {
	_ = sc
}
