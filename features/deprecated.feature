Feature: Deprecated features (deprecated)
  The registry of features that 2026-07-28 keeps but schedules for removal (Roots, Sampling,
  Logging, the HTTP+SSE transport, ...) and the methods and fields the revision removed. New
  implementations do not adopt deprecated features; existing ones may keep them during the
  deprecation window, so the adoption rules judge only servers that serve 2026-07-28 alone.
  https://modelcontextprotocol.io/specification/2026-07-28/deprecated

  @rule:DEP-001 @SHOULD-NOT @since:2026-07-28
  Scenario: A new implementation does not adopt Logging, Roots or Sampling
    Spec: deprecated#Deprecated
    A server that serves no handshake-era revision was written for 2026-07-28: it declares no
    `logging` capability and asks for no sampling or roots input. A server that also serves
    earlier revisions is an existing implementation and may keep them until their removal.
    Given a connected server
    And the server serves no handshake-era revision
    When the client sends a "server/discover" request
    And the client exercises the server's declared features
    Then the server adopts none of the deprecated Logging, Roots and Sampling features

  @rule:DEP-002 @SHOULD-NOT @since:2026-07-28 @transport:http
  Scenario: A new implementation does not adopt the HTTP+SSE transport
    Spec: basic/transports/streamable-http#HTTP+SSE Transport (2024-11-05)
    A GET on the endpoint as a 2024-11-05 client sends it (Accept: text/event-stream, no MCP
    headers) does not open an SSE stream whose first event is `endpoint`. Judged only for
    servers that serve 2026-07-28 alone.
    Given a connected server
    And the server serves no handshake-era revision
    When the client opens the endpoint as a deprecated HTTP+SSE client would
    Then the endpoint did not answer as a deprecated HTTP+SSE server

  @rule:DEP-003 @MUST @since:2026-07-28
  Scenario: Methods removed in 2026-07-28 are unknown methods
    Spec: changelog#Major changes
    ping, logging/setLevel, resources/subscribe, resources/unsubscribe and the core tasks
    methods (tasks/get and tasks/cancel unless the tasks extension is advertised) sent as
    2026-07-28 requests get -32601, on HTTP with status 404. A server that also serves earlier
    revisions and answers them otherwise is noted (info). On a fresh connection: a server that
    took logging/setLevel or resources/subscribe would change what later requests see.
    Given a fresh connection
    When the client sends each method that 2026-07-28 removed
    Then each removed method was refused with method-not-found

  @rule:DEP-004 @SHOULD-NOT @since:2026-07-28
  Scenario: No URL elicitation completion signal under 2026-07-28
    Spec: changelog#Minor changes
    `notifications/elicitation/complete` and the `elicitationId` of URL elicitations were
    removed: the client learns the outcome by retrying the request. Judged over every frame of
    the run.
    Given a connected server
    When the client exercises the server's declared features
    Then no message in this run uses the removed URL elicitation completion
