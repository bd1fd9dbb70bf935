Feature: Streamable HTTP transport (basic/transports/streamable-http)
  Each JSON-RPC request is an HTTP POST to the MCP endpoint, with request metadata mirrored in
  headers that the server checks against the body.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http

  @rule:HTTP-013 @MUST @since:2026-07-28 @transport:http
  Scenario: An unknown method gets 404 with method-not-found
    Spec: basic/transports/streamable-http#Protocol Version Header
    A request for a method the server does not implement is answered with `404 Not Found` and a
    -32601 JSON-RPC error body.
    Given a connected server
    When the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}
      """
    Then the HTTP status is 404
    And the response is an error with code -32601

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
    `Mcp-Method` is required on every request.
    Given a connected server
    When the client sends a "server/discover" request without the "Mcp-Method" header
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:HDR-004 @MUST @since:2026-07-28 @transport:http
  Scenario: Mcp-Method that differs from the body method is rejected
    Spec: basic/transports/streamable-http#Server Validation
    `Mcp-Method` must equal the body's `method`.
    Given a connected server
    When the client sends a "server/discover" request with the "Mcp-Method" header set to "tools/list"
    Then the HTTP status is 400
    And the response is an error with code -32020

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
    nothing is replayed.
    Given a connected server
    When the client sends a "server/discover" request with the "Last-Event-ID" header set to "1"
    Then the response is a result
    And the response id is the request id
    And the reply carries nothing but the response

  @rule:HTTP-026 @MUST @since:2026-07-28 @transport:http
  Scenario: Header values are compared case-sensitively
    Spec: basic/transports/streamable-http#Case Sensitivity
    Header values such as method names are case-sensitive: `Mcp-Method: Server/Discover` does
    not match the body method `server/discover`, so the request gets `400` with -32020.
    Given a connected server
    When the client sends a "server/discover" request with the "Mcp-Method" header set to "Server/Discover"
    Then the HTTP status is 400
    And the response is an error with code -32020

  @rule:ERR-009 @MUST @since:2026-07-28 @transport:http
  Scenario: Header-mismatch and unsupported-version errors use HTTP 400
    Spec: basic/transports/streamable-http#Server Validation
    On HTTP, -32020 HeaderMismatch, -32021 MissingRequiredClientCapability and -32022
    UnsupportedProtocolVersion replies use status `400`.
    Given a connected server
    When the client sends a "server/discover" request without the "Mcp-Method" header
    And the client sends a "server/discover" request with protocol version "2099-01-01"
    And the client sends a "server/discover" request with the "Mcp-Method" header set to "tools/list"
    Then every error in this scenario with code -32020, -32021, -32022 came with HTTP status 400

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

  # (area http) new HTTP, ERR-010, VER-005/006 scenarios go above this line.

  # (area hdr) new HDR scenarios go above this line.
