package harness

import (
	"context"
	"net/http"
	"sync"
)

// Stream is an HTTP request to the endpoint whose answer is read in the background
// (OpenStream): an SSE stream the client holds open while it does other things (the GET stream
// of 2025-11-25 basic/transports#Listening for Messages from the Server, a resumption with
// Last-Event-ID), or any other answer, read to its end. Its events are recorded as they come,
// like those of any exchange. Safe for concurrent use.
type Stream struct {
	cancel  context.CancelFunc
	release chan struct{}
	head    chan struct{}
	done    chan struct{}

	mu      sync.Mutex
	meta    *HTTPMeta
	frames  []*Frame
	changed chan struct{} // closed and replaced whenever a frame arrives
	ex      *Exchange
	info    StreamInfo
	closed  bool
}

// OpenStream sends an HTTP request (method, header plus the user's and the session's headers,
// minus omit, and body) as Do does, and reads its answer in the background until the server
// ends it, ctx ends, or Close. Unlike Do, an SSE answer is not concluded after a quiet window:
// it is held open until the caller closes it.
func (h *HTTP) OpenStream(ctx context.Context, method string, header http.Header, omit []string, body []byte) *Stream {
	sctx, cancel := context.WithCancel(ctx)
	s := &Stream{cancel: cancel, release: make(chan struct{}), head: make(chan struct{}),
		done: make(chan struct{}), changed: make(chan struct{})}
	hdr := h.compose(header, omit, false)
	h.carrySession(hdr, omit)
	go func() {
		ex, info := h.roundTrip(sctx, rtSpec{httpMethod: method, header: hdr, body: body, anyResponse: true, held: s})
		s.mu.Lock()
		s.ex, s.info = ex, info
		s.mu.Unlock()
		s.headed(ex) // a request that failed before any reply
		close(s.done)
	}()
	return s
}

// headed records the reply's status and headers (once) and wakes Head.
func (s *Stream) headed(ex *Exchange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.head:
		return
	default:
	}
	if ex != nil {
		s.meta = ex.HTTP
	}
	close(s.head)
}

// released returns the channel closed when the caller releases the stream (Close); nil (never
// ready) on a nil Stream, whose reading is not held.
func (s *Stream) released() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.release
}

// saw records a frame read on the stream and wakes Wait.
func (s *Stream) saw(f *Frame) {
	s.mu.Lock()
	s.frames = append(s.frames, f)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// Head waits for the reply's status and headers and returns them; nil when the request failed
// (Close then gives the exchange and its Err) or ctx ended first.
func (s *Stream) Head(ctx context.Context) *HTTPMeta {
	select {
	case <-s.head:
	case <-ctx.Done():
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// Frames returns the server frames read on the stream so far, in order.
func (s *Stream) Frames() []*Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Frame(nil), s.frames...)
}

// Wait returns the first frame read on the stream (past or future) for which match is true,
// or nil when the stream ended or ctx ended before one came.
func (s *Stream) Wait(ctx context.Context, match func(*Frame) bool) *Frame {
	seen := 0
	for {
		s.mu.Lock()
		frames, changed := s.frames[seen:], s.changed
		seen = len(s.frames)
		s.mu.Unlock()
		for _, f := range frames {
			if match(f) {
				return f
			}
		}
		select {
		case <-changed:
		case <-s.done:
			s.mu.Lock()
			more := len(s.frames) > seen
			s.mu.Unlock()
			if !more {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// Done is closed once the reading of the answer has ended.
func (s *Stream) Done() <-chan struct{} { return s.done }

// Close concludes the stream: reading goes on until the HTTPConfig's QuietWindow passes
// without an event or the server ends the stream, then the client closes it. It returns the
// exchange (the request, the reply's status and headers, every frame read) and how the reading
// ended (EndQuiet: the client closed a stream the server still held open). Close may be called
// more than once; later calls return the same.
func (s *Stream) Close() (*Exchange, StreamInfo) {
	s.mu.Lock()
	first := !s.closed
	s.closed = true
	s.mu.Unlock()
	if first {
		close(s.release)
	}
	<-s.done
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ex, s.info
}

// Drop closes the stream at once, as a lost connection would (2025-11-25
// basic/transports#Sending Messages to the Server: disconnection may occur at any time), and
// returns what Close returns; Close after it returns the same.
func (s *Stream) Drop() (*Exchange, StreamInfo) {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ex, s.info
}
