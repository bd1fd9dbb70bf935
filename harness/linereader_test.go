package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readLines(t testing.TB, r io.Reader, max int) ([]Line, error) {
	t.Helper()
	lr := NewLineReader(r, max)
	var out []Line
	for {
		l, err := lr.Next()
		if err != nil {
			return out, err
		}
		out = append(out, l)
	}
}

func TestLineReaderSplitsOnLFOnly(t *testing.T) {
	for name, r := range map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one-byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	} {
		t.Run(name, func(t *testing.T) {
			lines, err := readLines(t, r(strings.NewReader("a\n\r\nb\rc\r\n\nlast")), 100)
			require.ErrorIs(t, err, io.EOF)
			want := []Line{
				{Data: []byte("a"), Size: 1},
				{Data: []byte("\r"), Size: 1},
				{Data: []byte("b\rc\r"), Size: 4},
				{Data: []byte{}, Size: 0},
				{Data: []byte("last"), Size: 4, Unterminated: true},
			}
			assert.Equal(t, want, lines)
		})
	}
}

func TestLineReaderCapsLongLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the bufio buffer
	lines, err := readLines(t, strings.NewReader(long+"\nshort\n"+long), 1000)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, lines, 3)
	sum := sha256.Sum256([]byte(long))
	digest := hex.EncodeToString(sum[:])
	assert.Equal(t, Line{Data: []byte(long[:1000]), Size: len(long), Truncated: true, SHA256: digest}, lines[0])
	assert.Equal(t, Line{Data: []byte("short"), Size: 5}, lines[1])
	assert.Equal(t, Line{Data: []byte(long[:1000]), Size: len(long), Truncated: true, Unterminated: true, SHA256: digest}, lines[2])
	assert.Equal(t, 1000, cap(lines[0].Data), "a kept line must not pin a larger buffer")
}

func TestLineReaderReturnsPartialLineThenError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("ok\npart"), iotest.ErrReader(boom)), 0)
	l, err := lr.Next()
	require.NoError(t, err)
	assert.Equal(t, "ok", string(l.Data))
	l, err = lr.Next()
	require.NoError(t, err)
	assert.Equal(t, Line{Data: []byte("part"), Size: 4, Unterminated: true}, l)
	_, err = lr.Next()
	assert.ErrorIs(t, err, boom)
	_, err = lr.Next()
	assert.ErrorIs(t, err, boom, "the error sticks")
}

// frameAll runs the stdio framer over text as a server's stdout.
func frameAll(t testing.TB, text string, max int) []framedLine {
	t.Helper()
	lines, err := readLines(t, strings.NewReader(text), max)
	require.ErrorIs(t, err, io.EOF)
	f := &framer{max: max}
	var out []framedLine
	for _, l := range lines {
		out = append(out, f.push(l)...)
	}
	return append(out, f.flush()...)
}

func TestFramerClassifiesLines(t *testing.T) {
	const ok = `{"jsonrpc":"2.0","id":1,"result":{}}`
	cases := []struct {
		name    string
		in      string
		raw     []string
		problem []string
		isMsg   []bool
	}{
		{"message", ok + "\n", []string{ok}, []string{""}, []bool{true}},
		{"blank", "\n" + ok + "\n", []string{"", ok}, []string{"blank line", ""}, []bool{false, true}},
		{"crlf", ok + "\r\n", []string{ok + "\r"}, []string{"line ends with CR"}, []bool{true}},
		{"banner", "Server v1 starting\n", []string{"Server v1 starting"},
			[]string{"not a JSON-RPC message: not a JSON object: invalid character 'S' looking for beginning of value"}, []bool{false}},
		{"invalid utf8", "{\"a\":\"\xff\"}\n", []string{"{\"a\":\"\xff\"}"}, []string{"invalid UTF-8"}, []bool{false}},
		{"not json-rpc", `{"id":1}` + "\n", []string{`{"id":1}`}, []string{`not a JSON-RPC message: jsonrpc is not "2.0"`}, []bool{true}},
		{"array", "[" + ok + "]\n", []string{"[" + ok + "]"}, []string{"not a JSON-RPC message: not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"}, []bool{false}},
		{"unterminated", ok, []string{ok}, []string{"line not terminated by a newline (end of output)"}, []bool{true}},
		{"closed but trailing", `{"a":1} x` + "\n", []string{`{"a":1} x`}, []string{"not a JSON-RPC message: not a JSON object: trailing data"}, []bool{false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := frameAll(t, c.in, 1<<20)
			require.Len(t, got, len(c.raw))
			for i, fl := range got {
				assert.Equal(t, c.raw[i], string(fl.raw), "raw %d", i)
				assert.Equal(t, c.problem[i], fl.problem, "problem %d", i)
				assert.Equal(t, c.isMsg[i], fl.msg != nil, "msg %d", i)
			}
		})
	}
}

