// Package archtest holds the repository-wide architecture tests, over every .go file of the
// module outside fixtures/: no function is longer than 150 lines (test files included), no
// package holds more than 30 % of the product lines (every non-test .go file outside fixtures/),
// no code outside client, harness, judge, internal/cli and runner names a concrete transport,
// and each area registers its steps and state from its own files (DESIGN "Architecture (inside
// the core)", "Connections"). The package has no code of its own; it exists for its tests.
package archtest
