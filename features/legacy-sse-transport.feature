Feature: HTTP with SSE transport (2024-11-05 basic/transports)
  The transport of 2024-11-05, deprecated since 2025-03-26 but still deployed, whose use the
  later revisions' backwards-compatibility sections keep: the client GETs the server's SSE
  endpoint, the first event of the stream, `endpoint`, names the URI it POSTs every message to,
  and the server's messages come as `message` events on the stream. The rules are the project's
  own (catalog/extra-rules.md).
  https://modelcontextprotocol.io/specification/2024-11-05/basic/transports

  @rule:SSE-001 @MUST @transport:sse @since:2024-11-05 @until:2024-11-05
  Scenario: The first event of the SSE stream is endpoint, naming a URI
    Spec: basic/transports#HTTP with SSE
    As a client connects, the server sends an `endpoint` event whose data is the URI the
    client POSTs its messages to; it comes before any other event of the stream.
    Given a fresh connection
    And the client opens a session of its own
    Then the first event of the SSE stream is an endpoint event naming a URI

  @rule:SSE-002 @MUST @transport:sse @since:2024-11-05 @until:2024-11-05
  Scenario: Messages POSTed to the endpoint URI are accepted with 2xx
    Spec: basic/transports#HTTP with SSE
    The server provides an HTTP POST endpoint for the client's messages: a request or
    notification POSTed to the URI of the endpoint event is accepted with a 2xx status (its
    response comes on the SSE stream, not in the POST's reply).
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request
    Then every message the client POSTed to the endpoint URI was accepted with a 2xx status

  @rule:SSE-003 @MUST @transport:sse @since:2024-11-05 @until:2024-11-05
  Scenario: Server messages come as message events carrying JSON
    Spec: basic/transports#HTTP with SSE
    The server sends its messages as SSE `message` events (an event without an `event` field
    is one), each with the JSON-RPC message JSON-encoded in the event data.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request
    Then every server message on the SSE stream came as a message event

  @rule:SSE-004 @MUST @transport:sse @since:2024-11-05 @until:2024-11-05
  Scenario: A connection from a foreign Origin is refused
    Spec: basic/transports#Security Warning
    The server validates the `Origin` header on all incoming connections, against DNS
    rebinding: a GET of the SSE endpoint from `https://evil.example` opens no stream (the
    revision names no status for the refusal; any reply but a 2xx event stream is one).
    When the client opens an SSE stream with Origin "https://evil.example"
    Then the server opened no SSE stream for it
