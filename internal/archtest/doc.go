// Package archtest holds the repository-wide architecture tests: no function of product code is
// longer than 150 lines, no package holds more than 30 % of the product lines, and no code
// outside the client (and the packages below it) names a concrete transport (DESIGN
// "Architecture (inside the core)", "Connections"). Product code is every non-test .go file of
// the module outside fixtures/. The package has no code of its own; it exists for its tests.
package archtest
