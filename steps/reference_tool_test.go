package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// toolBreakCases are the break-table entries of tools (TOOL).
var toolBreakCases = []breakCase{
	// The untyped inputSchema is also invalid against the Tool schema (LEG-007 validates the
	// legacy tools/list result).
	{Rule: "TOOL-001", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "SCHEMA-001@2025-11-25": reports.Fail}},
	{Rule: "TOOL-002"},
	{Rule: "TOOL-004"},
	{Rule: "TOOL-005"},
	{Rule: "TOOL-006"},
	{Rule: "TOOL-007"},
	// META-007 compares the tools/list replies of two fresh connections: they differ too.
	{Rule: "TOOL-008"},
	// The string isError is invalid against CallToolResult in both revisions.
	{Rule: "TOOL-009", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "SCHEMA-001@2025-11-25": reports.Fail}},
	{Rule: "TOOL-010"},
	{Rule: "TOOL-012"},
	{Rule: "TOOL-013"},
	{Rule: "TOOL-014"},
	{Rule: "TOOL-015"},
	{Rule: "TOOL-016"},
	// Without capabilities.resources, resources/list still answers (CAP-002, CAP-007).
	{Rule: "TOOL-018", SideEffects: map[string]reports.Verdict{"CAP-002@2026-07-28": reports.Fail, "CAP-007@2026-07-28": reports.Warn}},
	{Rule: "TOOL-019"},
}

// toolRules26 are the TOOL rules at 2026-07-28: na when a break hides the tools capability
// (CAP-001).
var toolRules26 = []string{
	"TOOL-001@2026-07-28", "TOOL-002@2026-07-28", "TOOL-004@2026-07-28", "TOOL-005@2026-07-28", "TOOL-006@2026-07-28",
	"TOOL-007@2026-07-28", "TOOL-008@2026-07-28", "TOOL-009@2026-07-28", "TOOL-010@2026-07-28", "TOOL-012@2026-07-28",
	"TOOL-013@2026-07-28", "TOOL-014@2026-07-28", "TOOL-015@2026-07-28", "TOOL-016@2026-07-28", "TOOL-018@2026-07-28",
	"TOOL-019@2026-07-28",
}

// leg007Tool are the side effects of LEG-007 (a legacy tools/list result without tools): TOOL-001
// fails, the rules that need the list are untestable.
var leg007Tool = func() map[string]reports.Verdict {
	m := map[string]reports.Verdict{"SCHEMA-001@2025-11-25": reports.Fail, "TOOL-001@2025-11-25": reports.Fail}
	for _, r := range []string{"002", "004", "005", "006", "009", "010", "012", "014", "015", "016", "018"} {
		m["TOOL-"+r+"@2025-11-25"] = reports.Untestable
	}
	return m
}()
