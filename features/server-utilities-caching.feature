Feature: Caching
  Complete results of discovery, the list operations and resources/read carry caching hints:
  ttlMs (how long the result stays fresh) and cacheScope (who may share a cached copy).
  https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching

  @rule:CACHE-001 @MUST @since:2026-07-28
  Scenario: Complete cacheable results carry ttlMs and cacheScope
    Spec: server/utilities/caching#Cacheable Results
    Every complete result of server/discover, tools/list, prompts/list, resources/list,
    resources/templates/list and resources/read in the run has both hints.
    Given a connected server
    When the client requests every cacheable result the server offers
    Then every complete result of a cacheable method in this run carries ttlMs and cacheScope

  @rule:CACHE-002 @MUST @since:2026-07-28
  Scenario: ttlMs is a non-negative integer
    Spec: server/utilities/caching#Time-to-Live (TTL) Field
    Each ttlMs of a cacheable result in the run is written as an integer and is at least 0.
    Given a connected server
    When the client requests every cacheable result the server offers
    Then every ttlMs the server sent in this run is an integer of at least 0

  @rule:CACHE-003 @MUST @since:2026-07-28
  Scenario: cacheScope is public or private
    Spec: server/utilities/caching#Cache Scope Field
    Each cacheScope of a cacheable result in the run is the string "public" or "private".
    Given a connected server
    When the client requests every cacheable result the server offers
    Then every cacheScope the server sent in this run is "public" or "private"

  @rule:CACHE-004 @MUST-NOT @since:2026-07-28
  Scenario: Interim input_required results carry no caching hints
    Spec: server/utilities/caching#Cacheable Results
    An input_required result is not cacheable: it has neither ttlMs nor cacheScope. The
    fixture tool test_elicitation provokes one.
    Given a connected server
    And the server declares the "tools" capability
    When the client calls the elicitation fixture tool declaring the elicitation capability
    Then no input_required result the server sent in this run carries ttlMs or cacheScope

  @rule:CACHE-005 @MUST @since:2026-07-28
  Scenario: All pages of one list traversal carry the same cacheScope
    Spec: server/utilities/caching#Interaction with Pagination
    Following a list from its first page to its last, every page has the first page's
    cacheScope.
    Given a connected server
    When the client pages through every list the server declares
    Then all pages of each list carry one cacheScope

  # (area page) new CACHE scenarios go above this line.
