package steps_test

// hdrBreakCases are the break-table entries of HTTP header validation and x-mcp-header (HDR-005..019).
var hdrBreakCases = []breakCase{}
