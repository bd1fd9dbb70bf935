package steps_test

// contBreakCases are the break-table entries of content blocks and prompts (CONT, PROMPT).
var contBreakCases = []breakCase{}
