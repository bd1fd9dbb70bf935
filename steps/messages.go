package steps

import (
	"encoding/json"
)

// ---------------------------------------------------------------------------------------------
// Provocation.

// Names that no server offers: the unknown-name errors they provoke have no side effects.
const (
	unknownToolName   = "mcpconform_no_such_tool"
	unknownPromptName = "mcpconform_no_such_prompt"
	unknownURI        = "mcpconform://no-such-resource"
	invalidCursor     = "mcpconform-invalid-cursor"
	nonASCIIText      = "héllo 世界 🚀"
)

func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
