package steps

import "github.com/cucumber/godog"

// registerLogextSteps binds the steps of logging, extensions and deprecations (LOG, EXT, DEP).
func registerLogextSteps(sc *godog.ScenarioContext) {
	_ = sc
}
