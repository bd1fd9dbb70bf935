Feature: Legacy Streamable HTTP transport (2025-11-25 basic/transports)
  Up to 2025-11-25 a Streamable HTTP server may keep a session per client: it issues an
  `Mcp-Session-Id` with the InitializeResult and the client sends it on every later request.
  https://modelcontextprotocol.io/specification/2025-11-25/basic/transports

  @rule:LHTTP-014 @SHOULD @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A server that requires sessions refuses a request without Mcp-Session-Id with 400
    Spec: basic/transports#Session Management
    After initialization, a request that leaves out the session id the server issued gets
    `400 Bad Request` from a server that requires sessions. Not applicable when the server
    issued no session id, or served the request without one (it does not require sessions).
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request without Mcp-Session-Id
    Then a server that requires sessions refuses it with HTTP 400

  @rule:LHTTP-012 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A session id is visible ASCII
    Spec: basic/transports#Session Management
    The `Mcp-Session-Id` a server assigns with its InitializeResult holds only visible ASCII
    characters (0x21 to 0x7E). Not applicable when the server assigns none.
    Given a fresh connection
    And the client opens a session of its own
    Then the session id the server assigned, if any, is visible ASCII

  @rule:LHTTP-017 @MUST @transport:http @since:2025-06-18 @until:2025-11-25
  Scenario: An invalid MCP-Protocol-Version is refused with 400
    Spec: basic/transports#Protocol Version Header
    After initialization, a request whose `MCP-Protocol-Version` names no protocol version the
    server supports gets `400 Bad Request`.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request with MCP-Protocol-Version "1999-01-01"
    Then the HTTP status is 400

  @rule:LHTTP-018 @SHOULD @transport:http @since:2025-06-18 @until:2025-11-25
  Scenario: A request without MCP-Protocol-Version is served
    Spec: basic/transports#Protocol Version Header
    After initialization, a request without `MCP-Protocol-Version` is served: the server takes
    it as 2025-03-26 or as the revision the session negotiated, never refuses it for the
    missing header.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request without MCP-Protocol-Version
    Then the response is a result

  @rule:LHTTP-001 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: The MCP endpoint takes both POST and GET
    Spec: basic/transports#Streamable HTTP
    The server provides one MCP endpoint that supports both POST and GET: the URL that served
    the session's POSTs answers a GET as the transport defines it (an SSE stream, or 405 when
    the server offers none), never 404 Not Found.
    Given a fresh connection
    And the client opens a session of its own
    When the client opens a GET stream on the endpoint
    And the client closes its GET streams
    Then the endpoint that served the POSTs answers the GET too

  @rule:LHTTP-003 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A POSTed request gets application/json or text/event-stream
    Spec: basic/transports#Sending Messages to the Server
    The reply to a POSTed JSON-RPC request has `Content-Type: application/json` (one JSON
    object) or `Content-Type: text/event-stream` (an SSE stream).
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request
    And the client sends a list request for each declared capability
    And the client calls the fixture tool "test_simple_text" asking for progress
    Then every reply to a request in this scenario has Content-Type application/json or text/event-stream

  @rule:LHTTP-002 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: An accepted notification gets 202 Accepted with no body
    Spec: basic/transports#Sending Messages to the Server
    A POSTed notification or response that the server accepts gets `202 Accepted` with no
    body; one it cannot accept gets an HTTP error status. The notification is the
    `notifications/initialized` that ends the handshake; the responses are the client's
    answers to the server's sampling, elicitation and roots requests, made by the fixture
    tools the server offers (without them the notification alone is judged).
    Given a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{},"elicitation":{},"roots":{}}`
    When the client calls the fixture tools "test_sampling, test_elicitation, test_list_roots" that the server offers
    Then the initialized notification and every response the client POSTed got 202 Accepted with no body, or an HTTP error status

  @rule:LHTTP-007 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: GET on the endpoint opens an SSE stream or gets 405
    Spec: basic/transports#Listening for Messages from the Server
    A GET on the MCP endpoint (with `Accept: text/event-stream` and the session's headers) is
    answered with `Content-Type: text/event-stream` or with `405 Method Not Allowed` (the
    server offers no stream there).
    Given a fresh connection
    And the client opens a session of its own
    When the client opens a GET stream on the endpoint
    And the client closes its GET streams
    Then the GET got an SSE stream or 405

  @rule:LHTTP-015 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A request in a terminated or never-issued session gets 404
    Spec: basic/transports#Session Management
    Once the server has terminated a session (here: it accepted the client's DELETE), it
    answers requests carrying that session id with `404 Not Found`. A session id the server
    never issued should get 404 too (a warning otherwise). Not applicable when the server
    issues no session ids; the terminated case is not judged when the server refuses DELETE.
    Given a fresh connection
    And the client opens a session of its own
    When the client sends a "ping" request with a session id the server never issued
    And the client ends its session with an HTTP DELETE
    And the client sends a "ping" request in the ended session
    Then the requests in the ended and the never-issued session got 404

  @rule:LHTTP-016 @MAY @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: DELETE ends the session or is refused with 405
    Spec: basic/transports#Session Management
    A client that no longer needs its session sends an HTTP DELETE with its `Mcp-Session-Id`;
    the server may refuse it with `405 Method Not Allowed`, or ends the session (2xx). Not
    applicable when the server issues no session ids.
    Given a fresh connection
    And the client opens a session of its own
    When the client ends its session with an HTTP DELETE
    Then the DELETE got a 2xx status or 405

  @rule:LHTTP-013 @SHOULD @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: Session ids are unique and unpredictable
    Spec: basic/transports#Session Management
    Session ids are globally unique and cryptographically secure: over 20 sessions the ids are
    distinct, at least 16 characters long and not a counter or a clock (a heuristic). Not
    applicable when the server issues no session ids.
    Given a connected server
    When the client opens 20 sessions
    Then the session ids are distinct, long and not sequential

  @rule:LHTTP-004 @SHOULD @transport:http @since:2025-11-25 @until:2025-11-25
  Scenario: An SSE reply opens with a priming event
    Spec: basic/transports#Sending Messages to the Server
    An SSE stream the server opens in reply to a POST starts with a priming event: an event id
    and an empty `data` field, which the client can resume from. Not applicable when every
    reply is `application/json`.
    Given a fresh connection
    And the client opens a session of its own
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the logging fixture tool, if listed, without a log level
    And the client sends a "ping" request
    Then every SSE reply in this scenario opened with a priming event

  @rule:LHTTP-006 @SHOULD @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A POST's SSE stream carries the response and ends after it
    Spec: basic/transports#Sending Messages to the Server
    The SSE stream that answers a POSTed request eventually carries the response to it, and the
    server terminates the stream after the response. Not applicable when every reply is
    `application/json`.
    Given a fresh connection
    And the client opens a session of its own
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the logging fixture tool, if listed, without a log level
    And the client sends a "ping" request
    Then every SSE reply to a POST in this scenario carried its response and ended after it

  @rule:LHTTP-008 @MUST-NOT @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: The GET stream carries no JSON-RPC response
    Spec: basic/transports#Listening for Messages from the Server
    The server does not send a JSON-RPC response on the GET stream, unless resuming a stream
    of an earlier request (this GET resumes nothing). Not applicable when the server offers no
    GET stream.
    Given a fresh connection
    And the client opens a session of its own
    When the client opens a GET stream on the endpoint
    And the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the logging fixture tool, if listed, without a log level
    And the client sends a "ping" request
    And the client closes its GET streams
    Then no GET stream in this scenario carried a JSON-RPC response

  @rule:LHTTP-010 @MUST @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: SSE event ids are unique across the session's streams
    Spec: basic/transports#Resumability and Redelivery
    An SSE event id, when the server attaches one, is unique across all streams of the session
    (GET and POST streams alike). Not applicable when no event carries an id.
    Given a fresh connection
    And the client opens a session of its own
    When the client opens a GET stream on the endpoint
    And the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the logging fixture tool, if listed, without a log level
    And the client calls the logging fixture tool, if listed, without a log level
    And the client closes its GET streams
    Then the SSE event ids of this scenario's streams are unique

  @rule:LHTTP-009 @MUST-NOT @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: No message is broadcast on more than one stream
    Spec: basic/transports#Multiple Connections
    The server sends each of its messages on only one of the connected streams, never the same
    message on several. The client holds two GET streams while requests stream their replies.
    Given a fresh connection
    And the client opens a session of its own
    When the client opens a GET stream on the endpoint
    And the client opens a GET stream on the endpoint
    And the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the logging fixture tool, if listed, without a log level
    And the client calls the logging fixture tool, if listed, without a log level
    And the client closes its GET streams
    Then no message of this scenario travelled on two streams

  @rule:LHTTP-011 @MUST-NOT @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A resumed stream replays only its own messages
    Spec: basic/transports#Resumability and Redelivery
    A GET with `Last-Event-ID` resumes the stream that event belonged to: the server may replay
    the messages that stream would have carried after it, never messages that would have been
    delivered on a different stream. Not applicable when the server makes no stream
    resumable (no event ids) or answers the resuming GET without an SSE stream.
    Given a fresh connection
    And the client opens a session of its own
    When the client calls the logging fixture tool, if listed, without a log level
    And the client sends a "ping" request
    And the client calls the fixture tool "test_tool_with_logging" and drops the connection after the first event id
    And the client resumes the dropped stream with a GET carrying its Last-Event-ID
    And the client closes its GET streams
    Then the resumption replayed only messages of the dropped stream

  @rule:LHTTP-019 @SHOULD-NOT @transport:http @since:2025-03-26 @until:2025-11-25
  Scenario: A lost connection does not cancel the request
    Spec: basic/transports#Sending Messages to the Server
    Disconnection may happen at any time and is not to be read as the client cancelling its
    request: after the client drops a request's SSE stream and resumes it with a GET carrying
    `Last-Event-ID`, the response to the request arrives on the resumed stream. Not applicable
    when the server makes no stream resumable or does not resume it.
    Given a fresh connection
    And the client opens a session of its own
    When the client calls the fixture tool "test_tool_with_logging" and drops the connection after the first event id
    And the client resumes the dropped stream with a GET carrying its Last-Event-ID
    And the client closes its GET streams
    Then the resumption delivered the response to the dropped request

  @rule:LHTTP-005 @SHOULD @transport:http @since:2025-11-25 @until:2025-11-25
  Scenario: A server that closes an SSE stream early sends a retry field first
    Spec: basic/transports#Sending Messages to the Server
    A server may close the connection of an SSE stream before the stream is done (before the
    response), so that the client polls it again; it then first sends an event with a `retry`
    field. Not applicable when the server closes no stream before its response.
    Given a fresh connection
    And the client opens a session of its own
    When the client calls the fixture tool "test_simple_text" asking for progress
    And the client calls the logging fixture tool, if listed, without a log level
    And the client sends a "ping" request
    Then every SSE reply the server closed before its response carried a retry field first
