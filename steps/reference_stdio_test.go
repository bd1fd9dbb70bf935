package steps_test

// stdioBreakCases are the break-table entries of stdio transport and versioning (STDIO, VER).
var stdioBreakCases = []breakCase{}
