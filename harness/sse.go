package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSSEProblems bounds how many problems an SSEReader keeps (Problems), so a hostile stream
// cannot grow memory through them.
const maxSSEProblems = 100

// SSEEvent is one dispatched Server-Sent Events event (WHATWG HTML, "event stream
// interpretation"). Event is the `event` field ("" when absent, meaning "message"). Data is the
// `data` fields joined with "\n", capped at the reader's maximum: Size is its real length in
// bytes and Truncated reports Size > len(Data). ID and HasID give the `id` field of this event's
// block, if one was present (an id containing NUL is ignored, as the standard says). Retry is the
// `retry` field of this block in milliseconds, -1 when there was none (or it was not all
// digits). Lines counts the lines of the block, comments included, the blank line excluded.
// Problem lists strictness findings for the block and any found since the previous event
// ("invalid UTF-8", "event data exceeds --max-frame (N bytes)"), joined by "; ".
type SSEEvent struct {
	Event     string
	Data      string
	ID        string
	HasID     bool
	Retry     int
	Lines     int
	Size      int
	Truncated bool
	Problem   string
}

// SSEReader parses a text/event-stream strictly, in bounded memory: lines end with CRLF, CR or
// LF; a leading byte order mark is skipped; lines starting with ':' are comments; a field
// without a colon has an empty value and one space after the colon is dropped; `event`, `data`,
// `id` and `retry` are interpreted, other fields ignored; a blank line dispatches the event
// unless its data buffer is empty; an event left unfinished at end of stream is not dispatched
// (see Leftover). At most max bytes of an event's data and of any line are kept. It is not safe
// for concurrent use.
type SSEReader struct {
	br    *bufio.Reader
	max   int
	limit int // bytes kept per line

	line      []byte
	first     bool
	skipLF    bool
	err       error
	comments  int
	problems  []string
	leftover  *SSEEvent
	truncLine bool

	// the event block being read
	data     []byte
	dataSize int // bytes in the data buffer, LFs included
	event    string
	id       string
	hasID    bool
	retry    int
	lines    int
	pending  []string // problems to attach to the next event
	anyField bool     // a non-comment line was read in this block
}

// NewSSEReader returns a reader of the event stream r keeping at most max bytes of event data
// (max <= 0 means DefaultMaxFrame).
func NewSSEReader(r io.Reader, max int) *SSEReader {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	return &SSEReader{br: bufio.NewReaderSize(r, 32<<10), max: max, limit: max + 64, first: true, retry: -1}
}

// Next returns the next dispatched event. It returns io.EOF at the end of the stream (after
// which Leftover reports any unfinished event), or the read error that ended it.
func (r *SSEReader) Next() (SSEEvent, error) {
	for {
		if r.err != nil {
			return SSEEvent{}, r.err
		}
		size, err := r.readLine()
		if err != nil {
			if size > 0 {
				r.field(size) // a last line without its line ending belongs to the unfinished block
			}
			r.finish()
			r.err = err
			return SSEEvent{}, err
		}
		if size == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		r.field(size)
	}
}

// Problems returns the problems found so far (at most 100), in order, each once per event it is
// attached to, including those attached to events.
func (r *SSEReader) Problems() []string { return append([]string(nil), r.problems...) }

// Comments returns how many comment lines (keep-alives) were read so far.
func (r *SSEReader) Comments() int { return r.comments }

// Leftover returns, once Next has returned an error, what the stream left unfinished: the event
// whose block was not ended by a blank line (Problem says it was discarded), or an event with
// empty data carrying problems found after the last dispatched event. ok is false when there is
// nothing.
func (r *SSEReader) Leftover() (ev SSEEvent, ok bool) {
	if r.leftover == nil {
		return SSEEvent{}, false
	}
	return *r.leftover, true
}

