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

  @rule:VER-005 @MUST @since:2026-07-28 @transport:http
  Scenario: A modern-only server refuses a legacy-shaped POST with 400
    Spec: basic/versioning#Compatibility Matrix
    An `initialize` POSTed the way a legacy client opens (no MCP-Protocol-Version, no
    Mcp-Method) fails server validation with `400 Bad Request`. A dual-era server serves it
    under a legacy revision instead (the matrix's Legacy client / Dual-era server row); other
    answers fail unless supportedVersions names a legacy revision.
    Given a connected server
    When the client POSTs a legacy-shaped initialize without MCP request headers
    Then the legacy-shaped POST was refused with HTTP 400 unless the server also speaks a legacy revision

  @rule:VER-006 @MAY @since:2026-07-28 @transport:http
  Scenario: A request without MCP-Protocol-Version is served as 2025-03-26 only by servers supporting it
    Spec: basic/transports/streamable-http#Protocol Version Header
    A server supporting clients older than 2025-06-18 may treat a POST without
    MCP-Protocol-Version as 2025-03-26; any other server refuses it with `400`. Serving it
    while neither listing 2025-03-26 or 2024-11-05 in supportedVersions nor negotiating
    2025-03-26 on initialize is reported as information.
    Given a connected server
    When the client POSTs a legacy-shaped ping without MCP-Protocol-Version
    And the client asks with a legacy-shaped initialize whether the server negotiates 2025-03-26
    Then the server refused the ping with HTTP 400 or serves it while supporting a revision older than 2025-06-18

  # (area http) new VER-005/006 scenarios go above this line.
