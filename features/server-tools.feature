Feature: Tools (server/tools)
  Tools are functions a server exposes to models: `tools/list` describes each one (a name, a JSON
  Schema for its input and optionally for its output), `tools/call` runs it and returns content
  blocks, structured content, or a tool execution error. These rules apply to servers that
  declare the `tools` capability.
  https://modelcontextprotocol.io/specification/2026-07-28/server/tools

  @rule:TOOL-001 @MUST @since:2024-11-05 @capability:tools
  Scenario: Every listed tool has a name and an object inputSchema
    Spec: server/tools#Tool
    Each entry of every tools/list page is a Tool: a string name and an inputSchema that is a
    JSON object whose type is "object".
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool
    Then every listed tool is a valid Tool with an object inputSchema

  @rule:TOOL-002 @MUST @since:2025-11-25 @capability:tools
  Scenario: Tool input and output schemas are valid JSON Schema
    Spec: server/tools#Tool
    Each inputSchema and outputSchema is a valid schema of its declared dialect (2020-12 when it
    names none), compiled without fetching any external reference.
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool
    Then every listed tool's inputSchema and outputSchema compile as JSON Schema

  @rule:TOOL-004 @SHOULD @since:2025-11-25 @capability:tools
  Scenario: Tool names are between 1 and 128 characters long
    Spec: server/tools#Tool Names
    Every tool name has at least one and at most 128 characters.
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool
    Then every listed tool name is 1 to 128 characters long

  @rule:TOOL-005 @SHOULD @since:2025-11-25 @capability:tools
  Scenario: Tool names use only letters, digits, underscore, hyphen and dot
    Spec: server/tools#Tool Names
    Tool names keep to ASCII letters, digits, `_`, `-` and `.`: no spaces, commas or other
    special characters.
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool
    Then every listed tool name uses only ASCII letters, digits, underscore, hyphen and dot

  @rule:TOOL-006 @SHOULD @since:2025-11-25 @capability:tools
  Scenario: Tool names are unique within the server
    Spec: server/tools#Tool Names
    No name appears twice across all pages of tools/list (names compare case-sensitively).
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool
    Then no two listed tools have the same name

  @rule:TOOL-019 @SHOULD @since:2026-07-28 @capability:tools
  Scenario: A tool without parameters accepts only the empty object
    Spec: server/tools#Tool
    The recommended inputSchema of a tool that takes no parameters is an object schema with
    additionalProperties false; {"type":"object"} is the page's other valid approach, so an
    open schema (no properties, nothing required) is an observation: info.
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool
    Then every listed tool without parameters declares additionalProperties false

  @rule:TOOL-007 @SHOULD @since:2026-07-28 @capability:tools
  Scenario: tools/list returns the tools in a deterministic order
    Spec: server/tools#Capabilities
    While the tool set is unchanged, repeated listings give the same names in the same order.
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool 3 times
    Then every tool listing has the same names in the same order

  @rule:TOOL-008 @MUST-NOT @since:2026-07-28 @capability:tools
  Scenario: The tool set does not vary per connection or by side effect
    Spec: server/tools#Capabilities
    The same client with the same credentials gets the same set of tools after calling a tool
    and on another connection.
    Given a connected server
    And the server declares the "tools" capability
    When the client lists every tool, calls a harmless fixture tool, lists again, and lists once more on a fresh connection
    Then every tool listing has the same set of names

  @rule:TOOL-009 @MUST @since:2024-11-05 @capability:tools @fixture
  Scenario: A completed tool call returns a CallToolResult
    Spec: server/tools#Tool Result
    The result of a completed tools/call has a content array of content blocks and, if present,
    a boolean isError. Only tools the call policy allows are called (fixture tools by default).
    Given a connected server
    And the server declares the "tools" capability
    When the client calls each tool it may call
    Then every tool call result validates as CallToolResult

  @rule:TOOL-010 @MUST @since:2025-06-18 @capability:tools @fixture
  Scenario: A tool with an outputSchema returns conforming structured content
    Spec: server/tools#Output Schema
    Every successful result of a tool declaring an outputSchema carries structuredContent valid
    against that schema (a tool error without it is a warning).
    Given a connected server
    And the server declares the "tools" capability
    When the client calls each tool it may call that declares an outputSchema
    Then every successful result carries structuredContent valid against the tool's outputSchema

  @rule:TOOL-012 @SHOULD @since:2025-06-18 @capability:tools @fixture
  Scenario: Structured content is also returned as serialized JSON text
    Spec: server/tools#Structured Content
    A result with structuredContent also has a text block whose text is the same JSON value.
    Given a connected server
    And the server declares the "tools" capability
    When the client calls each tool it may call
    Then every result with structuredContent also carries it serialized in a text block

  @rule:TOOL-013 @SHOULD @since:2024-11-05 @capability:tools
  Scenario: Calling an unknown tool is a protocol error
    Spec: server/tools#Error Handling
    An unknown tool name is answered with a JSON-RPC error (the spec's example is -32602), not a
    result with isError.
    Given a connected server
    And the server declares the "tools" capability
    When the client calls the unknown tool
    Then the response is an error with code -32602

  @rule:TOOL-014 @SHOULD @since:2024-11-05 @capability:tools
  Scenario Outline: A tools/call that does not match CallToolRequest is a protocol error
    Spec: server/tools#Error Handling
    A malformed tools/call (no name, arguments that are not an object) gets JSON-RPC error
    -32602 (over HTTP a call without a name may get -32020 for its missing Mcp-Name header).
    A result is a warning; another error code is recorded as info, since the rule asks for a
    protocol error and only JSON-RPC's meaning of the code names -32602.
    Given a connected server
    And the server declares the "tools" capability
    When the client sends a tools/call whose <defect>
    Then the response is the JSON-RPC error -32602 for a malformed tools/call

    Examples:
      | defect                 |
      | name is missing        |
      | arguments are a string |

  @rule:TOOL-015 @SHOULD @since:2024-11-05 @capability:tools @fixture
  Scenario: A failing tool reports a tool execution error
    Spec: server/tools#Error Handling
    Errors that originate in the tool are results with isError true, not JSON-RPC errors; the
    fixture tool test_error_handling always fails.
    Given a connected server
    And the server declares the "tools" capability
    When the client calls the fixture tool "test_error_handling" with empty arguments
    Then the tool call result has isError true

  @rule:TOOL-016 @MUST @since:2024-11-05 @capability:tools @fixture
  Scenario: The server validates tool inputs
    Spec: server/tools#Security Considerations
    A call whose arguments violate the tool's inputSchema (a wrong type, a missing required or an
    unexpected argument) is rejected with isError true or -32602, never served as a success.
    A refusal other than -32602 is evidence of validation only when the same tool serves valid
    arguments (a control call); a tool that fails for every input shows nothing, and without
    evidence the rule is untestable.
    Given a connected server
    And the server declares the "tools" capability
    When the client calls each tool it may call with arguments its inputSchema rejects
    Then no call with invalid arguments succeeds

  @rule:TOOL-018 @SHOULD @since:2025-06-18 @capability:tools @fixture
  Scenario: A server that embeds resources in tool results declares resources
    Spec: server/tools#Embedded Resources
    A server whose tool results contain embedded resource blocks declares the resources
    capability (the fixture tool test_embedded_resource returns one).
    Given a connected server
    And the server declares the "tools" capability
    When the client calls each tool it may call
    Then if a tool result embeds a resource, the server declares the "resources" capability

  @rule:LFEAT-003 @SHOULD @since:2024-11-05 @until:2025-11-25 @capability:tools
  Scenario: A server that declared listChanged notifies the session when its tool list changes
    Spec: server/tools#List Changed Notification
    A server that declared `tools.listChanged` should send, once its list of tools changes,
    notifications/tools/list_changed; the session needs no opt-in (the same sentence holds for
    prompts and resources). In a session of its own the client calls the fixture tool
    test_trigger_tool_change; the notification must reach the session (stdio; over Streamable
    HTTP the trigger's response stream or the session's GET stream, which the client opens
    before the trigger). Untestable without the fixture tool, or when the GET got no reply
    head in time or its stream ended before the trigger's result.
    Given the server declares "listChanged" in its "tools" capability
    And the server offers one of the fixture tools "test_trigger_tool_change"
    And a fresh connection
    When the client triggers a tool list change in a session of its own
    Then the session was sent "notifications/tools/list_changed"
