Feature: Resources (server/resources)
  Servers expose data as resources identified by URIs, listed with resources/list, read with
  resources/read and parameterised by URI templates (resources/templates/list).
  https://modelcontextprotocol.io/specification/2026-07-28/server/resources

  @rule:RES-001 @MUST @since:2024-11-05 @capability:resources
  Scenario: resources/list returns resources with a uri and a name
    Spec: server/resources#Listing Resources
    Every page of resources/list (all pages, following nextCursor) is a ListResourcesResult:
    a resources array whose entries each have a uri and a name.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    Then every result in this scenario validates as "ListResourcesResult"

  @rule:RES-002 @MUST-NOT @since:2026-07-28 @capability:resources
  Scenario: The resource set does not vary per connection or by side effect
    Spec: server/resources#Capabilities
    resources/list on a fresh connection, again after a resources/read there, and on a second
    fresh connection name the same resources.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists the resources on a fresh connection, reads one, lists again, then lists on another fresh connection
    Then every listing named the same resources

  @rule:RES-003 @MUST @since:2024-11-05 @capability:resources
  Scenario: resources/read returns text or blob contents
    Spec: server/resources#Reading Resources
    Reading test://static-text and test://static-binary (else the first listed resource) gives
    a ReadResourceResult whose contents items are text items (uri, text) or blob items (uri,
    base64 blob). Reading has no side effects.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    And the client reads the fixture resources, or else the first listed resource
    Then every read got a result whose contents are text or blob items

  @rule:RES-004 @MUST @since:2026-07-28 @capability:resources
  Scenario: Reading a resource that does not exist fails with -32602
    Spec: server/resources#Error Handling
    A made-up URI under an unregistered scheme, and one under the scheme of a listed resource,
    get JSON-RPC error -32602 (Invalid Params).
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    And the client reads resources that do not exist
    Then each of those reads failed with code -32602

  @rule:RES-005 @MUST-NOT @since:2026-07-28 @capability:resources
  Scenario: A resource that does not exist never yields empty contents
    Spec: server/resources#Error Handling
    The reads of RES-004 never come back as a result with an empty contents array.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    And the client reads resources that do not exist
    Then none of those reads returned an empty contents array

  @rule:RES-007 @MUST @since:2024-11-05 @capability:resources
  Scenario: Resource URIs follow RFC 3986 and templates RFC 6570
    Spec: server/resources#Custom URI Schemes
    Every listed resource URI is an absolute RFC 3986 URI (scheme, authority, path, query,
    fragment and percent-encodings checked), every uriTemplate an RFC 6570 template whose
    expansion is a URI reference.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource and every resource template it can
    Then every listed resource URI is an RFC 3986 URI and every template an RFC 6570 template

  @rule:RES-008 @MUST @since:2024-11-05 @capability:resources
  Scenario: Malformed resource URIs are rejected
    Spec: server/resources#Security Considerations
    Reading "not a uri", "://", a URI with a malformed percent-escape, and a listed template
    filled with "%zz" and with "a b" (none of them an RFC 3986 URI) gets a JSON-RPC error, never
    contents. A URI whose only defect is a character RFC 3986 does not allow, served under that
    URI percent-encoded ("a%20b"), is a server that repaired it: info, as the spec does not say
    whether validation refuses or repairs.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource and every resource template it can
    And the client reads malformed resource URIs
    Then each of those reads failed with an error

  @rule:RES-009 @MUST @since:2026-07-28 @capability:resources
  Scenario: file:// paths cannot climb out of the served directory
    Spec: server/resources#Security Considerations
    Only for servers that list file:// resources: paths built from a listed file URI that climb
    to /etc/passwd with "..", percent-encoded dots and encoded slashes get an error.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    And the client reads file URIs that climb out of a listed file resource's directory
    Then each of those reads failed without any contents

  @rule:RES-010 @MUST @since:2024-11-05 @capability:resources
  Scenario: resources/templates/list returns templates with a uriTemplate and a name
    Spec: server/resources#Resource Templates
    Every page of resources/templates/list is a ListResourceTemplatesResult: entries with
    uriTemplate and name (na when the server answers -32601: it offers no templates).
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource template the server offers
    Then every result in this scenario validates as "ListResourceTemplatesResult"

  @rule:RES-012 @MAY @since:2026-07-28 @capability:resources
  Scenario: A read may return several contents
    Spec: server/resources#Reading Resources
    A server may answer one read with several contents (a directory); each item must still be
    a valid text or blob item with a URI. Reads up to 20 listed resources.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    And the client reads every listed resource
    Then every read that returned several contents returned valid items

  # (area res) new RES scenarios go above this line.

  @rule:LFEAT-001 @SHOULD @since:2024-11-05 @until:2025-11-25 @capability:resources
  Scenario: Reading a resource that does not exist fails with -32002
    Spec: server/resources#Error Handling
    Servers should answer common failures with the standard errors, a resource that is not
    found with -32002. A made-up URI under an unregistered scheme, and one under the scheme of
    a listed resource, are read: any other answer (-32602, which 2026-07-28 asks for instead,
    another code, or contents) is a warning.
    Given a connected server
    And the server declares the "resources" capability
    When the client lists every resource
    And the client reads resources that do not exist
    Then each of those reads failed with code -32002

  @rule:LFEAT-002 @MUST @since:2024-11-05 @until:2025-11-25 @capability:resources
  Scenario: A resource subscription gets the updates of its resource until it is unsubscribed
    Spec: server/resources#Subscriptions
    With `resources.subscribe` declared, resources/subscribe and resources/unsubscribe answer
    with an empty result, and a subscribed resource that changes is notified with
    notifications/resources/updated naming it. In a session of its own the client subscribes
    to test://watched-resource (else test://static-text, else the first listed resource),
    triggers a change with the fixture tool test_trigger_resource_update, unsubscribes and
    triggers again: while subscribed an update names that resource and no other, after the
    unsubscribe none names it. Over Streamable HTTP the client holds the session's GET stream
    from the first trigger on, and the updates may come on it or on the trigger's response
    stream. Without the fixture tool only the two results are judged and the rule is
    untestable.
    Given the server declares "subscribe" in its "resources" capability
    And a fresh connection
    When the client subscribes to a resource in a session of its own, triggers an update, unsubscribes and triggers again
    Then subscribe and unsubscribe got empty results and the updates named only the subscribed resource, until it was unsubscribed
