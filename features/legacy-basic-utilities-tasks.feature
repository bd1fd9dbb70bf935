Feature: Legacy tasks (2025-11-25 basic/utilities/tasks)
  A server that declares the `tasks` capability lets a client augment a request (here
  `tools/call`) with a task: the server answers at once with a CreateTaskResult, and the client
  polls `tasks/get`, fetches the outcome with `tasks/result`, cancels with `tasks/cancel` and
  lists tasks with `tasks/list`. Tools say with `execution.taskSupport` whether they may,
  must or must not be called as a task. The suite calls the reference's fixture tools
  test_task_tool ("optional"), test_task_required_tool ("required") and
  test_task_forbidden_tool ("forbidden"), or tools the --call-tools policy allows.
  https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks

  @rule:LFEAT-006 @MUST @since:2025-11-25 @until:2025-11-25 @capability:tasks
  Scenario: A tool's taskSupport is enforced with -32601
    Spec: basic/utilities/tasks#Tool-Level Negotiation
    On a server that accepts task-augmented tools/call, a tool whose `execution.taskSupport` is
    "required" called without a task gets -32601 (MUST); a tool whose taskSupport is
    "forbidden" or absent called as a task should get -32601 too (SHOULD: a warning).
    Untestable when no tool with taskSupport "required" may be called.
    Given a connected server
    And the server declares the "tasks" capability
    And the server's tasks capability declares "requests.tools.call"
    When the client calls a "required" tool without a task and a "forbidden" one as a task
    Then both calls are refused with -32601 (the "forbidden" one as a warning)

  @rule:LFEAT-007 @MUST @since:2025-11-25 @until:2025-11-25 @capability:tasks
  Scenario: A task-augmented call creates a working task that follows the status lifecycle
    Spec: basic/utilities/tasks#Task Status Lifecycle
    A task-augmented call is answered with a CreateTaskResult whose task begins `working`;
    task ids are strings, unique among the server's tasks; `createdAt` and `lastUpdatedAt` are
    ISO 8601 (RFC 3339) date-times; every `tasks/get` reply carries `ttl` (a duration or null)
    (#Task ID Requirements, #TTL and Resource Management). The suite creates two tasks and
    polls the first, at the server's pollInterval and within --timeout, until its status is
    terminal, then once more: each status follows the last by a valid transition, and a
    terminal status never changes.
    Given a connected server
    And the server declares the "tasks" capability
    And the server's tasks capability declares "requests.tools.call"
    When the client creates two tasks and polls the first until it is terminal, then once more
    Then every task reply is a well-formed task that began working and never left a terminal status

  @rule:LFEAT-008 @MUST @since:2025-11-25 @until:2025-11-25 @capability:tasks
  Scenario: tasks/result waits for the task and returns the underlying result
    Spec: basic/utilities/tasks#Result Retrieval
    `tasks/result` for a task that is still working blocks until the task is terminal, then
    returns exactly what the underlying request would have returned, and its result carries
    `_meta` "io.modelcontextprotocol/related-task" with the task's id (#Associating
    Task-Related Messages). The suite asks for the result right after creating the task, then
    checks with `tasks/get` that the task is terminal, and compares the result with the same
    tool called without a task when its taskSupport is "optional" (members, isError and
    content block types: a tool's text may vary between calls).
    Given a connected server
    And the server declares the "tasks" capability
    And the server's tasks capability declares "requests.tools.call"
    When the client creates a task and asks for its result at once
    Then the task result is the tool's result with the related-task metadata, once the task is terminal

  @rule:LFEAT-009 @MUST @since:2025-11-25 @until:2025-11-25 @capability:tasks
  Scenario: Unknown task ids and cancelling a terminal task are refused with -32602
    Spec: basic/utilities/tasks#Task Cancellation
    `tasks/get`, `tasks/result` and `tasks/cancel` for a task id the server never issued get
    -32602 (#Protocol Errors). When the server declares `tasks.cancel`, the suite creates a
    task and cancels it twice: a cancel that succeeds returns the task `cancelled` and the task
    stays cancelled; cancelling a task in a terminal status (the second cancel, or a first one
    that came after the task completed) gets -32602.
    Given a connected server
    And the server declares the "tasks" capability
    When the client asks about an unknown task id, then creates a task and cancels it twice
    Then the unknown task id is refused with -32602 and the cancelled task stays cancelled

  @rule:LFEAT-010 @MUST @since:2025-11-25 @until:2025-11-25 @capability:tasks
  Scenario: tasks/list lists every task tasks/get can see
    Spec: basic/utilities/tasks#Task Listing
    A task retrievable with `tasks/get` is retrievable with `tasks/list`, and a page says
    `nextCursor` while more tasks remain. The suite creates three tasks, reads each back with
    `tasks/get`, follows `tasks/list` to its end and looks for each of them.
    Given a connected server
    And the server declares the "tasks" capability
    And the server's tasks capability declares "list"
    And the server's tasks capability declares "requests.tools.call"
    When the client creates three tasks and pages through tasks/list
    Then every task created is listed
