package harness

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSSE parses stream completely and returns its events, the reader, and the final error.
func readSSE(t testing.TB, r io.Reader, max int) ([]SSEEvent, *SSEReader, error) {
	t.Helper()
	rd := NewSSEReader(r, max)
	var out []SSEEvent
	for {
		ev, err := rd.Next()
		if err != nil {
			return out, rd, err
		}
		out = append(out, ev)
	}
}

func ev(data string) SSEEvent { return SSEEvent{Data: data, Size: len(data), Retry: -1, Lines: 1} }

func TestSSEInterpretation(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []SSEEvent
	}{
		{"lf", "data: a\n\n", []SSEEvent{ev("a")}},
		{"crlf", "data: a\r\n\r\n", []SSEEvent{ev("a")}},
		{"cr", "data: a\r\rdata: b\r\r", []SSEEvent{ev("a"), ev("b")}},
		{"mixed endings", "data: a\r\n\rdata: b\n\r\n", []SSEEvent{ev("a"), ev("b")}},
		{"bom", "\xEF\xBB\xBFdata: a\n\n", []SSEEvent{ev("a")}},
		{"bom only at start", "data: a\n\n\xEF\xBB\xBFdata: b\n\n", []SSEEvent{ev("a")}},
		{"multi-line data", "data: a\ndata:b\ndata:  c\n\n",
			[]SSEEvent{{Data: "a\nb\n c", Size: 6, Retry: -1, Lines: 3}}},
		{"comments ignored", ": keep-alive\n:\ndata: a\n: x\n\n",
			[]SSEEvent{{Data: "a", Size: 1, Retry: -1, Lines: 4}}},
		{"field without colon", "data\n\n", []SSEEvent{{Data: "", Size: 0, Retry: -1, Lines: 1}}},
		{"empty data buffer not dispatched", "event: x\nid: 7\n\n\n\ndata: a\n\n", []SSEEvent{ev("a")}},
		{"event id retry", "event: message\nid: 42\nretry: 1500\ndata: {}\n\n",
			[]SSEEvent{{Event: "message", ID: "42", HasID: true, Retry: 1500, Data: "{}", Size: 2, Lines: 4}}},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []SSEEvent{{Data: "x", Size: 1, Retry: -1, Lines: 2}}},
		{"empty id", "id\ndata: x\n\n", []SSEEvent{{Data: "x", Size: 1, HasID: true, Retry: -1, Lines: 2}}},
		{"retry not digits", "retry: 1s\nretry: -5\nretry:\ndata: x\n\n", []SSEEvent{{Data: "x", Size: 1, Retry: -1, Lines: 4}}},
		{"unknown fields and case", "Data: no\ndata : no\nfoo: bar\ndata: x\n\n", []SSEEvent{{Data: "x", Size: 1, Retry: -1, Lines: 4}}},
		{"only one space dropped", "data:   x \n\n", []SSEEvent{{Data: "  x ", Size: 4, Retry: -1, Lines: 1}}},
		{"colon in value", "data: {\"a\":1}\n\n", []SSEEvent{ev(`{"a":1}`)}},
		{"event resets", "event: a\ndata: 1\n\ndata: 2\n\n",
			[]SSEEvent{{Event: "a", Data: "1", Size: 1, Retry: -1, Lines: 2}, ev("2")}},
		{"incomplete last event discarded", "data: a\n\ndata: b\n", []SSEEvent{ev("a")}},
		{"no final newline", "data: a\n\ndata: b", []SSEEvent{ev("a")}},
	}
	for _, c := range cases {
		for name, wrap := range map[string]func(io.Reader) io.Reader{
			"whole": func(r io.Reader) io.Reader { return r }, "one-byte": iotest.OneByteReader,
		} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				got, rd, err := readSSE(t, wrap(strings.NewReader(c.in)), 0)
				require.ErrorIs(t, err, io.EOF)
				assert.Equal(t, c.want, got)
				_, left := rd.Leftover()
				assert.Equal(t, left, len(rd.Problems()) == 1, "only a discarded event is a problem")
			})
		}
	}
}

func TestSSELeftoverReportsDiscardedEvent(t *testing.T) {
	got, rd, err := readSSE(t, strings.NewReader("data: a\n\nevent: x\ndata: {\"id\":1}\n"), 0)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, got, 1)
	left, ok := rd.Leftover()
	require.True(t, ok)
	assert.Equal(t, `{"id":1}`, left.Data)
	assert.Equal(t, "x", left.Event)
	assert.Equal(t, "stream ended before the event's blank line (event discarded)", left.Problem)
	assert.Equal(t, []string{left.Problem}, rd.Problems())

	_, rd, _ = readSSE(t, strings.NewReader("data: a\n\n: bye\n"), 0)
	_, ok = rd.Leftover()
	assert.False(t, ok, "a trailing comment leaves nothing")
	assert.Equal(t, 1, rd.Comments())
}

