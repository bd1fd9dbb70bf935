package client

import (
	"fmt"
	"sort"
	"strings"
)

// Fixture names are the tool, prompt and resource names of the "everything" servers SDK
// repositories build for the official conformance suite. Rules that need a particular
// behaviour (an image result, a failing tool, a prompt with arguments) look for these names;
// a server that lacks one gets `untestable` naming it, never `fail`. --fixture-map maps a
// fixture name to the server's own name for the same thing.
var (
	// FixtureTools are the fixture tool names.
	FixtureTools = []string{
		"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_error_handling", "json_schema_2020_12_tool",
		"test_echo", "test_trigger_tool_change", "test_elicitation", "test_tool_with_elicitation",
		"test_sampling", "test_incomplete_result_sampling", "test_incomplete_result_list_roots", "test_tool_with_logging",
		"test_tool_with_progress",
		// Ours: the reference fixture's tool with x-mcp-header parameters (HDR-010..014).
		"test_header_params",
		// Ours: the reference fixture's legacy tools asking the client for roots, a URL-mode
		// elicitation, a sampling tool loop, and a ping it cancels (INPUT-*, LEG-011), and the
		// official suite's elicitation schema fixtures.
		"test_list_roots", "test_url_elicitation", "test_sampling_tools", "test_cancelled_ping",
		"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		// Ours: the reference fixture's 2025-11-25 task tools, one per execution.taskSupport
		// value (LFEAT-006..010).
		"test_task_tool", "test_task_required_tool", "test_task_forbidden_tool",
		// Ours: the reference fixture's tool that changes its resources (LFEAT-002); the
		// official suite has no fixture for it.
		"test_trigger_resource_update",
		// Ours: the reference fixture's tool that needs a URL mode elicitation (LFEAT-011/012).
		"test_url_elicitation_required",
	}
	// FixtureAsks maps each fixture tool that asks the client for something (a request of its
	// own on the legacy wire, an input request on the modern one) to the client capability that
	// needs: a server may list such a tool only to a client that declares the capability.
	FixtureAsks = map[string]string{
		"test_elicitation": "elicitation", "test_tool_with_elicitation": "elicitation",
		"test_elicitation_sep1034_defaults": "elicitation", "test_elicitation_sep1330_enums": "elicitation",
		"test_url_elicitation": "elicitation", "test_url_elicitation_required": "elicitation",
		"test_sampling": "sampling", "test_incomplete_result_sampling": "sampling", "test_sampling_tools": "sampling",
		"test_list_roots": "roots", "test_incomplete_result_list_roots": "roots",
	}
	// FixturePrompts are the fixture prompt names.
	FixturePrompts = []string{
		"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image",
	}
	// FixtureResources are the fixture resource URIs and the fixture resource template.
	FixtureResources = []string{"test://static-text", "test://static-binary", "test://template/{id}/data"}
)

// Call policies of Options.CallTools (--call-tools): which tools of the server the suite may call.
const (
	// CallFixtures calls only tools with a fixture name (or mapped to one): the default.
	CallFixtures = "fixtures"
	// CallReadOnly also calls tools annotated `readOnlyHint: true`.
	CallReadOnly = "readonly"
	// CallAll calls every tool the server lists.
	CallAll = "all"
)

// ValidateFixtureMap checks --fixture-map entries "name=alias": name must be a fixture name
// (FixtureTools, FixturePrompts, FixtureResources), alias non-empty, each name mapped once.
// It returns the map fixture name -> the server's name, or an error listing the known names.
func ValidateFixtureMap(entries []string) (map[string]string, error) {
	known := map[string]bool{}
	for _, l := range [][]string{FixtureTools, FixturePrompts, FixtureResources} {
		for _, n := range l {
			known[n] = true
		}
	}
	out := map[string]string{}
	for _, e := range entries {
		name, alias, ok := strings.Cut(e, "=")
		name, alias = strings.TrimSpace(name), strings.TrimSpace(alias)
		switch {
		case !ok || name == "" || alias == "":
			return nil, fmt.Errorf("--fixture-map %q: want name=alias", e)
		case !known[name]:
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("--fixture-map %q: %q is not a fixture name; known: %s", e, name, strings.Join(names, ", "))
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("--fixture-map maps %q twice", name)
		}
		out[name] = alias
	}
	return out, nil
}

