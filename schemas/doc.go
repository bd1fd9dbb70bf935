// Package schemas pins, resolves, compiles and applies the official JSON Schemas of the Model
// Context Protocol, one per specification revision.
//
// Each revision's schema.json is pinned by upstream commit and sha256 (see [Pins]). A [Source]
// resolves the bytes of a pinned file from a directory (--schemas / MCP_CONFORM_SCHEMAS), the
// user cache, or a verified download; a [Set] compiles each revision once, on first use, into a
// [Validator], which validates a JSON-RPC frame against the most specific type the revision
// defines for it (see [Validator.Validate]).
//
// The schemas are never vendored into this module: tests read them from MCP_CONFORM_SCHEMAS.
// This package does not depend on the harness; the harness depends on it.
package schemas
