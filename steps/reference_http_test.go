package steps_test

// httpBreakCases are the break-table entries of Streamable HTTP transport (HTTP, ERR-010, VER-005/006).
var httpBreakCases = []breakCase{}
