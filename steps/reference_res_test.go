package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// The reference fixture declares completions, so the rules about a server without them have
// nothing to judge there; their breaks hide the capability.
func init() {
	naByDesign["CMPL-004"] = true
	naByDesign["CAP-007"] = true
}

var (
	// resNA: resources undeclared at 2026-07-28 make the resource rules na there.
	resNA = map[string]reports.Verdict{
		"RES-001@2026-07-28": reports.NA, "RES-002@2026-07-28": reports.NA, "RES-003@2026-07-28": reports.NA,
		"RES-004@2026-07-28": reports.NA, "RES-005@2026-07-28": reports.NA, "RES-007@2026-07-28": reports.NA,
		"RES-008@2026-07-28": reports.NA, "RES-009@2026-07-28": reports.NA, "RES-010@2026-07-28": reports.NA,
		"RES-012@2026-07-28": reports.NA,
	}
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
	// The text item without text is schema-invalid on both eras.
	{Rule: "RES-003", SideEffects: withVerdicts(schema26, schema25)},
	{Rule: "RES-004"},
	// An empty result is not the -32602 RES-004 wants.
	// RES-009's escapes, unknown files, come back as empty results instead of errors too.
	{Rule: "RES-005", SideEffects: map[string]reports.Verdict{"RES-004@2026-07-28": reports.Fail, "RES-009@2026-07-28": reports.Fail}},
	// The bad URI also fails the uri format of ListResourcesResult (RES-001).
	{Rule: "RES-007", SideEffects: withVerdicts(schema26, map[string]reports.Verdict{"RES-001@2026-07-28": reports.Fail})},
	// The contents served for the malformed URI echo it: not a valid uri by the schema.
	{Rule: "RES-008", SideEffects: withVerdicts(schema26, schema25)},
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
