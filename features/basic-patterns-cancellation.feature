Feature: Cancellation (basic/patterns/cancellation)
  A client may cancel a request it issued with notifications/cancelled (on 2026-07-28 Streamable
  HTTP by closing the request's stream). The same rules hold at the handshake revisions
  (basic/utilities/cancellation up to 2025-11-25). That a notification is never answered is
  MSG-011's (stdio), HTTP-002's and LHTTP-002's (HTTP); that nothing more is sent for a cancelled
  request on 2026-07-28 stdio is STDIO-008's.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/cancellation

  @rule:CANC-001 @SHOULD @since:2024-11-05
  Scenario: A cancelled request gets no response
    Spec: basic/patterns/cancellation#Behavior Requirements
    A server that receives notifications/cancelled for a request in flight should stop it and
    send no response for it. The client calls the fixture tool test_tool_with_progress, cancels
    it once its first progress notification shows it running, then sends a harmless request: one
    quiet window after that sentinel is answered, the response of the cancelled call must not
    have come (over Streamable HTTP: its stream ends without it). At 2026-07-28 STDIO-008 judges
    stdio (a MUST there) and over HTTP the cancellation is closing the stream, which leaves
    nothing to observe: na.
    Given a connected server
    When the client cancels a call of the fixture tool "test_tool_with_progress" while it runs
    Then no response to the cancelled call arrived

  @rule:CANC-002 @SHOULD @since:2024-11-05
  Scenario: A cancellation the server cannot act on is ignored
    Spec: basic/patterns/cancellation#Error Handling
    A cancellation naming a request the server never received, or one without a request id, is
    ignored: the server goes on serving the connection. On a connection of its own, so that a
    server that does not is no other scenario's concern.
    Given a fresh connection
    And the client opens a session of its own, on a handshake-era target
    When the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpconform-never-sent","reason":"conformance test"}}
      """
    And the client sends the malformed notification:
      """
      {"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}
      """
    And the client sends a harmless request
    Then the response is a result

  @rule:CANC-003 @MUST @since:2024-11-05
  Scenario: A cancellation that arrives after the response is harmless
    Spec: basic/patterns/cancellation#Timing Considerations
    A cancellation may cross the response it was meant to prevent; both parties handle the race
    gracefully: a cancellation of a request the server already answered leaves the connection
    serving.
    Given a fresh connection
    And the client opens a session of its own, on a handshake-era target
    When the client sends a harmless request
    And the client cancels the request it sent last
    And the client sends a harmless request
    Then the response is a result
