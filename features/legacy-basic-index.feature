Feature: Legacy messages (2025-11-25 basic/index)
  Under the handshake-era revisions either party sends requests: the server asks the client
  for sampling, elicitation and roots with JSON-RPC requests of its own.
  https://modelcontextprotocol.io/specification/2025-11-25/basic

  @rule:LEG-009 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: The server's request ids are strings or integers, unique in the session
    Spec: basic/index#Requests
    A request the server sends the client has an id that is a string or an integer, never
    null, and one the server has not used before in the same session. Judged over every
    server request of the run; na when the run saw none.
    Given the server offers one of the fixture tools "test_sampling, test_elicitation, test_list_roots"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{},"elicitation":{},"roots":{}}`
    When the client calls the fixture tools "test_sampling, test_elicitation, test_list_roots"
    Then every request the server sent in this run has a string or integer id unused before in its session

  @rule:LEG-010 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: The server's requests validate against the schema
    Spec: basic/index#Requests
    Every request the server sends the client is a valid ServerRequest of the negotiated
    revision's schema (CreateMessageRequest, ElicitRequest, ListRootsRequest, PingRequest).
    The message shapes INPUT-002, INPUT-003 and INPUT-013 judge are theirs.
    Given the server offers one of the fixture tools "test_sampling, test_elicitation, test_list_roots"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{},"elicitation":{},"roots":{}}`
    When the client calls the fixture tools "test_sampling, test_elicitation, test_list_roots"
    Then every request the server sent in this run validates against the schema

  @rule:LEG-011 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: The server cancels only requests it issued
    Spec: basic/utilities/cancellation#Behavior Requirements
    A cancellation the server sends names a request the server itself issued in the session
    and left unanswered. A cancellation that crosses the client's answer in flight is allowed
    (#Timing Considerations), so the suite flags only ids the server never issued as a
    request on the connection. Judged over every server cancellation of the run (fixture
    test_cancelled_ping, ours); na when the run saw none.
    Given the server offers one of the fixture tools "test_cancelled_ping"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{}`
    When the client calls the fixture tools "test_cancelled_ping"
    Then every cancellation the server sent in this run names a request it issued
