Feature: Prompts (server/prompts)
  Servers that declare the prompts capability list prompt templates and render them with the
  client's arguments into messages of content blocks.
  https://modelcontextprotocol.io/specification/2026-07-28/server/prompts

  @rule:PROMPT-001 @MUST @since:2024-11-05
  Scenario: prompts/list returns prompts that have names
    Spec: server/prompts#Listing Prompts
    Every page of prompts/list is a ListPromptsResult; each prompt and each of its arguments
    has a string name.
    Given a connected server
    And the server declares the "prompts" capability
    When the client lists every prompt
    Then every prompts/list page of this scenario is a ListPromptsResult whose prompts and arguments have names

  @rule:PROMPT-002 @MUST-NOT @since:2026-07-28
  Scenario: The prompt set does not vary per connection or by side effect
    Spec: server/prompts#Capabilities
    The prompts listed on one connection, listed again after a prompts/get of each prompt,
    and listed on a fresh connection are the same (name and definition, _meta aside).
    Given a connected server
    And the server declares the "prompts" capability
    Then the prompt list is the same after getting each prompt and on a fresh connection

  @rule:PROMPT-003 @MUST @since:2024-11-05
  Scenario: prompts/get returns messages with a role and a content block
    Spec: server/prompts#Getting a Prompt
    The fixture prompt test_simple_prompt (or the first listed prompt without required
    arguments) renders to a GetPromptResult whose messages have role user or assistant.
    Given a connected server
    And the server declares the "prompts" capability
    When the client gets a prompt that needs no arguments
    Then the prompt result has messages with role user or assistant, each with a content block

  @rule:PROMPT-004 @SHOULD @since:2024-11-05
  Scenario: An unknown prompt name is an invalid-params error
    Spec: server/prompts#Error Handling
    prompts/get with a name the server does not offer fails with -32602.
    Given a connected server
    And the server declares the "prompts" capability
    When the client gets a prompt the server does not offer
    Then the response is an error with code -32602

  @rule:PROMPT-005 @SHOULD @since:2024-11-05
  Scenario: Missing required arguments are an invalid-params error
    Spec: server/prompts#Error Handling
    prompts/get of the fixture prompt test_prompt_with_arguments (or the first listed prompt
    with a required argument) with empty arguments fails with -32602.
    Given a connected server
    And the server declares the "prompts" capability
    When the client gets a prompt without its required arguments
    Then the response is an error with code -32602

  @rule:PROMPT-006 @MUST @since:2024-11-05
  Scenario: Embedded resources in prompt messages have a URI, a MIME type and data
    Spec: server/prompts#Embedded Resources
    Every resource block of a prompt message (e.g. of the fixture prompt
    test_prompt_with_embedded_resource) embeds a resource with a valid URI, a MIME type and
    either text or a base64 blob.
    Given a connected server
    And the server declares the "prompts" capability
    When the client gets every prompt the server lists
    Then every embedded resource in the prompt messages the server sent in this run has a URI, a MIME type and text or base64 data
