Feature: Pagination
  The list operations (tools, resources, resource templates, prompts) may return their
  results in pages: a page carries an opaque nextCursor while more results exist, and the
  client asks for the next page with it; page size is the server's choice.
  https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination

  @rule:PAGE-001 @MUST @since:2024-11-05
  Scenario: Every list ends, and nextCursor is a string whenever present
    Spec: server/utilities/pagination#Response Format
    Each declared list is followed from its first page to the page without nextCursor (at
    most 100 pages); a nextCursor that is not a string, a cursor that repeats, a list that
    never ends or a refused cursor the server issued itself breaks the rule.
    Given a connected server
    When the client pages through every list the server declares
    Then every list ended on a page without nextCursor

  @rule:PAGE-002 @SHOULD @since:2024-11-05
  Scenario: The same cursor returns the same page while the list is unchanged
    Spec: server/utilities/pagination#Implementation Guidelines
    Cursors are stable: the page of a cursor the server issued, asked for twice in a row,
    lists the same items both times.
    Given a connected server
    When the client asks twice for the second page of the first declared list that has one
    Then both answers are the same page

  @rule:PAGE-003 @SHOULD @since:2024-11-05
  Scenario: A cursor the server never issued gets error -32602
    Spec: server/utilities/pagination#Error Handling
    Every declared list the server serves answers a request carrying an invalid cursor with
    Invalid params, not with a page.
    Given a connected server
    When the client asks every list the server declares for a page with a cursor it never issued
    Then every such request was answered with error -32602

  @rule:PAGE-004 @SHOULD @since:2024-11-05
  Scenario: A traversal of an unchanged list lists every item once
    Spec: server/utilities/pagination#Operations Supporting Pagination
    The four list operations page consistently: one traversal names no tool, prompt,
    resource or template twice, and a second traversal lists the same items.
    Given a connected server
    When the client pages through every list the server declares, twice
    Then no traversal repeats an item and both traversals list the same items

  # (area page) new PAGE scenarios go above this line.
