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