func TestFramerReassemblesPrettyPrintedMessage(t *testing.T) {
	pretty := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": \"abc\",\n  \"result\": {\n    \"s\": \"} { [ \\\" \\\\\",\n    \"a\": [\n      1\n    ]\n  }\n}"
	got := frameAll(t, pretty+"\n"+`{"jsonrpc":"2.0","method":"n"}`+"\n", 1<<20)
	require.Len(t, got, 2)
	assert.Equal(t, pretty, string(got[0].raw))
	assert.Equal(t, len(pretty), got[0].size)
	assert.Equal(t, "message split over 10 lines", got[0].problem)
	require.NotNil(t, got[0].msg)
	assert.Equal(t, KindResult, got[0].msg.Kind)
	assert.Equal(t, `"abc"`, IDKey(got[0].msg.ID))
	assert.Equal(t, "", got[1].problem)
}

// TestFramerReassemblesPrettyPrintedBatch: a batch written over several lines is one frame,
// no message on its own (the reader reads its members where the revision has batches), whose
// problem names the split; an array that does not hold messages is given up line by line.
func TestFramerReassemblesPrettyPrintedBatch(t *testing.T) {
	member := func(id int) string {
		return fmt.Sprintf("  {\n    \"jsonrpc\": \"2.0\",\n    \"id\": %d,\n    \"result\": {}\n  }", id)
	}
	pretty := "[\n" + member(1) + ",\n" + member(2) + "\n]"
	got := frameAll(t, pretty+"\n", 1<<20)
	require.Len(t, got, 1)
	assert.Equal(t, pretty, string(got[0].raw))
	assert.Nil(t, got[0].msg)
	assert.Equal(t, "message split over 12 lines; not a JSON-RPC message: a JSON array (a batch)", got[0].problem)
	members, ok := ParseBatch(got[0].raw)
	require.True(t, ok)
	assert.Len(t, members, 2)

	got = frameAll(t, "[\n  1,\n  2\n]\n", 1<<20)
	require.Len(t, got, 4, "an array of numbers is no batch: each line is a frame of its own")
}

func TestFramerReassemblesCRLFPrettyPrint(t *testing.T) {
	got := frameAll(t, "{\r\n\"jsonrpc\":\"2.0\",\r\n\"id\":1,\"result\":{}\r\n}\r\n", 1<<20)
	require.Len(t, got, 1)
	assert.Equal(t, "message split over 4 lines; line ends with CR", got[0].problem)
	require.NotNil(t, got[0].msg)
	assert.Equal(t, KindResult, got[0].msg.Kind)
}

func TestFramerGivesUpWhenAMessageFollows(t *testing.T) {
	const ok = `{"jsonrpc":"2.0","id":2,"result":{}}`
	got := frameAll(t, "{\"jsonrpc\":\"2.0\",\n\"id\":1,\n"+ok+"\n", 1<<20)
	require.Len(t, got, 3)
	assert.Equal(t, `{"jsonrpc":"2.0",`, string(got[0].raw))
	assert.Contains(t, got[0].problem, "not a JSON-RPC message: ")
	assert.Nil(t, got[0].msg)
	assert.Equal(t, `"id":1,`, string(got[1].raw))
	assert.Contains(t, got[1].problem, "not a JSON-RPC message: ")
	assert.Equal(t, ok, string(got[2].raw))
	assert.Equal(t, "", got[2].problem)
	require.NotNil(t, got[2].msg)
}

func TestFramerGivesUpWhenClosedTextDoesNotParse(t *testing.T) {
	got := frameAll(t, "{\n\"a\": 1,\n}\n", 1<<20)
	require.Len(t, got, 3)
	for _, fl := range got {
		assert.Contains(t, fl.problem, "not a JSON-RPC message")
	}
}

func TestFramerBoundsReassembly(t *testing.T) {
	t.Run("bytes", func(t *testing.T) {
		in := "{\n" + strings.Repeat(`"k": 1,`+"\n", 20) + "}\n"
		got := frameAll(t, in, 64)
		assert.Greater(t, len(got), 5, "gave up and returned the lines one by one")
		for _, fl := range got {
			assert.LessOrEqual(t, len(fl.raw), 64)
			assert.NotContains(t, fl.problem, "split")
		}
	})
	t.Run("lines", func(t *testing.T) {
		in := "{\n" + strings.Repeat("\n", maxSplitLines+5) + "}\n"
		got := frameAll(t, in, 1<<20)
		assert.Len(t, got, maxSplitLines+7)
		assert.Contains(t, got[0].problem, "not a JSON-RPC message")
		assert.Equal(t, "blank line", got[1].problem)
	})
	t.Run("eof", func(t *testing.T) {
		got := frameAll(t, "{\n\"a\":", 1<<20)
		require.Len(t, got, 2)
		assert.Equal(t, `"a":`, string(got[1].raw))
		assert.Contains(t, got[1].problem, "line not terminated by a newline")
	})
}

