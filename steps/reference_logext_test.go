package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

func init() {
	// DEP-001 and DEP-002 judge only servers that serve 2026-07-28 alone (a new implementation);
	// the default fixture is dual-era. EXT-005 needs a server advertising the tasks extension,
	// which the fixture does not implement. TestReferenceModernOnly covers DEP-001 and DEP-002.
	for _, id := range []string{"DEP-001", "DEP-002", "EXT-005"} {
		naByDesign[id] = true
	}
	// What other areas' breaks change in the LOG, EXT and DEP verdicts (kept here so that the
	// other break tables stay as their areas wrote them).
	modernOnly := []any{"DEP-001@2026-07-28", reports.Pass, "DEP-002@2026-07-28", reports.Pass,
		"LOG-002@2026-07-28", reports.NA, "LOG-004@2026-07-28", reports.NA}
	effects := map[string][]any{
		// No tools capability: the logging fixture tool cannot be looked up.
		"CAP-001": {"LOG-002@2026-07-28", reports.Untestable},
		// Without the logging capability the logging rules that need it are na.
		"CAP-005": {"LOG-002@2026-07-28", reports.NA, "LOG-004@2026-07-28", reports.NA},
		// Modern-only: the DEP adoption rules apply, and the fixture no longer declares logging.
		"VER-003": modernOnly,
		"VER-004": modernOnly,
		// The HTTP discover lists 2026-07-28 alone while logging stays declared.
		"VER-005": {"DEP-001@2026-07-28", reports.Warn, "DEP-002@2026-07-28", reports.Pass},
		// Request-scoped notifications leak onto the listen stream, log messages included.
		"HTTP-023": {"LOG-003@2026-07-28", reports.Fail},
		// A resultType outside the core set for a request that declared no extension.
		"RT-002": {"EXT-003@2026-07-28", reports.Fail},
		"RT-004": {"EXT-003@2026-07-28", reports.Fail},
		// The break's legacy log message is malformed.
		"LEG-007": {"LOG-005@2025-11-25", reports.Fail},
		// Unknown methods no longer get -32601 (HTTP 404), removed ones included.
		"HTTP-013": {"DEP-003@2026-07-28", reports.Info},
		"MSG-016":  {"DEP-003@2026-07-28", reports.Info},
	}
	for i := range breakTable {
		if e, ok := effects[breakTable[i].Rule]; ok {
			breakTable[i].SideEffects = with(breakTable[i].SideEffects, e...)
		}
	}
}

// modernOnlyDEP are the side effects of the DEP-001 and DEP-002 breaks, which make the fixture
// modern-only: the modern-only rules apply, the other DEP adoption rule passes, and the logging
// rules that need the capability become na unless the break declares it (DEP-001).
func modernOnlyDEP(rule string) map[string]reports.Verdict {
	m := modernOnlySide(map[string]reports.Verdict{"VER-003@2026-07-28": reports.Pass, "VER-004@2026-07-28": reports.Pass})
	other := map[string]string{"DEP-001": "DEP-002", "DEP-002": "DEP-001"}[rule]
	m[other+"@2026-07-28"] = reports.Pass
	if rule == "DEP-002" {
		m["LOG-002@2026-07-28"], m["LOG-004@2026-07-28"] = reports.NA, reports.NA
	}
	return m
}

// taskSide are the side effects of a task handle in a tools/call result: a resultType outside
// the core set (RT-004) and a result that is no CallToolResult (SCHEMA-001).
var taskSide = map[string]reports.Verdict{"RT-004@2026-07-28": reports.Fail, "SCHEMA-001@2026-07-28": reports.Fail}

// logextBreakCases are the break-table entries of logging, extensions and deprecations (LOG, EXT, DEP).
var logextBreakCases = []breakCase{
	// HTTP-007 also checks that log messages on a request's stream were asked for.
	{Rule: "LOG-001", SideEffects: map[string]reports.Verdict{"HTTP-007@2026-07-28": reports.Fail}},
	{Rule: "LOG-002"},
	// stdio: the subscriptionId names no open subscription (STDIO-004).
	{Rule: "LOG-003", SideEffects: map[string]reports.Verdict{"STDIO-004@2026-07-28": reports.Fail}},
	{Rule: "LOG-004"},
	{Rule: "LOG-005", SideEffects: schema26},
	{Rule: "EXT-001"},
	// Settings that are no object break the ServerCapabilities schema.
	{Rule: "EXT-002", SideEffects: with(schema26, "CAP-009@2026-07-28", reports.Fail, "DISC-002@2026-07-28", reports.Fail)},
	{Rule: "EXT-003", SideEffects: taskSide},
	{Rule: "EXT-004"},
	{Rule: "EXT-005", SideEffects: with(taskSide, "EXT-003@2026-07-28", reports.Fail)},
	{Rule: "DEP-001", SideEffects: modernOnlyDEP("DEP-001")},
	{Rule: "DEP-002", Transports: httpOnly, SideEffects: modernOnlyDEP("DEP-002")},
	// The fixture also serves earlier revisions: serving a removed method is noted, not failed.
	{Rule: "DEP-003", Verdict: reports.Info},
	{Rule: "DEP-004"},
}
