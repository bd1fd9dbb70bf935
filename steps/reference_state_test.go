package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// stateBreakCases are the break-table entries of statelessness and capabilities (STATE, CAP, META-007, ERR-008).
var stateBreakCases = []breakCase{
	{Rule: "STATE-001"},
	{Rule: "STATE-003"},
	{Rule: "STATE-004"},
	{Rule: "META-007"},
	{Rule: "ERR-008"},
	// CAP-007 sees the undeclared feature's list method succeed.
	{Rule: "CAP-001", SideEffects: cap007},
	{Rule: "CAP-002", SideEffects: cap007},
	{Rule: "CAP-003", SideEffects: cap007},
	// CAP-007 calls completion/complete too, and gets the result instead of -32601.
	{Rule: "CAP-004", SideEffects: cap007},
	{Rule: "CAP-005"},
	{Rule: "CAP-007"},
	{Rule: "CAP-008"},
	// The DiscoverResult itself becomes schema-invalid.
	{Rule: "CAP-009", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "DISC-002@2026-07-28": reports.Fail}},
	{Rule: "CAP-010"},
}

var cap007 = map[string]reports.Verdict{"CAP-007@2026-07-28": reports.Warn}
