package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
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

// CompileToolSchema compiles raw, a tool's inputSchema or outputSchema, as JSON Schema in the
// dialect its `$schema` names (2020-12 when absent), validating it against that dialect's
// meta-schema. External references are refused. The error says what is wrong in one line.
func CompileToolSchema(raw []byte) (*jsonschema.Schema, error) {
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

// ValidateAgainst validates raw JSON against a compiled tool schema and returns "" or the
// first violation in one line.
func ValidateAgainst(s *jsonschema.Schema, raw []byte) string {
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

// ToolNameRE is the character set server/tools#Tool Names recommends (TOOL-005).
var ToolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]*$`)

// NoParameters reports whether an inputSchema declares no parameters: no properties (or an
// empty object), nothing required, and no composition or pattern keywords that could admit some.
func NoParameters(schema map[string]any) bool {
	if props, ok := schema["properties"]; ok {
		if m, isObj := props.(map[string]any); !isObj || len(m) > 0 {
			return false
		}
	}
	// additionalProperties true or a schema: the tool takes open-ended parameters.
	if ap, ok := schema["additionalProperties"]; ok && ap != false {
		return false
	}
	// An empty required list requires nothing: {"type":"object","required":[]} is {"type":"object"}.
	if req, ok := schema["required"]; ok {
		if list, isList := req.([]any); !isList || len(list) > 0 {
			return false
		}
	}
	for _, k := range []string{"patternProperties", "allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas", "unevaluatedProperties"} {
		if _, ok := schema[k]; ok {
			return false
		}
	}
	return true
}

// ListingNames returns the name of every entry of a tools/list traversal, in order, each as
// ToolName gives it.
func ListingNames(lt *client.ListTraversal) []string {
	out := make([]string, 0, len(lt.Items))
	for _, t := range lt.Items {
		out = append(out, ToolName(t))
	}
	return out
}

// NamesMissing returns the names in a that are not in b, sorted.
func NamesMissing(a, b []string) []string {
	in := map[string]bool{}
	for _, n := range b {
		in[n] = true
	}
	var out []string
	for _, n := range a {
		if !in[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// JoinWhy returns the reasons in why as a clause to append to a sentence: ": a; b", or ""
// when there are none.
func JoinWhy(why []string) string {
	if len(why) == 0 {
		return ""
	}
	return ": " + strings.Join(why, "; ")
}

// CompletedResult returns the members of a call's result, nil when it was no completed result.
func CompletedResult(c ToolCall) (map[string]json.RawMessage, *harness.Message) {
	msg := client.ResponseOf(c.Ex)
	if msg == nil || msg.Kind != harness.KindResult || InputRequired(msg) {
		return nil, msg
	}
	var r map[string]json.RawMessage
	_ = json.Unmarshal(msg.Result, &r)
	return r, msg
}

// InvalidArgs builds arguments that the tool's compiled inputSchema rejects: a required
// argument missing, a property of the wrong type, or an unexpected property, in that order of
// preference after the wrong type. problem says what is wrong; ok is false when none is found.
func InvalidArgs(schemaRaw []byte) (args map[string]any, problem string, ok bool) {
	schema, err := CompileToolSchema(schemaRaw)
	if err != nil {
		return nil, "", false
	}
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schemaRaw, &s)
	base, filled := FixtureArgs(schemaRaw)
	rejects := func(a map[string]any) bool {
		b, _ := json.Marshal(a)
		return ValidateAgainst(schema, b) != ""
	}
	if filled {
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			var wrong any
			switch s.Properties[n].Type {
			case "string":
				wrong = 42
			case "integer", "number", "boolean", "object", "array":
				wrong = "mcp-conform"
			default:
				continue
			}
			a := map[string]any{}
			for k, v := range base {
				a[k] = v
			}
			a[n] = wrong
			if rejects(a) {
				return a, fmt.Sprintf("argument %q has the wrong type", n), true
			}
		}
	}
	if empty := map[string]any{}; rejects(empty) {
		return empty, "a required argument is missing", true
	}
	extra := map[string]any{"mcpconform_unexpected": true}
	for k, v := range base {
		extra[k] = v
	}
	if rejects(extra) {
		return extra, "an argument the inputSchema does not allow", true
	}
	return nil, "", false
}

// WhyClause returns why as a parenthesised clause to append to a sentence: " (why)", or ""
// when why is empty.
func WhyClause(why string) string {
	if why == "" {
		return ""
	}
	return " (" + why + ")"
}

// ToolCall is one tools/call the scenario made: the listed tool, the arguments sent, the
// problem the arguments have on purpose (TOOL-016, "" when valid) and the exchange. Control,
// for a call with invalid arguments that was refused with a tool execution error or a code
// other than -32602, is a call of the same tool with valid arguments (nil when none could be
// built): TOOL-016's evidence that the refusal came from validation.
type ToolCall struct {
	Tool    map[string]any    // the tools/list entry called
	Args    map[string]any    // the arguments sent
	Problem string            // what is wrong with Args on purpose, "" when they are valid
	Ex      *harness.Exchange // the call's exchange
	Control *harness.Exchange // the control call with valid arguments, nil when none was made
}

// ToolName returns a listed tool's name for a report: quoted when it is a string, else its
// JSON (a missing name gives "null").
func ToolName(t map[string]any) string {
	if name, ok := t["name"].(string); ok {
		return fmt.Sprintf("%q", name)
	}
	return JSONText(t["name"])
}

// InputRequired reports whether msg's result is an InputRequiredResult (resultType
// "input_required", 2026-07-28 basic/patterns/mrtr#InputRequiredResult) rather than a completed
// result.
func InputRequired(msg *harness.Message) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(msg.Result, &r)
	return r.ResultType == "input_required"
}

// FixtureArgs fills the required properties of a tool's inputSchema with values valid for
// their schema (client.SampleValue): a default, enum or const value first, then a string of
// its format and length, a number within its bounds, true for a boolean. ok is false when a
// required property is of another type (an object, an array) and has no enum or default.
func FixtureArgs(schema json.RawMessage) (map[string]any, bool) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	_ = json.Unmarshal(schema, &s)
	args := map[string]any{}
	for _, name := range s.Required {
		var p struct {
			Type    any               `json:"type"`
			Enum    []json.RawMessage `json:"enum"`
			Const   json.RawMessage   `json:"const"`
			Default json.RawMessage   `json:"default"`
		}
		_ = json.Unmarshal(s.Properties[name], &p)
		switch {
		case len(p.Const) > 0:
			args[name] = p.Const
		case len(p.Default) > 0 || len(p.Enum) > 0:
			args[name] = client.SampleValue(s.Properties[name])
		case p.Type == "string" || p.Type == "integer" || p.Type == "number" || p.Type == "boolean":
			args[name] = client.SampleValue(s.Properties[name])
		default:
			return nil, false
		}
	}
	return args, true
}
