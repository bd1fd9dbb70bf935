package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// stdio002 is the side effect of a break that makes one stdout line an invalid JSON-RPC
// message: the stdio framer records a problem on it, and STDIO-002 judges every such line.
var stdio002 = map[string]reports.Verdict{"STDIO-002@2026-07-28": reports.Fail}

// msgBreakCases are the break-table entries of messages, error codes, _meta keys, resultType (MSG, META-008..010, RT, ERR).
var msgBreakCases = []breakCase{
	{Rule: "MSG-001", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "STDIO-002@2026-07-28": reports.Fail}},
	{Rule: "MSG-002", SideEffects: stdio002},
	{Rule: "MSG-004", SideEffects: stdio002},
	{Rule: "MSG-005", SideEffects: schema26},
	{Rule: "MSG-007", SideEffects: stdio002},
	{Rule: "MSG-010"},
	{Rule: "MSG-012"},
	{Rule: "MSG-013"},
	{Rule: "MSG-017"},
	{Rule: "META-008"},
	{Rule: "META-009"},
	{Rule: "META-010"},
	{Rule: "RT-003"},
	{Rule: "RT-004"},
	{Rule: "ERR-001"},
	// The schema's MissingRequiredClientCapabilityError requires the data the break leaves out.
	{Rule: "ERR-002", SideEffects: schema26},
	{Rule: "ERR-003"},
	{Rule: "ERR-004"},
	{Rule: "ERR-005"},
	{Rule: "ERR-006"},
}
