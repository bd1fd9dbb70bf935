Feature: stdio transport (basic/transports/stdio)
  The client runs the server as a child process and exchanges newline-delimited JSON-RPC
  messages over its standard input and output.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio

  @rule:STDIO-001 @MUST @since:2024-11-05 @transport:stdio
  Scenario: Each message is one line without embedded newlines
    Spec: basic/transports/stdio#stdio
    Messages are delimited by newlines and contain none; a message split over several lines
    breaks every newline-delimited reader.
    Given a fresh connection
    When the client sends a harmless request
    And the client sends a list request for each declared capability
    Then no message the server wrote was split over several lines

  @rule:STDIO-002 @MUST-NOT @since:2024-11-05 @transport:stdio
  Scenario: Nothing but MCP messages is written to stdout
    Spec: basic/transports/stdio#stdio
    From start to exit, every stdout line is a JSON-RPC message: no banners, logs or blank
    lines.
    Given a fresh connection
    When the client sends a harmless request
    And the client closes the server's standard input
    And the client waits up to 5 seconds for the server to exit
    Then every line the server wrote to stdout is a JSON-RPC message

  @rule:STDIO-006 @SHOULD @since:2026-07-28 @transport:stdio
  Scenario: The server exits promptly when its standard input closes
    Spec: basic/transports/stdio#Shutdown
    End of file on stdin is the graceful shutdown signal; the server exits without being
    signalled.
    Given a fresh connection
    When the client sends a harmless request
    And the client closes the server's standard input
    Then the server exits within 5 seconds
