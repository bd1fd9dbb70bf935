Feature: Message patterns (basic/patterns/index)
  The request/response, subscribe-and-notify and cancellation patterns that every 2026-07-28
  server implements.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/index

  @rule:SUB-001 @MUST @since:2026-07-28
  Scenario: The server supports subscriptions/listen
    Spec: basic/patterns/index#Subscribe and Notify
    The message patterns are part of the protocol every 2026-07-28 server implements: a
    subscriptions/listen request is acknowledged with notifications/subscriptions/acknowledged
    (the filter may be honoured in part), not refused with -32601 (HTTP 404). The details of
    the acknowledgement are the subscription rules' and HTTP-024's. On a fresh connection: a
    subscription is state of the connection it is opened on.
    Given a fresh connection
    When the client opens a subscriptions/listen request
    Then the server acknowledged the subscription
