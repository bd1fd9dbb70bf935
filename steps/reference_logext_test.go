package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

func init() {
	// DEP-001 and DEP-002 judge only servers that serve 2026-07-28 alone (a new implementation);
	// the default fixture is dual-era. EXT-005 needs a server advertising the tasks extension,
	// which the fixture does not implement. TestReferenceModernOnly covers DEP-001 and DEP-002.
	for _, id := range []string{"DEP-001", "DEP-002", "EXT-005"} {
		naByDesign[id] = true
	}
}

// logextBreakCases are the break-table entries of logging, extensions and deprecations (LOG, EXT, DEP).
var logextBreakCases = []breakCase{
	{Rule: "LOG-001"},
	{Rule: "LOG-002"},
	{Rule: "LOG-003"},
	{Rule: "LOG-004"},
	{Rule: "LOG-005", SideEffects: schema26},
	{Rule: "EXT-001"},
	{Rule: "EXT-002", SideEffects: schema26},
	{Rule: "EXT-003"},
	{Rule: "EXT-004"},
	{Rule: "EXT-005"},
	{Rule: "DEP-001", SideEffects: modernOnlySide(nil)},
	{Rule: "DEP-002", Transports: httpOnly, SideEffects: modernOnlySide(nil)},
	// The fixture also serves earlier revisions: serving a removed method is noted, not failed.
	{Rule: "DEP-003", Verdict: reports.Info},
	{Rule: "DEP-004"},
}
