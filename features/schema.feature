Feature: Schema conformance (schema)
  Every message a server sends validates against the official JSON Schema of the revision in
  use, checked against its most specific type (a response by the method it answers).
  https://modelcontextprotocol.io/specification/2026-07-28/schema

  @rule:SCHEMA-001 @MUST @since:2024-11-05
  Scenario: Every message the server sends validates against the schema
    Spec: schema#Schema Reference
    Each frame of the whole run is validated by the recorder; this rule fails when any server
    frame violates the schema of its revision.
    Given a connected server
    When the client sends a harmless request
    Then every message the server sent in this run validates against the schema
