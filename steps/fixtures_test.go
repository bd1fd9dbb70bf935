package steps

import (
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		{client.CallFixtures, map[string]bool{"test_simple_text": true, "lookup": false, "delete_everything": false, "echo": true}},
		{client.CallReadOnly, map[string]bool{"test_simple_text": true, "lookup": true, "delete_everything": false, "echo": true}},
		{client.CallAll, map[string]bool{"test_simple_text": true, "lookup": true, "delete_everything": true, "echo": true}},
	} {
		e := client.Options{CallTools: tc.policy, FixtureMap: map[string]string{"test_echo": "echo"}}
		for _, tool := range []map[string]any{fixture, readOnly, writer, mapped} {
			ok, why := e.MayCall(tool)
			assert.Equal(t, tc.want[tool["name"].(string)], ok, "%s %s", tc.policy, tool["name"])
			assert.Equal(t, ok, why == "", "a refusal has a reason, a permission none")
		}
	}
}

func TestValidateFixtureMap(t *testing.T) {
	m, err := client.ValidateFixtureMap([]string{"test_simple_text=hello", " test://static-text = file:///a "})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"test_simple_text": "hello", "test://static-text": "file:///a"}, m)
	for _, bad := range [][]string{{"nope=x"}, {"test_simple_text"}, {"test_simple_text="}, {"test_echo=a", "test_echo=b"}} {
		_, err := client.ValidateFixtureMap(bad)
		assert.Error(t, err, "%v", bad)
	}
	assert.NoError(t, client.ValidateCallTools("readonly"))
	assert.Error(t, client.ValidateCallTools("read-only"))
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
		{client.CallFixtures, writer, false},
		{client.CallFixtures, plain, false},
		{client.CallFixtures, reader, true},
		{client.CallReadOnly, writer, false},
	} {
		e := client.Options{CallTools: tc.policy}
		ok, why := e.MayCall(tc.tool)
		require.False(t, ok)
		assert.Contains(t, why, "--call-tools", "%s %s", tc.policy, tc.tool["name"])
		assert.Equal(t, tc.readonly, strings.Contains(why, "--call-tools readonly"), "%s %s: %s", tc.policy, tc.tool["name"], why)
		if !tc.readonly {
			assert.Contains(t, why, "--call-tools all would call it")
		}
	}
	e := client.Options{CallTools: client.CallFixtures}
	assert.Equal(t, "--call-tools all would call them", e.CallHint([]map[string]any{writer, plain}))
	assert.Contains(t, e.CallHint([]map[string]any{writer, reader}), "--call-tools readonly")
	assert.Empty(t, client.Options{CallTools: client.CallAll}.CallHint([]map[string]any{writer}))
}
