// Package harness is everything that talks to an MCP server under test: the stdio child process
// and Streamable HTTP transports, the frame recorder, JSON-RPC envelope parsing, request building
// and era detection. It never decodes through an SDK: the bytes sent and received are recorded
// first and parsed afterwards, so malformed traffic is observed exactly as it was on the wire.
package harness

import (
	"bytes"
	"net/http"
	"sync"
	"time"
)

// Direction tells which peer wrote a frame: DirClientToServer ("c2s", written by mcp-conform)
// or DirServerToClient ("s2c", written by the server under test).
type Direction string

// The two directions a frame can travel.
const (
	DirClientToServer Direction = "c2s"
	DirServerToClient Direction = "s2c"
)

// Transport names as they appear in results: "stdio" (basic/transports/stdio), "http"
// (basic/transports/streamable-http) and "sse", the deprecated HTTP+SSE transport of
// 2024-11-05 (basic/transports#HTTP with SSE of that revision).
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// HTTPMeta is the HTTP envelope of a frame: for a client frame the request method and the
// request headers sent; for a server frame the response status and response headers. Header
// values the user supplied with --header are replaced by "[redacted]".
type HTTPMeta struct {
	Method  string      `json:"method,omitempty"`
	Status  int         `json:"status,omitempty"`
	Headers http.Header `json:"headers,omitempty"`
}

// SSEMeta describes the Server-Sent Events event that carried a frame: its `event` field
// (empty means the default "message"), its `id` field and whether one was present, and its
// `retry` field in milliseconds when present (-1 otherwise).
type SSEMeta struct {
	Event string `json:"event,omitempty"`
	ID    string `json:"id,omitempty"`
	HasID bool   `json:"hasId,omitempty"`
	Retry int    `json:"retry,omitempty"`
}

// Frame is one unit on the wire: a stdio line (without its newline), an HTTP request or
// response body, or the data of one SSE event. Raw holds the bytes exactly as seen (capped at
// the transport's maximum frame size; Truncated and Size tell the original length).
//
// Method is the JSON-RPC method the frame is (client request or notification) or answers
// (server response, set by correlating the id with the client's requests on the same
// connection); it selects the schema type the frame is validated against.
//
// Problem, when non-empty, is a framing violation the transport found (for example "not a
// JSON-RPC message", "invalid UTF-8", "line exceeds --max-frame", "blank line"); such frames
// are still recorded so the report shows them.
type Frame struct {
	Seq       int           `json:"seq"`
	Dir       Direction     `json:"dir"`
	T         time.Duration `json:"-"`
	Transport string        `json:"transport"`
	Conn      int           `json:"conn"`
	Raw       []byte        `json:"-"`
	Size      int           `json:"size"`
	Truncated bool          `json:"truncated,omitempty"`
	// SHA256, on a truncated stdio frame, is the hex SHA-256 of the whole line the server wrote
	// (Raw keeps only its first TruncatedKeep bytes).
	SHA256  string    `json:"sha256,omitempty"`
	HTTP    *HTTPMeta `json:"http,omitempty"`
	SSE     *SSEMeta  `json:"sse,omitempty"`
	Method  string    `json:"method,omitempty"`
	Problem string    `json:"problem,omitempty"`

	// ReplyTo, on a server frame of the HTTP transport, is the Seq of the client frame (the
	// POST, GET or DELETE) whose HTTP response carried it, so run-wide checks can tell which
	// request's body or SSE stream an event travelled on; 0 elsewhere.
	ReplyTo int `json:"replyTo,omitempty"`

	// Intentional marks a client frame that a scenario made invalid on purpose, so its schema
	// violations are expected rather than a harness bug.
	Intentional bool `json:"intentional,omitempty"`

	// Sentinel marks a client frame the harness sent to prove that no reply to the request before
	// it is coming (Request.Sentinel): the server owes it an answer like any request, but a
	// process that exits on the input before it never "ended the session" with it in flight.
	Sentinel bool `json:"sentinel,omitempty"`

	// Sampled marks a frame kept past the recorder's limits as one of the sample of a flood
	// (Recorder.Admit): the frames between it and the previous sample were counted, not kept.
	Sampled bool `json:"sampled,omitempty"`

	// Content, on a server frame with wire defects the harness read past (Repaired), is the
	// frame as if they were absent, and Repairs names them; both nil on a sound frame. Raw
	// stays what the server sent.
	Content []byte   `json:"-"`
	Repairs []Repair `json:"repairs,omitempty"`

	// Member, on a frame that stands for one message of a JSON-RPC batch frame (MemberFrame), is
	// the message's position in the batch, from 1; its Seq is the batch frame's. 0 on every
	// recorded frame.
	Member int `json:"-"`
}

