package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// hdrBreakCases are the break-table entries of HTTP header validation and x-mcp-header (HDR-005..019).
var hdrBreakCases = []breakCase{
	{Rule: "HDR-005", Transports: httpOnly},
	// Without the comparison, an upper-case sentinel (a literal value) is not told apart either.
	{Rule: "HDR-006", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"HDR-008@2026-07-28": reports.Fail}},
	// The undecoded value makes the server send -32020 for headers that do match: ERR-002.
	{Rule: "HDR-007", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"ERR-002@2026-07-28": reports.Fail}},
	{Rule: "HDR-008", Transports: httpOnly},
	{Rule: "HDR-009", Transports: httpOnly},
	{Rule: "HDR-010", Transports: httpOnly},
	{Rule: "HDR-011", Transports: httpOnly},
	{Rule: "HDR-012", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"ERR-002@2026-07-28": reports.Fail}},
	{Rule: "HDR-013", Transports: httpOnly},
	{Rule: "HDR-014", Transports: httpOnly},
	{Rule: "HDR-015"},
	{Rule: "HDR-016"},
	{Rule: "HDR-017"},
	{Rule: "HDR-018"},
	{Rule: "HDR-019"},
}
