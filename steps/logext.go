package steps

import (
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// Logging (server/utilities/logging, deprecated in 2026-07-28 but still specified), the
// extension framework (basic/versioning#Extension Negotiation, extensions/overview, the tasks
// extension) and deprecated or removed features (deprecated, changelog).

const (
	// loggingFixtureTool is the official conformance fixture tool that logs while it runs.
	loggingFixtureTool = "test_tool_with_logging"
	// tasksExtensionID is the identifier of the official tasks extension.
	tasksExtensionID = "io.modelcontextprotocol/tasks"
	// subscriptionIDMeta is the `_meta` key that tags the notifications of a listen subscription.
	subscriptionIDMeta = "io.modelcontextprotocol/subscriptionId"
	// unknownExtensionID and unknownCapability are the client extension and capability no
	// server knows (EXT-004).
	unknownExtensionID = "com.example.mcpconform/unknown-extension"
	unknownCapability  = "mcpconformUnknownCapability"
)

// listOrDiscover is the list method of the first declared capability, or server/discover.
func (w *World) listOrDiscover() string {
	for _, lm := range client.ListMethods {
		if w.Declares(lm.Capability) {
			return lm.Method
		}
	}
	return w.Harmless()
}

// logextState is what the send steps of a scenario leave for its assertion steps.
type logextState struct {
	removed   []removedOutcome
	legacySSE *harness.Exchange
}

// logextOf returns the scenario's state for logging, extensions, deprecations (LOG, EXT, DEP),
// made on first use (see stateOf).
func logextOf(w *World) *logextState {
	return stateOf(w, func() *logextState { return &logextState{} })
}

// removedOutcome is one removed method's exchange (DEP-003).
type removedOutcome struct {
	method string
	ex     *harness.Exchange
}
