package client

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// policySession is a session whose run calls tools under --call-tools policy, with test_echo
// mapped to echo.
func policySession(policy string) *Session {
	s := targetSession(harness.TransportStdio, revisions.Modern().ID)
	s.Opts.CallTools = policy
	return s
}

func TestMayCallFollowsThePolicy(t *testing.T) {
	fixture := map[string]any{"name": "test_simple_text"}
	readOnly := map[string]any{"name": "lookup", "annotations": map[string]any{"readOnlyHint": true}}
	writer := map[string]any{"name": "delete_everything"}
	mapped := map[string]any{"name": "echo"}
	for _, tc := range []struct {
		policy string
		want   map[string]bool
	}{
		{"", map[string]bool{"test_simple_text": true, "lookup": false, "delete_everything": false, "echo": true}},
		{CallFixtures, map[string]bool{"test_simple_text": true, "lookup": false, "delete_everything": false, "echo": true}},
		{CallReadOnly, map[string]bool{"test_simple_text": true, "lookup": true, "delete_everything": false, "echo": true}},
		{CallAll, map[string]bool{"test_simple_text": true, "lookup": true, "delete_everything": true, "echo": true}},
	} {
		s := policySession(tc.policy)
		for _, tool := range []map[string]any{fixture, readOnly, writer, mapped} {
			ok, why := s.Opts.MayCall(tool)
			assert.Equal(t, tc.want[tool["name"].(string)], ok, "%s %s", tc.policy, tool["name"])
			assert.Equal(t, ok, why == "", "a refusal has a reason, a permission none")
		}
	}
}

func TestValidateFixtureMap(t *testing.T) {
	m, err := ValidateFixtureMap([]string{"test_simple_text=hello", " test://static-text = file:///a "})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"test_simple_text": "hello", "test://static-text": "file:///a"}, m)
	for _, bad := range [][]string{{"nope=x"}, {"test_simple_text"}, {"test_simple_text="}, {"test_echo=a", "test_echo=b"}} {
		_, err := ValidateFixtureMap(bad)
		assert.Error(t, err, "%v", bad)
	}
	assert.NoError(t, ValidateCallTools("readonly"))
	assert.Error(t, ValidateCallTools("read-only"))
}

// TestUntestableReasonSuggestsOnlyAHelpingPolicy: a tool the policy does not call gets a reason
// naming the --call-tools value that would call it, never readonly for a tool annotated
// readOnlyHint: false (or not annotated), which readonly does not call either.
func TestUntestableReasonSuggestsOnlyAHelpingPolicy(t *testing.T) {
	writer := map[string]any{"name": "delete_everything", "annotations": map[string]any{"readOnlyHint": false}}
	plain := map[string]any{"name": "plain"}
	reader := map[string]any{"name": "lookup", "annotations": map[string]any{"readOnlyHint": true}}
	for _, tc := range []struct {
		policy   string
		tool     map[string]any
		readonly bool
	}{
		{CallFixtures, writer, false},
		{CallFixtures, plain, false},
		{CallFixtures, reader, true},
		{CallReadOnly, writer, false},
	} {
		ok, why := policySession(tc.policy).Opts.MayCall(tc.tool)
		require.False(t, ok)
		assert.Contains(t, why, "--call-tools", "%s %s", tc.policy, tc.tool["name"])
		assert.Equal(t, tc.readonly, strings.Contains(why, "--call-tools readonly"), "%s %s: %s", tc.policy, tc.tool["name"], why)
		if !tc.readonly {
			assert.Contains(t, why, "--call-tools all would call it")
		}
	}
	s := policySession(CallFixtures)
	assert.Equal(t, "--call-tools all would call them", s.Opts.CallHint([]map[string]any{writer, plain}))
	assert.Contains(t, s.Opts.CallHint([]map[string]any{writer, reader}), "--call-tools readonly")
	assert.Empty(t, policySession(CallAll).Opts.CallHint([]map[string]any{writer}))
}

// TestFixtureAsksNamesFixtureTools: every tool FixtureAsks knows is a fixture tool, and asks
// for a capability the suite can answer (AnswerableCapabilities).
func TestFixtureAsksNamesFixtureTools(t *testing.T) {
	var answerable map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(AnswerableCapabilities), &answerable))
	for name, capability := range FixtureAsks {
		assert.Contains(t, FixtureTools, name)
		assert.Contains(t, answerable, capability, name)
	}
}
