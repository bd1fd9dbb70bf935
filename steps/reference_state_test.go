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
	// The x-mcp-header checks judge the tools of a server that declares tools, and CACHE-004
	// calls a tool only then. The TOOL rules are na without the tools capability (toolRules26).
	{Rule: "CAP-001", SideEffects: withNA(withNA(cap007, "CACHE-004@2026-07-28", "HDR-010@2026-07-28", "HDR-011@2026-07-28", "HDR-012@2026-07-28",
		"HDR-013@2026-07-28", "HDR-014@2026-07-28", "HDR-015@2026-07-28", "HDR-016@2026-07-28", "HDR-017@2026-07-28",
		"HDR-018@2026-07-28", "HDR-019@2026-07-28"), toolRules26...)},
	// The resource rules become na at 2026-07-28; test_embedded_resource now comes from a server
	// without the resources capability (TOOL-018).
	{Rule: "CAP-002", SideEffects: withVerdicts(cap007, resNA, map[string]reports.Verdict{"TOOL-018@2026-07-28": reports.Warn})},
	{Rule: "CAP-003", SideEffects: cap007},
	// CAP-007 and CMPL-004 call completion/complete too, and get the result instead of -32601;
	// the other completion rules become na.
	{Rule: "CAP-004", SideEffects: withVerdicts(cap007, cmplNA, map[string]reports.Verdict{"CMPL-004@2026-07-28": reports.Warn})},
	{Rule: "CAP-005"},
	// CMPL-004 sees the same -32602 for the now undeclared completions.
	{Rule: "CAP-007", SideEffects: withVerdicts(cmplNA, map[string]reports.Verdict{"CMPL-004@2026-07-28": reports.Warn})},
	{Rule: "CAP-008"},
	// The DiscoverResult itself becomes schema-invalid.
	{Rule: "CAP-009", SideEffects: map[string]reports.Verdict{"SCHEMA-001@2026-07-28": reports.Fail, "DISC-002@2026-07-28": reports.Fail}},
	{Rule: "CAP-010"},
}

var cap007 = map[string]reports.Verdict{"CAP-007@2026-07-28": reports.Warn}

// withNA returns a copy of effects that also expects na for each key.
func withNA(effects map[string]reports.Verdict, keys ...string) map[string]reports.Verdict {
	out := map[string]reports.Verdict{}
	for k, v := range effects {
		out[k] = v
	}
	for _, k := range keys {
		out[k] = reports.NA
	}
	return out
}
