Feature: Streamable HTTP transport (basic/transports/streamable-http)
  Each JSON-RPC request is an HTTP POST to the MCP endpoint, with request metadata mirrored in
  headers that the server checks against the body.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http

  @rule:HTTP-013 @MUST @since:2026-07-28 @transport:http
  Scenario: An unknown method gets 404 with method-not-found
    Spec: basic/transports/streamable-http#Protocol Version Header
    A request for a method the server does not implement is answered with `404 Not Found` and a
    -32601 JSON-RPC error body. The code is MSG-016's (unknown methods get -32601 on every
    transport), so this rule judges the status of an error reply.
    Given a connected server
    When the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}
      """
    Then the HTTP status of the rejection is 404 (MSG-016 judges whether the message is rejected)
    And the response is an error (MSG-016 judges its code)

  @rule:HDR-001 @MUST @since:2026-07-28 @transport:http
  Scenario: A POST without MCP-Protocol-Version is rejected with a header mismatch
    Spec: basic/transports/streamable-http#Server Validation
    Without the version header the server answers `400` and -32020 HeaderMismatch.
    Given a connected server
    When the client sends a "server/discover" request without the "MCP-Protocol-Version" header
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:HDR-002 @MUST @since:2026-07-28 @transport:http
  Scenario: MCP-Protocol-Version that differs from the body is rejected
    Spec: basic/transports/streamable-http#Protocol Version Header
    The header must equal `_meta` `io.modelcontextprotocol/protocolVersion`; a mismatch is
    `400` with -32020, not -32022.
    Given a connected server
    When the client sends a "server/discover" request with the "MCP-Protocol-Version" header set to "2025-06-18"
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:HDR-003 @MUST @since:2026-07-28 @transport:http
  Scenario: A POST without Mcp-Method is rejected with a header mismatch
    Spec: basic/transports/streamable-http#Standard Request Headers
    `Mcp-Method` is required on every request. The reply's status (400) is ERR-009's.
    Given a connected server
    When the client sends a "server/discover" request without the "Mcp-Method" header
    Then the response is an error with code -32020

  @rule:HDR-004 @MUST @since:2026-07-28 @transport:http
  Scenario: Mcp-Method that differs from the body method is rejected
    Spec: basic/transports/streamable-http#Server Validation
    `Mcp-Method` must equal the body's `method`. The reply's status (400) is ERR-009's.
    Given a connected server
    When the client sends a "server/discover" request with the "Mcp-Method" header set to "tools/list"
    Then the response is an error with code -32020

  @rule:HTTP-014 @SHOULD @since:2026-07-28 @transport:http
  Scenario: GET on the endpoint is refused with 405
    Spec: basic/transports/streamable-http#Earlier Streamable HTTP Revisions
    This revision has no standalone GET stream; a server that supports only it answers GET
    with `405 Method Not Allowed`. A server that also speaks an earlier revision may answer as
    that revision's transport does.
    Given a connected server
    When the client sends an HTTP GET to the endpoint
    Then the HTTP status is 405 (a dual-era server may answer as its legacy transport does)

  @rule:HTTP-015 @SHOULD @since:2026-07-28 @transport:http
  Scenario: DELETE on the endpoint is refused with 405
    Spec: basic/transports/streamable-http#Earlier Streamable HTTP Revisions
    This revision has no sessions to terminate; a server that supports only it answers DELETE
    with `405 Method Not Allowed`. A server that also speaks an earlier revision may answer as
    that revision's transport does.
    Given a connected server
    When the client sends an HTTP DELETE to the endpoint
    Then the HTTP status is 405 (a dual-era server may answer as its legacy transport does)

  @rule:HTTP-002 @MUST @since:2026-07-28 @transport:http
  Scenario: An accepted notification gets 202 with no body
    Spec: basic/transports/streamable-http#Sending Messages
    A POSTed notification the server accepts is answered with `202 Accepted` and no body
    (refusing it with an error status is judged by HTTP-003).
    Given a connected server
    When the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpconform-never-sent","_meta":$meta}}
      """
    Then the notification, unless refused with an error status, gets 202 Accepted with no body

  @rule:HTTP-004 @MUST @since:2026-07-28 @transport:http
  Scenario: Replies to requests are JSON or an SSE stream
    Spec: basic/transports/streamable-http#Sending Messages
    Every POSTed request, answered with a result or with an error, gets
    `Content-Type: application/json` or `text/event-stream` (parameters aside).
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a list request for each declared capability
    And the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}
      """
    And the client sends a "server/discover" request without the "Mcp-Method" header
    Then every reply to a request in this scenario has Content-Type application/json or text/event-stream

  @rule:HTTP-005 @MUST @since:2026-07-28 @transport:http
  Scenario: A JSON reply is one response object for its request
    Spec: basic/transports/streamable-http#Sending Messages
    An `application/json` reply holds a single JSON-RPC response object (no array) carrying the
    id of the request it answers.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a "resources/templates/list" request
    Then every application/json reply in this scenario is one response object with the request id

  @rule:HTTP-016 @SHOULD @since:2026-07-28 @transport:http
  Scenario: Mcp-Session-Id is ignored and never minted
    Spec: basic/transports/streamable-http#Earlier Streamable HTTP Revisions
    Sessions are not part of this revision: a request carrying `Mcp-Session-Id` is processed
    as usual, and no reply carries a session id.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a "server/discover" request with the "Mcp-Session-Id" header set to "mcpconform-bogus-session"
    Then the response is a result
    And no reply in this scenario has the "Mcp-Session-Id" header

  @rule:HTTP-017 @SHOULD @since:2026-07-28 @transport:http
  Scenario: Last-Event-ID is ignored
    Spec: basic/transports/streamable-http#Earlier Streamable HTTP Revisions
    Streams are not resumable: a request carrying `Last-Event-ID` is processed as usual and
    nothing is replayed. The sentence binds "a server that supports only this revision": a
    server that also serves a legacy revision (where streams were resumable) is recorded as
    info.
    Given a connected server
    And the rule binds only a server that supports the modern revision alone
    When the client sends a "server/discover" request with the "Last-Event-ID" header set to "1"
    Then the response is a result
    And the response id is the request id
    And the reply carries nothing but the response

  @rule:HTTP-026 @MUST @since:2026-07-28 @transport:http
  Scenario: Header values are compared case-sensitively
    Spec: basic/transports/streamable-http#Case Sensitivity
    Header values such as method names are case-sensitive: `Mcp-Method: Server/Discover` does
    not match the body method `server/discover`, so the request gets `400` with -32020. A
    server that serves even a request whose Mcp-Method names another method does not compare
    the header at all: HDR-004 judges that, and this rule is untestable.
    Given a connected server
    And the server rejects a "server/discover" request with the "Mcp-Method" header set to "tools/list" (HDR-004 judges that)
    When the client sends a "server/discover" request with the "Mcp-Method" header set to "Server/Discover"
    Then the response is an error with code -32020

  @rule:ERR-009 @MUST @since:2026-07-28 @transport:http
  Scenario: Header-mismatch and missing-capability errors use HTTP 400
    Spec: basic/transports/streamable-http#Server Validation
    On HTTP, -32020 HeaderMismatch and -32021 MissingRequiredClientCapability replies use
    status `400`. The status of -32022 UnsupportedProtocolVersion is VER-002's, and the header
    rules (HDR-003, HDR-004, HTTP-026) judge the code of a rejection, leaving its status here:
    one wrong status fails one rule.
    Given a connected server
    When the client sends a "server/discover" request without the "Mcp-Method" header
    And the client sends a "server/discover" request with the "Mcp-Method" header set to "tools/list"
    Then every error in this scenario with code -32020, -32021 came with HTTP status 400

  @rule:HTTP-025 @MUST @since:2026-07-28 @transport:http
  Scenario: Header names are matched case-insensitively
    Spec: basic/transports/streamable-http#Case Sensitivity
    Header names are case-insensitive: `mcp-method` and `MCP-METHOD` are the `Mcp-Method`
    header, so requests spelling the MCP header names in lower or upper case are served.
    Given a connected server
    When the client sends a "server/discover" request with its MCP header names in lower case
    Then the response is a result
    When the client sends a "server/discover" request with its MCP header names in upper case
    Then the response is a result

  @rule:HTTP-001 @MUST @since:2026-07-28 @transport:http
  Scenario: The MCP endpoint accepts POST
    Spec: basic/transports/streamable-http#Sending Messages
    The server provides one endpoint path that supports POST: a request POSTed to the
    configured URL is served with `200 OK`.
    Given a connected server
    When the client sends a "server/discover" request
    Then the HTTP status is 200
    And the response is a result

  @rule:HTTP-003 @MUST @since:2026-07-28 @transport:http
  Scenario: A notification the server cannot accept gets an HTTP error status
    Spec: basic/transports/streamable-http#Sending Messages
    A refused notification is answered with a 4xx or 5xx status, never a 2xx carrying an
    error, and a body, if any, is a JSON-RPC error without `id` (`"id": null` is MSG-009's).
    The suite offers one notification whose params are not an object and one unknown
    notification; a server that accepts both (202) refuses nothing, and the rule is then not
    applicable.
    Given a connected server
    When the client sends the intentionally invalid notification:
      """
      {"jsonrpc":"2.0","method":"notifications/mcpconform_unknown","params":42}
      """
    And the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/mcpconform_unknown","params":{"_meta":$meta}}
      """
    Then every notification the server refused in this scenario got an HTTP error status and any body is an error without id

  @rule:HTTP-006 @MUST @since:2025-03-26 @transport:http
  Scenario: Every SSE event carries one JSON-RPC message
    Spec: basic/transports/streamable-http#Receiving Messages
    The data of each event on an SSE response is a single JSON-RPC message; comment lines may
    appear and are ignored, and an event with empty data carries no message. Judged over every
    SSE event of the run; the scenario asks for progress on a fixture tool call, which servers
    may stream, and on 2026-07-28 opens a subscriptions/listen stream (a method of that
    revision only). A server that never answers with SSE has nothing to frame and passes.
    Given a connected server
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client opens a subscriptions/listen stream and closes it after the first event
    Then every SSE event the server sent in this run carries one JSON-RPC message

  @rule:HTTP-007 @MUST @since:2026-07-28 @transport:http
  Scenario: Notifications on a request's SSE stream relate to that request
    Spec: basic/transports/streamable-http#Receiving Messages
    On a request's SSE stream, progress carries that request's progressToken, log messages
    appear only when the request set a log level, and change notifications (which belong to
    subscriptions/listen streams) do not appear. Judged over every request stream of the run;
    not applicable when the server never answers with SSE.
    Given a connected server
    When the client calls the fixture tool "test_simple_text" asking for progress and log messages
    And the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the fixture tool "test_simple_text" without progress token or log level
    Then every notification on a request's SSE stream in this run relates to that request

  @rule:HTTP-008 @MUST-NOT @since:2026-07-28 @transport:http
  Scenario: No JSON-RPC request travels on an SSE stream
    Spec: basic/transports/streamable-http#Receiving Messages
    Server-to-client interactions are embedded in results (MRTR); no SSE stream of the run
    carries a JSON-RPC request such as sampling, elicitation, roots or ping, listen streams
    included. Not applicable when the server never answers with SSE.
    Given a connected server
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client opens a subscriptions/listen stream and closes it after the first event
    Then no SSE stream of this run carries a JSON-RPC request

  @rule:HTTP-009 @SHOULD @since:2026-07-28 @transport:http
  Scenario: The final response ends the SSE stream
    Spec: basic/transports/streamable-http#Receiving Messages
    After the response event the server closes the stream (within the quiet window) and sends
    nothing more on it. Not applicable when the server answers these requests with JSON.
    Given a connected server
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the fixture tool "test_simple_text" asking for progress and log messages
    Then every SSE stream in this scenario ended right after its response
    And no event follows the response on any SSE stream of this run

  @rule:HTTP-010 @SHOULD @since:2026-07-28 @transport:http
  Scenario: SSE responses disable proxy buffering
    Spec: basic/transports/streamable-http#Receiving Messages
    Every SSE response of the run, listen streams included, carries `X-Accel-Buffering: no`.
    Not applicable when the server never answers with SSE.
    Given a connected server
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client opens a subscriptions/listen stream and closes it after the first event
    Then every SSE response of this run has the header X-Accel-Buffering: no

  @rule:HTTP-011 @MAY @since:2026-07-28 @transport:http
  Scenario: Keep-alives on a listen stream are SSE comments
    Spec: basic/transports/streamable-http#Receiving Messages
    A long-lived stream may carry keep-alive comment lines, which the suite ignores. A
    keep-alive sent as an event whose data is no JSON-RPC message misuses the permission
    (reported as information). Not applicable when the server does not offer
    subscriptions/listen.
    Given a connected server
    When the client opens a subscriptions/listen stream and holds it
    Then any keep-alive on the listen stream is an SSE comment

  @rule:HTTP-012 @MUST @since:2026-07-28 @transport:http
  Scenario: Each reply travels on the HTTP response of its own POST
    Spec: basic/transports/streamable-http#Message Flow
    Requests sent at once are each answered on their own POST's body or stream, and no reply
    of the run carries the response to another request.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends 6 requests at once, some calling the fixture tool "test_simple_text" with progress
    Then each of those requests got its own response on its own POST
    And no reply in this run carries the response to another request

  @rule:HTTP-018 @MUST @since:2025-11-25 @transport:http
  Scenario: A foreign Origin is refused with 403
    Spec: basic/transports/streamable-http#Security & Endpoint
    The server validates Origin against DNS rebinding; a request with a present, invalid
    Origin (`http://evil.example`) gets `403 Forbidden`. Judged only for a server reached on a
    loopback address; elsewhere the suite cannot know which origins are valid.
    Given a connected server
    When the client sends a harmless request with a foreign Origin header
    Then the HTTP status is 403

  @rule:HTTP-019 @MAY @since:2025-11-25 @transport:http
  Scenario: A JSON-RPC body of the Origin refusal has no id
    Spec: basic/transports/streamable-http#Security & Endpoint
    The 403 body may be a JSON-RPC error response; if it is one, it carries no `id`.
    Given a connected server
    When the client sends a harmless request with a foreign Origin header
    Then a JSON-RPC error body of the 403 reply, if any, has no id

  @rule:HTTP-023 @MUST @since:2026-07-28 @transport:http
  Scenario: Progress and log messages never travel on a listen stream
    Spec: basic/transports/streamable-http#Receiving Messages
    Request-scoped notifications flow only on the stream of their request: while a
    subscriptions/listen stream is open, a fixture tool call asking for progress and log
    messages puts neither on the listen stream. Not applicable when the server does not offer
    subscriptions/listen.
    Given a connected server
    When the client opens a subscriptions/listen stream and, while it is open, calls the fixture tool "test_simple_text" asking for progress and log messages
    Then the listen stream carried no notifications/progress or notifications/message

  @rule:HTTP-024 @MUST @since:2026-07-28 @transport:http
  Scenario: The reply to subscriptions/listen is an SSE stream that stays open
    Spec: basic/transports/streamable-http#Receiving Messages
    The listen reply is `200` with `text/event-stream`, opens with the acknowledgement and is
    still open when the suite closes it (after at least one second). Not applicable when the
    server does not offer subscriptions/listen (-32601 or 404); untestable, naming SUB-001,
    when it refuses the subscription with another error.
    Given a connected server
    When the client opens a subscriptions/listen stream and holds it
    Then the listen reply is an SSE stream that opens with the acknowledgement and stays open

  @rule:ERR-010 @MUST @since:2026-07-28 @transport:http
  Scenario: Modern 400 and 404 replies carry a JSON-RPC error body
    Spec: basic/transports/streamable-http#Backward Compatibility
    A dual-era client tells a modern server from a legacy one by the body of a 400 or 404:
    every such reply to a well-formed 2026-07-28 request carries a JSON-RPC error, never an
    empty or other body. Judged over every reply of the run; the scenario provokes an unknown
    method, a missing header, an unsupported version and an unknown prompt.
    Given a connected server
    When the client sends requests that a modern server refuses with a 4xx status
    Then every 4xx reply to a well-formed modern request in this run carries a JSON-RPC error

  # (area http) new HTTP, ERR-010, VER-005/006 scenarios go above this line.

  @rule:HDR-005 @MUST @since:2026-07-28 @transport:http
  Scenario: A tools/call, resources/read or prompts/get without Mcp-Name is rejected with a header mismatch
    Spec: basic/transports/streamable-http#Standard Request Headers
    `Mcp-Name` is required on the three methods that name a tool, resource or prompt; without it
    the server answers `400` and -32020 HeaderMismatch. Targets come from the server's lists: a
    tool only when it is safe to call (annotated `readOnlyHint: true`, or a harmless fixture
    tool), since a server that ignores the rule would run it.
    Given a connected server
    When the client finds a safe target for each of tools/call, resources/read and prompts/get
    And the client sends each target request with its Mcp-Name header omitted
    Then every one of those requests was rejected with HTTP 400 and error -32020

  @rule:HDR-006 @MUST @since:2026-07-28 @transport:http
  Scenario: Mcp-Name that differs from the body name or uri is rejected
    Spec: basic/transports/streamable-http#Server Validation
    `Mcp-Name` must equal `params.name` (tools, prompts) or `params.uri` (resources); a request
    whose header names something else gets `400` and -32020.
    Given a connected server
    When the client finds a safe target for each of tools/call, resources/read and prompts/get
    And the client sends each target request with its Mcp-Name header naming something else
    Then every one of those requests was rejected with HTTP 400 and error -32020

  @rule:HDR-007 @MUST @since:2026-07-28 @transport:http
  Scenario: Base64-sentinel header values are decoded before they are compared
    Spec: basic/transports/streamable-http#Value Encoding
    A value written `=?base64?...?=` stands for the UTF-8 text it encodes: the server decodes
    `Mcp-Name` and `Mcp-Param-*` values so written and serves the request when the decoded text
    matches the body. Any reply but a header rejection passes (the call may still fail on its
    arguments).
    Given a connected server
    When the client finds a safe target for each of tools/call, resources/read and prompts/get
    And the client sends each target request with its Mcp-Name header sentinel-encoded
    And the client calls a safe tool with a sentinel-encoded Mcp-Param header, if one has x-mcp-header parameters
    Then the server rejected none of those requests for their headers

  @rule:HDR-008 @MUST @since:2026-07-28 @transport:http
  Scenario: Upper-case sentinel markers are not an encoded value
    Spec: basic/transports/streamable-http#Value Encoding
    The markers are exact and lowercase: `=?BASE64?...?=` is a literal value, which differs from
    the body name, so the request is rejected with `400` and -32020. A server that serves even
    an Mcp-Name naming something else does not compare the header at all: HDR-006 judges that,
    and this rule is untestable.
    Given a connected server
    When the client finds a safe target for each of tools/call, resources/read and prompts/get
    And the server rejects each target request whose Mcp-Name header names something else (HDR-006 judges that)
    And the client sends each target request with its Mcp-Name header wrapped in upper-case sentinel markers
    Then every one of those requests was rejected with HTTP 400 and error -32020

  @rule:HDR-009 @MUST @since:2026-07-28 @transport:http
  Scenario: An Mcp-Name value with characters outside visible ASCII is rejected
    Spec: basic/transports/streamable-http#Server Validation
    Header values hold visible ASCII, space and tab only; a name sent as raw UTF-8 bytes is a
    validation failure (`400`, -32020), even when the bytes spell the body's name. A target
    whose name is not plain ASCII makes the check telling; for the others the suite appends
    `é` to the name.
    Given a connected server
    When the client finds a safe target for each of tools/call, resources/read and prompts/get
    And the client sends each target request with its Mcp-Name header as raw non-ASCII bytes
    Then every one of those requests was rejected with HTTP 400 and error -32020

  @rule:HDR-010 @MUST @since:2026-07-28 @transport:http
  Scenario: An Mcp-Param header that differs from its argument is rejected
    Spec: basic/transports/streamable-http#Server Behavior for Custom Headers
    For a parameter annotated `x-mcp-header`, the decoded `Mcp-Param-{Name}` value must match the
    argument: a call mirroring every argument correctly is served, one whose header carries
    another value gets `400` and -32020. Servers whose tools use no `x-mcp-header` are not
    concerned; the tool must be safe to call.
    Given a connected server
    When the client finds a safe tool with an x-mcp-header parameter
    And the client calls that tool with every x-mcp-header argument mirrored into its header
    Then the server rejected none of those requests for their headers
    When the client calls that tool with the header of that argument set to a different value
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:HDR-011 @MUST @since:2026-07-28 @transport:http
  Scenario: An x-mcp-header argument sent without its Mcp-Param header is rejected
    Spec: basic/transports/streamable-http#Server Behavior for Custom Headers
    If the body carries the argument, its `Mcp-Param-{Name}` header is required; a call
    without it gets `400` and -32020.
    Given a connected server
    When the client finds a safe tool with an x-mcp-header parameter
    And the client calls that tool with that argument but without its header
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:HDR-012 @MUST-NOT @since:2026-07-28 @transport:http
  Scenario: No Mcp-Param header is expected for an absent or null argument
    Spec: basic/transports/streamable-http#Server Behavior for Custom Headers
    A client omits the header when the annotated argument is absent or `null`, and the server
    does not reject such calls for the missing header (any reply but a header rejection passes).
    Given a connected server
    When the client finds a safe tool with an x-mcp-header parameter
    And the client calls that tool without that argument
    And the client calls that tool with that argument set to null
    Then the server rejected none of those requests for their headers

  @rule:HDR-013 @MUST @since:2026-07-28 @transport:http
  Scenario: An Mcp-Param value with characters outside visible ASCII is rejected
    Spec: basic/transports/streamable-http#Server Behavior for Custom Headers
    A recognized `Mcp-Param-{Name}` header holding raw non-ASCII bytes is rejected (`400`,
    -32020) even when the bytes spell the argument: such values travel base64-encoded.
    Given a connected server
    When the client finds a safe tool with an x-mcp-header parameter
    And the client calls that tool with the header of that argument carrying raw non-ASCII bytes
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:HDR-014 @SHOULD @since:2026-07-28 @transport:http
  Scenario: Integer Mcp-Param values are compared numerically
    Spec: basic/transports/streamable-http#Server Validation
    An integer argument and its header are compared as numbers: `42.0` in the body matches `42`
    in the header and the other way round, so neither call is rejected for its headers.
    Given a connected server
    When the client finds a safe tool with an x-mcp-header integer parameter
    And the client calls that tool with that integer argument written with a fraction in the body and as an integer in its header
    And the client calls that tool with that integer argument written as an integer in the body and with a fraction in its header
    Then the server rejected none of those requests for their headers

  @rule:HDR-015 @MUST @since:2026-07-28
  Scenario: Every x-mcp-header value is a non-empty HTTP token
    Spec: server/tools#x-mcp-header
    Each `x-mcp-header` value in every listed inputSchema (all pages of `tools/list`) is a
    non-empty RFC 9110 token, so it has no spaces, control characters, CR or LF. Not applicable
    when no listed tool uses `x-mcp-header`.
    Given a connected server
    When the client lists every tool and its x-mcp-header annotations
    Then every x-mcp-header value is a non-empty HTTP token

  @rule:HDR-016 @MUST @since:2026-07-28
  Scenario: x-mcp-header values are unique within an inputSchema regardless of case
    Spec: server/tools#x-mcp-header
    No two `x-mcp-header` values of one inputSchema are equal when compared case-insensitively
    (header names are). Not applicable when no listed tool uses `x-mcp-header`.
    Given a connected server
    When the client lists every tool and its x-mcp-header annotations
    Then no two x-mcp-header values of one inputSchema differ only in letter case

  @rule:HDR-017 @MUST @since:2026-07-28
  Scenario: x-mcp-header annotates only string, integer and boolean parameters
    Spec: server/tools#x-mcp-header
    An annotated parameter has type `string`, `integer` or `boolean` (possibly with `null`),
    never `number`, object or array, and an integer's bounds and listed values stay within
    ±(2^53-1). Not applicable when no listed tool uses `x-mcp-header`.
    Given a connected server
    When the client lists every tool and its x-mcp-header annotations
    Then every x-mcp-header annotation sits on a string, integer or boolean parameter within the safe integer range

  @rule:HDR-018 @MUST @since:2026-07-28
  Scenario: x-mcp-header annotations are reachable from the root through properties alone
    Spec: basic/transports/streamable-http#Schema Extension
    An annotation sits on a property reached from the inputSchema root by `properties` keys
    only: never at the root, under `items`, composition or conditional keywords, `$defs` or
    any other keyword. Not applicable when no listed tool uses `x-mcp-header`.
    Given a connected server
    When the client lists every tool and its x-mcp-header annotations
    Then every x-mcp-header annotation is reachable from the root through properties alone

  @rule:HDR-019 @SHOULD-NOT @since:2026-07-28
  Scenario: Sensitive parameters are not mirrored into headers
    Spec: server/tools#x-mcp-header
    Header values are visible to intermediaries, so passwords, keys, tokens and personal data
    are not annotated `x-mcp-header`. Heuristic: the property or header name contains a word
    such as password, secret, token (not a page token), api key, auth, credential, cookie,
    ssn or email. Not applicable when no listed tool uses `x-mcp-header`.
    Given a connected server
    When the client lists every tool and its x-mcp-header annotations
    Then no x-mcp-header annotation mirrors a sensitive-looking parameter

  # (area hdr) new HDR scenarios go above this line.