func TestSSEInvalidUTF8(t *testing.T) {
	got, rd, err := readSSE(t, strings.NewReader(": \xff\n\ndata: \xfe\xff\ndata: ok\n\ndata: fine\n\n"), 0)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, got, 2)
	assert.Equal(t, "invalid UTF-8", got[0].Problem, "the comment's problem and the event's are reported once")
	assert.Equal(t, "\xfe\xff\nok", got[0].Data, "bytes are kept as sent")
	assert.Equal(t, "", got[1].Problem)
	assert.Equal(t, []string{"invalid UTF-8"}, rd.Problems(), "once per event")
}

func TestSSEOversizedEventIsCapped(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	in := "data: " + big + "\ndata: " + big + "\n\ndata: small\n\n"
	got, rd, err := readSSE(t, iotest.HalfReader(strings.NewReader(in)), 1000)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, got, 2)
	assert.Len(t, got[0].Data, 1000)
	assert.Equal(t, 2*len(big)+1, got[0].Size)
	assert.True(t, got[0].Truncated)
	assert.Equal(t, "event data exceeds --max-frame (1000 bytes)", got[0].Problem)
	assert.Equal(t, ev("small"), got[1])
	assert.Len(t, rd.Problems(), 1)
	assert.LessOrEqual(t, cap(rd.line), 2*(1000+64), "line buffer stays bounded")
}

func TestSSEExactlyMaxIsNotTruncated(t *testing.T) {
	got, _, err := readSSE(t, strings.NewReader("data: hello\n\n"), 5)
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, []SSEEvent{ev("hello")}, got)
}

func TestSSECRThenPauseDispatchesWithoutWaiting(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	rd := NewSSEReader(pr, 0)
	go func() { _, _ = pw.Write([]byte("data: a\r\r")) }()
	ev1, err := rd.Next()
	require.NoError(t, err, "the event is dispatched on the second CR, before any further byte")
	assert.Equal(t, "a", ev1.Data)
	go func() { _, _ = pw.Write([]byte("\ndata: b\n\n")); pw.Close() }()
	ev2, err := rd.Next()
	require.NoError(t, err)
	assert.Equal(t, "b", ev2.Data, "the LF after the CR was not a second blank line")
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("boom")
	_, rd, err := readSSE(t, io.MultiReader(strings.NewReader("data: a\n"), iotest.ErrReader(boom)), 0)
	assert.ErrorIs(t, err, boom)
	left, ok := rd.Leftover()
	assert.True(t, ok)
	assert.Equal(t, "a", left.Data)
}

func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), uint8(40))
	f.Add([]byte("\xEF\xBB\xBF: c\r\nevent: e\rid: 1\x00\nretry: 12\r\ndata\n\n"), uint8(3))
	f.Add([]byte("data: a\r\n\r\ndata: \xff\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, max8 uint8) {
		max := int(max8) + 1
		whole, rd1, err1 := readSSE(t, bytes.NewReader(data), max)
		split, rd2, err2 := readSSE(t, iotest.OneByteReader(bytes.NewReader(data)), max)
		if !errors.Is(err1, io.EOF) || !errors.Is(err2, io.EOF) {
			t.Fatalf("errors %v, %v", err1, err2)
		}
		if len(whole) != len(split) {
			t.Fatalf("chunking changed the events: %d vs %d", len(whole), len(split))
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("event %d differs by chunking: %+v vs %+v", i, whole[i], split[i])
			}
			e := whole[i]
			if len(e.Data) > max || e.Truncated != (e.Size > len(e.Data)) || e.Size > len(data) {
				t.Fatalf("event %d bounds: %+v", i, e)
			}
		}
		l1, ok1 := rd1.Leftover()
		l2, ok2 := rd2.Leftover()
		if ok1 != ok2 || l1 != l2 {
			t.Fatalf("leftover differs by chunking: %+v vs %+v", l1, l2)
		}
		if len(rd1.Problems()) > maxSSEProblems {
			t.Fatalf("%d problems kept", len(rd1.Problems()))
		}
	})
}

// An SSE event with an id and empty data (the priming event the handshake-era Streamable HTTP
// recommends for resumption) carries no message and is no framing problem; data that is not a
// message still is.
func TestEmptyDataEventIsNoProblem(t *testing.T) {
	msg, problems := classifyEvent(SSEEvent{ID: "0", HasID: true, Data: ""})
	assert.Nil(t, msg)
	assert.Empty(t, problems)
	_, problems = classifyEvent(SSEEvent{Data: "not json"})
	assert.NotEmpty(t, problems)
}
