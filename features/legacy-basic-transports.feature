Feature: Legacy Streamable HTTP transport (2025-11-25 basic/transports)
  Up to 2025-11-25 a Streamable HTTP server may keep a session per client: it issues an
  `Mcp-Session-Id` with the InitializeResult and the client sends it on every later request.
  https://modelcontextprotocol.io/specification/2025-11-25/basic/transports

  @rule:LHTTP-014 @SHOULD @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A server that requires sessions refuses a request without Mcp-Session-Id with 400
    Spec: basic/transports#Session Management
    After initialization, a request that leaves out the session id the server issued gets
    `400 Bad Request` from a server that requires sessions. Not applicable when the server
    issued no session id, or served the request without one (it does not require sessions).
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request without Mcp-Session-Id
    Then a server that requires sessions refuses it with HTTP 400

  @rule:LHTTP-012 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A session id is visible ASCII
    Spec: basic/transports#Session Management
    The `Mcp-Session-Id` a server assigns with its InitializeResult holds only visible ASCII
    characters (0x21 to 0x7E). Not applicable when the server assigns none.
    Given a fresh connection
    And the client opens a session of its own
    Then the session id the server assigned, if any, is visible ASCII

  @rule:LHTTP-017 @MUST @transport:http @since:2025-06-18 @until:2025-11-25
  Scenario: An invalid MCP-Protocol-Version is refused with 400
    Spec: basic/transports#Protocol Version Header
    After initialization, a request whose `MCP-Protocol-Version` names no protocol version the
    server supports gets `400 Bad Request`.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request with MCP-Protocol-Version "1999-01-01"
    Then the HTTP status is 400

  @rule:LHTTP-018 @SHOULD @transport:http @since:2025-06-18 @until:2025-11-25
  Scenario: A request without MCP-Protocol-Version is served
    Spec: basic/transports#Protocol Version Header
    After initialization, a request without `MCP-Protocol-Version` is served: the server takes
    it as 2025-03-26 or as the revision the session negotiated, never refuses it for the
    missing header.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request without MCP-Protocol-Version
    Then the response is a result
