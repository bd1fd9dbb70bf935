Feature: Probes of behaviour the specification leaves open (probes)
  Requests no revision regulates on the server side. Each probe records what the server did as
  an info result; a probe never fails a run. They show how a server copes with clients that
  get things wrong, which SDK maintainers compare across implementations.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index

  @rule:PROBE-001 @PROBE @since:2025-03-26 @transport:http
  Scenario Outline: A POST whose Accept header lacks a media type the client must offer
    Spec: basic/transports/streamable-http#Sending Messages
    Only the client is bound to accept both JSON and SSE; servers commonly answer 406.
    Given a connected server
    When the client sends a harmless request <accept>
    Then the server's reply is recorded

    Examples:
      | case             | accept                                                            |
      | no Accept        | without the "Accept" header                                       |
      | JSON only        | with the "Accept" header set to "application/json"                |

  @rule:PROBE-002 @PROBE @since:2025-03-26 @transport:http
  Scenario Outline: A POST whose body is not declared as JSON
    Spec: basic/transports/streamable-http#Sending Messages
    No revision says how a server treats a body sent as text/plain or with no Content-Type;
    servers commonly answer 415 or 400.
    Given a connected server
    When the client sends a harmless request <content type>
    Then the server's reply is recorded

    Examples:
      | case            | content type                                              |
      | text/plain      | with the "Content-Type" header set to "text/plain"        |
      | no Content-Type | without the "Content-Type" header                         |

  @rule:PROBE-003 @PROBE @since:2025-06-18
  Scenario: A JSON-RPC batch
    Spec: basic/index#Messages
    Batching was removed: a message is one JSON object. A server may answer -32600, HTTP 400,
    or nothing.
    Given a fresh connection
    When the client sends the malformed message:
      """
      [{"jsonrpc":"2.0","id":$id,"method":"$harmless","params":$params}]
      """
    Then the server's reply is recorded

  @rule:PROBE-004 @PROBE @since:2024-11-05
  Scenario: A request whose id is null
    Spec: basic/index#Requests
    MCP forbids null ids to clients; what a server does with one is left open (-32600 is
    common).
    Given a fresh connection
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":null,"method":"$harmless","params":$params}
      """
    Then the server's reply is recorded

  @rule:PROBE-005 @PROBE @since:2026-07-28 @transport:http
  Scenario: A POST that carries a JSON-RPC response
    Spec: basic/transports/streamable-http#Sending Messages
    A 2026-07-28 client never sends responses; the server's handling is unspecified (400 is
    expected).
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":"mcp-conform-unsolicited","result":{}}
      """
    Then the server's reply is recorded

  @rule:PROBE-006 @PROBE @since:2024-11-05 @until:2025-11-25
  Scenario: A legacy request before initialize
    Spec: basic/lifecycle#Initialization
    The legacy lifecycle starts with initialize; some servers serve other requests first anyway.
    Given a fresh connection
    When the client sends a "tools/list" request
    Then the server's reply is recorded

  @rule:PROBE-007 @PROBE @since:2024-11-05 @transport:stdio
  Scenario Outline: Framing robustness on stdio
    Spec: basic/transports/stdio#stdio
    Lines ending in CR LF and very long messages are legal JSON text but stress line readers.
    Each goes to a process of its own, so that a server a 4 MiB line chokes spoils no other
    scenario's connection.
    Given a fresh connection
    When the client sends a harmless request <shape>
    Then the server's reply is recorded

    Examples:
      | case            | shape                              |
      | CR LF line end  | as one stdio line ending in CR LF  |
      | 4 MiB message   | padded to 4 MiB                    |

  @rule:PROBE-008 @PROBE @since:2026-07-28
  Scenario: Unknown members in params and unknown _meta keys
    Spec: basic/index#_meta
    Extensibility suggests tolerance of members a server does not know; rejections are
    recorded.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"$harmless","params":{"x-mcp-conform-unknown":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"$version","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-conform","version":"0"},"example.com/unknown":true}}}
      """
    Then the server's reply is recorded

  @rule:PROBE-009 @PROBE @since:2025-03-26 @transport:http
  Scenario: The HTTP status of a parse error
    Spec: basic/transports/streamable-http#Sending Messages
    The status that comes with -32700 is unspecified for 2026-07-28 (400 is typical).
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0",
      """
    Then the server's reply is recorded

  @rule:PROBE-010 @PROBE @since:2026-07-28
  Scenario: A modern request naming a legacy protocol version
    Spec: basic/versioning#Version Negotiation
    Without a handshake a legacy version may be refused with -32022 or served under legacy
    rules; both are defensible.
    Given a connected server
    When the client sends a "server/discover" request with protocol version "2025-11-25"
    Then the server's reply is recorded
