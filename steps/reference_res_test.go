package steps_test

// resBreakCases are the break-table entries of resources and completion (RES, CMPL).
var resBreakCases = []breakCase{}
