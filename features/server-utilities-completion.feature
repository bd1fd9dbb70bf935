Feature: Completion (server/utilities/completion)
  Servers that declare completions suggest values for prompt arguments and resource template
  variables through completion/complete.
  https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/completion

  @rule:CMPL-001 @MUST @since:2025-03-26 @capability:completions
  Scenario: Completion results carry at most 100 string values
    Spec: server/utilities/completion#Completion Results
    completion.values is an array of at most 100 strings; total, when present, an integer;
    hasMore, when present, a boolean (CompleteResult).
    Given a connected server
    And the server declares the "completions" capability
    When the client requests completions for a prompt argument and a resource template variable
    Then every completion result carries at most 100 string values, an integer total and a boolean hasMore

  @rule:CMPL-002 @SHOULD @since:2025-03-26 @capability:completions
  Scenario: hasMore signals matches beyond the values returned
    Spec: server/utilities/completion#Completion Results
    With an empty value every candidate matches; a total above the values returned comes
    with hasMore: true, and total never counts fewer than the values returned.
    Given a connected server
    And the server declares the "completions" capability
    When the client requests completions for a prompt argument and a resource template variable
    Then every completion result that has fewer values than its total says hasMore

  @rule:CMPL-003 @SHOULD @since:2025-03-26 @capability:completions
  Scenario: Completion for an unknown prompt fails with -32602
    Spec: server/utilities/completion#Error Handling
    A ref/prompt naming a prompt the server does not have gets -32602 (Invalid params).
    Given a connected server
    And the server declares the "completions" capability
    When the client requests completions for a prompt that does not exist
    Then the response is an error with code -32602

  @rule:CMPL-004 @SHOULD @since:2025-03-26
  Scenario: A server without the completions capability answers -32601
    Spec: server/utilities/completion#Error Handling
    Only for servers that do not declare completions: completion/complete gets -32601
    (Method not found). A completion result instead offers completions undeclared, which
    CAP-004 judges: this rule is then untestable.
    Given a connected server
    And the server does not declare the "completions" capability
    When the client requests completions for the first prompt argument or template variable it lists
    Then the response is an error with code -32601, unless it is a result offering the undeclared "completions" feature

  @rule:CMPL-005 @MUST @since:2025-03-26 @capability:completions
  Scenario: Prompt and resource references are both accepted
    Spec: server/utilities/completion#Reference Types
    completion/complete with a ref/prompt (a prompt argument) and with a ref/resource (a
    template variable) each get a result.
    Given a connected server
    And the server declares the "completions" capability
    When the client requests completions for a prompt argument and a resource template variable
    Then every completion request got a result

  # (area res) new CMPL scenarios go above this line.