// Body returns the frame's content as the rules other than the wire rules read it: Content
// when the frame was repaired, else Raw.
func (f *Frame) Body() []byte {
	if f.Content != nil {
		return f.Content
	}
	return f.Raw
}

// Recorder numbers and timestamps every frame of a run, in both directions and over every
// connection, and hands each one to the observers (schema validation, live progress). It is
// safe for concurrent use. Seq starts at 1 and is unique across the whole run; T is the offset
// from the recorder's start.
//
// Memory is bounded by a frame count and a byte budget (see Admit): past either, frames that
// answer no request are counted and sampled, not kept; responses are always kept, so every
// exchange a result cites stays complete.
type Recorder struct {
	mu          sync.Mutex
	start       time.Time
	frames      []*Frame
	observers   []observer
	nextObs     int
	nextConn    int
	limit       int
	byteLimit   int
	bytes       int
	dropped     int
	sampled     int
	sampleBytes int
	dropsBy     map[string]int // drops by method ("" for frames without one), for the sample
}

// DefaultFrameLimit is the number of frames a Recorder keeps before transports stop recording
// frames that answer no request (a server flooding stdout must not exhaust memory).
const DefaultFrameLimit = 50000

// DefaultByteLimit is the recorder's byte budget: once the frames it keeps hold this many bytes
// (Raw plus repaired Content), frames that answer no request are only counted and sampled.
// 24 MiB keeps results.json, which writes each kept frame once, well under 50 MB.
const DefaultByteLimit = 24 << 20

// SampleBudget is how many bytes of frames past the limits the recorder still keeps as a
// sample, so a report shows what a flood looked like and a rare frame amid it is not lost: of
// the frames dropped with each method, the first sampleFirst and then the 32nd, 64th, 128th,
// ..., while their bytes fit.
const SampleBudget = 1 << 20

// sampleFirst is how many dropped frames of each method the sample starts with, and
// sampleMethods how many distinct methods it tells apart (the rest share one count).
const (
	sampleFirst   = 16
	sampleMethods = 256
)

// NewRecorder returns an empty recorder whose time offsets count from start.
func NewRecorder(start time.Time) *Recorder {
	return &Recorder{start: start, limit: DefaultFrameLimit, byteLimit: DefaultByteLimit}
}

// SetLimit changes how many frames the recorder keeps before Admit drops (n >= 1).
func (r *Recorder) SetLimit(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limit = max(n, 1)
}

// SetByteLimit changes the byte budget of the frames the recorder keeps (n >= 1 bytes).
func (r *Recorder) SetByteLimit(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byteLimit = max(n, 1)
}

// frameBytes is what a kept frame costs the byte budget.
func frameBytes(f *Frame) int {
	n := len(f.Raw) + len(f.Content)
	if f.Truncated {
		n = min(len(f.Raw), TruncatedKeep) + len(f.Content)
	}
	return n
}

