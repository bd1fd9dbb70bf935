// Package features embeds the Gherkin feature files of mcp-conform: one file per spec page, one
// Scenario per normative rule, tagged with `@rule:<id>`, exactly one of `@MUST @MUST-NOT
// @SHOULD @SHOULD-NOT @MAY`, `@since:<revision>` / `@until:<revision>`, `@transport:stdio|http`
// and `@capability:<name>` where they apply, and `@<LEVEL>-until:<revision>` where the pages up
// to that handshake revision word the rule with another keyword (LEG-006: `@SHOULD-until:2025-03-26`). Each scenario's description starts with a
// `Spec: <page>#<Heading>` line naming the section of the specification it checks.
package features

import "embed"

// FS holds every *.feature file of this folder, embedded in the binary.
//
//go:embed *.feature
var FS embed.FS

// CatalogTSV is the catalogue of every server rule mcp-conform knows, implemented or not,
// generated from the rule tables of ../shared/spec/RULES.md by scripts/gen-rule-catalog.py.
// Columns (tab-separated, with a header line): id, level, rev (26, 25 or both), transport
// (any, stdio, http), source (spec page and heading per revision), chk (S, S+B, B or
// "N/T (why)"), title.
//
//go:embed catalog.tsv
var CatalogTSV string

// DeferredTSV gives, for catalogue rules that are testable but have no scenario yet, why they
// were left out (shown by `mcp-conform list`). Columns (tab-separated, with a header line): id,
// reason. A rule without a line here is listed as "no scenario yet".
//
//go:embed deferred.tsv
var DeferredTSV string
