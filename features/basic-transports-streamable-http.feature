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
