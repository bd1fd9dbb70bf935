package harness

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"unicode/utf8"
)

// DefaultMaxFrame is the frame size cap, in bytes, used when a transport config leaves MaxFrame
// at zero: 16 MiB. Bytes beyond the cap are counted (Frame.Size) but not kept.
const DefaultMaxFrame = 16 << 20

// maxSplitLines bounds how many stdout lines the stdio framer joins while trying to reassemble
// one message that a server split over several lines (pretty-printed JSON).
const maxSplitLines = 10000

// Line is one line read by a LineReader. Data holds at most the reader's maximum number of bytes
// (a fresh slice the caller may keep), without the terminating '\n'; a '\r' before the '\n' is
// part of Data. Size is the real length of the line in bytes and Truncated reports Size >
// len(Data). Unterminated is set on a last line that ended at end of input instead of '\n'.
type Line struct {
	Data         []byte
	Size         int
	Truncated    bool
	Unterminated bool
	// SHA256, on a Truncated line, is the hex SHA-256 of the whole line as the server wrote it.
	SHA256 string
}

// LineReader splits a byte stream into lines on '\n' only (basic/transports/stdio: messages are
// delimited by newlines), in bounded memory: a line longer than the maximum is returned with its
// first max bytes and its real Size, and the rest of it is read and dropped without being
// buffered. It is not safe for concurrent use.
type LineReader struct {
	br      *bufio.Reader
	max     int
	scratch []byte
	err     error     // error to return after the pending partial line
	hash    hash.Hash // the SHA-256 of a line that outgrew max, nil before it does
}

// NewLineReader returns a LineReader over r keeping at most max bytes of each line (max <= 0
// means DefaultMaxFrame).
func NewLineReader(r io.Reader, max int) *LineReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &LineReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line. At end of input it returns io.EOF; a read error is returned as is.
// A partial line before end of input or an error is returned first (Unterminated), and the
// error on the following call.
func (lr *LineReader) Next() (Line, error) {
	if lr.err != nil {
		return Line{}, lr.err
	}
	lr.scratch = lr.scratch[:0]
	lr.hash = nil
	size := 0
	for {
		chunk, err := lr.br.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		if room := lr.max - len(lr.scratch); room > 0 {
			lr.scratch = append(lr.scratch, chunk[:min(room, len(chunk))]...)
		}
		if lr.hash == nil && size+len(chunk) > lr.max {
			// The line outgrows max: hash it whole (the size bytes before this chunk are all
			// in scratch, since until now the line fitted).
			lr.hash = sha256.New()
			lr.hash.Write(lr.scratch[:size])
			lr.hash.Write(chunk)
		} else if lr.hash != nil {
			lr.hash.Write(chunk)
		}
		size += len(chunk)
		switch {
		case complete:
			return lr.line(size, false), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			lr.err = err
			if size == 0 {
				return Line{}, err
			}
			return lr.line(size, true), nil
		}
	}
}

func (lr *LineReader) line(size int, unterminated bool) Line {
	keep := lr.scratch
	if size > len(lr.scratch) {
		keep = keep[:min(len(keep), TruncatedKeep)] // all a truncated frame keeps (Recorder)
	}
	data := make([]byte, len(keep))
	copy(data, keep)
	l := Line{
		Data:         data,
		Size:         size,
		Truncated:    size > len(lr.scratch),
		Unterminated: unterminated,
	}
	if l.Truncated && lr.hash != nil {
		l.SHA256 = hex.EncodeToString(lr.hash.Sum(nil))
	}
	return l
}

// framedLine is one frame produced by the stdio framer from one or more stdout lines: the bytes to
// record, their real size, the framing problems found, and the parsed message when the bytes are
// one JSON object (msg is nil otherwise; a message of KindInvalid may still answer a request).
type framedLine struct {
	raw       []byte
	size      int
	truncated bool
	sha256    string
	problem   string
	msg       *Message
	content   []byte
	repairs   []Repair
}

// framer turns stdout lines into frames (basic/transports/stdio). Each line is normally one
// frame. A line that starts with '{' or '[' and is not a JSON value on its own opens a
// reassembly: following lines are joined (with '\n') until the brackets balance and the whole
// parses as one JSON object or batch (ParseBatch), which then becomes a single frame with the problem "message split over N lines"
// (so a pretty-printing server's replies are still delivered). The reassembly gives up, turning
// its lines back into individual frames, when a following line is a JSON-RPC message on its own
// (a pretty-printed batch splits its members too),
// is truncated or not UTF-8, when the joined text closes without parsing, or when it exceeds max
// bytes or maxSplitLines lines.
type framer struct {
	max int

	acc      []Line
	accBytes int
	depth    int
	inString bool
	escaped  bool
}

