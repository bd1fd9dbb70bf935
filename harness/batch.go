package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// JSON-RPC batches (JSON-RPC 2.0 section 6), which one revision of the table allows
// (revisions.AllowsBatches: its basic/index#Batching; a stdio line, a Streamable HTTP body and
// an SSE event may carry one). A transport reads a server's batch only on a connection that
// speaks such a revision (StdioConfig.Batches, HTTPConfig.Batches); everywhere else an array
// stays what it is on the wire, a frame that is no JSON-RPC message.

// ParseBatch parses raw as one JSON-RPC batch, strictly: valid UTF-8, one JSON array with no
// trailing data, holding at least one element, every element a JSON object. It returns each
// element parsed as a message (ParseMessage; Raw is the element's bytes, and an element may be
// an invalid message, which the message rules judge) and ok. ok is false for anything else: an
// empty array is no batch (JSON-RPC 2.0 answers it as an Invalid Request), nor is an array
// holding a value that is no object.
func ParseBatch(raw []byte) (members []*Message, ok bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, false
	}
	var elems []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if dec.Decode(&elems) != nil || dec.More() || len(elems) == 0 {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data after the array
	}
	members = make([]*Message, 0, len(elems))
	for _, e := range elems {
		m, err := ParseMessage(e)
		if err != nil {
			return nil, false // an element that is no JSON object
		}
		members = append(members, m)
	}
	return members, true
}

// MemberFrame returns a frame that stands for message m, the element at index i (0-based) of
// batch frame f: a copy of f whose Raw is m's bytes, Member i+1, Method method (the method the
// message is or answers), with no Problem, Content or Repairs. Its Seq is f's: it is never
// recorded, and the frames a result cites are the batch's.
func MemberFrame(f *Frame, i int, m *Message, method string) *Frame {
	c := *f
	c.Raw, c.Size, c.Truncated, c.SHA256 = m.Raw, len(m.Raw), false, ""
	c.Content, c.Repairs, c.Problem = nil, nil, ""
	c.Member, c.Method = i+1, method
	return &c
}

// batchProblem returns the problems of a frame whose bytes are a batch the connection reads
// (ParseBatch): the framing's verdict that it is no JSON-RPC message is dropped, the others
// (a trailing CR, an unterminated line) kept.
func batchProblem(problem string) string {
	var kept []string
	for _, p := range strings.Split(problem, "; ") {
		if p != "" && !strings.HasPrefix(p, "not a JSON-RPC message") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "; ")
}

// BuildBatch joins the messages raws (each one JSON object) into the bytes of one JSON-RPC
// batch: "[" raws joined by "," "]".
func BuildBatch(raws [][]byte) []byte {
	return append(append([]byte("["), bytes.Join(raws, []byte(","))...), ']')
}

// batchWant is what a batch request waits for: the IDKey of each of its requests, in order.
type batchWant []string

// newBatchWant returns what a batch with request ids ids waits for; nil when ids is empty (no
// batch of requests).
func newBatchWant(ids []json.RawMessage) batchWant {
	if len(ids) == 0 {
		return nil
	}
	w := make(batchWant, len(ids))
	for i, id := range ids {
		w[i] = IDKey(id)
	}
	return w
}

// index returns the position of key among the wanted ids whose response has not come yet
// (got[i] nil), -1 when none.
func (w batchWant) index(key string, got []*Frame) int {
	for i, k := range w {
		if k == key && got[i] == nil {
			return i
		}
	}
	return -1
}

// what names the batch in errors: "the batch (ids 1, 2)".
func (w batchWant) what() string {
	return fmt.Sprintf("the batch (ids %s)", strings.Join(w, ", "))
}

