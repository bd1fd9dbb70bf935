Feature: Tasks extension (extensions/tasks/overview)
  The official `io.modelcontextprotocol/tasks` extension: a server that advertises it may
  answer a request with a task handle (`resultType: "task"`) that the client polls, but only
  when the request declared the extension in its client capabilities.
  https://modelcontextprotocol.io/extensions/tasks/overview

  @rule:EXT-005 @MUST @since:2026-07-28
  Scenario: A task handle only goes to clients that declared the tasks extension
    Spec: extensions/tasks/overview#For MCP servers
    The suite's requests never declare the tasks extension, so no result of the run is a task
    handle. Not applicable when the server does not advertise the extension; a server that
    returns tasks without advertising it is judged by EXT-003.
    Given a connected server
    And the server advertises the "io.modelcontextprotocol/tasks" extension
    When the client exercises the server's declared features
    Then no task handle in this run went to a request that did not declare the tasks extension
