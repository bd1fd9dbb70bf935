package checks

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func meta(status int, ct string) *harness.HTTPMeta {
	return &harness.HTTPMeta{Status: status, Headers: http.Header{"Content-Type": {ct}}}
}

func TestEndpointAndGETChecks(t *testing.T) {
	assert.Nil(t, EndpointServesGET(meta(405, "text/plain"), nil))
	assert.Nil(t, EndpointServesGET(meta(200, "text/event-stream"), nil))
	assert.NotNil(t, EndpointServesGET(meta(404, "text/plain"), nil))

	for _, ok := range []*harness.HTTPMeta{meta(405, ""), meta(200, "text/event-stream; charset=utf-8")} {
		u, m := GETStreamOr405(ok, nil)
		assert.Empty(t, u)
		assert.Nil(t, m)
	}
	u, m := GETStreamOr405(meta(404, "text/plain"), nil)
	assert.Contains(t, u, "LHTTP-001")
	assert.Nil(t, m)
	for _, bad := range []*harness.HTTPMeta{meta(200, "text/plain"), meta(400, "application/json"), meta(406, "")} {
		_, m := GETStreamOr405(bad, nil)
		assert.NotNil(t, m, "%d %s", bad.Status, bad.Headers.Get("Content-Type"))
	}
}

func TestAccepted202(t *testing.T) {
	assert.Nil(t, Accepted202("notification", 202, 0, nil))
	assert.Nil(t, Accepted202("notification", 400, 80, nil), "a refusal with an error status")
	assert.NotNil(t, Accepted202("notification", 200, 0, nil))
	assert.NotNil(t, Accepted202("notification", 202, 2, nil))
	assert.NotNil(t, Accepted202("notification", 204, 0, nil))
}

// TestResponsesAccepted: the client's POSTed answers are judged like a notification; one
// without a reply shows nothing and is skipped; the first broken one is cited.
func TestResponsesAccepted(t *testing.T) {
	post := func(seq int) *harness.Frame { return &harness.Frame{Seq: seq} }
	reply := func(seq, status, size int) []*harness.Frame {
		return []*harness.Frame{{Seq: seq, Size: size, HTTP: &harness.HTTPMeta{Status: status}}}
	}
	assert.Nil(t, ResponsesAccepted(nil), "no answers: nothing to judge here")
	assert.Nil(t, ResponsesAccepted([]client.PostedResponse{{Sent: post(3), Reply: reply(4, 202, 0)}, {Sent: post(7), Reply: reply(8, 403, 40)}}))
	assert.Nil(t, ResponsesAccepted([]client.PostedResponse{{Sent: post(3)}}), "no reply: no status to judge")
	m := ResponsesAccepted([]client.PostedResponse{{Sent: post(3), Reply: reply(4, 202, 0)}, {Sent: post(7), Reply: reply(8, 200, 0)}})
	require.NotNil(t, m)
	assert.Equal(t, []int{7, 8}, m.Frames)
	assert.NotNil(t, ResponsesAccepted([]client.PostedResponse{{Sent: post(3), Reply: reply(4, 202, 17)}}), "202 with a body")
}

func TestDistinctSessionIDs(t *testing.T) {
	ids := func(f func(i int) string) []string {
		var out []string
		for i := 0; i < 20; i++ {
			out = append(out, f(i))
		}
		return out
	}
	random := ids(func(i int) string {
		return fmt.Sprintf("%08x-4c1e-9a7b-%012x", uint32(i*2654435761), uint64(i)*0x9e3779b97f4a7c15>>16)
	})
	na, m := DistinctSessionIDs(random, nil)
	assert.Empty(t, na)
	assert.Nil(t, m)
	uuid := []string{"3f2b8c1e-6a4d-4f0e-9b7a-1c2d3e4f5a6b", "3f2b8c1f-0000-4f0e-9b7a-ffffffffffff", "a0b1c2d3-e4f5-4a6b-8c7d-8e9fa0b1c2d3"}
	_, m = DistinctSessionIDs(uuid, nil)
	assert.Nil(t, m, "a shared prefix with random tails is not a counter")

	na, _ = DistinctSessionIDs([]string{""}, nil)
	assert.NotEmpty(t, na, "no session id: na")
	_, m = DistinctSessionIDs(ids(func(i int) string { return fmt.Sprintf("refserver-session-%04d", i+1) }), nil)
	assert.NotNil(t, m, "a counter")
	_, m = DistinctSessionIDs(ids(func(i int) string { return fmt.Sprintf("sess-%x-fixed", 0x187a3f00000+i*1000) }), nil)
	assert.NotNil(t, m, "a clock")
	_, m = DistinctSessionIDs([]string{"0123456789abcdef0", "0123456789abcdef0"}, nil)
	assert.NotNil(t, m, "a repeated id")
	_, m = DistinctSessionIDs([]string{"short1", "short2x"}, nil)
	assert.NotNil(t, m, "too short")
}

