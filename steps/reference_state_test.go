package steps_test

// stateBreakCases are the break-table entries of statelessness and capabilities (STATE, CAP, META-007, ERR-008).
var stateBreakCases = []breakCase{}
