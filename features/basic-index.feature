Feature: Base protocol (basic/index)
  The JSON-RPC 2.0 message format, request ids, error codes, the per-request `_meta` fields and
  `resultType` that every MCP message obeys.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index

  @rule:MSG-003 @MUST @since:2024-11-05
  Scenario Outline: A response repeats the request id with the same JSON type
    Spec: basic/index#Result Responses
    The id of a result is identical to the request's, in value and in JSON type: a string id
    stays a string, however it looks.
    Given a connected server
    When the client sends a harmless request with id <id>
    Then the response is a result
    And the response id is exactly <id>

    Examples:
      | id               |
      | "abc"            |
      | 0                |
      | -5               |
      | 9007199254740991 |
      | "  "             |
      | "1"              |

  @rule:MSG-006 @MUST @since:2024-11-05
  Scenario: An error response repeats the request id
    Spec: basic/index#Error Responses
    The error response carries the request id whenever it could be read: here a `tools/call`
    without the required `name`.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"tools/call","params":$params}
      """
    Then the response is an error
    And the response id is the request id

  @rule:MSG-009 @MUST-NOT @since:2024-11-05
  Scenario Outline: An error response never carries a null id
    Spec: basic/index#Error Responses
    MCP ids are strings or integers: an error whose request id was readable repeats it, and
    one whose id could not be read omits the member. `"id": null`, the plain JSON-RPC 2.0
    habit, is graded a warning when the id could not be read and a failure otherwise.
    Given a fresh connection
    When the client sends the malformed message:
      """
      <message>
      """
    Then a response, if any, has no null id

    Examples:
      | case                      | message                                                 |
      | unparseable               | {"jsonrpc":"2.0",                                       |
      | readable id, method is 42 | {"jsonrpc":"2.0","id":$id,"method":42,"params":$params} |

  @rule:MSG-011 @MUST-NOT @since:2024-11-05 @transport:stdio
  Scenario: The server never answers a notification
    Spec: basic/index#Notifications
    A notification gets no response, neither for a known method nor for one the server does not
    know.
    Given a connected server
    When the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpconform-never-sent"}}
      """
    Then no message arrives in reply
    When the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/mcpconform_unknown","params":{}}
      """
    Then no message arrives in reply

  @rule:MSG-014 @MUST @since:2024-11-05
  Scenario: Unparseable JSON is answered with a parse error
    Spec: basic/index#Messages
    Bytes that are not JSON get error -32700 (JSON-RPC 2.0 section 5.1). A wrong answer fails.
    The stdio page forbids a client to write such bytes, so silence (or an exit) there is a
    warning; over HTTP a 4xx whose body is not JSON-RPC refuses the input and is a warning.
    Given a fresh connection
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0",
      """
    Then the malformed message is answered with error -32700, silence graded by the party at fault

  @rule:MSG-015 @MUST @since:2024-11-05
  Scenario Outline: A JSON value that is not a valid request is answered with an invalid-request error
    Spec: basic/index#Messages
    A well-formed JSON object that is not a valid JSON-RPC 2.0 request gets error -32600,
    graded as MSG-014 (silence or an exit on stdio, or a 4xx without JSON-RPC over HTTP: a
    warning).
    Given a fresh connection
    When the client sends the malformed message:
      """
      <message>
      """
    Then the malformed message is answered with error -32600, silence graded by the party at fault

    Examples:
      | case              | message                                                          |
      | jsonrpc 1.0       | {"jsonrpc":"1.0","id":$id,"method":"$harmless","params":$params} |
      | method not string | {"jsonrpc":"2.0","id":$id,"method":42,"params":$params}          |

  @rule:MSG-016 @MUST @since:2024-11-05
  Scenario: An unknown method is answered with method-not-found
    Spec: basic/index#Error Codes
    A request for a method the server does not implement gets error -32601.
    Given a connected server
    When the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}
      """
    Then the response is an error with code -32601

  @rule:META-001 @MUST @since:2026-07-28
  Scenario: A request without a protocol version in _meta is rejected as invalid params
    Spec: basic/index#_meta
    `io.modelcontextprotocol/protocolVersion` is required in every request's `_meta`; without it
    the request is malformed (-32602). Over HTTP the header stays, so -32020 is graded a warning.
    On stdio nothing else names a version, and a dual-era server selects its behaviour from how
    the client opens (basic/versioning#Compatibility Matrix: "A request carrying modern
    per-request `_meta` is served statelessly according to this revision"): one that reads the
    versionless request as legacy and answers with its legacy path's error is na.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}
      """
    Then the versionless request is refused with -32602 (-32020 a warning) unless a dual-era server on stdio read it as legacy

  @rule:META-002 @MUST @since:2026-07-28
  Scenario: A request without client capabilities in _meta is rejected as invalid params
    Spec: basic/index#_meta
    `io.modelcontextprotocol/clientCapabilities` is required in every request's `_meta`.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
      """
    Then the response is an error with code -32602

  @rule:META-003 @MUST @since:2026-07-28
  Scenario Outline: A request without params or without params._meta is rejected as invalid params
    Spec: basic/index#_meta
    Every 2026-07-28 request carries `params._meta`; a request lacking it is malformed. Such a
    request carries no sign of 2026-07-28 either: a server that also serves a legacy revision may
    answer it as a legacy request, which is recorded as info (basic/versioning#Compatibility
    Matrix).
    Given a connected server
    And a server that also serves a legacy revision may answer it as a legacy request
    When the client sends the malformed message:
      """
      <message>
      """
    Then the response is an error with code -32602

    Examples:
      | case      | message                                                            |
      | no params | {"jsonrpc":"2.0","id":$id,"method":"server/discover"}              |
      | no _meta  | {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{}}  |

  @rule:META-004 @MUST @since:2026-07-28 @transport:http
  Scenario Outline: Requests with missing _meta fields are rejected with HTTP 400
    Spec: basic/index#_meta
    The rejections of META-001 to META-003 use the status `400 Bad Request`. A message the
    server serves instead is not rejected at all: the row's rule judges that, and this row is
    untestable.
    Given a connected server
    When the client sends the malformed message:
      """
      <message>
      """
    Then the HTTP status of the rejection is 400 (<rule> judges whether the message is rejected)

    Examples:
      | case                    | rule     | message                                                                                                                      |
      | no params               | META-003 | {"jsonrpc":"2.0","id":$id,"method":"server/discover"}                                                                        |
      | no protocol version     | META-001 | {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}  |
      | no client capabilities  | META-002 | {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}} |

  @rule:META-005 @MUST @since:2026-07-28
  Scenario: A request with only the required _meta fields is served
    Spec: basic/index#_meta
    Only the protocol version and client capabilities are required; clientInfo, logLevel and
    progressToken are optional.
    Given a connected server
    When the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
      """
    Then the response is a result

  @rule:META-006 @SHOULD @since:2026-07-28
  Scenario: Every result carries serverInfo in its _meta
    Spec: basic/index#_meta
    Each result's `_meta` holds `io.modelcontextprotocol/serverInfo`, an Implementation object.
    The DiscoverResult's is DISC-005's (server/discover#DiscoverResult), so this scenario asks
    for the other results.
    Given a connected server
    When the client sends a list request for each declared capability
    Then every result in this scenario has a value at "/result/_meta/io.modelcontextprotocol~1serverInfo" that validates as "Implementation"

  @rule:RT-001 @MUST @since:2026-07-28
  Scenario: Every result has a string resultType
    Spec: basic/index#Result Responses
    `resultType` is required on every 2026-07-28 result.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a list request for each declared capability
    Then every result in this scenario has a string at "/result/resultType"

  @rule:RT-002 @MUST @since:2026-07-28
  Scenario: A final successful result has resultType complete
    Spec: basic/index#ResultType
    Results that are final and successful say `resultType: "complete"`.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a list request for each declared capability
    Then every result in this scenario that has "/result/resultType" has the value "complete" there

  @rule:STATE-002 @MUST @since:2026-07-28
  Scenario: No handshake is needed before the first request
    Spec: basic/index#Statelessness
    The first message on a fresh connection may be any request; nothing has to come before it.
    Given a fresh connection
    When the client sends a list request for a declared capability
    Then the response is a result

  @rule:MSG-001 @MUST @since:2024-11-05
  Scenario: Every message the server sends is a JSON-RPC 2.0 object
    Spec: basic/index#Messages
    Every JSON object the server writes in the whole run (stdio line, JSON body, SSE event) has
    `"jsonrpc": "2.0"` and the shape of a request, notification, result or error. Frames that are
    not JSON objects, and responses with both result and error or a malformed error object, are
    judged by the transport rules, MSG-004 and MSG-007.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then every JSON object the server sent in this run is a JSON-RPC 2.0 message

  @rule:MSG-002 @MUST @since:2025-03-26
  Scenario: Every message the server sends is UTF-8 without a byte order mark
    Spec: basic/transports/index#Messages
    The raw bytes of every stdio line, JSON body and SSE event of the run decode as strict UTF-8,
    and none starts with a byte order mark (RFC 8259 forbids one before networked JSON text).
    Non-ASCII text sent to the echo fixture tool, when the server has one, comes back unchanged.
    Given a connected server
    When the client exercises the server's declared features
    And the client round-trips non-ASCII text through the echo fixture tool, if the server offers one
    Then every message the server sent in this run is UTF-8 without a byte order mark

  @rule:MSG-004 @MUST @since:2024-11-05
  Scenario: No response has both a result and an error
    Spec: basic/index#Result Responses
    A response carries `result` or `error`, never both; judged on every frame of the run.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then no response the server sent in this run has both result and error

  @rule:MSG-005 @MUST @since:2024-11-05
  Scenario: Every result is a JSON object
    Spec: basic/index#Result Responses
    The `result` member of every response of the run is an object, never an array, a string,
    a number or null.
    Given a connected server
    When the client exercises the server's declared features
    Then every result the server sent in this run is a JSON object

  @rule:MSG-007 @MUST @since:2024-11-05
  Scenario: Every error has an integer code and a string message
    Spec: basic/index#Error Responses
    Each error object of the run has a `code` written as a JSON integer (`-32602.0` or `-3.2602e4`
    do not count) and a string `message`.
    Given a connected server
    When the client provokes the errors a client can provoke without side effects
    Then every error the server sent in this run has an integer code and a string message

  @rule:MSG-010 @MUST-NOT @since:2024-11-05
  Scenario: No notification from the server carries an id
    Spec: basic/index#Notifications
    A frame with a `notifications/...` method and an `id` member is a notification that wrongly
    carries an id. Other methods with an id are server requests, judged by MSG-012.
    Given a connected server
    When the client exercises the server's declared features
    Then no notification the server sent in this run has an id

  @rule:MSG-012 @MUST-NOT @since:2026-07-28
  Scenario: The server never sends a request
    Spec: basic/transports/index#Messages
    A 2026-07-28 server answers requests and may send notifications, but never initiates a
    request (a frame with a method that is not a notification, and an id), on any stream.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then the server sent no request in this run

  @rule:MSG-013 @MUST @since:2024-11-05
  Scenario: Each request gets exactly one response with its id
    Spec: basic/patterns/index#Request and Response
    Twenty requests sent at once each get a response carrying their id; over the whole run no
    response repeats an id already answered or carries an id the client never sent on that
    connection (responses without an id, or with a null one, are judged by MSG-006 and MSG-009).
    Given a connected server
    When the client sends 20 harmless requests at once
    Then every request of this scenario got a response carrying its id
    And no response the server sent in this run repeats an answered id or carries an id the client never sent

  @rule:MSG-017 @SHOULD @since:2024-11-05
  Scenario: Error messages are one short sentence
    Spec: basic/index#Error Responses
    The schema asks for a concise single sentence in `error.message`: every error of the run
    has a message without line breaks. The spec names no length, so none is judged.
    Given a connected server
    When the client provokes the errors a client can provoke without side effects
    Then every error message the server sent in this run is one short line

  @rule:META-008 @MUST @since:2025-06-18
  Scenario: Every _meta key the server sends is a valid key name
    Spec: basic/index#_meta
    Each key of every `_meta` object in the server's messages (results, notifications, tool,
    resource and prompt entries, content blocks) is an optional prefix of dot-separated labels
    and a slash, then a name that is empty or starts and ends alphanumeric. JSON Schemas and
    structured content are application data and not inspected.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then every _meta key the server sent in this run is a valid key name

  @rule:META-009 @MUST-NOT @since:2025-11-25
  Scenario: The server invents no _meta keys under reserved prefixes
    Spec: basic/index#_meta
    Prefixes whose second label is `modelcontextprotocol` or `mcp` belong to MCP: the server
    uses only the keys the specification defines there (2026-07-28: protocolVersion, clientInfo,
    clientCapabilities, logLevel, subscriptionId, serverInfo; 2025-11-25: related-task,
    model-immediate-response).
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then no _meta key the server sent in this run is an undefined key under a reserved prefix

  @rule:META-010 @MUST @since:2026-07-28
  Scenario: Trace context the server emits follows the W3C formats
    Spec: basic/index#_meta
    Every `traceparent`, `tracestate` and `baggage` value in a server `_meta` follows W3C Trace
    Context and W3C Baggage. The client sends a valid trace context first, so a server that
    propagates one has a reason to emit it; a run in which the server emits none holds the rule
    (pass), since the rule constrains only values that are present.
    Given a connected server
    When the client exercises the server's declared features
    Then every trace context value in the server's _meta in this run follows the W3C syntax

  @rule:RT-003 @MUST @since:2026-07-28
  Scenario: input_required marks only an InputRequiredResult
    Spec: basic/index#ResultType
    A result with `resultType: "input_required"` is an InputRequiredResult: `inputRequests` (an
    object) and/or `requestState` (a string), without the payload of a method result.
    Given a connected server
    When the client exercises the server's declared features
    Then every input_required result the server sent in this run is an InputRequiredResult

  @rule:RT-004 @MUST @since:2026-07-28
  Scenario: resultType values come from the core set
    Spec: basic/index#ResultType
    The client advertises no extension, so every `resultType` of the run is `complete` or
    `input_required`.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then every resultType the server sent in this run is complete or input_required

  @rule:ERR-001 @MUST-NOT @since:2026-07-28
  Scenario: No undefined code from the MCP-reserved range
    Spec: basic/index#Error Codes
    Codes -32020 to -32099 belong to the specification, which defines only -32020, -32021 and
    -32022 (-32042 is judged by ERR-005).
    Given a connected server
    When the client provokes the errors a client can provoke without side effects
    Then the server sent no error code in -32020..-32099 that the specification does not define

  @rule:ERR-002 @MUST @since:2026-07-28
  Scenario: The MCP error codes keep their defined meanings
    Spec: basic/index#Error Codes
    -32020 HeaderMismatch appears only on HTTP and never for a request whose headers mirror its
    body; -32021 MissingRequiredClientCapability carries `data.requiredCapabilities`; -32022
    UnsupportedProtocolVersion carries `data.supported` and never refuses a version the server
    lists in supportedVersions. The HTTP status of these errors is judged by ERR-009.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then every -32020, -32021 and -32022 error the server sent in this run has its defined meaning

  @rule:ERR-003 @SHOULD-NOT @since:2026-07-28
  Scenario: No codes from the legacy range
    Spec: basic/index#Error Codes
    New implementations avoid -32000 to -32019 (-32002 is judged by ERR-004).
    Given a connected server
    When the client provokes the errors a client can provoke without side effects
    Then the server sent no error code in the legacy range -32000..-32019 in this run

  @rule:ERR-004 @MUST-NOT @since:2026-07-28
  Scenario: No -32002 for a missing resource
    Spec: basic/index#Error Codes
    -32002 (resource not found) belongs to 2025-11-25 and earlier; a 2026-07-28 server reports
    an unknown resource with -32602.
    Given a connected server
    When the client provokes the errors a client can provoke without side effects
    Then the server sent no -32002 error in this run

  @rule:ERR-005 @MUST-NOT @since:2026-07-28
  Scenario: No -32042 URL elicitation error
    Spec: basic/index#Error Codes
    -32042 (URL elicitation required) belongs to 2025-11-25 only.
    Given a connected server
    When the client exercises the server's declared features
    And the client provokes the errors a client can provoke without side effects
    Then the server sent no -32042 error in this run

  @rule:ERR-006 @SHOULD @since:2026-07-28
  Scenario: Application error codes lie outside the JSON-RPC reserved range
    Spec: basic/index#Error Codes
    Codes in -32768 to -32100 other than the JSON-RPC 2.0 codes (-32700, -32600 to -32603) are
    application codes allocated inside the reserved range (-32099 to -32000 is judged by
    ERR-001, ERR-003, ERR-004 and ERR-005).
    Given a connected server
    When the client provokes the errors a client can provoke without side effects
    Then every other error code the server sent in this run lies outside the JSON-RPC reserved range

  @rule:MSG-018 @MUST @since:2025-03-26 @until:2025-03-26
  Scenario: A JSON-RPC batch is received and each of its requests answered
    Spec: basic/index#Batching
    The one revision that regulated batches lets an implementation choose whether to send
    them but requires it to receive them: "MCP implementations MAY support sending JSON-RPC
    batches, but MUST support receiving JSON-RPC batches." A batch of two pings (distinct ids)
    and a notification, sent in a session of its own, gets a response for each ping, in one
    array or one by one (over HTTP a JSON body or an SSE stream). A -32600 or an HTTP 4xx for
    the batch fails, and so does a ping left without a response: over stdio once a ping written
    after the batch is answered and a quiet window passes, elsewhere within the timeout.
    Untestable over the HTTP+SSE transport, on which the suite sends no batch.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends one batch holding two harmless requests and a notification
    Then each request of the batch got a response

  # (area msg) new MSG, META-008..010, RT, ERR scenarios go above this line.

  @rule:STATE-001 @MUST-NOT @since:2026-07-28
  Scenario Outline: Each request is judged on its own _meta, not on earlier requests of the connection
    Spec: basic/index#Statelessness
    What an earlier request on the same connection declared (a protocol version, a client
    capability) never applies to a later one. The first request of a fresh connection is the
    control: after a request that declares what it lacks, the same request must be answered as
    the control was. The capability case needs a fixture tool that requires a client capability.
    Given a fresh connection
    When the client sends <request> without, with, then again without what it needs
    Then the last reply follows only its own _meta

    Examples:
      | case             | request                            |
      | protocol version | a list request                     |
      | capability       | a capability-needing fixture call  |

  @rule:STATE-003 @SHOULD-NOT @since:2026-07-28
  Scenario: A list cursor from one connection is honoured on another
    Spec: basic/index#Statelessness
    Related operations do not need the same connection or process: the next page of a list,
    asked for with the cursor one connection received, is served on a fresh connection.
    Given a connected server
    When the client pages a list on one connection and asks for its next page on a fresh connection
    Then the next page is served on the fresh connection

  @rule:STATE-004 @SHOULD @since:2026-07-28
  Scenario: Interleaved requests of different clients are each answered per their own _meta
    Spec: basic/index#Statelessness
    A connection is not a conversation: requests of three clients (different clientInfo, client
    capabilities and protocol versions) interleaved on one connection, in turn and concurrently,
    each get what their own _meta calls for: the first two a result, the third what it got as
    the first request of a connection of its own.
    Given a fresh connection
    When the client interleaves requests of three clients on a fresh connection, in turn and at once
    Then each interleaved request was answered according to its own _meta

  @rule:META-007 @SHOULD-NOT @since:2026-07-28
  Scenario: Results do not depend on the self-reported clientInfo
    Spec: basic/index#_meta
    clientInfo is for display and debugging; the same requests sent under two client names get
    the same results, apart from id and _meta.
    Given a connected server
    When the client sends the same requests as client "mcp-conform-probe" and as client "claude-code", each on a fresh connection
    Then both clients got the same results apart from _meta

  @rule:ERR-008 @MUST @since:2026-07-28
  Scenario: A missing-capability error names the capabilities the request lacks
    Spec: basic/index#_meta
    A -32021 error carries `data.requiredCapabilities`, a ClientCapabilities object naming what
    the request lacked: checked on a fixture tool called without client capabilities, and on
    every -32021 the run saw.
    Given a fresh connection
    When the client calls a fixture tool that needs a client capability without declaring any
    Then every -32021 error the server sent in this run names the missing capabilities
    And a -32021 reply names the needed capability in data.requiredCapabilities

  # (area state) new STATE, META-007, ERR-008 scenarios go above this line.
