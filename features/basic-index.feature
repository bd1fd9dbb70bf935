Feature: Base protocol (basic/index)
  The JSON-RPC 2.0 message format, request ids, error codes, the per-request `_meta` fields and
  `resultType` that every MCP message obeys.
  https://modelcontextprotocol.io/specification/2026-07-28/basic/index

  @rule:MSG-003 @MUST @since:2024-11-05
  Scenario Outline: A response repeats the request id with the same JSON type
    Spec: basic/index#Result Responses
    The id of a result is identical to the request's, in value and in JSON type: a string id
    stays a string, however it looks.
    Given a connected server
    When the client sends a harmless request with id <id>
    Then the response is a result
    And the response id is exactly <id>

    Examples:
      | id               |
      | "abc"            |
      | 0                |
      | -5               |
      | 9007199254740991 |
      | "  "             |

  @rule:MSG-006 @MUST @since:2024-11-05
  Scenario: An error response repeats the request id
    Spec: basic/index#Error Responses
    The error response carries the request id whenever it could be read: here a `tools/call`
    without the required `name`.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"tools/call","params":$params}
      """
    Then the response is an error
    And the response id is the request id

  @rule:MSG-009 @MUST-NOT @since:2024-11-05
  Scenario Outline: An error response never carries a null id
    Spec: basic/index#Error Responses
    MCP ids are strings or integers: an error whose request id was readable repeats it, and
    one whose id could not be read omits the member. `"id": null`, the plain JSON-RPC 2.0
    habit, is graded a warning when the id could not be read and a failure otherwise.
    Given a fresh connection
    When the client sends the malformed message:
      """
      <message>
      """
    Then a response, if any, has no null id

    Examples:
      | case                      | message                                                 |
      | unparseable               | {"jsonrpc":"2.0",                                       |
      | readable id, method is 42 | {"jsonrpc":"2.0","id":$id,"method":42,"params":$params} |

  @rule:MSG-011 @MUST-NOT @since:2024-11-05 @transport:stdio
  Scenario: The server never answers a notification
    Spec: basic/index#Notifications
    A notification gets no response, neither for a known method nor for one the server does not
    know.
    Given a connected server
    When the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"mcpconform-never-sent"}}
      """
    Then no message arrives in reply
    When the client sends the notification:
      """
      {"jsonrpc":"2.0","method":"notifications/mcpconform_unknown","params":{}}
      """
    Then no message arrives in reply

  @rule:MSG-014 @MUST @since:2024-11-05
  Scenario: Unparseable JSON is answered with a parse error
    Spec: basic/index#Messages
    Bytes that are not JSON get error -32700 (JSON-RPC 2.0 section 5.1).
    Given a fresh connection
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0",
      """
    Then the response is an error with code -32700

  @rule:MSG-015 @MUST @since:2024-11-05
  Scenario Outline: A JSON value that is not a valid request is answered with an invalid-request error
    Spec: basic/index#Messages
    A well-formed JSON object that is not a valid JSON-RPC 2.0 request gets error -32600.
    Given a fresh connection
    When the client sends the malformed message:
      """
      <message>
      """
    Then the response is an error with code -32600

    Examples:
      | case              | message                                                          |
      | jsonrpc 1.0       | {"jsonrpc":"1.0","id":$id,"method":"$harmless","params":$params} |
      | method not string | {"jsonrpc":"2.0","id":$id,"method":42,"params":$params}          |

  @rule:MSG-016 @MUST @since:2024-11-05
  Scenario: An unknown method is answered with method-not-found
    Spec: basic/index#Error Codes
    A request for a method the server does not implement gets error -32601.
    Given a connected server
    When the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}
      """
    Then the response is an error with code -32601

  @rule:META-001 @MUST @since:2026-07-28
  Scenario: A request without a protocol version in _meta is rejected as invalid params
    Spec: basic/index#_meta
    `io.modelcontextprotocol/protocolVersion` is required in every request's `_meta`; without it
    the request is malformed (-32602). Over HTTP the header stays, so -32020 is graded a warning.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}
      """
    Then the response is an error with code -32602 (code -32020 is a warning)

  @rule:META-002 @MUST @since:2026-07-28
  Scenario: A request without client capabilities in _meta is rejected as invalid params
    Spec: basic/index#_meta
    `io.modelcontextprotocol/clientCapabilities` is required in every request's `_meta`.
    Given a connected server
    When the client sends the malformed message:
      """
      {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
      """
    Then the response is an error with code -32602

  @rule:META-003 @MUST @since:2026-07-28
  Scenario Outline: A request without params or without params._meta is rejected as invalid params
    Spec: basic/index#_meta
    Every 2026-07-28 request carries `params._meta`; a request lacking it is malformed.
    Given a connected server
    When the client sends the malformed message:
      """
      <message>
      """
    Then the response is an error with code -32602

    Examples:
      | case      | message                                                            |
      | no params | {"jsonrpc":"2.0","id":$id,"method":"server/discover"}              |
      | no _meta  | {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{}}  |

  @rule:META-004 @MUST @since:2026-07-28 @transport:http
  Scenario Outline: Requests with missing _meta fields are rejected with HTTP 400
    Spec: basic/index#_meta
    The rejections of META-001 to META-003 use the status `400 Bad Request`.
    Given a connected server
    When the client sends the malformed message:
      """
      <message>
      """
    Then the HTTP status is 400

    Examples:
      | case                    | message                                                                                                                      |
      | no params               | {"jsonrpc":"2.0","id":$id,"method":"server/discover"}                                                                        |
      | no protocol version     | {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}  |
      | no client capabilities  | {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}} |

  @rule:META-005 @MUST @since:2026-07-28
  Scenario: A request with only the required _meta fields is served
    Spec: basic/index#_meta
    Only the protocol version and client capabilities are required; clientInfo, logLevel and
    progressToken are optional.
    Given a connected server
    When the client sends:
      """
      {"jsonrpc":"2.0","id":$id,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
      """
    Then the response is a result

  @rule:META-006 @SHOULD @since:2026-07-28
  Scenario: Every result carries serverInfo in its _meta
    Spec: basic/index#_meta
    Each result's `_meta` holds `io.modelcontextprotocol/serverInfo`, an Implementation object.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a list request for each declared capability
    Then every result in this scenario has a value at "/result/_meta/io.modelcontextprotocol~1serverInfo" that validates as "Implementation"

  @rule:RT-001 @MUST @since:2026-07-28
  Scenario: Every result has a string resultType
    Spec: basic/index#Result Responses
    `resultType` is required on every 2026-07-28 result.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a list request for each declared capability
    Then every result in this scenario has a string at "/result/resultType"

  @rule:RT-002 @MUST @since:2026-07-28
  Scenario: A final successful result has resultType complete
    Spec: basic/index#ResultType
    Results that are final and successful say `resultType: "complete"`.
    Given a connected server
    When the client sends a "server/discover" request
    And the client sends a list request for each declared capability
    Then every result in this scenario that has "/result/resultType" has the value "complete" there

  @rule:STATE-002 @MUST @since:2026-07-28
  Scenario: No handshake is needed before the first request
    Spec: basic/index#Statelessness
    The first message on a fresh connection may be any request; nothing has to come before it.
    Given a fresh connection
    When the client sends a list request for a declared capability
    Then the response is a result

  # (area msg) new MSG, META-008..010, RT, ERR scenarios go above this line.

  @rule:STATE-001 @MUST-NOT @since:2026-07-28
  Scenario Outline: Each request is judged on its own _meta, not on earlier requests of the connection
    Spec: basic/index#Statelessness
    What an earlier request on the same connection declared (a protocol version, a client
    capability) never applies to a later one. The first request of a fresh connection is the
    control: after a request that declares what it lacks, the same request must be answered as
    the control was. The capability case needs a fixture tool that requires a client capability.
    Given a fresh connection
    When the client sends <request> without, with, then again without what it needs
    Then the last reply follows only its own _meta

    Examples:
      | case             | request                            |
      | protocol version | a list request                     |
      | capability       | a capability-needing fixture call  |

  @rule:STATE-003 @SHOULD-NOT @since:2026-07-28
  Scenario: A list cursor from one connection is honoured on another
    Spec: basic/index#Statelessness
    Related operations do not need the same connection or process: the next page of a list,
    asked for with the cursor one connection received, is served on a fresh connection.
    Given a connected server
    When the client pages a list on one connection and asks for its next page on a fresh connection
    Then the next page is served on the fresh connection

  @rule:STATE-004 @SHOULD @since:2026-07-28
  Scenario: Interleaved requests of different clients are each answered per their own _meta
    Spec: basic/index#Statelessness
    A connection is not a conversation: requests of three clients (different clientInfo, client
    capabilities and protocol versions) interleaved on one connection, in turn and concurrently,
    each get what their own _meta calls for: the first two a result, the third what it got as
    the first request of a connection of its own.
    Given a fresh connection
    When the client interleaves requests of three clients on a fresh connection, in turn and at once
    Then each interleaved request was answered according to its own _meta

  @rule:META-007 @SHOULD-NOT @since:2026-07-28
  Scenario: Results do not depend on the self-reported clientInfo
    Spec: basic/index#_meta
    clientInfo is for display and debugging; the same requests sent under two client names get
    the same results, apart from id and _meta.
    Given a connected server
    When the client sends the same requests as client "mcp-conform-probe" and as client "claude-code", each on a fresh connection
    Then both clients got the same results apart from _meta

  @rule:ERR-008 @MUST @since:2026-07-28
  Scenario: A missing-capability error names the capabilities the request lacks
    Spec: basic/index#_meta
    A -32021 error carries `data.requiredCapabilities`, a ClientCapabilities object naming what
    the request lacked: checked on a fixture tool called without client capabilities, and on
    every -32021 the run saw.
    Given a fresh connection
    When the client calls a fixture tool that needs a client capability without declaring any
    Then every -32021 error the server sent in this run names the missing capabilities
    And a -32021 reply names the needed capability in data.requiredCapabilities

  # (area state) new STATE, META-007, ERR-008 scenarios go above this line.
