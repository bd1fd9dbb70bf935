Feature: Logging (server/utilities/logging)
  Structured log messages from server to client. Deprecated in 2026-07-28 but still specified:
  the client asks for them per request with `_meta` `io.modelcontextprotocol/logLevel`, and the
  server sends `notifications/message` at or above that level on that request's response
  stream only. Handshake-era revisions set the level per session with `logging/setLevel`.
  Servers that do not declare `logging` are judged only on what they send.
  https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging

  @rule:LOG-001 @MUST-NOT @since:2026-07-28
  Scenario: No log message for a request that did not ask for one
    Spec: server/utilities/logging#Per-request log level
    A request without `io.modelcontextprotocol/logLevel` gets no `notifications/message`. The
    run's requests never ask for logs unless a scenario says so; the fixture tool
    test_tool_with_logging, when listed, is called without a level. Judged over every frame of
    the run.
    Given a connected server
    When the client calls the logging fixture tool, if listed, without a log level
    Then no log message in this run went to a request that did not ask for log messages

  @rule:LOG-002 @MUST-NOT @since:2026-07-28
  Scenario: Log messages are at or above the requested level
    Spec: server/utilities/logging#Per-request log level
    The fixture tool test_tool_with_logging (which logs at info) is called with level `error`:
    any message it sends is at error or above. Every log message of the run is judged against
    the level its request asked for.
    Given a connected server
    And the server declares the "logging" capability
    When the client calls the logging fixture tool with log level "error"
    Then every log message in this run is at or above the level its request asked for

  @rule:LOG-003 @MUST-NOT @since:2026-07-28
  Scenario: Log messages travel only with the response of the request that asked for them
    Spec: server/utilities/logging#Per-request log level
    `notifications/message` is request-scoped: never on a subscriptions/listen stream (nor
    tagged with a subscriptionId), never on a GET stream, and on stdio never while no request
    is in flight. The fixture tool test_tool_with_logging, when listed, is called with level
    `debug` while a listen stream is open (HTTP). Judged over every frame of the run.
    Given a connected server
    When the client calls the logging fixture tool, if listed, with log level "debug" while a listen stream is open
    Then every log message in this run travelled with the response of the request that asked for it

  @rule:LOG-004 @SHOULD @since:2026-07-28
  Scenario: An unknown log level is refused with invalid params
    Spec: server/utilities/logging#Error Handling
    A request whose `_meta` logLevel is not a LoggingLevel ("verbose") is rejected with -32602.
    Given a connected server
    And the server declares the "logging" capability
    When the client sends a list request with the log level "verbose"
    Then the response is an error with code -32602

  @rule:LOG-005 @MUST @since:2024-11-05
  Scenario: Log messages have a known level and data
    Spec: server/utilities/logging#Log Message Notifications
    Each `notifications/message` has a `level` from LoggingLevel, a `data` member and, if
    present, a string `logger`. On 2026-07-28 the fixture tool test_tool_with_logging, when
    listed, is called with level `debug`. Judged over every frame of the run.
    Given a connected server
    When the client calls the logging fixture tool, if listed, with log level "debug" while a listen stream is open
    Then every log message the server sent in this run has a known level and data

  @rule:LFEAT-005 @SHOULD @since:2024-11-05 @until:2025-11-25 @capability:logging
  Scenario: logging/setLevel with an unknown level is refused with invalid params
    Spec: server/utilities/logging#Error Handling
    "Invalid log level: `-32602` (Invalid params)". logging/setLevel is sent with "verbose",
    which is not a LoggingLevel. The level holds for the whole session, so the request goes in a
    session of its own (a fresh connection initialised with the revision under test), never in
    the session the other scenarios share.
    Given the server declares the "logging" capability
    And a fresh connection
    When the client sets the log level "verbose" in a session of its own
    Then the response is an error with code -32602

  @rule:LFEAT-004 @SHOULD @since:2024-11-05 @until:2025-11-25 @capability:logging
  Scenario: logging/setLevel sets the minimum level of the session's log messages
    Spec: server/utilities/logging#Setting Log Level
    logging/setLevel answers with an empty result, and afterwards the server sends the session
    only log messages at or above the level set. In a session of its own the level "debug" is
    set and the fixture tool test_tool_with_logging (which logs at info) is called, to show that
    its log messages reach the client; then the level "error" is set and the tool is called
    again: no log message below error may follow. Over Streamable HTTP the session's GET stream
    is held throughout, since a server may send its log messages there. Untestable without the
    fixture tool, when the session got no log message at all, or over Streamable HTTP when the
    server assigned no Mcp-Session-Id (a sessionless server has no session for the level).
    Given the server declares the "logging" capability
    And a fresh connection
    When the client sets the log level "debug" in a session of its own
    And the client holds a GET stream in its session
    And the client calls the logging fixture tool in its session
    And the client sets the log level "error" in its session
    Then logging/setLevel got an empty result
    When the client calls the logging fixture tool in its session
    And the client closes its GET streams
    Then no log message after the level was set is below "error"
