package checks

import (
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// The legacy Streamable HTTP checks (2025-03-26..2025-11-25 basic/transports) over what a
// scenario recorded: the replies to its POSTs and the GET streams it held.

// EndpointServesGET grades LHTTP-001 (basic/transports#Streamable HTTP: one MCP endpoint
// supports both POST and GET): the endpoint that served the scenario's POSTs answers a GET
// to the same URL as an MCP endpoint does, which 404 Not Found denies (a 405 says the endpoint
// offers no stream, which #Listening for Messages from the Server allows; what else a GET may
// get is LHTTP-007's). meta is the GET's reply, frames the GET's exchange.
func EndpointServesGET(meta *harness.HTTPMeta, frames []int) *client.Mismatch {
	if meta.Status != http.StatusNotFound {
		return nil
	}
	return &client.Mismatch{Expected: "the MCP endpoint that served the POSTs to answer GET too (an SSE stream or 405)",
		Actual: "HTTP 404 Not Found to a GET of the same URL", Frames: frames}
}

// GETStreamOr405 grades LHTTP-007 (basic/transports#Listening for Messages from the Server):
// a GET on the endpoint gets Content-Type: text/event-stream or HTTP 405. It returns the
// reason the rule cannot be judged when the GET got 404 (the endpoint does not serve GET,
// LHTTP-001's defect), and a Mismatch for any other answer.
func GETStreamOr405(meta *harness.HTTPMeta, frames []int) (untestable string, m *client.Mismatch) {
	ct := meta.Headers.Get("Content-Type")
	switch {
	case meta.Status == http.StatusMethodNotAllowed:
		return "", nil
	case meta.Status/100 == 2 && MediaType(ct) == "text/event-stream":
		return "", nil
	case meta.Status == http.StatusNotFound:
		return "the GET got 404 Not Found: the endpoint does not serve GET, which LHTTP-001 judges", nil
	}
	return "", &client.Mismatch{Expected: "Content-Type: text/event-stream or HTTP 405 Method Not Allowed in reply to a GET",
		Actual: fmt.Sprintf("HTTP %d with Content-Type %q", meta.Status, ct), Frames: frames}
}

// Accepted202 grades LHTTP-002 (basic/transports#Sending Messages to the Server, 4): a POSTed
// notification or response the server accepts gets 202 Accepted with no body; one it cannot
// accept gets an HTTP error status (4xx or 5xx, any body). status and bodyBytes describe the
// reply to the POST; frames are its exchange.
func Accepted202(what string, status, bodyBytes int, frames []int) *client.Mismatch {
	switch {
	case status >= 400:
		return nil
	case status == http.StatusAccepted && bodyBytes == 0:
		return nil
	}
	return &client.Mismatch{Expected: "202 Accepted with no body for the accepted " + what + " (or an HTTP error status when refused)",
		Actual: fmt.Sprintf("HTTP %d with %d body bytes", status, bodyBytes), Frames: frames}
}

// ResponsesAccepted grades LHTTP-002 on the JSON-RPC responses the client POSTed (its answers
// to the server's requests): each is judged as Accepted202 judges a notification. A POST
// without an HTTP reply (a transport error, or none within --timeout) shows no status and is
// not judged. The first broken one is returned; nil when every one was accepted with 202 and
// no body or refused with an error status, or when there were none.
func ResponsesAccepted(posts []client.PostedResponse) *client.Mismatch {
	for _, p := range posts {
		if len(p.Reply) == 0 || p.Reply[0].HTTP == nil {
			continue
		}
		body, frames := 0, []int{p.Sent.Seq}
		for _, f := range p.Reply {
			body += f.Size
			frames = append(frames, f.Seq)
		}
		if m := Accepted202("response", p.Reply[0].HTTP.Status, body, frames); m != nil {
			return m
		}
	}
	return nil
}

// DistinctSessionIDs grades LHTTP-013 (basic/transports#Session Management: a session id
// SHOULD be globally unique and cryptographically secure) on the ids a server issued to n
// sessions, in issue order: every id distinct, at least 16 characters, and no two
// consecutive ids sequential (the same but for a number that grew by at most a million, the
// mark of a counter or a clock). na is the reason the rule does not apply (no id issued).
func DistinctSessionIDs(ids []string, frames []int) (na string, m *client.Mismatch) {
	if len(ids) == 0 || ids[0] == "" {
		return "the server issued no Mcp-Session-Id with its InitializeResult: it does not use sessions", nil
	}
	seen := map[string]int{}
	for i, id := range ids {
		if id == "" {
			return "", &client.Mismatch{Expected: "an Mcp-Session-Id with every InitializeResult", Actual: fmt.Sprintf("session %d got none", i+1), Frames: frames}
		}
		if j, dup := seen[id]; dup {
			return "", &client.Mismatch{Expected: "a distinct session id for each session", Actual: fmt.Sprintf("sessions %d and %d both got %q", j+1, i+1, id), Frames: frames}
		}
		seen[id] = i
		if len(id) < 16 {
			return "", &client.Mismatch{Expected: "session ids of at least 16 characters (too short to be cryptographically random otherwise)", Actual: fmt.Sprintf("%q (%d characters)", id, len(id)), Frames: frames}
		}
	}
	sequential := 0
	for i := 1; i < len(ids); i++ {
		if counted(ids[i-1], ids[i]) {
			sequential++
		}
	}
	if sequential > 0 && 2*sequential >= len(ids)-1 {
		return "", &client.Mismatch{Expected: "unpredictable session ids (globally unique and cryptographically secure)",
			Actual: fmt.Sprintf("%d of %d consecutive ids differ only by a growing number (%q, then %q)", sequential, len(ids)-1, ids[0], ids[1]), Frames: frames}
	}
	return "", nil
}

// counted reports whether b is a with a number in it grown by 1 to a million: the parts of a
// and b between their common prefix and suffix are both decimal or hexadecimal numbers.
func counted(a, b string) bool {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	// Back up to the start of the number the ids differ in.
	for p > 0 && isHex(a[p-1]) {
		p--
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for s > 0 && isHex(a[len(a)-s]) {
		s--
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	for _, base := range []int{10, 16} {
		x, okA := new(big.Int).SetString(ma, base)
		y, okB := new(big.Int).SetString(mb, base)
		if !okA || !okB {
			continue
		}
		d := new(big.Int).Sub(y, x)
		if d.Sign() > 0 && d.Cmp(big.NewInt(1_000_000)) <= 0 {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0
}

// SSEStream is one SSE stream a scenario read: the exchange (the request, then every event as
// a frame), how its reading ended, and whether it is a GET stream (else a POST's reply).
type SSEStream struct {
	Ex   *harness.Exchange
	Info harness.StreamInfo
	GET  bool
}

// PrimingEvent grades LHTTP-004 (2025-11-25 basic/transports#Sending Messages to the Server,
// 6: an SSE stream the server initiates SHOULD start with an event of an event id and empty
// data) on the SSE replies to the scenario's POSTs (the sentence is about those; GET streams
// are left out). na is the reason when no POST got an SSE stream.
func PrimingEvent(streams []SSEStream) (na string, m *client.Mismatch) {
	n := 0
	for _, st := range streams {
		if st.GET || !st.Info.SSE || len(st.Ex.Frames) == 0 {
			continue
		}
		n++
		f := st.Ex.Frames[0]
		if f.SSE == nil || (f.Size == 0 && st.Info.Events == 0) {
			continue // the stream carried no event at all: nothing was initiated to prime
		}
		if !f.SSE.HasID || f.Size != 0 {
			actual := "an event without an id"
			if f.SSE.HasID {
				actual = fmt.Sprintf("an event with id %q and data %s", f.SSE.ID, client.Short(f.Raw))
			}
			return "", &client.Mismatch{Expected: "the SSE stream to open with a priming event (an event id and empty data)",
				Actual: "the stream opened with " + actual, Frames: ExchangeSeqs(st.Ex)}
		}
	}
	if n == 0 {
		return "the server opened no SSE stream in this scenario (every reply was application/json)", nil
	}
	return "", nil
}

// ResponseEndsStream grades LHTTP-006 (basic/transports#Sending Messages to the Server, 6:
// the SSE stream of a POSTed request SHOULD eventually include its response, and the server
// SHOULD terminate it after the response) on the POST streams of a scenario. A stream the
// server closed early after an event with an id and a retry field (2025-11-25 polling:
// the client resumes it with GET) is untestable here. Streams whose End was not kept ("") are
// left out. na is the reason when no POST was answered with an SSE stream.
func ResponseEndsStream(streams []SSEStream) (na, untestable string, m *client.Mismatch) {
	n := 0
	for _, st := range streams {
		if st.GET || !st.Info.SSE || st.Info.End == "" {
			continue
		}
		n++
		switch {
		case st.Ex.Response == nil && withEventID(st.Ex):
			return "", "the server closed an SSE stream before the response after an event id, so the response may come when the client resumes it: LHTTP-005 judges the close (a retry field), LHTTP-019 the resumption", nil
		case st.Ex.Response == nil:
			return "", "", &client.Mismatch{Expected: "the POST's SSE stream to carry the response", Actual: fmt.Sprintf("the stream ended (%s) without it", st.Info.End), Frames: ExchangeSeqs(st.Ex)}
		case st.Info.EventsAfterResponse > 0:
			return "", "", &client.Mismatch{Expected: "the SSE stream to end after the response", Actual: fmt.Sprintf("%d events after the response", st.Info.EventsAfterResponse), Frames: ExchangeSeqs(st.Ex)}
		case st.Info.End != harness.EndEOF:
			return "", "", &client.Mismatch{Expected: "the SSE stream to end after the response", Actual: fmt.Sprintf("the stream was still open %s after the response", st.Info.AfterResponse.Round(1e6)), Frames: ExchangeSeqs(st.Ex)}
		}
	}
	if n == 0 {
		return "no POST in this scenario was answered with an SSE stream (every reply was application/json)", "", nil
	}
	return "", "", nil
}

// withEventID reports whether the stream of ex sent an event with an id (which the client can
// resume it from).
func withEventID(ex *harness.Exchange) bool {
	for _, f := range ex.Frames {
		if f.SSE != nil && f.SSE.HasID {
			return true
		}
	}
	return false
}

// RetryBeforeClose grades LHTTP-005 (2025-11-25 basic/transports#Sending Messages to the
// Server, 6: a server that closes the connection before the SSE stream is terminated SHOULD
// first send an event with a retry field) on the SSE replies to the scenario's POSTs: each that
// the server closed before carrying its response carried a retry field. na is the reason when
// the server closed no such stream early.
func RetryBeforeClose(streams []SSEStream) (na string, m *client.Mismatch) {
	n := 0
	for _, st := range streams {
		if st.GET || !st.Info.SSE || st.Info.End != harness.EndEOF || st.Ex.Response != nil {
			continue
		}
		n++
		retry := false
		for _, f := range st.Ex.Frames {
			retry = retry || (f.SSE != nil && f.SSE.Retry >= 0)
		}
		if !retry {
			return "", &client.Mismatch{Expected: "an SSE event with a retry field before the server closes a stream that has not carried its response",
				Actual: fmt.Sprintf("the server closed the stream after %d events, none with a retry field", st.Info.Events), Frames: ExchangeSeqs(st.Ex)}
		}
	}
	if n == 0 {
		return "the server closed no SSE stream before its response", nil
	}
	return "", nil
}

// NoResponseOnGET grades LHTTP-008 (basic/transports#Listening for Messages from the Server:
// the server MUST NOT send a JSON-RPC response on the GET stream unless resuming a stream of a
// previous request) on the GET streams of a scenario, none of which resumed (no Last-Event-ID).
// na is the reason when no GET was answered with an SSE stream.
func NoResponseOnGET(streams []SSEStream) (na string, m *client.Mismatch) {
	n := 0
	for _, st := range streams {
		if !st.GET || !st.Info.SSE {
			continue
		}
		n++
		for _, f := range st.Ex.Frames {
			msg, err := harness.ParseMessage(f.Body())
			if err == nil && (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) {
				return "", &client.Mismatch{Expected: "no JSON-RPC response on the GET stream (it resumed nothing)",
					Actual: "the GET stream carried " + client.Describe(msg), Frames: []int{st.Ex.Sent.Seq, f.Seq}}
			}
		}
	}
	if n == 0 {
		return "the server offers no GET stream (the GET was not answered with text/event-stream)", nil
	}
	return "", nil
}

// UniqueEventIDs grades LHTTP-010 (basic/transports#Resumability and Redelivery: an SSE event
// id, when present, is unique across all streams of the session) on every SSE stream of one
// session; an event seen again with its id and bytes is its redelivery on a resumed stream,
// not a second use of the id. na is the reason when no event carried an id.
func UniqueEventIDs(streams []SSEStream) (na string, m *client.Mismatch) {
	seen := map[string]int{}
	body := map[string]string{}
	n := 0
	for _, st := range streams {
		for _, f := range st.Ex.Frames {
			if f.SSE == nil || !f.SSE.HasID {
				continue
			}
			n++
			if prev, dup := seen[f.SSE.ID]; dup && body[f.SSE.ID] != string(f.Raw) {
				return "", &client.Mismatch{Expected: "SSE event ids unique across the session's streams",
					Actual: fmt.Sprintf("event id %q used twice", f.SSE.ID), Frames: []int{prev, f.Seq}}
			}
			seen[f.SSE.ID], body[f.SSE.ID] = f.Seq, string(f.Raw)
		}
	}
	if n == 0 {
		return "no SSE event of the session carried an id", nil
	}
	return "", nil
}

// NotBroadcast grades LHTTP-009 (basic/transports#Multiple Connections: the server sends each
// message on only one of the connected streams) on every stream of one session: no response
// (by id), server request (by id) or progress notification (by token and progress) travels
// on two streams, nor does another notification, byte for byte, on a GET stream and another
// stream (two POST streams may each carry a notification of the same text about their own
// request: those are two messages).
func NotBroadcast(streams []SSEStream) *client.Mismatch {
	type seen struct {
		seq    int
		stream int
	}
	first := map[string]seen{}
	for i, st := range streams {
		for _, f := range st.Ex.Frames {
			key, strict := messageKey(f)
			if key == "" {
				continue
			}
			prev, dup := first[key]
			if dup && prev.stream != i && (strict || st.GET || streams[prev.stream].GET) {
				return &client.Mismatch{Expected: "each message on only one stream", Actual: "the same message on two streams: " + client.Short(f.Body()), Frames: []int{prev.seq, f.Seq}}
			}
			if !dup {
				first[key] = seen{f.Seq, i}
			}
		}
	}
	return nil
}

// messageKey identifies the message a frame carries: strict when it cannot be told from
// another (a response or request by kind and id, a progress notification by token and
// progress), else (another notification) by its bytes.
func messageKey(f *harness.Frame) (key string, strict bool) {
	msg, err := harness.ParseMessage(f.Body())
	if err != nil {
		return "", false
	}
	switch msg.Kind {
	case harness.KindResult, harness.KindError:
		if !msg.HasID || string(msg.ID) == "null" {
			return "", false // an error without id (an HTTP refusal's body) names no message
		}
		return "response " + string(msg.ID), true
	case harness.KindRequest:
		return "request " + string(msg.ID), true
	case harness.KindNotification:
		if msg.Method == "notifications/progress" {
			return "progress " + string(msg.Params), true
		}
		return "notification " + string(f.Body()), false
	}
	return "", false
}

// ScenarioStreams lists the streams of a scenario for the checks above: the reply to each
// POST among exchanges (with how it was read, from infos, when the scenario kept it; else
// End is "" and Info.SSE says whether the reply was text/event-stream), then each GET stream
// held, once closed. The exchanges of the GET streams are left out of the POSTs.
func ScenarioStreams(exchanges []*harness.Exchange, infos map[*harness.Exchange]harness.StreamInfo, held []*client.HeldStream) []SSEStream {
	gets := map[*harness.Exchange]bool{}
	for _, g := range held {
		if g.Ex != nil {
			gets[g.Ex] = true
		}
	}
	var out []SSEStream
	for _, ex := range exchanges {
		if gets[ex] || ex.HTTP == nil || ex.Sent == nil || ex.Sent.HTTP == nil || ex.Sent.HTTP.Method != http.MethodPost {
			continue
		}
		info, ok := infos[ex]
		if !ok {
			info = harness.StreamInfo{SSE: MediaType(ex.HTTP.Headers.Get("Content-Type")) == "text/event-stream"}
			for _, f := range ex.Frames {
				if f.SSE != nil && (f.Size > 0 || f.SSE.HasID) {
					info.Events++
				}
			}
		}
		out = append(out, SSEStream{Ex: ex, Info: info})
	}
	for _, g := range held {
		if g.Ex != nil && g.Ex.HTTP != nil {
			out = append(out, SSEStream{Ex: g.Ex, Info: g.Info, GET: true})
		}
	}
	return out
}

// resumable returns the reason the resumption rules do not apply to the dropped stream d and
// its resumption resumed (nil when the client did not resume it): na when the dropped reply
// carried no event id, or the GET with Last-Event-ID was not answered with an SSE stream.
func resumable(d *client.DroppedStream, resumed *SSEStream) string {
	switch {
	case d.LastEventID == "":
		return "the dropped reply carried no SSE event id: the server does not make its streams resumable"
	case resumed == nil || resumed.Ex.HTTP == nil:
		return "the dropped stream was not resumed"
	case resumed.Ex.HTTP.Status/100 != 2 || MediaType(resumed.Ex.HTTP.Headers.Get("Content-Type")) != "text/event-stream":
		return fmt.Sprintf("the server answered the GET with Last-Event-ID with HTTP %d %q: it does not resume streams",
			resumed.Ex.HTTP.Status, resumed.Ex.HTTP.Headers.Get("Content-Type"))
	}
	return ""
}

// ReplayOnlyThatStream grades LHTTP-011 (basic/transports#Resumability and Redelivery: on a
// GET with Last-Event-ID the server MUST NOT replay messages that would have been delivered on
// a different stream) on the resumption resumed of the dropped stream d: no response to
// another request than d's, and no server request or progress notification that another of
// the session's streams (others) carried. na when the server does not resume streams.
func ReplayOnlyThatStream(d *client.DroppedStream, resumed *SSEStream, others []SSEStream) (na string, m *client.Mismatch) {
	if why := resumable(d, resumed); why != "" {
		return why, nil
	}
	elsewhere := map[string]int{}
	for _, st := range others {
		if st.Ex == d.Ex || st.Ex == resumed.Ex {
			continue
		}
		for _, f := range st.Ex.Frames {
			if key, strict := messageKey(f); strict {
				elsewhere[key] = f.Seq
			}
		}
	}
	for _, f := range resumed.Ex.Frames {
		key, strict := messageKey(f)
		if !strict {
			continue
		}
		msg, _ := harness.ParseMessage(f.Body())
		if (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && string(msg.ID) != d.ReqID {
			return "", &client.Mismatch{Expected: "only the messages of the dropped stream (the reply to request " + d.ReqID + ") on its resumption",
				Actual: "the resumption replayed " + client.Describe(msg), Frames: []int{resumed.Ex.Sent.Seq, f.Seq}}
		}
		if seq, dup := elsewhere[key]; dup {
			return "", &client.Mismatch{Expected: "only the messages of the dropped stream on its resumption",
				Actual: "the resumption replayed a message another stream carried: " + client.Short(f.Body()), Frames: []int{seq, f.Seq}}
		}
	}
	return "", nil
}

// DeliveredOnResume grades LHTTP-019 (basic/transports#Sending Messages to the Server, 6:
// disconnection SHOULD NOT be interpreted as the client cancelling its request) on the
// resumption resumed of the dropped stream d: resumed from the first event id of d, it carries
// the response to d's request. na when the server does not resume streams.
func DeliveredOnResume(d *client.DroppedStream, resumed *SSEStream) (na string, m *client.Mismatch) {
	if why := resumable(d, resumed); why != "" {
		return why, nil
	}
	for _, f := range resumed.Ex.Frames {
		msg, err := harness.ParseMessage(f.Body())
		if err == nil && (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && string(msg.ID) == d.ReqID {
			return "", nil
		}
	}
	return "", &client.Mismatch{Expected: "the response to request " + d.ReqID + " on the resumed stream (the lost connection did not cancel it)",
		Actual: fmt.Sprintf("the resumption from event %q carried %d events and no such response", d.LastEventID, resumed.Info.Events),
		Frames: ExchangeSeqs(resumed.Ex)}
}

// Resumption returns the held stream that resumed d (its Last-Event-ID is d's), nil when none.
func Resumption(d *client.DroppedStream, streams []SSEStream, held []*client.HeldStream) *SSEStream {
	for _, g := range held {
		if g.LastEventID == "" || g.LastEventID != d.LastEventID || g.Ex == nil {
			continue
		}
		for i := range streams {
			if streams[i].Ex == g.Ex {
				return &streams[i]
			}
		}
	}
	return nil
}
