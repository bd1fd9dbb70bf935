Feature: Architecture (architecture/index)
  The client-host-server architecture and capability negotiation: the server declares its
  features as capabilities, and clients rely on that declaration.
  https://modelcontextprotocol.io/specification/2026-07-28/architecture/index

  @rule:CAP-010 @SHOULD @since:2024-11-05
  Scenario: The server declares the same capabilities every time it is asked
    Spec: architecture/index#Capability Negotiation
    While the server is unchanged, asking again (twice more on the same connection and once on
    a fresh one; legacy revisions: three fresh handshakes) yields the capabilities it declared
    when the run began.
    Given a connected server
    When the client reads the server's declared capabilities twice, and once more on a fresh connection
    Then every capability set the server declared is the same
