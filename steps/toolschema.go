package steps

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// toolSchemaURL is the in-memory location a tool's schema is compiled at; nothing is ever
// fetched from it.
const toolSchemaURL = "mem://mcp-conform/tool-schema.json"

// refusingLoader refuses every external reference: a tool schema must be self-contained, and
// the suite never fetches what a server points it at (server/tools#Tool: the dialect defaults to
// JSON Schema 2020-12; only the meta-schemas built into the library are available).
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external reference %s not loaded (tool schemas must be self-contained)", url)
}

// compileToolSchema compiles raw, a tool's inputSchema or outputSchema, as JSON Schema in the
// dialect its `$schema` names (2020-12 when absent), validating it against that dialect's
// meta-schema. External references are refused. The error says what is wrong in one line.
func compileToolSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(toolSchemaURL, doc); err != nil {
		return nil, oneLine(err)
	}
	s, err := c.Compile(toolSchemaURL)
	if err != nil {
		return nil, oneLine(err)
	}
	return s, nil
}

// validateAgainst validates raw JSON against a compiled tool schema and returns "" or the
// first violation in one line.
func validateAgainst(s *jsonschema.Schema, raw []byte) string {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	if err := s.Validate(v); err != nil {
		return oneLine(err).Error()
	}
	return ""
}

func oneLine(err error) error {
	return fmt.Errorf("%s", strings.Join(strings.Fields(err.Error()), " "))
}
