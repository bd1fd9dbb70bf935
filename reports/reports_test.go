package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWorseOrdersVerdicts(t *testing.T) {
	// A failed Outline row is never hidden by a row that could not be carried out.
	order := []Verdict{NA, Pass, Info, Untestable, XFail, Warn, Error, Fail}
	for i := range order {
		for j := range order {
			want := order[max(i, j)]
			require.Equal(t, want, Worse(order[i], order[j]), "%s vs %s", order[i], order[j])
		}
	}
}

func TestExitCode(t *testing.T) {
	run := func(vs ...Verdict) *Run {
		r := &Run{}
		for _, v := range vs {
			r.Results = append(r.Results, Result{Verdict: v})
		}
		return r
	}
	require.Equal(t, ExitOK, ExitCode(run(Pass, Warn, Info, NA, Untestable, XFail), false, 0))
	require.Equal(t, ExitError, ExitCode(run(), false, 0), "a run that checked nothing")
	require.Equal(t, ExitFail, ExitCode(run(Pass, Warn), true, 0), "--strict counts warn")
	require.Equal(t, ExitFail, ExitCode(run(Fail, Error), false, 0), "fail beats error")
	require.Equal(t, ExitError, ExitCode(run(Pass, Error), false, 0))
	require.Equal(t, ExitFail, ExitCode(run(Pass), false, 1), "stale baseline entry")
	require.Equal(t, ExitFail, ExitCode(run(), false, 1), "stale entry beats an empty run")
	aborted := run(Pass)
	aborted.Aborted = "server did not start"
	require.Equal(t, ExitError, ExitCode(aborted, false, 0))
}

func TestJSONRoundTripIsDeterministic(t *testing.T) {
	r := &Run{SchemaVersion: SchemaVersion, Results: []Result{
		{Rule: "MSG-10", Revision: "2026-07-28", Transport: "stdio", Verdict: Pass, Steps: []Step{}, Frames: []int{}},
		{Rule: "MSG-9", Revision: "2026-07-28", Transport: "stdio", Verdict: Fail, Steps: []Step{}, Frames: []int{2}},
		{Rule: "DISC-1", Revision: "2025-11-25", Transport: "stdio", Verdict: NA, Steps: []Step{}, Frames: []int{}},
	}, Frames: []Frame{{Seq: 2, Raw: "b"}, {Seq: 1, Raw: "a"}}}
	var a, b bytes.Buffer
	require.NoError(t, WriteJSON(&a, r))
	back, err := ReadJSON(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	require.NoError(t, WriteJSON(&b, back))
	require.Equal(t, a.String(), b.String())
	require.Equal(t, []string{"DISC-1", "MSG-9", "MSG-10"}, []string{back.Results[0].Rule, back.Results[1].Rule, back.Results[2].Rule})
	require.Equal(t, 1, back.Frames[0].Seq)
	require.Equal(t, Summary{Pass: 1, Fail: 1, NA: 1}, back.Summary)
	_, err = ReadJSON(bytes.NewReader([]byte(`{"schemaVersion":"99"}`)))
	require.Error(t, err)
}

// TestWriteJSONStreamsTheIndentedEncoding: results.json, written a result and a frame at a
// time, holds exactly the bytes of one indented encoding of the run (HTML characters not
// escaped), with results and frames, and with none.
func TestWriteJSONStreamsTheIndentedEncoding(t *testing.T) {
	oneShot := func(r *Run) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(r))
		return b.String()
	}
	full := sampleRun()
	full.Frames = append(full.Frames, Frame{Seq: 99, Dir: "s2c", Transport: "stdio", Raw: `{"x":"<&>"}`})
	for name, r := range map[string]*Run{"full": full, "empty": {SchemaVersion: SchemaVersion}} {
		var got bytes.Buffer
		require.NoError(t, WriteJSON(&got, r), name)
		require.Equal(t, oneShot(r), got.String(), name)
		back, err := ReadJSON(&got)
		require.NoError(t, err, name)
		require.Len(t, back.Results, len(r.Results), name)
	}
}

// TestControlsWriterEscapesAcrossWrites: a hidden control split over two writes is still
// escaped, other text (invalid UTF-8 included) passes as is, and a rune cut off at the very end
// is written as it came.
func TestControlsWriterEscapesAcrossWrites(t *testing.T) {
	var out bytes.Buffer
	cw := &controlsWriter{w: bufio.NewWriter(&out)}
	rlo := []byte("\u202e")
	for _, p := range [][]byte{[]byte("a"), rlo[:1], rlo[1:2], append(rlo[2:], "b\x1b\xffc\u00e9"...), []byte("\xe2\x80")} {
		n, err := cw.Write(p)
		require.NoError(t, err)
		require.Equal(t, len(p), n)
	}
	require.NoError(t, cw.Close())
	require.Equal(t, "a\\u202eb\\x1b\xffc\u00e9\xe2\x80", out.String())
}