func ev(seq int, id string, hasID bool, data string) *harness.Frame {
	return &harness.Frame{Seq: seq, Raw: []byte(data), Size: len(data), SSE: &harness.SSEMeta{ID: id, HasID: hasID, Retry: -1}}
}

const resp7 = `{"jsonrpc":"2.0","id":7,"result":{}}`

func stream(get bool, end harness.StreamEnd, after int, resp bool, frames ...*harness.Frame) SSEStream {
	ex := &harness.Exchange{Sent: &harness.Frame{Seq: 1}, Frames: frames}
	if resp {
		ex.Response = frames[len(frames)-1]
	}
	return SSEStream{Ex: ex, Info: harness.StreamInfo{SSE: true, Events: len(frames), End: end, EventsAfterResponse: after}, GET: get}
}

func TestPrimingEvent(t *testing.T) {
	na, m := PrimingEvent([]SSEStream{stream(false, harness.EndEOF, 0, true, ev(2, "s1-0", true, ""), ev(3, "s1-1", true, resp7))})
	assert.Empty(t, na)
	assert.Nil(t, m)
	_, m = PrimingEvent([]SSEStream{stream(false, harness.EndEOF, 0, true, ev(2, "", false, resp7))})
	assert.NotNil(t, m, "the response first, no priming event")
	_, m = PrimingEvent([]SSEStream{stream(false, harness.EndEOF, 0, true, ev(2, "1", true, resp7))})
	assert.NotNil(t, m, "an id but data")
	na, _ = PrimingEvent(nil)
	assert.NotEmpty(t, na)
}

