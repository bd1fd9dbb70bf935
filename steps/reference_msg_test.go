package steps_test

import "github.com/mcp-conform/mcp-conform/reports"

// stdio002 is the side effect of a break that makes one stdout line an invalid JSON-RPC
// message: the stdio framer records a problem on it, and STDIO-002 judges every such line.
var stdio002 = map[string]reports.Verdict{"STDIO-002@2026-07-28": reports.Fail}

// serverRequest is the side effect of a break that sends a server-initiated request.
var serverRequest = map[string]reports.Verdict{"HTTP-008@2026-07-28": reports.Fail, "STDIO-004@2026-07-28": reports.Fail}

// with returns a copy of effects plus the pairs key1, verdict1, key2, verdict2, ...
func with(effects map[string]reports.Verdict, pairs ...any) map[string]reports.Verdict {
	out := map[string]reports.Verdict{}
	for k, v := range effects {
		out[k] = v
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i].(string)] = pairs[i+1].(reports.Verdict)
	}
	return out
}

// msgBreakCases are the break-table entries of messages, error codes, _meta keys, resultType (MSG, META-008..010, RT, ERR).
var msgBreakCases = []breakCase{
	// On HTTP the broken message travels as an SSE event's data, which HTTP-006 judges too.
	{Rule: "MSG-001", SideEffects: with(stdio002, "SCHEMA-001@2026-07-28", reports.Fail, "HTTP-006@2026-07-28", reports.Fail)},
	{Rule: "MSG-002", SideEffects: with(stdio002, "HTTP-006@2026-07-28", reports.Fail)},
	{Rule: "MSG-004", SideEffects: stdio002},
	{Rule: "MSG-005", SideEffects: schema26},
	// The broken error object is the body of a 4xx reply, which ERR-010 judges too.
	{Rule: "MSG-007", SideEffects: with(stdio002, "ERR-010@2026-07-28", reports.Fail)},
	// A message with both method and id is a server request: on an SSE stream HTTP-008 forbids
	// it, on stdout STDIO-004.
	{Rule: "MSG-010", SideEffects: serverRequest},
	{Rule: "MSG-012", SideEffects: serverRequest},
	// The second response to one request follows the final one on its SSE stream.
	{Rule: "MSG-013", SideEffects: map[string]reports.Verdict{"HTTP-009@2026-07-28": reports.Warn}},
	{Rule: "MSG-017"},
	{Rule: "META-008"},
	{Rule: "META-009"},
	{Rule: "META-010"},
	{Rule: "RT-003"},
	{Rule: "RT-004"},
	{Rule: "ERR-001"},
	// The schema's MissingRequiredClientCapabilityError requires the data the break leaves out.
	// The unknown-tool error is no longer -32602 either (TOOL-013).
	{Rule: "ERR-002", SideEffects: with(schema26, "ERR-008@2026-07-28", reports.Fail, "TOOL-013@2026-07-28", reports.Warn)},
	// The invalid-cursor error PAGE-003 asks for becomes -32001.
	{Rule: "ERR-003", SideEffects: map[string]reports.Verdict{"PAGE-003@2026-07-28": reports.Warn}},
	// RES-004 reads a missing resource too and wants -32602.
	{Rule: "ERR-004", SideEffects: map[string]reports.Verdict{"RES-004@2026-07-28": reports.Fail}},
	// The unknown-tool error is no longer -32602 (TOOL-013).
	{Rule: "ERR-005", SideEffects: map[string]reports.Verdict{"TOOL-013@2026-07-28": reports.Warn}},
	{Rule: "ERR-006"},
}
