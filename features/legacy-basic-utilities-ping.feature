Feature: Legacy ping (2025-11-25 basic/utilities/ping)
  Up to 2025-11-25 either party may check that the other is alive with a ping request, which is
  answered with an empty result. 2026-07-28 removed ping.
  https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping

  @rule:LEG-008 @MUST @since:2024-11-05 @until:2025-11-25
  Scenario: ping is answered promptly with an empty result, also while a tool runs
    Spec: basic/utilities/ping#Behavior Requirements
    The receiver of a ping answers it promptly with an empty result (`_meta` aside). Promptly is
    bounded by the run's request timeout: the page names no figure. The second ping is sent while
    the fixture tool test_tool_with_progress runs, as soon as its first progress notification
    proves that it is in flight; without the tool that part is untestable.
    Given a connected server
    When the client sends a "ping" request
    Then the ping is answered with an empty result
    When the client sends a "ping" request while the fixture tool "test_tool_with_progress" runs
    Then the ping sent while the tool ran is answered with an empty result
