package integration

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

func TestGoldenLinesPinEverythingButNA(t *testing.T) {
	r := &reports.Run{Results: []reports.Result{
		{Rule: "MSG-10", Revision: "2026-07-28", Transport: "stdio", Verdict: reports.Pass},
		{Rule: "MSG-9", Revision: "2026-07-28", Transport: "stdio", Verdict: reports.Untestable, Reason: "no test_echo tool"},
		{Rule: "HDR-001", Revision: "2026-07-28", Transport: "stdio", Verdict: reports.NA, Reason: "HTTP only"},
	}}
	require.Equal(t, []string{
		"MSG-9 2026-07-28 stdio untestable | no test_echo tool",
		"MSG-10 2026-07-28 stdio pass",
	}, goldenLines(r))
}

func TestLineDiffShowsChangedVerdictAsPair(t *testing.T) {
	want := []string{"A-1 r s pass", "A-2 r s fail", "A-3 r s warn"}
	got := []string{"A-1 r s pass", "A-2 r s pass", "A-4 r s info"}
	require.Equal(t, "- A-2 r s fail\n+ A-2 r s pass\n- A-3 r s warn\n+ A-4 r s info\n", lineDiff(want, got))
	require.Empty(t, lineDiff(want, want))
}
