Feature: Discovery (server/discover)
  `server/discover` is the one request every 2026-07-28 server implements: it names the
  protocol versions the server serves, its capabilities and instructions, with caching hints.
  https://modelcontextprotocol.io/specification/2026-07-28/server/discover

  @rule:DISC-001 @MUST @since:2026-07-28
  Scenario: The server implements server/discover
    Spec: server/discover#Discovery
    Every modern server answers `server/discover` with a result, never method-not-found.
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result

  @rule:DISC-002 @MUST @since:2026-07-28
  Scenario: The discover result has the DiscoverResult shape
    Spec: server/discover#DiscoverResult
    `supportedVersions`, `capabilities`, `resultType`, `ttlMs` and `cacheScope` are present
    with the schema's types.
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result
    And the response validates as "DiscoverResultResponse"

  @rule:DISC-003 @MUST @since:2026-07-28
  Scenario: supportedVersions lists the version the server just served
    Spec: basic/versioning#Protocol Version Negotiation
    A discover request that succeeded with 2026-07-28 proves the server serves it, so the
    version appears in `supportedVersions`.
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result
    And the value at "/result/supportedVersions" contains "2026-07-28"

  @rule:DISC-004 @MUST @since:2026-07-28
  Scenario: Discover with an unsupported version is answered with UnsupportedProtocolVersion
    Spec: basic/versioning#Protocol Version Negotiation
    A version the server does not serve gets error -32022, not a DiscoverResult. On a fresh
    connection, so that no earlier request's version can be carried over (STATE-001's).
    Given a fresh connection
    When the client sends a "server/discover" request with protocol version "1900-01-01"
    Then the response is an error with code -32022

  @rule:DISC-005 @SHOULD @since:2026-07-28
  Scenario: The discover result names the server in _meta
    Spec: server/discover#DiscoverResult
    The result's `_meta` carries `io.modelcontextprotocol/serverInfo` (name and version).
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result
    And the value at "/result/_meta/io.modelcontextprotocol~1serverInfo" validates as "Implementation"

  @rule:DISC-006 @SHOULD @since:2026-07-28
  Scenario: supportedVersions entries are protocol revision strings
    Spec: server/discover#DiscoverResult
    Each entry is a revision identifier of the form YYYY-MM-DD.
    Given a connected server
    When the client sends a "server/discover" request
    Then the response is a result
    And every entry at "/result/supportedVersions" matches "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
