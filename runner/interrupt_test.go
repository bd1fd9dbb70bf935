package runner_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/runner"
)

// cancelOnWrite cancels the run the first time the progress writes (a feature file is done):
// a Ctrl-C in the middle of a run, with scenarios in flight and others not started.
type cancelOnWrite struct {
	once   sync.Once
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.once.Do(c.cancel)
	return len(p), nil
}

// TestInterruptedRunCountsRulesNotRun: a run interrupted mid-way reports the rules it never
// judged as not run (never error, never a failure of the server), is not carried out in full
// and exits 3; its results.json still matches the schema.
func TestInterruptedRunCountsRulesNotRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := runner.Config{
		Transport: "stdio", Command: []string{referenceBinary(t)}, Revision: revisions.Modern().ID,
		StartupTimeout: 30 * time.Second, Timeout: 5 * time.Second, QuietWindow: 300 * time.Millisecond,
		ShutdownGrace: 500 * time.Millisecond, RunTimeout: 3 * time.Minute, MaxFrame: 1 << 20, Schemas: testutil.Schemas(t),
		Tool:     reports.Tool{Name: "mcp-conform", Version: "test", Commit: "test"},
		Progress: reports.NewProgress(&cancelOnWrite{cancel: cancel}, 0, reports.ConsoleOptions{}),
	}
	run, err := runner.Run(ctx, cfg)
	require.NoError(t, err)
	require.Equal(t, "the run was interrupted", run.Aborted)
	require.NotZero(t, run.Summary.NotRun, "the rules the interrupt kept from running are not run")
	for _, res := range run.Results {
		if res.Verdict == reports.NotRun {
			require.True(t, strings.HasPrefix(res.Reason, "the run was interrupted before this rule"), "%s: %s", res.Rule, res.Reason)
			continue
		}
		require.NotContains(t, res.Reason, context.Canceled.Error(), "%s %s: a rule the interrupt stopped is not run, not %s", res.Rule, res.Verdict, res.Verdict)
		require.NotEqual(t, reports.Error, res.Verdict, "%s: %s", res.Rule, res.Reason)
		require.NotEqual(t, reports.Fail, res.Verdict, "%s: the reference fails nothing, interrupted or not: %s", res.Rule, res.Reason)
	}
	require.Equal(t, reports.ExitError, reports.ExitCode(run, false, 0))
	var out bytes.Buffer
	require.NoError(t, reports.WriteSummary(&out, run, reports.ConsoleOptions{CountsOnly: true}))
	require.Contains(t, out.String(), " not run")
	require.NotContains(t, out.String(), " 0 not run")
	var doc bytes.Buffer
	require.NoError(t, reports.WriteJSON(&doc, run))
	require.NoError(t, reports.ValidateDocument(doc.Bytes()), "results.json must match reports/results.schema.json")
}
