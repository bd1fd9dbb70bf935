Feature: Sampling (client/sampling)
  A server asks the client to sample a language model with sampling/createMessage.
  https://modelcontextprotocol.io/specification/2025-11-25/client/sampling

  @rule:INPUT-013 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: Sampling messages have a user or assistant role and valid content
    Spec: client/sampling#Messages
    Every message of a sampling/createMessage has role user or assistant and content blocks
    of a known type. Judged over every sampling request of the run.
    Given the server offers one of the fixture tools "test_sampling"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{}}`
    When the client calls the fixture tools "test_sampling"
    Then every sampling message the server sent in this run has a user or assistant role and typed content

  @rule:INPUT-008 @MUST-NOT @since:2025-11-25 @until:2025-11-25
  Scenario: Sampling carries tools only to a client that declared sampling.tools
    Spec: client/sampling#Tools in Sampling
    A server sends no tool-enabled sampling request (`tools` or `toolChoice`) to a client that
    did not declare `sampling.tools`. The client declares `sampling: {}`. This rule owns such
    a request under a declared sampling capability; one to a client that declared no sampling
    is LEG-006's. Untestable when the server made no sampling request.
    Given the server offers one of the fixture tools "test_sampling, test_sampling_tools"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{}}`
    When the client calls the fixture tools "test_sampling, test_sampling_tools"
    Then no sampling request carried tools or toolChoice

  @rule:INPUT-009 @SHOULD @since:2025-11-25 @until:2025-11-25
  Scenario: Sampling asks to include context only of a client that declared sampling.context
    Spec: client/sampling#Capabilities
    `includeContext` values `thisServer` and `allServers` are soft-deprecated: a server omits
    the member or sends `none` unless the client declared `sampling.context`. Other values
    warn. Untestable when the server made no sampling request.
    Given the server offers one of the fixture tools "test_sampling, test_sampling_tools"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{}}`
    When the client calls the fixture tools "test_sampling, test_sampling_tools"
    Then no sampling request asked to include context

  @rule:INPUT-010 @MUST @since:2025-11-25 @until:2025-11-25
  Scenario: Every tool use of a sampling loop is answered by matching tool results alone
    Spec: client/sampling#Tool Use and Result Balance
    In a sampling tool loop, the assistant message holding tool uses is followed by a user
    message of tool results only, one per tool use with its toolUseId, before anything else.
    The client declares `sampling.tools` and its model asks for a tool once; the follow-up
    request is judged. Untestable when no follow-up came (fixture test_sampling_tools).
    Given the server offers one of the fixture tools "test_sampling_tools"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{"tools":{}}}`
    When the client calls the fixture tools "test_sampling_tools"
    Then every tool use was answered by a user message of matching tool results only