// readLine reads one line into r.line (at most r.limit bytes kept) and returns its real size.
// At end of input a partial line is returned with the error.
func (r *SSEReader) readLine() (int, error) {
	r.line = r.line[:0]
	r.truncLine = false
	size := 0
	for {
		if r.skipLF {
			b, err := r.br.Peek(1)
			if err != nil {
				return 0, err
			}
			r.skipLF = false
			if b[0] == '\n' {
				_, _ = r.br.Discard(1)
			}
		}
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				r.truncLine = size > len(r.line)
				return r.stripBOM(size), err
			}
		}
		chunk, _ := r.br.Peek(r.br.Buffered())
		i := bytes.IndexAny(chunk, "\r\n")
		end := len(chunk)
		if i >= 0 {
			end = i
		}
		if room := r.limit - len(r.line); room > 0 {
			r.line = append(r.line, chunk[:min(room, end)]...)
		}
		size += end
		if i < 0 {
			_, _ = r.br.Discard(end)
			continue
		}
		r.skipLF = chunk[i] == '\r'
		_, _ = r.br.Discard(i + 1)
		r.truncLine = size > len(r.line)
		return r.stripBOM(size), nil
	}
}

// stripBOM drops a byte order mark opening the stream from the first line.
func (r *SSEReader) stripBOM(size int) int {
	if r.first {
		r.first = false
		if bytes.HasPrefix(r.line, []byte("\xEF\xBB\xBF")) {
			r.line = r.line[3:]
			size -= 3
		}
	}
	return size
}

// field interprets the non-blank line in r.line.
func (r *SSEReader) field(size int) {
	r.lines++
	line := r.line
	check := line
	if r.truncLine {
		check = trimPartialRune(check)
	}
	if !utf8.Valid(check) {
		r.problem("invalid UTF-8")
	}
	if line[0] == ':' {
		r.comments++
		return
	}
	r.anyField = true
	name, value := line, []byte(nil)
	valueSize := 0
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		valueSize = size - i - 1
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
			valueSize--
		}
	}
	switch string(name) {
	case "event":
		r.event = string(value)
	case "data":
		if room := r.max - len(r.data); room > 0 {
			r.data = append(r.data, value[:min(room, len(value))]...)
		}
		r.dataSize += valueSize
		if room := r.max - len(r.data); room > 0 {
			r.data = append(r.data, '\n')
		}
		r.dataSize++
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id, r.hasID = string(value), true
		}
	case "retry":
		if n, err := strconv.Atoi(string(value)); err == nil && len(value) > 0 && allDigits(value) {
			r.retry = n
		}
	}
}

// dispatch ends the current block; it returns the event when its data buffer is not empty.
func (r *SSEReader) dispatch() (SSEEvent, bool) {
	if r.dataSize == 0 {
		pending := r.pending // carried to the next event
		r.resetBlock()
		r.pending = pending
		return SSEEvent{}, false
	}
	ev := r.build()
	r.resetBlock()
	return ev, true
}

// build makes the event of the current block, dropping the data buffer's final LF.
func (r *SSEReader) build() SSEEvent {
	data := r.data
	size := r.dataSize
	if size > 0 {
		size--
		if len(data) > size {
			data = data[:size]
		}
	}
	ev := SSEEvent{Event: r.event, Data: string(data), ID: r.id, HasID: r.hasID, Retry: r.retry,
		Lines: r.lines, Size: size, Truncated: size > len(data)}
	problems := r.pending
	if ev.Truncated {
		p := fmt.Sprintf("event data exceeds --max-frame (%d bytes)", r.max)
		problems = append(problems, p)
		r.record(p)
	}
	ev.Problem = strings.Join(problems, "; ")
	return ev
}

// finish sets the leftover at end of stream.
func (r *SSEReader) finish() {
	if r.dataSize == 0 && !r.anyField && len(r.pending) == 0 {
		return
	}
	ev := r.build()
	if r.dataSize > 0 || r.anyField {
		p := "stream ended before the event's blank line (event discarded)"
		r.record(p)
		if ev.Problem != "" {
			ev.Problem += "; "
		}
		ev.Problem += p
	}
	r.leftover = &ev
	r.resetBlock()
}

func (r *SSEReader) resetBlock() {
	r.data, r.dataSize, r.event, r.id, r.hasID, r.retry, r.lines, r.pending, r.anyField =
		r.data[:0], 0, "", "", false, -1, 0, nil, false
}

// problem notes p for the current block (once) and in the reader's list.
func (r *SSEReader) problem(p string) {
	for _, q := range r.pending {
		if q == p {
			return
		}
	}
	r.pending = append(r.pending, p)
	r.record(p)
}

func (r *SSEReader) record(p string) {
	if len(r.problems) < maxSSEProblems {
		r.problems = append(r.problems, p)
	}
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// trimPartialRune drops an incomplete UTF-8 sequence cut off at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}
