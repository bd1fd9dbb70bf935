Feature: Schema conformance (schema)
  Every message a server sends validates against the official JSON Schema of the revision in
  use, checked against its most specific type (a response by the method it answers).
  https://modelcontextprotocol.io/specification/2026-07-28/schema

  @rule:SCHEMA-001 @MUST @since:2024-11-05
  Scenario: Every message the server sends validates against the schema
    Spec: schema#Schema Reference
    Each frame of the whole run is validated by the recorder; this rule fails when any server
    frame violates the schema of its revision. The scenario itself lists what the server
    declares, so that at an older revision the server accepts, where only the rules whose
    verdict can differ run, its lists are validated against that revision's schema too.
    Given a connected server
    When the client sends a harmless request
    And the client sends a list request for each declared capability
    Then every message the server sent in this run validates against the schema

  @rule:CONT-001 @MUST @since:2024-11-05
  Scenario: Every content block is of a known type with its required fields
    Spec: schema#ContentBlock
    Each block of a tool result or prompt message is text (text), image or audio (data,
    mimeType), resource_link or resource (an embedded resource with uri and text or blob).
    Only fixture tools are called; every listed prompt is fetched.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then every content block the server sent in this run is a known type with its required fields

  @rule:CONT-002 @MUST @since:2024-11-05
  Scenario: Binary content is valid base64 with a well-formed MIME type
    Spec: server/prompts#Image Content
    Image and audio data and every resource blob are strictly valid base64; image and audio
    blocks carry a MIME type of the form type/subtype.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then all base64 data the server sent in this run is valid with a well-formed MIME type

  @rule:CONT-003 @MUST @since:2024-11-05
  Scenario: Annotations have a valid audience, priority and lastModified
    Spec: server/resources#Annotations
    On content blocks, resources and resource templates, the audience holds only user and
    assistant, the priority lies between 0 and 1, and lastModified is an ISO 8601 timestamp.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then every annotation the server sent in this run has a valid audience, priority and lastModified

  @rule:CONT-004 @MUST @since:2025-11-25
  Scenario: Icons have a src URI and a valid mimeType, sizes and theme
    Spec: basic/index#icons
    Icons of tools, resources, prompts, resource links and the server info each have a src
    URI; mimeType, sizes (an array of strings) and theme (light or dark) are optional.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then every icon the server sent in this run has a src URI and a valid mimeType, sizes and theme

  @rule:CONT-005 @SHOULD @since:2025-11-25
  Scenario: Icon sources use the https or data scheme
    Spec: basic/index#icons
    Clients reject icon URIs of other schemes (http, file, javascript, ...), so a server's
    icons should use https: or data: sources. Whether an https icon is same-origin is the
    client's check and is not judged here.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then every icon src the server sent in this run is an https: or data: URI

  @rule:CONT-006 @MUST @since:2024-11-05
  Scenario: The server info has a string name and version
    Spec: schema#Implementation
    The serverInfo of every result's _meta (2026-07-28) or of the InitializeResult (earlier
    revisions) has string name and version; title, description and websiteUrl are strings.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then every server info the server sent in this run has a string name and version

  @rule:CONT-007 @MUST @since:2025-06-18
  Scenario: Resource links carry a uri and a name
    Spec: server/prompts#Resource Links
    A resource_link content block names the resource it links to by uri and name.
    Given a connected server
    When the client fetches the server's content blocks, icons and server info
    Then every resource link the server sent in this run has a uri and a name
