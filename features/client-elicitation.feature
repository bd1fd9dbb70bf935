Feature: Elicitation (client/elicitation)
  A server asks the user for information through the client with elicitation/create: a form
  with a requested schema, or (2025-11-25 and later) a URL to open. Handshake-era sessions may
  also learn that a request needs a URL mode elicitation from a -32042 error and hear of its
  completion through notifications/elicitation/complete.
  https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation

  @rule:INPUT-001 @MUST-NOT @since:2025-11-25 @until:2025-11-25
  Scenario Outline: Elicitations use only the modes the client declared
    Spec: client/elicitation#Capabilities
    A server never sends an elicitation in a mode the client did not declare; `elicitation: {}`
    declares form mode only. The elicitation fixture tools (form, and our URL-mode
    test_url_elicitation) are called by a client declaring one mode. This rule owns an
    elicitation in an undeclared mode under a declared elicitation capability; an elicitation
    to a client that declared none is LEG-006's. Untestable when the server made no
    elicitation.
    Given the server offers one of the fixture tools "test_elicitation, test_url_elicitation"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `<capabilities>`
    When the client calls the fixture tools "test_elicitation, test_url_elicitation"
    Then every elicitation the server sent used a mode the client declared

    Examples:
      | capabilities                  |
      | {"elicitation":{}}            |
      | {"elicitation":{"url":{}}}    |

  @rule:INPUT-002 @MUST @since:2025-06-18 @until:2025-11-25
  Scenario: Every elicitation has a message and what its mode needs
    Spec: client/elicitation#Elicitation Requests
    An elicitation/create carries a message; a form elicitation carries a requestedSchema and a
    URL elicitation a url. Judged over every elicitation of the run.
    Given the server offers one of the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}`
    When the client calls the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    Then every elicitation the server sent in this run has a message and what its mode needs

  @rule:INPUT-003 @MUST @since:2025-06-18 @until:2025-11-25
  Scenario: A requested schema is a flat object of primitive properties
    Spec: client/elicitation#Requested Schema
    The requestedSchema of a form elicitation is an object whose properties are primitives:
    strings (formats email, uri, date, date-time only), numbers, integers, booleans, and
    single- or multi-select enums; no nested objects.
    Given the server offers one of the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}`
    When the client calls the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    Then every requested schema the server sent in this run is a flat object of primitive properties

  @rule:INPUT-011 @MUST @since:2025-06-18 @until:2025-11-25
  Scenario Outline: A declined or cancelled elicitation still gets the call answered
    Spec: client/elicitation#Error Handling
    A server handles a user who declines or cancels an elicitation: the tool call that asked
    still gets a response (a result, possibly with isError, or a JSON-RPC error), never
    silence or an HTTP 5xx. Untestable when the server sends no elicitation.
    Given the server offers one of the fixture tools "test_elicitation"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}` and answering elicitations with "<action>"
    When the client calls the fixture tools "test_elicitation"
    Then every call got a JSON-RPC response

    Examples:
      | action  |
      | decline |
      | cancel  |

  @rule:INPUT-004 @MUST-NOT @since:2025-06-18 @until:2025-11-25
  Scenario: Form elicitations ask for no secrets
    Spec: client/elicitation#User Interaction Model
    Form mode never asks for passwords, API keys, access tokens or payment credentials: those
    go through URL mode. A heuristic: a property whose name, title or description names such
    a secret (password, passwd, api key, secret, token, credit card, card number, CVV, CVC)
    fails. Contact details (a name, an email) are allowed.
    Given the server offers one of the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{"form":{},"url":{}}}`
    When the client calls the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    Then no form elicitation asked for a secret

  @rule:INPUT-005 @MUST-NOT @since:2025-11-25 @until:2025-11-25
  Scenario: URL elicitations carry no credentials or personal data
    Spec: client/elicitation#Safe URL Handling
    The url of a URL-mode elicitation holds no end-user credentials or personal data and is
    not pre-authenticated. A heuristic: user information, a query parameter named like a
    credential or a personal datum (token, access_token, code, session, password, api_key,
    email, user, phone, ...) or an email address in the URL fails. Untestable without a
    URL-mode elicitation (fixture test_url_elicitation).
    Given the server offers one of the fixture tools "test_url_elicitation"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{"url":{}}}`
    When the client calls the fixture tools "test_url_elicitation"
    Then no URL elicitation carries credentials or personal data

  @rule:INPUT-006 @SHOULD @since:2025-11-25 @until:2025-11-25
  Scenario: URL elicitations use HTTPS
    Spec: client/elicitation#Safe URL Handling
    Outside development the url of a URL-mode elicitation uses HTTPS: an http URL warns,
    except on a loopback host (development). Untestable without a URL-mode elicitation.
    Given the server offers one of the fixture tools "test_url_elicitation"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{"url":{}}}`
    When the client calls the fixture tools "test_url_elicitation"
    Then every URL elicitation uses HTTPS unless on loopback

  @rule:INPUT-007 @SHOULD-NOT @since:2025-11-25 @until:2025-11-25
  Scenario: Form elicitations hold no clickable URLs
    Spec: client/elicitation#Safe URL Handling
    No field of a form-mode elicitation holds a URL meant to be clicked. A heuristic: an
    http(s) URL in the message or the requested schema warns.
    Given the server offers one of the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{"form":{},"url":{}}}`
    When the client calls the fixture tools "test_elicitation, test_elicitation_sep1034_defaults, test_elicitation_sep1330_enums"
    Then no form elicitation holds a clickable URL

  @rule:INPUT-012 @SHOULD @since:2025-06-18 @until:2025-11-25
  Scenario: Elicited content that violates the requested schema is not taken
    Spec: client/elicitation#Form Mode Security
    A server validates elicited content against its requested schema: content of the wrong
    types is rejected (an isError result or a JSON-RPC error) or asked for again. Accepting it
    warns. Untestable when the call made no elicitation.
    Given the server offers one of the fixture tools "test_elicitation"
    And a fresh connection
    And the client opens a session of its own declaring client capabilities `{"elicitation":{}}` and answering elicitations with "invalid"
    When the client calls the fixture tools "test_elicitation"
    Then the invalid content was rejected or asked for again

  @rule:LFEAT-011 @MUST @since:2025-11-25 @until:2025-11-25
  Scenario: A URL elicitation required error lists URL mode elicitations with their ids
    Spec: client/elicitation#URL Elicitation Required Error
    The -32042 error lists the elicitations to complete before the request is retried, each a
    URL mode elicitation with an elicitationId (and, as the schema's ElicitRequestURLParams, a
    url and a message). In a session of its own whose client declares URL mode elicitation,
    the client calls the fixture tool test_url_elicitation_required. Untestable without it, or
    when the call does not fail with -32042.
    Given the server offers one of the fixture tools "test_url_elicitation_required"
    And a fresh connection
    When the client calls the URL elicitation fixture tool in a session of its own that supports URL elicitation, then retries it
    Then the -32042 error listed URL mode elicitations, each with an elicitationId, a url and a message

  @rule:LFEAT-012 @MUST @since:2025-11-25 @until:2025-11-25
  Scenario: A completion notification names an elicitation the server issued in the session
    Spec: client/elicitation#Completion Notifications for URL Mode Elicitation
    notifications/elicitation/complete carries the elicitationId of the original URL mode
    elicitation and goes only to the client that initiated it. After the -32042 of the fixture
    tool test_url_elicitation_required, the client retries the call in the same session: every
    completion notification the session receives names an elicitationId the server issued in
    it. Not applicable when the server sends none (it may not).
    Given the server offers one of the fixture tools "test_url_elicitation_required"
    And a fresh connection
    When the client calls the URL elicitation fixture tool in a session of its own that supports URL elicitation, then retries it
    Then every notifications/elicitation/complete of the session named an elicitationId the server issued in it
