Feature: Server features and capabilities (server/index)
  Servers declare the features they offer as capabilities; a declared feature must work.
  https://modelcontextprotocol.io/specification/2026-07-28/server/index

  @rule:CAP-006 @MUST @since:2026-07-28
  Scenario Outline: A declared capability answers its list request
    Spec: server/tools#Capabilities
    Declaring `tools`, `resources` or `prompts` obliges the server to answer the matching list
    request (the list may be empty).
    Given a connected server
    And the server declares the "<capability>" capability
    When the client sends a "<method>" request
    Then the response is a result

    Examples:
      | capability | method         |
      | tools      | tools/list     |
      | resources  | resources/list |
      | prompts    | prompts/list   |

  @rule:CAP-001 @MUST @since:2024-11-05
  Scenario: A server that lists tools declares the tools capability
    Spec: server/tools#Capabilities
    `tools/list` is sent whether or not `tools` is declared: a result listing tools means tools
    are offered, so the capabilities must name them; an error or an empty list means they are
    not offered.
    Given a connected server
    When the client sends a "tools/list" request
    Then if the response is a result, the server declares the "tools" capability

  @rule:CAP-002 @MUST @since:2024-11-05
  Scenario: A server that lists resources declares the resources capability
    Spec: server/resources#Capabilities
    `resources/list` is sent whether or not `resources` is declared: a result listing resources
    means resources are offered, so the capabilities must name them; an empty list does not.
    Given a connected server
    When the client sends a "resources/list" request
    Then if the response is a result, the server declares the "resources" capability

  @rule:CAP-003 @MUST @since:2024-11-05
  Scenario: A server that lists prompts declares the prompts capability
    Spec: server/prompts#Capabilities
    `prompts/list` is sent whether or not `prompts` is declared: a result listing prompts means
    prompts are offered, so the capabilities must name them; an empty list does not.
    Given a connected server
    When the client sends a "prompts/list" request
    Then if the response is a result, the server declares the "prompts" capability

  @rule:CAP-004 @MUST @since:2025-03-26
  Scenario: A server that completes arguments declares the completions capability
    Spec: server/utilities/completion#Capabilities
    `completion/complete` (for the first prompt argument or resource template variable the
    server lists) is sent whether or not `completions` is declared: a result means completions
    are offered, so the capabilities must name them.
    Given a connected server
    When the client sends a completion request for an argument the server lists
    Then if the response is a result, the server declares the "completions" capability

  @rule:CAP-005 @MUST @since:2024-11-05
  Scenario: A server that sends log messages declares the logging capability
    Spec: server/utilities/logging#Capabilities
    No `notifications/message` anywhere in the run unless the capabilities name `logging`;
    the list requests here ask for debug-level logs (2026-07-28 `_meta` logLevel).
    Given a connected server
    When the client sends a list request for each declared capability asking for debug logs
    Then no log message the server sent in this run came without the "logging" capability

  @rule:CAP-007 @SHOULD @since:2024-11-05
  Scenario: Methods of an undeclared feature fail with method-not-found
    Spec: server/utilities/completion#Error Handling
    For each feature the server does not declare, one of its methods gets -32601, on
    2026-07-28 Streamable HTTP with status 404 (streamable-http#Protocol Version Header: a
    method the server does not implement; graded a warning). Elsewhere no sentence makes it
    normative (the completion page's -32601 line governs completion/complete only, which is
    CMPL-004's), so another answer is info. A method answered with a result that offers the
    feature is CAP-001..003's defect (offered but not declared) and is not judged here. On a
    fresh connection (a legacy session of its own): logging/setLevel sets the session's level.
    Given a fresh connection
    When the client calls a method of each feature the server does not declare
    Then each of those calls failed with method-not-found

  @rule:CAP-008 @MUST-NOT @since:2026-07-28
  Scenario: The server never relies on a client capability the request does not declare
    Spec: basic/index#_meta
    A fixture tool that needs a client capability, called without it (no capabilities, then
    every other one), gets -32021 or a result that asks the client for nothing it did not
    declare; never an input request, or a request, of an undeclared kind.
    Given a fresh connection
    When the client calls a fixture tool that needs a client capability, declaring only other capabilities
    Then the server relied on no client capability the calls did not declare

  @rule:CAP-009 @MUST @since:2024-11-05
  Scenario: Declared capabilities have the schema's shape
    Spec: schema#ServerCapabilities
    `listChanged` and `subscribe` are booleans, the feature capabilities objects, `experimental`
    and `extensions` maps of objects (DiscoverResult, or InitializeResult on legacy revisions).
    Given a connected server
    When the client reads the server's declared capabilities
    Then the value at "/result/capabilities" validates as "ServerCapabilities"
