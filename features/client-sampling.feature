Feature: Sampling (client/sampling)
  A server asks the client to sample a language model with sampling/createMessage.
  https://modelcontextprotocol.io/specification/2025-11-25/client/sampling

  @rule:INPUT-013 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: Sampling messages have a user or assistant role and valid content
    Spec: client/sampling#Messages
    Every message of a sampling/createMessage has role user or assistant and content blocks
    of a known type. Judged over every sampling request of the run.
    Given a fresh connection
    And the client opens a session of its own declaring client capabilities `{"sampling":{}}`
    When the client calls the fixture tools "test_sampling"
    Then every sampling message the server sent in this run has a user or assistant role and typed content
