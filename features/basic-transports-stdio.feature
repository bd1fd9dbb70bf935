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
    From start to exit, every stdout line is a JSON-RPC message: no banners or logs. A blank
    line, or a message line ending in CR LF, adds nothing foreign (a trailing CR is JSON
    whitespace): a warning.
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

  @rule:STDIO-003 @MAY @since:2024-11-05 @transport:stdio
  Scenario: The server may log UTF-8 text to its standard error
    Spec: basic/transports/stdio#stdio
    stderr is free for logging of any kind, as UTF-8 text; its content is never an error signal.
    Bytes that are not UTF-8 are noted.
    Given a fresh connection
    When the client sends a harmless request
    And the client closes the server's standard input
    And the client waits up to 5 seconds for the server to exit
    Then everything the server processes of this run wrote to stderr so far is UTF-8 text

  @rule:STDIO-004 @MUST @since:2026-07-28 @transport:stdio
  Scenario: stdout carries only responses and notifications of in-flight requests or open subscriptions
    Spec: basic/transports/stdio#Receiving Messages
    Every server message of the run is a response, a notification tied to a request still in
    flight (progress with its token, log messages), or a notification of an open
    subscriptions/listen request; never a request, never a notification that belongs to nothing.
    Given a connected server
    When the client sends a harmless request
    Then every message the server wrote to stdout in this run is a response, a notification of an in-flight request or one of an open subscription

  @rule:STDIO-005 @MUST @since:2024-11-05 @transport:stdio
  Scenario: Several requests in flight on one connection are each answered under their own id
    Spec: basic/transports/stdio#Receiving Messages
    All messages share one channel: requests sent without waiting, while a long-lived
    subscriptions/listen request stays open (2026-07-28), are each answered once, correlated by id.
    Given a fresh connection
    When the client keeps a subscriptions/listen request open, if the server accepts one
    And the client sends 10 requests without waiting for the responses
    Then each of those requests is answered exactly once, with its own id

  @rule:STDIO-007 @MAY @since:2024-11-05 @transport:stdio
  Scenario: The server may end the session by closing stdout and exiting
    Spec: basic/transports/stdio#Shutdown
    A server process that exits on its own is not at fault; requests it left unanswered were
    lost, and closing stdout while still running is noted.
    Given a fresh connection
    When the client sends a harmless request
    Then no server process of this run ended the session while requests were in flight

  @rule:STDIO-008 @MUST-NOT @since:2026-07-28 @transport:stdio
  Scenario: Nothing more is sent for a request after the client cancels it
    Spec: basic/transports/stdio#Cancellation
    After notifications/cancelled for an in-flight request (here a subscriptions/listen request),
    no response and no notification for it follows, even when a change it listened for happens.
    Given a fresh connection
    When the client sends a harmless request
    And the client opens a subscriptions/listen request for tool list changes and it is acknowledged
    And the client cancels that subscriptions/listen request
    And the client triggers a tool list change, if the server has the fixture tool for it
    Then nothing more arrived for the cancelled request after a quiet window

  @rule:STDIO-010 @MUST @since:2026-07-28 @transport:stdio
  Scenario: Notifications of a subscription carry its subscriptionId
    Spec: basic/transports/stdio#Receiving Messages
    With two subscriptions open on one channel, each notification delivered for a subscription
    names it in `_meta` io.modelcontextprotocol/subscriptionId, so they can be told apart.
    Given a fresh connection
    When the client sends a harmless request
    And the client opens two subscriptions/listen requests for tool list changes
    And the client triggers a tool list change, if the server has the fixture tool for it
    And the client cancels the open subscriptions/listen requests
    Then every subscription notification carried the subscriptionId of an open subscription