// missing names the ids whose response did not come: "2, 3".
func (w batchWant) missing(got []*Frame) string {
	var out []string
	for i, k := range w {
		if got[i] == nil {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// sendBatch writes the batch req and waits, bounded by ctx, for a response to each id of
// req.Batch (Request.Batch): one waiter per request, answered by a line of its own or by a
// member of a batch line (deliverBatch). With req.Sentinel, the sentinel is written after the
// batch: once it is answered and QuietWindow passes, every request still without a response is
// settled as absent (NoReplyError), not after ctx's deadline. Err is the first request's error
// that got no response.
func (s *Stdio) sendBatch(ctx context.Context, req Request) (*Exchange, error) {
	ex := &Exchange{Responses: make([]*Frame, len(req.Batch))}
	want := newBatchWant(req.Batch)
	methods := batchRequests(req)
	s.mu.Lock()
	if err := s.unusable(want.what()); err != nil {
		s.mu.Unlock()
		ex.Err = err
		return ex, err
	}
	ws := make([]*waiter, len(req.Batch))
	for i, id := range req.Batch {
		w := &waiter{key: want[i], id: id, ex: &Exchange{}, done: make(chan struct{}), sent: time.Now(), corr: Correlation{ID: want[i]}}
		if m := methods[w.key]; m != nil {
			w.method, w.corr = m.Method, CorrelationOf(m.Raw, w.key)
		}
		ws[i] = w
		s.pending = append(s.pending, w)
		s.sentMethods[w.key] = w.method
	}
	s.mu.Unlock()
	if _, err := s.write(ctx, req, ex); err != nil {
		for _, w := range ws {
			_, _ = s.writeFailed(ctx, w, err)
		}
	}
	seen := map[*Frame]bool{}
	var absent *NoReplyError
	for i, w := range ws {
		switch {
		case i == 0 && req.Sentinel != nil:
			// Absence is proved by the sentinel, not by the timeout: written after the
			// batch, its answer means the batch was read (awaitOrSentinel).
			_, _ = s.awaitOrSentinel(ctx, w, *req.Sentinel)
			errors.As(w.ex.Err, &absent)
		case absent != nil:
			// The other requests of the batch had the same quiet window after the sentinel.
			s.settle(w, &NoReplyError{What: waiterWhat(w), Sentinel: absent.Sentinel, Window: absent.Window}, nil)
			_, _ = s.await(ctx, w)
		default:
			_, _ = s.await(ctx, w)
		}
		for _, f := range w.ex.Frames {
			if !seen[f] {
				seen[f] = true
				ex.Frames = append(ex.Frames, f)
			}
		}
		ex.Responses[i] = w.ex.Response
		if r := w.ex.Response; r != nil && (ex.Response == nil || r.Seq > ex.Response.Seq) {
			ex.Response = w.ex.Frames[len(w.ex.Frames)-1] // the recorded frame, a batch's included
		}
		if ex.Err == nil && w.ex.Err != nil {
			ex.Err = w.ex.Err
		}
	}
	sort.Slice(ex.Frames, func(a, b int) bool { return ex.Frames[a].Seq < ex.Frames[b].Seq })
	return ex, ex.Err
}

// deliverBatch records f, a batch line of a connection that reads batches, and hands each of
// its members to the request it answers or accompanies, as deliver does for one message: a
// response answers the pending request with its id (its Response is the MemberFrame), a
// request of the server's is answered, and a frame that answered nothing is unsolicited or
// goes with the request its other members accompany.
func (s *Stdio) deliverBatch(f *Frame, members []*Message) {
	type claimed struct {
		w *waiter
		i int
	}
	var got []claimed
	var target *waiter
	unanswered := false
	s.mu.Lock()
	for i, m := range members {
		switch {
		case isResponseShaped(m):
			if w := s.claim(responseKey(m)); w != nil {
				got = append(got, claimed{w, i})
			} else {
				unanswered = true
			}
		case target == nil:
			target = s.accompanied(m)
		}
	}
	s.mu.Unlock()
	if !s.keep(f, len(got) > 0) {
		return
	}
	defer s.mu.Unlock()
	for _, m := range members {
		if m.Kind == KindRequest {
			go s.answer(m)
		}
	}
	for _, c := range got {
		c.w.ex.Frames = append(c.w.ex.Frames, f)
		c.w.ex.Response = MemberFrame(f, c.i, members[c.i], c.w.method)
		c.w.finished = true
		close(c.w.done)
	}
	switch {
	case len(got) > 0 && !unanswered:
	case target != nil && !target.finished && !target.claimed && len(got) == 0:
		target.ex.Frames = append(target.ex.Frames, f)
	default:
		s.unsolicited = append(s.unsolicited, f)
	}
}

// SetBatches says whether s reads a stdout line that is a JSON-RPC batch as its messages from
// now on (StdioConfig.Batches): set when the revision its connection speaks is settled.
func (s *Stdio) SetBatches(on bool) { s.batches.Store(on) }

// SetBatches says whether h reads a body or SSE event that is a JSON-RPC batch as its messages
// from now on (HTTPConfig.Batches).
func (h *HTTP) SetBatches(on bool) { h.batches.Store(on) }

// batchOf returns the members of server frame f when the connection reads batches and f, which
// is no single message (msg nil), is a batch (ParseBatch); nil otherwise.
func (h *HTTP) batchOf(f *Frame, msg *Message) []*Message {
	if !h.batches.Load() || msg != nil || f.Truncated {
		return nil
	}
	members, ok := ParseBatch(f.Raw)
	if !ok {
		return nil
	}
	return members
}

// answerAll answers the server's requests among members, the messages of a batch it sent.
func (h *HTTP) answerAll(members []*Message) {
	for _, m := range members {
		if m.Kind == KindRequest {
			go h.answer(m)
		}
	}
}

// batchMethods returns the method of each request of req.Batch, in order ("" where the batch
// holds no request with that id).
func batchMethods(req Request) []string {
	if len(req.Batch) == 0 {
		return nil
	}
	byKey := batchRequests(req)
	out := make([]string, len(req.Batch))
	for i, id := range req.Batch {
		if m := byKey[IDKey(id)]; m != nil {
			out[i] = m.Method
		}
	}
	return out
}

// batchRequests maps the IDKey of each request in the batch req.Raw to its message.
func batchRequests(req Request) map[string]*Message {
	byKey := map[string]*Message{}
	if members, ok := ParseBatch(req.Raw); ok {
		for _, m := range members {
			if m.HasID {
				byKey[IDKey(m.ID)] = m
			}
		}
	}
	return byKey
}

// takeResponses takes the responses among msgs, the messages of server frame f (a batch's
// members when inBatch, else f's one message), that answer the request sp, and returns the
// frame that completes its answer, nil when f does not. For a batch request (sp.batch) each
// wanted id fills ex.Responses (a member as its MemberFrame) and f is returned once every id
// has its response. For one request, a batch member answering its id (or, as for a single
// frame, an error without id) is returned as its MemberFrame.
func takeResponses(f *Frame, msgs []*Message, inBatch bool, sp rtSpec, ex *Exchange) *Frame {
	if sp.batch == nil {
		want := IDKey(sp.id)
		for i, m := range msgs {
			if !isResponseShaped(m) {
				continue
			}
			key := responseKey(m)
			if sp.anyResponse || (sp.id != nil && key == want) || ((key == "" || key == "null") && m.Kind != KindResult) {
				return MemberFrame(f, i, m, sp.rpcMethod)
			}
		}
		return nil
	}
	took := false
	for i, m := range msgs {
		if !isResponseShaped(m) {
			continue
		}
		j := sp.batch.index(responseKey(m), ex.Responses)
		if j < 0 {
			continue
		}
		r := f
		if inBatch {
			r = MemberFrame(f, i, m, sp.batchMethods[j])
		} else {
			f.Method = sp.batchMethods[j]
		}
		ex.Responses[j], took = r, true
	}
	for _, r := range ex.Responses {
		if r == nil {
			return nil
		}
	}
	if !took {
		return nil
	}
	return f
}
