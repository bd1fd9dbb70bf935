package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// httpBreakCases are the break-table entries of Streamable HTTP transport (HTTP, ERR-010, VER-005/006).
var httpBreakCases = []breakCase{
	// With POST refused the server no longer looks like a 2026-07-28 server at all.
	{Rule: "HTTP-001", Transports: httpOnly, Revision: "2026-07-28", EraDefeated: true},
	{Rule: "HTTP-003", Transports: httpOnly},
	{Rule: "HTTP-006", Transports: httpOnly},
	{Rule: "HTTP-007", Transports: httpOnly},
	{Rule: "HTTP-008", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"MSG-012@2026-07-28": reports.Fail}},
	{Rule: "HTTP-009", Transports: httpOnly},
	{Rule: "HTTP-010", Transports: httpOnly},
	// A reply on another POST answers an id never sent on that connection: MSG-013.
	{Rule: "HTTP-012", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"MSG-013@2026-07-28": reports.Fail}},
	// Without a 403 there is no refusal body for HTTP-019 to judge.
	{Rule: "HTTP-018", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"HTTP-019@2026-07-28": reports.NA, "HTTP-019@2025-11-25": reports.NA}},
	{Rule: "HTTP-023", Transports: httpOnly},
	{Rule: "HTTP-024", Transports: httpOnly},
	{Rule: "ERR-010", Transports: httpOnly},
	// A server that hides its legacy revisions but serves legacy traffic also serves the
	// header-less ping without claiming 2025-03-26: VER-006 reports it.
	// The break hides the legacy era: the server looks modern-only.
	{Rule: "VER-005", Transports: httpOnly, SideEffects: map[string]reports.Verdict{"VER-006@2026-07-28": reports.Info,
		"VER-003@2026-07-28": reports.Warn, "VER-007@2026-07-28": reports.NA, "VER-008@2026-07-28": reports.NA, "VER-009@2026-07-28": reports.NA}},
}