// Admit decides whether a frame that answers no pending request is recorded. Below the frame
// limit and the byte budget it is (true). Past either, the frame is counted as dropped, and
// kept only as a sample (true, with Sampled set): when it is among the first sampleFirst
// dropped frames of its Method or its drop number there is a power of two, and its bytes fit
// in SampleBudget. Transports call Admit before Record for such frames;
// responses are recorded without asking, so every exchange stays complete.
func (r *Recorder) Admit(f *Frame) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.frames) < r.limit && r.bytes < r.byteLimit {
		return true
	}
	r.dropped++
	// The sample is drawn per method, so a rare notification amid a flood of another (a
	// subscription's acknowledgement among a million log lines) is still kept.
	key := f.Method
	if _, known := r.dropsBy[key]; !known && len(r.dropsBy) >= sampleMethods {
		key = "\x00other"
	}
	if r.dropsBy == nil {
		r.dropsBy = map[string]int{}
	}
	r.dropsBy[key]++
	d := r.dropsBy[key]
	if n := frameBytes(f); (d <= sampleFirst || d&(d-1) == 0) && r.sampleBytes+n <= SampleBudget {
		r.sampleBytes += n
		r.sampled++
		f.Sampled = true
		return true
	}
	return false
}

// Dropped returns how many frames were seen past the limits (see Admit), the sampled ones
// included.
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Sampled returns how many of the Dropped frames were kept as a sample.
func (r *Recorder) Sampled() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sampled
}

// Start returns the instant the recorder's time offsets count from.
func (r *Recorder) Start() time.Time { return r.start }

// NewConn returns a fresh connection number (1, 2, ...) for a transport to stamp on its frames.
func (r *Recorder) NewConn() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextConn++
	return r.nextConn
}

// observer is one OnFrame registration: its key for removal and its function.
type observer struct {
	key int
	fn  func(*Frame)
}

// OnFrame registers fn to be called synchronously with every frame recorded from now on, after
// its Seq and T are set. Observers may annotate nothing on the frame; they keep their own state.
// The returned function removes the registration (idempotent); after it returns fn is not
// called for frames recorded later (a Record already under way may still call it once).
func (r *Recorder) OnFrame(fn func(*Frame)) (remove func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextObs++
	key := r.nextObs
	r.observers = append(r.observers, observer{key: key, fn: fn})
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for i, o := range r.observers {
			if o.key == key {
				r.observers = append(r.observers[:i:i], r.observers[i+1:]...)
				return
			}
		}
	}
}

// Record assigns f its sequence number and time offset, stores it and notifies the observers.
// It returns f for convenience.
func (r *Recorder) Record(f *Frame) *Frame {
	if f.Truncated && len(f.Raw) > TruncatedKeep {
		// An over-long frame is evidence of its own size only: its head is kept, once.
		f.Raw = bytes.Clone(f.Raw[:TruncatedKeep])
	}
	r.mu.Lock()
	f.Seq = len(r.frames) + 1
	f.T = time.Since(r.start)
	if !f.Sampled {
		r.bytes += frameBytes(f)
	}
	if f.Size == 0 {
		f.Size = len(f.Raw)
	}
	r.frames = append(r.frames, f)
	obs := append([]observer{}, r.observers...)
	r.mu.Unlock()
	for _, o := range obs {
		o.fn(f)
	}
	return f
}

// TruncatedKeep is how many bytes of a truncated frame (longer than the transport's maximum
// frame size) the recorder keeps: 64 KiB, enough to show what it was, whatever it cost.
const TruncatedKeep = 64 << 10

// Frames returns a snapshot of every frame recorded so far, in sequence order.
func (r *Recorder) Frames() []*Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Frame(nil), r.frames...)
}

// Len returns the number of frames recorded so far; Frames()[n:] are the frames after a mark n.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.frames)
}

// ProblemSplit starts the Problem of a frame that the stdio reader reassembled from a JSON-RPC
// message the server wrote over several lines ("message split over N lines"): the message is
// delivered, and rule STDIO-001 reports the split.
const ProblemSplit = "message split over"

// ProblemBlank and ProblemCR are the Problems of a blank stdout line and of a line whose
// message is followed by a carriage return (CR LF line endings): no foreign content, since a
// trailing CR is JSON whitespace, which STDIO-002 grades as a warning.
const (
	ProblemBlank = "blank line"
	ProblemCR    = "line ends with CR"
)
