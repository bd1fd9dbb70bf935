Feature: Versioning (basic/versioning)
  How a 2026-07-28 server negotiates the protocol version on every request, and rejects the
  versions it does not serve.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning

  @rule:VER-001 @MUST @since:2026-07-28
  Scenario: Any request with an unsupported version gets UnsupportedProtocolVersion
    Spec: basic/versioning#Protocol Version Negotiation
    Not only discover: every request whose `_meta` names a version the server does not serve is
    answered with -32022.
    Given a connected server
    When the client sends a list request for a declared capability with protocol version "2099-01-01"
    Then the response is an error with code -32022

  @rule:VER-002 @MUST @since:2026-07-28 @transport:http
  Scenario: Over HTTP the unsupported-version error has status 400
    Spec: basic/transports/streamable-http#Protocol Version Header
    The -32022 reply travels with `400 Bad Request`.
    Given a connected server
    When the client sends a "server/discover" request with protocol version "2099-01-01"
    Then the response is an error with code -32022
    And the HTTP status is 400

  @rule:ERR-007 @MUST @since:2026-07-28
  Scenario: UnsupportedProtocolVersion names the requested and the supported versions
    Spec: basic/versioning#Protocol Version Negotiation
    The -32022 error's `data` has `requested` (what the client sent) and `supported` (the
    server's versions), and the refused version is not among the supported ones.
    Given a connected server
    When the client sends a "server/discover" request with protocol version "1900-01-01"
    Then the response is an error with code -32022
    And the value at "/error/data/requested" is "1900-01-01"
    And the value at "/error/data/supported" is a non-empty array of strings
    And the value at "/error/data/supported" does not contain "1900-01-01"
