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
