package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// The reference fixture declares completions, so the rules about a server without them have
// nothing to judge there; their breaks hide the capability.
func init() {
	naByDesign["CMPL-004"] = true
	naByDesign["CAP-007"] = true
}

var (
	// cmplNA: completions undeclared at 2026-07-28 make the completion rules na there.
	cmplNA = map[string]reports.Verdict{
		"CMPL-001@2026-07-28": reports.NA, "CMPL-002@2026-07-28": reports.NA,
		"CMPL-003@2026-07-28": reports.NA, "CMPL-005@2026-07-28": reports.NA,
	}
)

// resBreakCases are the break-table entries of resources and completion (RES, CMPL).
var resBreakCases = []breakCase{
	{Rule: "RES-001", SideEffects: schema26},
	{Rule: "RES-002"},
	{Rule: "RES-003"},
	{Rule: "RES-004"},
	// An empty result is not the -32602 RES-004 wants.
	{Rule: "RES-005", SideEffects: map[string]reports.Verdict{"RES-004@2026-07-28": reports.Fail}},
	{Rule: "RES-007", SideEffects: schema26},
	{Rule: "RES-008"},
	{Rule: "RES-009"},
	{Rule: "RES-010", SideEffects: schema26},
	{Rule: "CMPL-001", SideEffects: schema26},
	{Rule: "CMPL-002"},
	{Rule: "CMPL-003"},
	// CAP-007 probes completion/complete too once completions are undeclared.
	{Rule: "CMPL-004", SideEffects: withVerdicts(cmplNA, map[string]reports.Verdict{"CAP-007@2026-07-28": reports.Warn})},
	{Rule: "CMPL-005"},
}

// withVerdicts returns the union of the side-effect maps.
func withVerdicts(maps ...map[string]reports.Verdict) map[string]reports.Verdict {
	out := map[string]reports.Verdict{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}
