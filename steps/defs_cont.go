package steps

import "github.com/cucumber/godog"

// registerContSteps binds the steps of content blocks and prompts (CONT, PROMPT).
func registerContSteps(sc *godog.ScenarioContext) {
	_ = sc
}
