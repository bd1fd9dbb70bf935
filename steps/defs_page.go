package steps

import "github.com/cucumber/godog"

// registerPageSteps binds the steps of pagination and caching (PAGE, CACHE).
func registerPageSteps(sc *godog.ScenarioContext) {
	_ = sc
}
