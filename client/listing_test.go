package client

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

// pagerSession is a session whose server answers page n of a list with one item and the
// cursor next(n) ("" ends the list).
func pagerSession(next func(n int) string) *Session {
	s, _ := scriptSession(func(req map[string]any) any {
		n := 1
		if params, _ := req["params"].(map[string]any); params != nil {
			if c, _ := params["cursor"].(string); c != "" {
				_, _ = fmt.Sscanf(c, "c%d", &n)
			}
		}
		result := map[string]any{"resultType": "complete", "tools": []any{map[string]any{"name": fmt.Sprintf("t%d", n)}}}
		if c := next(n); c != "" {
			result["nextCursor"] = c
		}
		return result
	})
	return s
}

// A list longer than 100 pages is followed to its end (the spec sets no page limit); one that
// never ends is untestable at the suite's cap, never a failure; a repeated cursor is a loop.
func TestListAllPageLimits(t *testing.T) {
	lt, err := pagerSession(func(n int) string {
		if n < 150 {
			return fmt.Sprintf("c%d", n+1)
		}
		return ""
	}).ListAll(context.Background(), "tools/list", "tools")
	require.NoError(t, err)
	require.Equal(t, 150, lt.Pages)

	_, err = pagerSession(func(n int) string { return fmt.Sprintf("c%d", n+1) }).ListAll(context.Background(), "tools/list", "tools")
	var m *Mismatch
	require.ErrorAs(t, err, &m)
	require.Equal(t, reports.Untestable, m.Grade, "%v", m)

	_, err = pagerSession(func(n int) string { return "c2" }).ListAll(context.Background(), "tools/list", "tools")
	require.ErrorAs(t, err, &m)
	require.Empty(t, m.Grade, "a repeated cursor is a failure at the rule's level")
}
