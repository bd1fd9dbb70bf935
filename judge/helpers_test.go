package judge

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// testRev is the revision the unit tests feed their frames as.
const testRev = "2026-07-28"

// judgeRule feeds frames, in order, to a judge holding only rule's entry and returns the
// rule's outcome.
func judgeRule(t *testing.T, rule string, frames []*harness.Frame) Outcome {
	t.Helper()
	require.True(t, Has(rule), "rule %s is not in the table", rule)
	j := New(Config{})
	j.cfg.Rules = []string{rule}
	for _, f := range frames {
		j.Feed(testRev, f)
	}
	j.Finish()
	o, ok := j.Outcome(testRev, rule)
	require.True(t, ok)
	return o
}
