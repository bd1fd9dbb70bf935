Feature: Legacy lifecycle (2025-11-25 basic/lifecycle)
  Servers that negotiate a revision up to 2025-11-25 start every session with the `initialize`
  handshake, then `notifications/initialized`, then normal operation.
  https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle

  @rule:LEG-001 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: initialize is answered with an InitializeResult
    Spec: basic/lifecycle#Initialization
    The result has `protocolVersion`, `capabilities` and `serverInfo`.
    Given a fresh connection
    When the client initializes with the revision under test
    Then the response is a result
    And the result validates as "InitializeResult"

  @rule:LEG-002 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: A supported requested version is echoed back
    Spec: basic/lifecycle#Version Negotiation
    A server that supports the version the client requests answers with that same
    version; checked for the revision under test and every legacy version the server lists.
    Given a fresh connection
    When the client initializes with each legacy version the server supports
    Then each initialize result echoes the requested version

  @rule:LEG-003 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: An unsupported requested version is answered with a version the server supports
    Spec: basic/lifecycle#Version Negotiation
    For a version it does not support the server answers with another version it does
    support, never an echo. The page's own error example (-32602) is graded a warning.
    Given a fresh connection
    When the client initializes with protocol version "2099-12-31"
    Then the response is a result (an error with code -32602 is a warning)
    And the value at "/result/protocolVersion" is not "2099-12-31"
    And the value at "/result/protocolVersion" is a known protocol revision

  @rule:LEG-004 @SHOULD @since:2024-11-05 @until:2025-11-25
  Scenario: The counter-offer is the latest version the server supports
    Spec: basic/lifecycle#Version Negotiation
    For a version it does not support the server should answer with the latest version it
    supports. What else the server shows it supports is the evidence: the versions a dual-era
    server advertises in its DiscoverResult, and each newer handshake-era revision it echoes when
    a fresh connection asks for it. An answer that is no handshake-era version is LEG-003's.
    Given a fresh connection
    When the client initializes with protocol version "2099-12-31"
    And the client initializes, on fresh connections, with each legacy revision newer than the counter-offer
    Then the counter-offer is the latest version the server supports

  @rule:LEG-005 @SHOULD-NOT @since:2024-11-05 @until:2025-11-25
  Scenario: Before notifications/initialized the server sends only pings and log messages
    Spec: basic/lifecycle#Initialization
    Until the client has sent notifications/initialized the server should send no request other
    than ping and no message other than logging. The client delays the notification until the
    server has answered a ping sent after the InitializeResult: on the same connection that
    answer comes after whatever the server sent before it.
    Given a fresh connection
    When the client initializes with the revision under test
    And the client sends a "ping" request
    And the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/initialized"}
      """
    Then before notifications/initialized the server sent no request but ping and no notification but log messages

  @rule:LEG-007 @MUST @SHOULD-until:2025-03-26 @since:2024-11-05 @until:2025-11-25
  Scenario: After the handshake the server answers in the negotiated revision
    Spec: basic/lifecycle#Operation
    A list request after the handshake returns a result that validates against the negotiated
    revision's schema.
    Given a connected server
    When the client sends a list request for a declared capability
    Then the response is a result
    And the response validates against the schema

  @rule:LEG-012 @MUST-NOT @since:2024-11-05 @until:2025-11-25
  Scenario: notifications/initialized gets no response
    Spec: basic/lifecycle#Initialization
    The initialized notification is never answered (stdio: no line; HTTP: 202 with no body).
    Given a fresh connection
    When the client initializes with the revision under test
    And the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/initialized"}
      """
    Then no message arrives in reply

  @rule:LEG-006 @MUST @SHOULD-until:2025-03-26 @since:2024-11-05 @until:2025-11-25
  Scenario: The server uses only the client capabilities negotiated
    Spec: basic/lifecycle#Operation
    During operation both parties keep to the capabilities they negotiated: a client that
    declared no client capability gets no sampling/createMessage, elicitation/create or
    roots/list request. The fixture tools that ask the client are called on a session
    declaring `{}`. This rule owns a request for a capability the client did not declare at
    all; a request under a declared capability that uses an undeclared part of it (an
    elicitation mode, tools in sampling) is INPUT-001's or INPUT-008's, so one frame fails one
    rule. Untestable when the server has none of the fixture tools.
    Given the server offers one of the fixture tools "test_sampling, test_elicitation, test_list_roots"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{}`
    When the client calls the fixture tools "test_sampling, test_elicitation, test_list_roots"
    Then the server sent the client no request for a capability the client did not declare