// ValidateCallTools checks a --call-tools value: fixtures, readonly or all.
func ValidateCallTools(v string) error {
	switch v {
	case CallFixtures, CallReadOnly, CallAll:
		return nil
	}
	return fmt.Errorf("--call-tools must be fixtures, readonly or all, not %q", v)
}

// FixtureName returns the name the server uses for fixture name (its --fixture-map alias, or
// the name itself).
func (o Options) FixtureName(name string) string {
	if alias, ok := o.FixtureMap[name]; ok {
		return alias
	}
	return name
}

// isFixtureTool reports whether the server's tool name is a fixture tool (directly or mapped).
func (o Options) isFixtureTool(name string) bool {
	for _, f := range FixtureTools {
		if o.FixtureName(f) == name {
			return true
		}
	}
	return false
}

// MayCall reports whether the suite may call tool (a tools/list entry) as a normal request:
// the run's --call-tools policy allows it (PolicyAllows) and its execution.taskSupport is not
// "required" (a client MUST invoke such a tool as a task, 2025-11-25
// basic/utilities/tasks#Tool-Level Negotiation); if not, the reason an `untestable` verdict
// gives.
func (o Options) MayCall(tool map[string]any) (bool, string) {
	if ok, why := o.PolicyAllows(tool); !ok {
		return false, why
	}
	if TaskSupport(tool) == "required" {
		name, _ := tool["name"].(string)
		return false, fmt.Sprintf("tool %q has execution.taskSupport \"required\": it is called only as a task", name)
	}
	return true, ""
}

// PolicyAllows reports whether the run's --call-tools policy allows calling tool (a
// tools/list entry), whatever its taskSupport, and if not, the reason an `untestable` verdict
// gives.
func (o Options) PolicyAllows(tool map[string]any) (bool, string) {
	name, _ := tool["name"].(string)
	if o.isFixtureTool(name) {
		return true, ""
	}
	switch o.CallPolicy() {
	case CallAll:
		return true, ""
	case CallReadOnly:
		if readOnly(tool) {
			return true, ""
		}
		return false, fmt.Sprintf("tool %q is not annotated readOnlyHint: true; --call-tools all would call it", name)
	}
	return false, fmt.Sprintf("tool %q is not a fixture tool; %s", name, o.CallHint([]map[string]any{tool}))
}

// readOnly reports whether a tools/list entry is annotated `readOnlyHint: true`.
func readOnly(tool map[string]any) bool {
	ann, _ := tool["annotations"].(map[string]any)
	return ann != nil && ann["readOnlyHint"] == true
}

// CallHint names the least --call-tools policy above the run's that would call one of tools
// (tools/list entries the run's policy does not call): readonly only when one of them is
// annotated readOnlyHint: true, else all; "" under all.
func (o Options) CallHint(tools []map[string]any) string {
	if o.CallPolicy() == CallAll || len(tools) == 0 {
		return ""
	}
	if o.CallPolicy() == CallFixtures {
		for _, t := range tools {
			if readOnly(t) {
				return "--call-tools readonly or all would call it"
			}
		}
	}
	if len(tools) == 1 {
		if o.CallPolicy() == CallFixtures {
			return "it is not annotated readOnlyHint: true, so only --call-tools all would call it"
		}
		return "--call-tools all would call it"
	}
	return "--call-tools all would call them"
}

// CallPolicy returns the run's --call-tools policy (CallFixtures when unset).
func (o Options) CallPolicy() string {
	if o.CallTools == "" {
		return CallFixtures
	}
	return o.CallTools
}
