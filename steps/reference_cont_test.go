package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// contBreakCases are the break-table entries of content blocks and prompts (CONT, PROMPT).
var contBreakCases = []breakCase{
	{Rule: "CONT-001", SideEffects: schema26},
	{Rule: "CONT-002"},
	{Rule: "CONT-003"},
	// The icon is part of a prompts/list page, which PROMPT-001 validates as ListPromptsResult.
	{Rule: "CONT-004", SideEffects: with(schema26, "PROMPT-001@2026-07-28", reports.Fail)},
	{Rule: "CONT-005"},
	{Rule: "CONT-006", SideEffects: schema26},
	{Rule: "CONT-007", SideEffects: schema26},
	{Rule: "PROMPT-001", SideEffects: schema26},
	{Rule: "PROMPT-002"},
	{Rule: "PROMPT-003", SideEffects: schema26},
	{Rule: "PROMPT-004"},
	{Rule: "PROMPT-005"},
	{Rule: "PROMPT-006"},
}
