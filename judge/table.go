package judge

import "github.com/mcp-conform/mcp-conform/revisions"

// NoSubject is the reason a run-wide rule without an Entry.None of its own is na when its check
// judged no frame of the run: no pass without evidence.
const NoSubject = "the run gave this rule nothing to judge: no frame it applies to was exchanged"

// Reasons a run-wide rule is na when the run gave it nothing to judge.
const (
	noSubject    = NoSubject
	noSSE        = "the server answered no request of this run with an SSE stream, so there is no stream to judge"
	noRequestSSE = "the server answered no request of this run other than subscriptions/listen with an SSE stream, so there is no request stream to judge"
)

// table is every run-wide rule: one row per rule id, read-only. A row's check is built per
// revision of a run (see Judge); Intentional marks the rules about the replies to requests the
// suite made invalid on purpose (error codes and error objects, which those requests exist to
// provoke) and the rules about the bytes on the wire whatever the request was (schema, UTF-8,
// stdout and SSE framing); every other rule never sees such requests nor their replies.
var table = []Entry{
	// basic/index: messages (features/basic-index.feature).
	{Rule: "MSG-001", New: checkJSONRPC},
	{Rule: "MSG-002", New: checkUTF8, Intentional: true},
	{Rule: "MSG-004", New: checkResultXorError},
	{Rule: "MSG-005", New: checkResultObject},
	{Rule: "MSG-007", New: checkErrorObject, Intentional: true},
	{Rule: "MSG-010", New: checkNotificationIDs},
	{Rule: "MSG-012", New: checkNoServerRequests},
	{Rule: "MSG-013", New: newResponseIDs},
	{Rule: "MSG-017", New: checkErrorMessages, Intentional: true},
	// basic/index#_meta.
	{Rule: "META-008", New: checkMetaKeyNames},
	{Rule: "META-009", New: checkReservedMetaKeys},
	{Rule: "META-010", New: checkTraceContext},
	// resultType (MRTR).
	{Rule: "RT-003", New: checkInputRequired},
	{Rule: "RT-004", New: checkResultTypes},
	// basic/index#Error Codes.
	{Rule: "ERR-001", New: checkReservedCodes, Intentional: true},
	{Rule: "ERR-002", New: newDefinedCodes, Intentional: true},
	{Rule: "ERR-003", New: checkLegacyRange, Intentional: true},
	{Rule: "ERR-004", New: checkNoCode(codeResourceNotFound, "-32002 (resource not found of "+revisions.LatestLegacy().ID+" and earlier; a missing resource is -32602 now)"), Intentional: true},
	{Rule: "ERR-005", New: checkNoCode(codeURLElicitation, "-32042 (URL elicitation required of "+revisions.LatestLegacy().ID+")"), Intentional: true},
	{Rule: "ERR-006", New: checkApplicationCodes, Intentional: true},
	{Rule: "ERR-008", New: checkMissingCapability, Intentional: true},
	// Schema (features/schema.feature).
	{Rule: "SCHEMA-001", New: newSchemaConformance, Intentional: true},
	// Content.
	checkContentBlocks.entry("CONT-001"),
	checkBinaryContent.entry("CONT-002"),
	checkAnnotations.entry("CONT-003"),
	checkIconShape.entry("CONT-004"),
	checkIconSchemes.entry("CONT-005"),
	checkServerInfo.entry("CONT-006"),
	checkResourceLinks.entry("CONT-007"),
	checkPromptResources.entry("PROMPT-006"),
	// Capabilities.
	{Rule: "CAP-005", New: newLoggingDeclared},
	// Caching.
	{Rule: "CACHE-001", New: checkCacheHintsPresent},
	{Rule: "CACHE-002", New: checkTTL},
	{Rule: "CACHE-003", New: checkScope},
	{Rule: "CACHE-004", New: checkInterimHints},
	// Streamable HTTP.
	{Rule: "HTTP-006", New: checkSSEFraming, Intentional: true},
	{Rule: "HTTP-007", New: checkRelated, None: noRequestSSE},
	{Rule: "HTTP-008", New: checkNoSSERequests, None: noSSE},
	{Rule: "HTTP-009", New: newNothingAfterResponse, None: noRequestSSE},
	{Rule: "HTTP-010", New: checkAccelBuffering, None: noSSE},
	{Rule: "HTTP-012", New: newOwnReplies},
	{Rule: "ERR-010", New: newErrorBodies, Intentional: true},
	// stdio.
	{Rule: "STDIO-002", New: checkStdoutPurity, Intentional: true},
	{Rule: "STDIO-004", New: newStdoutTraffic},
	// Progress (judge/progress.go).
	{Rule: "PROG-001", New: progressRule("PROG-001")},
	{Rule: "PROG-002", New: progressRule("PROG-002")},
	{Rule: "PROG-003", New: progressRule("PROG-003")},
	{Rule: "PROG-004", New: progressRule("PROG-004")},
	{Rule: "PROG-006", New: progressRule("PROG-006")},
	// Logging, extensions, deprecated features.
	{Rule: "LOG-001", New: checkLogUnasked},
	{Rule: "LOG-002", New: checkLogLevels},
	{Rule: "LOG-003", New: checkLogStreams},
	{Rule: "LOG-005", New: checkLogShape},
	{Rule: "EXT-003", New: checkExtensionShapes},
	{Rule: "EXT-005", New: checkTaskHandles},
	{Rule: "DEP-001", New: checkDeprecatedFeatures},
	{Rule: "DEP-004", New: checkElicitationComplete},

	// Requests the server makes of the client (features/legacy-basic-index.feature,
	// client-elicitation.feature, client-sampling.feature).
	{Rule: "LEG-009", New: newServerRequestIDs},
	{Rule: "LEG-010", New: requestSchema("LEG-010")},
	{Rule: "LEG-011", New: newServerCancellations},
	{Rule: "INPUT-002", New: checkElicitShape},
	{Rule: "INPUT-003", New: checkRequestedSchema},
	{Rule: "INPUT-013", New: checkSamplingMessages},
}
