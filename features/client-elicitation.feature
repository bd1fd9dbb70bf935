Feature: Elicitation (client/elicitation)
  Servers ask the user for information through the client: form mode collects data in the
  client, URL mode sends the user to a page outside it. Handshake-era sessions may learn that a
  request needs a URL mode elicitation from a -32042 error and hear of its completion through
  notifications/elicitation/complete.
  https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation

  @rule:LFEAT-011 @MUST @since:2025-11-25 @until:2025-11-25
  Scenario: A URL elicitation required error lists URL mode elicitations with their ids
    Spec: client/elicitation#URL Elicitation Required Error
    The -32042 error lists the elicitations to complete before the request is retried, each a
    URL mode elicitation with an elicitationId (and, as the schema's ElicitRequestURLParams, a
    url and a message). In a session of its own whose client declares URL mode elicitation,
    the client calls the fixture tool test_url_elicitation_required. Untestable without it, or
    when the call does not fail with -32042.
    Given a fresh connection
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
    Given a fresh connection
    When the client calls the URL elicitation fixture tool in a session of its own that supports URL elicitation, then retries it
    Then every notifications/elicitation/complete of the session named an elicitationId the server issued in it
