package client

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
)

// HeldStream is an HTTP GET stream the scenario holds open while it does other things
// (OpenGET): the stream of 2025-11-25 basic/transports#Listening for Messages from the Server,
// or a resumption with Last-Event-ID (#Resumability and Redelivery). Before CloseStreams, S
// is being read; after, Ex is the exchange (the GET, the reply's status and headers, every
// event) and Info how its reading ended.
type HeldStream struct {
	S           *harness.Stream
	LastEventID string // the Last-Event-ID the GET carried, "" for none
	Ex          *harness.Exchange
	Info        harness.StreamInfo
}

// OpenGET sends an HTTP GET to the endpoint with Accept: text/event-stream, the session's
// headers (Mcp-Session-Id, MCP-Protocol-Version) and, when lastEventID is not "", Last-Event-ID;
// waits (up to --timeout) for the reply's status and headers; and keeps reading the answer in
// the background until CloseStreams. A 405, or any answer that is no stream, is read to its
// end and kept the same way. The stream is bounded by a deadline of its own, so a scenario
// that never closes it still ends. An error is returned only when no HTTP reply came.
func (w *Session) OpenGET(ctx context.Context, lastEventID string) (*HeldStream, error) {
	h, ok := w.Conn.Endpoint()
	if !ok {
		return nil, fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := http.Header{"Accept": {"text/event-stream"}}
	if lastEventID != "" {
		hdr.Set("Last-Event-ID", lastEventID)
	}
	// The stream outlives this step: bounded by its own deadline, not the step's.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 6*w.Timeout()+4*w.Opts.QuietWindow)
	s := h.OpenStream(sctx, http.MethodGet, hdr, nil, nil)
	go func() {
		<-s.Done()
		cancel()
	}()
	g := &HeldStream{S: s, LastEventID: lastEventID}
	w.streamsMu.Lock()
	w.Held = append(w.Held, g)
	w.streamsMu.Unlock()
	hctx, hcancel := context.WithTimeout(ctx, w.Timeout())
	defer hcancel()
	if s.Head(hctx) == nil {
		ex, _ := w.closeHeld(g)
		if ex != nil && ex.Err != nil {
			return g, ex.Err
		}
		return g, fmt.Errorf("no HTTP reply to the GET within %s (--timeout)", w.Timeout())
	}
	return g, nil
}

// Listening reports whether the server answered g's GET with a 2xx text/event-stream: a stream
// it had set up for the session's messages (2025-11-25 basic/transports#Listening for Messages
// from the Server) by the time OpenGET returned, since the reply's head came first. A 405, any
// other answer that is no stream, and a GET that got no HTTP reply are false.
func (g *HeldStream) Listening() bool {
	// OpenGET returns only once the head came or the reading ended, so Head does not block.
	m := g.S.Head(context.Background())
	if m == nil || m.Status/100 != 2 {
		return false
	}
	mt, _, _ := mime.ParseMediaType(m.Headers.Get("Content-Type"))
	return mt == "text/event-stream"
}

// Ended reports whether the reading of g has ended: the server ended the stream (or its
// deadline passed) or CloseStreams closed it.
func (g *HeldStream) Ended() bool {
	select {
	case <-g.S.Done():
		return true
	default:
		return false
	}
}

// SettleHeld waits, for each GET stream the scenario holds (OpenGET), until one quiet window
// passes without an event on it or its reading ends, all within --timeout, so that what the
// server sent there in answer to what the scenario just did has been recorded; the streams stay
// open. The POST replies the scenario waited for are the sentinel, as for CloseStreams.
func (w *Session) SettleHeld(ctx context.Context) {
	w.streamsMu.Lock()
	held := append([]*HeldStream(nil), w.Held...)
	w.streamsMu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	for _, g := range held {
		for dctx.Err() == nil {
			last := 0
			if fs := g.S.Frames(); len(fs) > 0 {
				last = fs[len(fs)-1].Seq
			}
			qctx, qcancel := context.WithTimeout(dctx, w.Opts.QuietWindow)
			f := g.S.Wait(qctx, func(f *harness.Frame) bool { return f.Seq > last })
			qcancel()
			if f == nil {
				break
			}
		}
	}
}

// CloseStreams concludes every GET stream the scenario holds (OpenGET): each is read until one
// quiet window passes without an event (the replies the scenario waited for before this call
// are the sentinel: whatever the server sent with them has arrived by then) or the server
// ends it, then closed; its exchange is noted.
func (w *Session) CloseStreams() {
	w.streamsMu.Lock()
	held := append([]*HeldStream(nil), w.Held...)
	w.streamsMu.Unlock()
	for _, g := range held {
		_, _ = w.closeHeld(g)
	}
}

// closeHeld closes g once and notes its exchange.
func (w *Session) closeHeld(g *HeldStream) (*harness.Exchange, harness.StreamInfo) {
	w.streamsMu.Lock()
	done := g.Ex != nil
	w.streamsMu.Unlock()
	if done {
		return g.Ex, g.Info
	}
	ex, info := g.S.Close()
	w.streamsMu.Lock()
	g.Ex, g.Info = ex, info
	w.streamsMu.Unlock()
	w.Note(ex)
	return ex, info
}

// SessionIDs opens n connections of its own, each initialised with the revision under test
// (2025-11-25 basic/lifecycle#Initialization), and returns the Mcp-Session-Id each
// InitializeResult carried ("" when none) with the seqs of those exchanges. A handshake that
// fails is a *PreconditionFailed naming LEG-001.
func (w *Session) SessionIDs(ctx context.Context, n int) (ids []string, frames []int, err error) {
	for i := 0; i < n; i++ {
		t, err := w.Env.Dial(ctx, w.Target.Revision)
		if err != nil {
			return ids, frames, fmt.Errorf("cannot open a connection: %w", err)
		}
		w.Own = append(w.Own, t)
		e, ok := t.Endpoint()
		if !ok {
			return ids, frames, fmt.Errorf("this step needs an HTTP connection")
		}
		cctx, cancel := context.WithTimeout(ctx, w.Timeout())
		hs, herr := harness.Initialize(cctx, t, w.Env.IDs(), w.Target.Revision)
		cancel()
		if hs != nil && hs.Exchange != nil {
			w.Note(hs.Exchange)
			frames = append(frames, exchangeSeqs(hs.Exchange)...)
		}
		if herr != nil {
			return ids, frames, &PreconditionFailed{What: fmt.Sprintf("initialize %d of %d failed: %v", i+1, n, herr), Rule: "LEG-001"}
		}
		ids = append(ids, e.Session().ID)
	}
	return ids, frames, ctx.Err()
}

// exchangeSeqs returns the seqs of ex's request and of every frame read for it.
func exchangeSeqs(ex *harness.Exchange) []int {
	var out []int
	if ex.Sent != nil {
		out = append(out, ex.Sent.Seq)
	}
	for _, f := range ex.Frames {
		out = append(out, f.Seq)
	}
	return out
}

// DroppedStream is a POST whose SSE reply the client dropped after its first event with an
// id (PostAndDrop): the exchange as far as it was read, the id of the request, and the id of
// that event ("" when none came: the reply was JSON, or its events carried no id).
type DroppedStream struct {
	Ex          *harness.Exchange
	ReqID       string
	LastEventID string
}

// PostAndDrop POSTs req and, as soon as its SSE reply has carried an event with an id, drops
// the connection (2025-11-25 basic/transports#Sending Messages to the Server: disconnection
// may occur at any time), as a client that lost it would. A reply that is JSON, or an SSE
// stream whose events carry no id, is read to its end (up to --timeout); LastEventID is then
// "". The dropped stream is kept in Dropped; resume it with OpenGET(ctx, LastEventID).
func (w *Session) PostAndDrop(ctx context.Context, req harness.Request) (*DroppedStream, error) {
	h, ok := w.Conn.Endpoint()
	if !ok {
		return nil, fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := req.Header.Clone()
	if hdr == nil {
		hdr = http.Header{}
	}
	hdr.Set("Content-Type", "application/json")
	hdr.Set("Accept", "application/json, text/event-stream")
	sctx, cancel := context.WithTimeout(ctx, w.Timeout())
	defer cancel()
	s := h.OpenStream(sctx, http.MethodPost, hdr, req.Omit, req.Raw)
	first := s.Wait(sctx, func(f *harness.Frame) bool { return f.SSE != nil && f.SSE.HasID })
	ex, _ := s.Drop()
	d := &DroppedStream{Ex: ex, ReqID: string(req.ID)}
	if first != nil {
		d.LastEventID = first.SSE.ID
	}
	w.streamsMu.Lock()
	w.Dropped = append(w.Dropped, d)
	w.streamsMu.Unlock()
	w.Note(ex)
	if ex == nil || ex.HTTP == nil {
		if ex != nil && ex.Err != nil {
			return d, ex.Err
		}
		return d, fmt.Errorf("no HTTP reply to the POST within %s (--timeout)", w.Timeout())
	}
	return d, ctx.Err()
}

// PostedResponse is a JSON-RPC response the client POSTed (its answer to a server request,
// basic/transports#Sending Messages to the Server) and the server frames of the HTTP reply to
// that POST (one, whose HTTP meta has the status; none when no reply came).
type PostedResponse struct {
	Sent  *harness.Frame
	Reply []*harness.Frame
}

// PostedResponses returns every JSON-RPC response the client POSTed on the scenario's
// connection, in order, each with its reply. Answers are POSTed in the background while the
// server's request is handled, so a reply still in flight is waited for, up to Timeout; one
// that does not come by then is returned without a reply.
func (w *Session) PostedResponses(ctx context.Context) []PostedResponse {
	if w.Conn == nil {
		return nil
	}
	conn := w.Conn.Conn()
	replied := make(chan struct{}, 1)
	remove := w.Env.Recorder().OnFrame(func(f *harness.Frame) {
		if f.Conn == conn && f.Dir == harness.DirServerToClient && f.ReplyTo != 0 {
			select {
			case replied <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	deadline := time.NewTimer(w.Timeout())
	defer deadline.Stop()
	for {
		posts, pending := postedResponses(w.Conn.Frames())
		if pending == 0 {
			return posts
		}
		select {
		case <-replied:
		case <-deadline.C:
			return posts
		case <-ctx.Done():
			return posts
		}
	}
}

// postedResponses finds the client's POSTed responses in a connection's frames and their
// replies; pending counts those without a reply yet.
func postedResponses(frames []*harness.Frame) (posts []PostedResponse, pending int) {
	at := map[int]int{}
	for _, f := range frames {
		switch {
		case f.Dir == harness.DirClientToServer && f.HTTP != nil && f.HTTP.Method == http.MethodPost:
			if m, err := harness.ParseMessage(f.Raw); err == nil && (m.Kind == harness.KindResult || m.Kind == harness.KindError) {
				at[f.Seq] = len(posts)
				posts = append(posts, PostedResponse{Sent: f})
			}
		case f.Dir == harness.DirServerToClient && f.ReplyTo != 0:
			if i, ok := at[f.ReplyTo]; ok {
				posts[i].Reply = append(posts[i].Reply, f)
			}
		}
	}
	for _, p := range posts {
		if len(p.Reply) == 0 {
			pending++
		}
	}
	return posts, pending
}
