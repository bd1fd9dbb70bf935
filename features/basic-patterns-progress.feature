Feature: Progress (basic/patterns/progress)
  A client that sets a progress token on a request may receive notifications/progress for it
  while the request runs. The same rules hold at the handshake revisions (basic/utilities/progress
  up to 2025-11-25). Every notifications/progress of the run is judged, on every connection:
  the scenarios add calls of the official fixture tool test_tool_with_progress, which reports
  progress 0, 50 and 100 of 100.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress

  @rule:PROG-001 @MUST @since:2024-11-05
  Scenario: Progress names only the token of a request the client sent
    Spec: basic/patterns/progress#Behavior Requirements
    A progress notification references only a token that the client set on a request of the same
    connection: a request without a token gets none. A token of the wrong JSON type is PROG-002's,
    progress after the response PROG-004's; on a 2026-07-28 Streamable HTTP request stream a
    foreign token is HTTP-007's. The calls are made when the server has the fixture tool; the rule
    judges whatever progress the run shows.
    Given a connected server
    When the client calls the fixture tool "test_tool_with_progress" without a progress token, if the server has it
    And the client calls the fixture tool "test_tool_with_progress" with a fresh progress token, if the server has it
    Then every progress notification of the run names a progress token the client set on that connection

  @rule:PROG-002 @MUST @since:2024-11-05
  Scenario: The progress token is echoed with its JSON type
    Spec: basic/patterns/progress#Progress Flow
    A progress notification carries the request's original token: the integer 7 stays an integer
    and the string "7" a string.
    Given a connected server
    When the client calls the fixture tool "test_tool_with_progress" with progress token 7
    And the client calls the fixture tool "test_tool_with_progress" with progress token "7"
    Then every progress notification of the run carries its token with the JSON type the request gave it

  @rule:PROG-003 @MUST @since:2024-11-05
  Scenario: Progress increases with each notification
    Spec: basic/patterns/progress#Progress Flow
    Each progress notification of a request reports a larger `progress` than the one before,
    whether or not a total is known. A value that is no number is PROG-006's.
    Given a connected server
    When the client calls the fixture tool "test_tool_with_progress" with a fresh progress token
    Then the progress of every progress token of the run increases with each notification

  @rule:PROG-004 @MUST @since:2024-11-05
  Scenario: No progress after the request completed
    Spec: basic/patterns/progress#Implementation Notes
    Progress notifications stop once the request is answered: none for its token follows its
    response. On stdio the answer to a later request proves that none was pending; on a 2026-07-28
    Streamable HTTP request stream an event after the response is HTTP-009's.
    Given a connected server
    When the client calls the fixture tool "test_tool_with_progress" with a fresh progress token, if the server has it
    And the client sends a harmless request
    Then no progress notification of the run follows the response of its request

  @rule:PROG-006 @MUST @since:2024-11-05
  Scenario: A progress notification has a token and a numeric progress
    Spec: basic/patterns/progress#Progress Flow
    The params of notifications/progress hold the progressToken (a string or an integer) and a
    numeric `progress`; `total` is a number and `message` a string when present
    (ProgressNotificationParams). Schema violations of the notification are this rule's.
    Given a connected server
    When the client calls the fixture tool "test_tool_with_progress" with a fresh progress token, if the server has it
    Then every progress notification of the run has a valid token, a numeric progress and, if present, a numeric total and a string message
