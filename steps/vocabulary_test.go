package steps

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestValidateAtReadsAsASentence: a schema violation of the whole message (pointer "") names
// the member that fails and reads as one sentence: no " at ," and no "got got" (it read
// "expected a valid DiscoverResultResponse at , got got number, want string at ...").
func TestValidateAtReadsAsASentence(t *testing.T) {
	w := clientWorld("stdio", revisions.Modern().ID)
	w.Opts.Schemas = testutil.Schemas(t)
	w.Rule = catalog.Rule{ID: "DISC-002"}
	raw := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"x","version":"1"},"instructions":7}}`)
	err := w.validateAt(raw, "", "DiscoverResultResponse", []int{2})
	var m *client.Mismatch
	require.True(t, errors.As(err, &m), "%v", err)
	require.Equal(t, "a valid DiscoverResultResponse", m.Expected)
	require.Contains(t, m.Actual, "member /result/instructions fails the schema")
	require.NotContains(t, m.Error(), "got got")
	require.NotContains(t, m.Error(), " at ,")
}

func TestPointer(t *testing.T) {
	doc := []byte(`{"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"x"}},"a":[1,"two"],"t~":true}}`)
	v, ok, err := checks.Pointer(doc, "/result/_meta/io.modelcontextprotocol~1serverInfo/name")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "x", v)
	v, ok, _ = checks.Pointer(doc, "/result/a/1")
	require.True(t, ok)
	require.Equal(t, "two", v)
	_, ok, _ = checks.Pointer(doc, "/result/a/2")
	require.False(t, ok)
	v, ok, _ = checks.Pointer(doc, "/result/t~0")
	require.True(t, ok)
	require.Equal(t, true, v)
	_, _, err = checks.Pointer(doc, "result")
	require.Error(t, err)
}
