package steps_test

// toolBreakCases are the break-table entries of tools (TOOL).
var toolBreakCases = []breakCase{}