func TestFramerTruncatedLine(t *testing.T) {
	in := `{"jsonrpc":"2.0","method":"x","params":{"d":"` + strings.Repeat("y", 500) + `"}}` + "\n"
	got := frameAll(t, in, 100)
	require.Len(t, got, 1)
	assert.True(t, got[0].truncated)
	assert.Len(t, got[0].raw, 100)
	assert.Equal(t, len(in)-1, got[0].size)
	assert.Equal(t, "line exceeds --max-frame (100 bytes)", got[0].problem)
	assert.Nil(t, got[0].msg)
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"), uint8(16))
	f.Add([]byte("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {}\n}\n"), uint8(200))
	f.Add([]byte("a\r\n\n\xff\xfe\n{\"x\":\"}\"\n"), uint8(3))
	f.Add([]byte("{\n{\n}\n}\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, max8 uint8) {
		max := int(max8) + 1
		lines, err := readLines(t, iotest.HalfReader(bytes.NewReader(data)), max)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("error %v", err)
		}
		total := 0
		var rebuilt []byte
		for i, l := range lines {
			if len(l.Data) > max || l.Truncated != (l.Size > len(l.Data)) || (!l.Truncated && l.Size != len(l.Data)) {
				t.Fatalf("line %d: bad bounds %+v", i, l)
			}
			if l.Unterminated != (i == len(lines)-1 && !bytes.HasSuffix(data, []byte("\n"))) {
				t.Fatalf("line %d: Unterminated=%v", i, l.Unterminated)
			}
			total += l.Size
			if !l.Unterminated {
				total++
			}
			rebuilt = append(rebuilt, l.Data...)
			if !l.Unterminated {
				rebuilt = append(rebuilt, '\n')
			}
		}
		if total != len(data) {
			t.Fatalf("sizes add to %d, want %d", total, len(data))
		}
		if max >= len(data) && !bytes.Equal(rebuilt, data) {
			t.Fatalf("lines do not rebuild the input")
		}
		fr := &framer{max: max}
		var frames []framedLine
		for _, l := range lines {
			frames = append(frames, fr.push(l)...)
		}
		frames = append(frames, fr.flush()...)
		if len(frames) > len(lines) {
			t.Fatalf("%d frames from %d lines", len(frames), len(lines))
		}
		if len(lines) > 0 && len(frames) == 0 {
			t.Fatalf("lines swallowed")
		}
		for _, fl := range frames {
			if len(fl.raw) > max {
				t.Fatalf("frame of %d bytes above max %d", len(fl.raw), max)
			}
			if fl.msg != nil {
				if _, err := ParseMessage(fl.raw); err != nil {
					t.Fatalf("frame with message does not parse: %q", fl.raw)
				}
			}
		}
	})
}

// TestRepairedReadsPastWireDefects: a byte order mark, invalid UTF-8 and a missing or wrong
// jsonrpc are read past (the reply still reaches its request), each named with its rule;
// a sound message and a line that is no message even repaired are left alone.
func TestRepairedReadsPastWireDefects(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		rules     []string
	}{
		{"bom", "\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", []string{"MSG-002"}},
		{"no jsonrpc", `{"id":1,"result":{}}`, []string{"MSG-001"}},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"error":{"code":-32601,"message":"x"}}`, []string{"MSG-001"}},
		{"bom and no jsonrpc", "\xef\xbb\xbf{\"id\":\"a\",\"result\":{}}", []string{"MSG-002", "MSG-001"}},
		{"invalid utf-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"}}", []string{"MSG-002"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			content, reps, m := Repaired([]byte(c.raw))
			require.NotNil(t, m)
			var rules []string
			for _, r := range reps {
				rules = append(rules, r.Rule)
				assert.NotEmpty(t, r.What)
			}
			assert.Equal(t, c.rules, rules)
			assert.True(t, m.Kind == KindResult || m.Kind == KindError, m.Problem)
			again, err := ParseMessage(content)
			require.NoError(t, err)
			assert.Equal(t, "2.0", again.JSONRPC)
		})
	}
	for _, raw := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, "not json", `{"jsonrpc":"2.0","result":{}}`, "\xef\xbb\xbfnot json"} {
		_, _, m := Repaired([]byte(raw))
		assert.Nil(t, m, raw)
	}
}

// TestLineReaderHashesAndTrimsAnOverlongLine: a line over the maximum keeps at most
// TruncatedKeep bytes, its real size, and the SHA-256 of the whole line; the next line is
// read whole.
func TestLineReaderHashesAndTrimsAnOverlongLine(t *testing.T) {
	long := strings.Repeat("x", 3*TruncatedKeep)
	lr := NewLineReader(strings.NewReader(long+"\nshort\n"), 2*TruncatedKeep)
	l, err := lr.Next()
	require.NoError(t, err)
	sum := sha256.Sum256([]byte(long))
	assert.Equal(t, hex.EncodeToString(sum[:]), l.SHA256)
	assert.True(t, l.Truncated)
	assert.Equal(t, len(long), l.Size)
	assert.Equal(t, []byte(long[:TruncatedKeep]), l.Data)
	l, err = lr.Next()
	require.NoError(t, err)
	assert.Equal(t, Line{Data: []byte("short"), Size: 5}, l)
}
