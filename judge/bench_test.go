package judge

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// recordedRun is the frames of a real run, as results.json writes them: mcp-conform against
// the TypeScript SDK 2.x test server (fixtures/servers/ts-modern) over stdio, both eras. It is
// mcp-conform's own output, regenerated with bench/record.sh.
const recordedRun = "testdata/ts-modern-stdio.frames.json.gz"

// loadRecorded reads recordedRun back into harness frames and the revision of each
// connection (a connection that sent initialize speaks the latest legacy revision).
func loadRecorded(tb testing.TB) ([]*harness.Frame, map[int]string) {
	tb.Helper()
	f, err := os.Open(recordedRun)
	require.NoError(tb, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(tb, err)
	// The fields of a results.json frame the judge needs (reports.Frame).
	var frames []struct {
		Seq       int    `json:"seq"`
		Dir       string `json:"dir"`
		Transport string `json:"transport"`
		Conn      int    `json:"conn"`
		Raw       string `json:"raw"`
		RawBase64 string `json:"rawBase64"`
		Size      int    `json:"size"`
		Truncated bool   `json:"truncated"`
		Method    string `json:"method"`
		Problem   string `json:"problem"`
	}
	require.NoError(tb, json.NewDecoder(zr).Decode(&frames))
	out := make([]*harness.Frame, 0, len(frames))
	rev := map[int]string{}
	for _, rf := range frames {
		raw := []byte(rf.Raw)
		if rf.RawBase64 != "" {
			raw, err = base64.StdEncoding.DecodeString(rf.RawBase64)
			require.NoError(tb, err)
		}
		hf := &harness.Frame{Seq: rf.Seq, Dir: harness.Direction(rf.Dir), Transport: rf.Transport, Conn: rf.Conn,
			Raw: raw, Size: rf.Size, Truncated: rf.Truncated, Method: rf.Method, Problem: rf.Problem}
		if _, ok := rev[rf.Conn]; !ok && hf.Dir == harness.DirClientToServer {
			rev[rf.Conn] = revisions.Modern().ID
			if rf.Method == "initialize" {
				rev[rf.Conn] = revisions.LatestLegacy().ID
			}
		}
		out = append(out, hf)
	}
	return out, rev
}

// BenchmarkJudgeRecordedRun feeds every frame of a recorded real run to a judge with the
// official schemas, as judgeRun does after a run: each frame parsed and validated once and
// seen by every check of its revision. It reports frames/s (one core) and allocs per frame.
func BenchmarkJudgeRecordedRun(b *testing.B) {
	frames, rev := loadRecorded(b)
	set := testutil.Schemas(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := New(Config{Schemas: set})
		for _, f := range frames {
			j.Feed(rev[f.Conn], f)
		}
		j.Finish()
	}
	b.StopTimer()
	n := float64(b.N * len(frames))
	b.ReportMetric(n/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(testing.AllocsPerRun(1, func() {
		j := New(Config{Schemas: set})
		for _, f := range frames {
			j.Feed(rev[f.Conn], f)
		}
		j.Finish()
	}))/float64(len(frames)), "allocs/frame")
}

// TestRecordedRunIsJudged: the recorded frames load and the judge reaches a verdict for
// SCHEMA-001 at both revisions (so the benchmark measures real work).
func TestRecordedRunIsJudged(t *testing.T) {
	frames, rev := loadRecorded(t)
	require.Greater(t, len(frames), 100)
	j := New(Config{Schemas: testutil.Schemas(t)})
	for _, f := range frames {
		j.Feed(rev[f.Conn], f)
	}
	j.Finish()
	for _, r := range []string{revisions.Modern().ID, revisions.LatestLegacy().ID} {
		o, ok := j.Outcome(r, "SCHEMA-001")
		require.True(t, ok, r)
		require.Positive(t, o.Judged, r)
	}
}