func TestResponseEndsStream(t *testing.T) {
	na, u, m := ResponseEndsStream([]SSEStream{stream(false, harness.EndEOF, 0, true, ev(2, "", false, resp7))})
	assert.Empty(t, na+u)
	assert.Nil(t, m)
	_, _, m = ResponseEndsStream([]SSEStream{stream(false, harness.EndQuiet, 0, true, ev(2, "", false, resp7))})
	assert.NotNil(t, m, "still open after the response")
	_, _, m = ResponseEndsStream([]SSEStream{stream(false, harness.EndEOF, 1, true, ev(2, "", false, resp7))})
	assert.NotNil(t, m, "an event after the response")
	_, _, m = ResponseEndsStream([]SSEStream{stream(false, harness.EndEOF, 0, false, ev(2, "", false, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`))})
	assert.NotNil(t, m, "no response")
	polledEv := ev(2, "p1", true, "")
	polledEv.SSE.Retry = 1000
	_, u, m = ResponseEndsStream([]SSEStream{stream(false, harness.EndEOF, 0, false, polledEv)})
	assert.NotEmpty(t, u, "closed for polling")
	assert.Nil(t, m)

	na, m = RetryBeforeClose([]SSEStream{stream(false, harness.EndEOF, 0, false, polledEv)})
	assert.Empty(t, na)
	assert.Nil(t, m, "a retry field before the early close")
	_, m = RetryBeforeClose([]SSEStream{stream(false, harness.EndEOF, 0, false, ev(2, "p1", true, ""))})
	assert.NotNil(t, m, "closed early without retry")
	na, _ = RetryBeforeClose([]SSEStream{stream(false, harness.EndEOF, 0, true, ev(2, "", false, resp7))})
	assert.NotEmpty(t, na, "every stream carried its response")
	na, _, _ = ResponseEndsStream([]SSEStream{stream(true, harness.EndQuiet, 0, false, ev(2, "g", true, ""))})
	assert.NotEmpty(t, na, "GET streams are not judged")
}

func TestNoResponseOnGETAndUniqueIDsAndBroadcast(t *testing.T) {
	get := stream(true, harness.EndQuiet, 0, false, ev(2, "g-0", true, ""))
	post := stream(false, harness.EndEOF, 0, true, ev(3, "p-0", true, ""), ev(4, "p-1", true, resp7))
	na, m := NoResponseOnGET([]SSEStream{get, post})
	assert.Empty(t, na)
	assert.Nil(t, m)
	_, m = NoResponseOnGET([]SSEStream{stream(true, harness.EndQuiet, 0, false, ev(2, "g-0", true, ""), ev(5, "g-1", true, resp7))})
	assert.NotNil(t, m)
	na, _ = NoResponseOnGET([]SSEStream{post})
	assert.NotEmpty(t, na)

	na, m = UniqueEventIDs([]SSEStream{get, post})
	assert.Empty(t, na)
	assert.Nil(t, m)
	_, m = UniqueEventIDs([]SSEStream{get, stream(false, harness.EndEOF, 0, true, ev(3, "p-0", true, ""), ev(4, "g-0", true, resp7))})
	assert.NotNil(t, m, "an id reused on another stream")
	_, m = UniqueEventIDs([]SSEStream{post, stream(true, harness.EndEOF, 0, false, ev(5, "p-1", true, resp7))})
	assert.Nil(t, m, "the same event redelivered on a resumed stream")
	na, _ = UniqueEventIDs([]SSEStream{stream(false, harness.EndEOF, 0, true, ev(4, "", false, resp7))})
	assert.NotEmpty(t, na)

	assert.Nil(t, NotBroadcast([]SSEStream{get, post}))
	dup := stream(true, harness.EndQuiet, 0, false, ev(2, "g-0", true, ""), ev(6, "g-1", true, resp7))
	assert.NotNil(t, NotBroadcast([]SSEStream{dup, post}))
	logMsg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	postA := stream(false, harness.EndEOF, 0, false, ev(7, "", false, logMsg))
	postB := stream(false, harness.EndEOF, 0, false, ev(8, "", false, logMsg))
	assert.Nil(t, NotBroadcast([]SSEStream{postA, postB}), "the same text about two requests: two messages")
	getLog := stream(true, harness.EndQuiet, 0, false, ev(9, "", false, logMsg))
	assert.NotNil(t, NotBroadcast([]SSEStream{postA, getLog}), "a POST stream's notification copied to the GET stream")
	refusal := `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Conflict"},"id":null}`
	assert.Nil(t, NotBroadcast([]SSEStream{stream(true, harness.EndEOF, 0, false, ev(10, "", false, refusal)),
		stream(true, harness.EndEOF, 0, false, ev(11, "", false, refusal))}), "two refusals without id are no message")
}

func TestResumptionChecks(t *testing.T) {
	d := &client.DroppedStream{Ex: &harness.Exchange{Sent: &harness.Frame{Seq: 1}}, ReqID: "7", LastEventID: "3-1"}
	resumed := func(frames ...*harness.Frame) *SSEStream {
		st := stream(true, harness.EndEOF, 0, false, frames...)
		st.Ex.HTTP = meta(200, "text/event-stream")
		return &st
	}
	other := stream(false, harness.EndEOF, 0, true, ev(2, "2-2", true, `{"jsonrpc":"2.0","id":5,"result":{}}`))
	logMsg := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`

	own := resumed(ev(20, "3-2", true, logMsg), ev(21, "3-3", true, resp7))
	na, m := ReplayOnlyThatStream(d, own, []SSEStream{other, *own})
	assert.Empty(t, na)
	assert.Nil(t, m)
	na, m = DeliveredOnResume(d, own)
	assert.Empty(t, na)
	assert.Nil(t, m)

	mixed := resumed(ev(20, "3-2", true, logMsg), ev(21, "2-2", true, `{"jsonrpc":"2.0","id":5,"result":{}}`))
	_, m = ReplayOnlyThatStream(d, mixed, []SSEStream{other, *mixed})
	assert.NotNil(t, m, "another request's response replayed")
	_, m = DeliveredOnResume(d, resumed(ev(20, "3-2", true, logMsg)))
	assert.NotNil(t, m, "no response on the resumption")

	na, _ = ReplayOnlyThatStream(&client.DroppedStream{ReqID: "7"}, nil, nil)
	assert.Contains(t, na, "resumable")
	refused := resumed()
	refused.Ex.HTTP = meta(405, "text/plain")
	na, _ = DeliveredOnResume(d, refused)
	assert.Contains(t, na, "does not resume")
}
