Feature: Elicitation (client/elicitation)
  A server asks the user for information through the client with elicitation/create: a form
  with a requested schema, or (2025-11-25 and later) a URL to open.
  https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation

  @rule:INPUT-002 @MUST @since:2025-06-18 @until:2025-11-25
  Scenario: Every elicitation has a message and what its mode needs
    Spec: client/elicitation#Elicitation Requests
    An elicitation/create carries a message; a form elicitation carries a requestedSchema and a
    URL elicitation a url. Judged over every elicitation of the run.
    Given a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}`
    When the client calls the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    Then every elicitation the server sent in this run has a message and what its mode needs

  @rule:INPUT-003 @MUST @since:2025-06-18 @until:2025-11-25
  Scenario: A requested schema is a flat object of primitive properties
    Spec: client/elicitation#Requested Schema
    The requestedSchema of a form elicitation is an object whose properties are primitives:
    strings (formats email, uri, date, date-time only), numbers, integers, booleans, and
    single- or multi-select enums; no nested objects.
    Given a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}`
    When the client calls the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    Then every requested schema the server sent in this run is a flat object of primitive properties

  @rule:INPUT-011 @MUST @since:2025-06-18 @until:2025-11-25
  Scenario Outline: A declined or cancelled elicitation still gets the call answered
    Spec: client/elicitation#Error Handling
    A server handles a user who declines or cancels an elicitation: the tool call that asked
    still gets a response (a result, possibly with isError, or a JSON-RPC error), never
    silence or an HTTP 5xx. Untestable when the server sends no elicitation.
    Given a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}` and answering elicitations with "<action>"
    When the client calls the fixture tools "test_elicitation"
    Then every call got a JSON-RPC response

    Examples:
      | action  |
      | decline |
      | cancel  |
