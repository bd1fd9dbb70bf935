package steps

import "github.com/cucumber/godog"

// registerMsgSteps binds the steps of messages, error codes, _meta keys, resultType (MSG, META-008..010, RT, ERR).
func registerMsgSteps(sc *godog.ScenarioContext) {
	_ = sc
}
