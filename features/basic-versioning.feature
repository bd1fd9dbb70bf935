Feature: Versioning (basic/versioning)
  How a 2026-07-28 server negotiates the protocol version on every request, and rejects the
  versions it does not serve.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning

  @rule:VER-001 @MUST @since:2026-07-28
  Scenario Outline: Any request with an unsupported version gets UnsupportedProtocolVersion
    Spec: basic/versioning#Protocol Version Negotiation
    Not only discover: every request whose `_meta` names a version the server does not serve is
    answered with -32022, "whether the version is unknown to the server, or is a known version
    the server has chosen not to support". Both a future and a past unknown version are asked:
    the page's own example refuses "1900-01-01" with a `supported` list naming a legacy revision,
    so a dual-era server does not read a request that carries modern per-request `_meta` as
    legacy for its date ("A request carrying modern per-request `_meta` is served statelessly
    according to this revision", basic/versioning#Compatibility Matrix). On a fresh connection,
    so that no earlier request's version can be carried over (STATE-001's); a server that serves
    discover at that version too fails DISC-004, and the row is untestable.
    Given a fresh connection
    And the server rejects a "server/discover" request with protocol version "<version>" (DISC-004 judges that)
    When the client sends a list request for a declared capability with protocol version "<version>"
    Then the response is an error with code -32022

    Examples:
      | version    |
      | 2099-01-01 |
      | 1900-01-01 |

  @rule:VER-002 @MUST @since:2026-07-28 @transport:http
  Scenario: Over HTTP the unsupported-version error has status 400
    Spec: basic/transports/streamable-http#Protocol Version Header
    The -32022 reply travels with `400 Bad Request`. Whether the version is refused at all is
    DISC-004's: a served request makes this rule untestable.
    Given a fresh connection
    When the client sends a "server/discover" request with protocol version "2099-01-01"
    Then the response is an error with code -32022 (DISC-004 judges whether it is)
    And the HTTP status is 400

  @rule:ERR-007 @MUST @since:2026-07-28
  Scenario: UnsupportedProtocolVersion names the requested and the supported versions
    Spec: basic/versioning#Protocol Version Negotiation
    The -32022 error's `data` has `requested` (what the client sent) and `supported` (the
    server's versions), and the refused version is not among the supported ones. Whether the
    version is refused at all is DISC-004's: a served request makes this rule untestable.
    Given a fresh connection
    When the client sends a "server/discover" request with protocol version "1900-01-01"
    Then the response is an error with code -32022 (DISC-004 judges whether it is)
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


  @rule:VER-003 @SHOULD @since:2026-07-28
  Scenario: A modern-only server's error to initialize names the versions it supports
    Spec: basic/versioning#Backward Compatibility with Initialization-Based Versions
    A legacy client cannot fall forward; the error it gets for initialize is its only diagnostic,
    so it names the protocol versions the server supports. Dual-era servers are not concerned.
    Given a fresh connection
    When the client initializes with protocol version "2025-11-25"
    Then a modern-only server's error names the protocol versions it supports

  @rule:VER-004 @SHOULD @since:2026-07-28 @transport:stdio
  Scenario: A modern-only stdio server rejects initialize with a JSON-RPC error
    Spec: basic/versioning#Compatibility Matrix
    A legacy client's initialize gets a JSON-RPC error (any code), not silence, and the server
    process keeps running. Dual-era servers are not concerned.
    Given a fresh connection
    When the client initializes with protocol version "2025-11-25"
    Then a modern-only server answered it with a JSON-RPC error and is still running

  @rule:VER-007 @SHOULD @since:2026-07-28
  Scenario: A dual-era server serves requests with modern _meta under 2026-07-28 rules
    Spec: basic/versioning#Compatibility Matrix
    A request carrying the per-request `_meta` is served statelessly as 2026-07-28, also as the
    first message of a stdio process, where no discover preceded it. Only dual-era servers (a
    legacy revision in supportedVersions) are concerned.
    Given a fresh connection
    When the client sends a list request for a declared capability
    Then a dual-era server's reply is a 2026-07-28 result of its method

  @rule:VER-008 @SHOULD @since:2026-07-28
  Scenario: After initialize a dual-era server serves the session under the negotiated legacy revision
    Spec: basic/versioning#Compatibility Matrix
    initialize selects legacy semantics for the stdio process or HTTP session: a legacy request
    without `_meta` gets a result of the negotiated revision. Modern-only servers are not concerned.
    Given a fresh connection
    When a dual-era session is opened with a legacy initialize
    And the client sends a legacy list request for a declared capability in that session
    Then the reply is a result of the negotiated legacy revision

  @rule:VER-009 @MAY @since:2026-07-28
  Scenario: A dual-era server may serve both eras at once on one process or endpoint
    Spec: basic/versioning#Compatibility Matrix
    Serving a modern request inside a legacy session is allowed, as 2026-07-28, and must not
    break that session; refusing it with an error is fine too. Answering it in legacy shape, or
    losing the session, is noted.
    Given a fresh connection
    When a dual-era session is opened with a legacy initialize
    And the client sends a list request for a declared capability
    Then the modern request was served as 2026-07-28 or refused with an error
    When the client sends a legacy list request for a declared capability in that session
    Then the legacy session still works after the modern request

  @rule:VER-010 @MUST @since:2026-07-28 @transport:stdio
  Scenario: The stdio era probe gets a DiscoverResult or a recognised modern error
    Spec: basic/transports/stdio#Backward Compatibility
    A dual-era client probes with server/discover first; a modern server's answer, for a version
    it does not support as much as for its own, is one it recognises as modern, never an
    unrelated error or silence.
    Given a fresh connection
    When the client sends a "server/discover" request with protocol version "2099-01-01"
    Then the reply to the era probe is a DiscoverResult or a recognised modern error
    When the client sends a "server/discover" request with protocol version "2026-07-28"
    Then the reply to the era probe is a DiscoverResult or a recognised modern error

  @rule:EXT-001 @MUST @since:2026-07-28
  Scenario: Extension identifiers follow the _meta key rules with a prefix
    Spec: basic/versioning#Extension Negotiation
    Each key of `capabilities.extensions` in the DiscoverResult is `prefix/name`: the prefix
    (dot-separated labels, then a slash) is mandatory. Not applicable when the server
    advertises no extension.
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result
    And every extension identifier the server advertises has a prefix and a valid name

  @rule:EXT-002 @MUST @since:2026-07-28
  Scenario: Each advertised extension has a settings object
    Spec: basic/versioning#Extension Negotiation
    The value of each advertised extension is its settings object; `{}` means support
    without settings. Not applicable when the server advertises no extension.
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result
    And every extension the server advertises has a settings object

  @rule:EXT-003 @MUST @since:2026-07-28
  Scenario: Without the client's extension the server keeps to core behaviour
    Spec: basic/versioning#Extension Negotiation
    A request that declares no extension gets a core result or an error, never an
    extension-only shape (a resultType outside complete and input_required, a task handle).
    Judged over every frame of the run.
    Given a connected server
    When the client exercises the server's declared features
    Then no result in this run has a shape of an extension its request did not declare

  @rule:EXT-004 @SHOULD @since:2026-07-28
  Scenario: Unknown client extensions and capabilities are ignored
    Spec: basic/versioning#Extension Negotiation
    Client capabilities are an open set: a request whose clientCapabilities name an extension
    and a capability the server does not know is served as if they were absent.
    Given a connected server
    When the client sends a list request declaring an unknown extension and an unknown capability
    Then the response is a result

  # (area logext) new EXT scenarios go above this line.