// push feeds one line and returns the frames it completes (possibly none while a reassembly is
// open).
func (f *framer) push(l Line) []framedLine {
	if len(f.acc) == 0 {
		return f.single(l, true)
	}
	if l.Truncated || l.Unterminated || !utf8.Valid(l.Data) || isMessage(l.Data) {
		return append(f.flush(), f.single(l, true)...)
	}
	f.acc = append(f.acc, l)
	f.accBytes += 1 + len(l.Data)
	f.scan(l.Data)
	switch {
	case f.depth < 0 || f.accBytes > f.max || len(f.acc) >= maxSplitLines:
		return f.flush()
	case f.depth == 0:
		joined := f.joined()
		m, err := ParseMessage(joined)
		batch := false
		if err != nil {
			// A batch (an array of messages) written over several lines is one frame too: the
			// reader reads it as its messages where the revision has batches, and as no
			// message elsewhere (Stdio.deliver).
			if _, batch = ParseBatch(joined); !batch {
				return f.flush()
			}
		}
		n := len(f.acc)
		cr := false
		for _, a := range f.acc {
			cr = cr || bytes.HasSuffix(a.Data, []byte("\r"))
		}
		f.reset()
		problems := []string{fmt.Sprintf("message split over %d lines", n)}
		if cr {
			problems = append(problems, ProblemCR)
		}
		if batch {
			problems = append(problems, "not a JSON-RPC message: a JSON array (a batch)")
			return []framedLine{{raw: joined, size: len(joined), problem: strings.Join(problems, "; ")}}
		}
		if m.Kind == KindInvalid {
			problems = append(problems, "not a JSON-RPC message: "+m.Problem)
		}
		return []framedLine{{raw: joined, size: len(joined), problem: strings.Join(problems, "; "), msg: m}}
	}
	return nil
}

// flush ends an open reassembly, turning each of its lines into a frame of its own.
func (f *framer) flush() []framedLine {
	lines := f.acc
	f.reset()
	var out []framedLine
	for _, l := range lines {
		out = append(out, f.single(l, false)...)
	}
	return out
}

func (f *framer) reset() {
	f.acc, f.accBytes, f.depth, f.inString, f.escaped = nil, 0, 0, false, false
}

func (f *framer) joined() []byte {
	out := make([]byte, 0, f.accBytes)
	for i, l := range f.acc {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, l.Data...)
	}
	return out
}

// single classifies one line as a frame, or opens a reassembly when allowed and the line looks
// like the start of a split JSON object.
func (f *framer) single(l Line, mayOpen bool) []framedLine {
	fl := framedLine{raw: l.Data, size: l.Size, truncated: l.Truncated, sha256: l.SHA256}
	var problems []string
	switch {
	case l.Truncated:
		problems = append(problems, fmt.Sprintf("line exceeds --max-frame (%d bytes)", f.max))
	case l.Size == 0:
		problems = append(problems, ProblemBlank)
	case !utf8.Valid(l.Data) && !f.repair(&fl, l):
		problems = append(problems, "invalid UTF-8")
	case fl.msg != nil: // repaired
		if bytes.HasSuffix(l.Data, []byte("\r")) {
			problems = append(problems, ProblemCR)
		}
	default:
		if bytes.HasSuffix(l.Data, []byte("\r")) {
			problems = append(problems, ProblemCR)
		}
		m, err := ParseMessage(l.Data)
		if (err != nil || m.Kind == KindInvalid) && f.repair(&fl, l) {
			break
		}
		switch {
		case err != nil && mayOpen && !l.Unterminated && (l.Data[0] == '{' || l.Data[0] == '[') && f.open(l):
			return nil
		case err != nil:
			problems = append(problems, "not a JSON-RPC message: "+err.Error())
		default:
			fl.msg = m
			if m.Kind == KindInvalid {
				problems = append(problems, "not a JSON-RPC message: "+m.Problem)
			}
		}
	}
	if l.Unterminated {
		problems = append(problems, "line not terminated by a newline (end of output)")
	}
	fl.problem = strings.Join(problems, "; ")
	return []framedLine{fl}
}

// repair reads line l past its wire defects (Repaired): on success fl carries the repaired
// message, its content and the defects, and the line is a message frame (MSG-001 and MSG-002
// judge the defects, not the stdio framing rules).
func (f *framer) repair(fl *framedLine, l Line) bool {
	content, reps, m := Repaired(bytes.TrimSuffix(l.Data, []byte("\r")))
	if m == nil {
		return false
	}
	fl.msg, fl.content, fl.repairs = m, content, reps
	return true
}

// open starts a reassembly with l if its brackets are left open; it reports whether it did.
func (f *framer) open(l Line) bool {
	f.scan(l.Data)
	if f.depth <= 0 {
		f.reset()
		return false
	}
	f.acc = []Line{l}
	f.accBytes = len(l.Data)
	return true
}

// scan updates the bracket depth with b, skipping string contents and escapes.
func (f *framer) scan(b []byte) {
	for _, c := range b {
		switch {
		case f.inString && f.escaped:
			f.escaped = false
		case f.inString && c == '\\':
			f.escaped = true
		case f.inString && c == '"':
			f.inString = false
		case f.inString:
		case c == '"':
			f.inString = true
		case c == '{' || c == '[':
			f.depth++
		case c == '}' || c == ']':
			f.depth--
		}
	}
}

// isMessage reports whether b is, on its own, a well-formed JSON-RPC message.
func isMessage(b []byte) bool {
	m, err := ParseMessage(b)
	return err == nil && m.Kind != KindInvalid
}
