package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// pageBreakCases are the break-table entries of pagination and caching (PAGE, CACHE).
var pageBreakCases = []breakCase{
	// "nextCursor": null is no string to the schema either, in both eras.
	{Rule: "PAGE-001", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "SCHEMA-001@2025-11-25": reports.Fail}},
	{Rule: "PAGE-002"},
	{Rule: "PAGE-003"},
	{Rule: "PAGE-004"},
	// The schema requires both hints, a ttlMs >= 0 and the cacheScope enum.
	{Rule: "CACHE-001", SideEffects: schema26},
	{Rule: "CACHE-002", SideEffects: schema26},
	{Rule: "CACHE-003", SideEffects: schema26},
	// RT-003 sees the hints as payload an InputRequiredResult must not have.
	{Rule: "CACHE-004", SideEffects: map[string]reports.Verdict{"RT-003@2026-07-28": reports.Fail}},
	{Rule: "CACHE-005"},
}
