package checks

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// TestNoticesAfter: only the server's notifications after the seq, in order; requests,
// responses, client frames and malformed bodies are skipped.
func TestNoticesAfter(t *testing.T) {
	frames := []*harness.Frame{
		serverFrame(1, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"early"}}`),
		serverFrame(2, `{"jsonrpc":"2.0","id":1,"result":{}}`),
		{Seq: 3, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)},
		serverFrame(4, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`),
		serverFrame(5, `not json`),
		serverFrame(6, `{"jsonrpc":"2.0","id":"s1","method":"ping"}`),
		serverFrame(7, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`),
	}
	got := NoticesAfter(frames, 2)
	require.Len(t, got, 2)
	assert.Equal(t, 4, got[0].Seq)
	assert.Equal(t, "notifications/resources/updated", got[0].Method)
	assert.JSONEq(t, `"test://a"`, string(got[0].Params["uri"]))
	assert.Equal(t, "notifications/tools/list_changed", got[1].Method)
	assert.Nil(t, got[1].Params)
}

// TestLogLevelKept: messages at or above the level after it was set pass, and so do messages
// below it before it was set (the evidence that the log messages reach the client); one below
// it after fails citing its frame; no log message at all is untestable, whatever else came; a
// level that is not a LoggingLevel is LOG-005's and is skipped.
func TestLogLevelKept(t *testing.T) {
	note := func(seq int, level string) Notice {
		return Notice{Seq: seq, Method: "notifications/message", Params: map[string]json.RawMessage{"level": json.RawMessage(`"` + level + `"`)}}
	}
	why, m := LogLevelKept("error", nil, 2, nil)
	assert.Nil(t, m)
	assert.Contains(t, why, "no log message at all")
	why, m = LogLevelKept("error", []Notice{{Seq: 3, Method: "notifications/tools/list_changed"}}, 2, nil)
	assert.Nil(t, m)
	assert.NotEmpty(t, why)
	why, m = LogLevelKept("error", []Notice{note(1, "info"), note(2, "debug")}, 2, nil)
	assert.Nil(t, m)
	assert.Empty(t, why, "the messages before the level was set show the log messages reach the client")
	why, m = LogLevelKept("error", []Notice{note(3, "error"), note(4, "emergency"), note(5, "verbose")}, 2, nil)
	assert.Nil(t, m)
	assert.Empty(t, why)
	_, m = LogLevelKept("error", []Notice{note(1, "info"), note(3, "critical"), note(8, "info"), note(9, "debug")}, 2, nil)
	require.NotNil(t, m)
	assert.Equal(t, []int{8}, m.Frames)
	assert.Contains(t, m.Actual, `"info"`)
	why, m = LogLevelKept("debug", []Notice{note(3, "debug")}, 2, nil)
	assert.Nil(t, m)
	assert.Empty(t, why)

	// No log message at all: the first call that got no result is named, LHTTP-005 when its
	// SSE stream closed before the response after an event id.
	answered := &harness.Exchange{Response: &harness.Frame{Dir: harness.DirServerToClient, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)}}
	closed := &harness.Exchange{Frames: []*harness.Frame{{Dir: harness.DirServerToClient, SSE: &harness.SSEMeta{ID: "e1", HasID: true}}}}
	why, m = LogLevelKept("error", nil, 2, []*harness.Exchange{answered, closed})
	assert.Nil(t, m)
	assert.Contains(t, why, "no log message at all")
	assert.Contains(t, why, "the call of the logging fixture tool got no response")
	assert.Contains(t, why, "LHTTP-005")
	why, _ = LogLevelKept("error", nil, 2, []*harness.Exchange{answered})
	assert.NotContains(t, why, "logging fixture tool got")
}

// TestEmptyResult: {} and a result with only _meta pass; an error, a member (the first in
// order), a non-object and no reply are named.
func TestEmptyResult(t *testing.T) {
	res := func(body string) *harness.Message {
		return &harness.Message{Kind: harness.KindResult, Result: json.RawMessage(body)}
	}
	assert.Empty(t, EmptyResult("resources/subscribe", res(`{}`)))
	assert.Empty(t, EmptyResult("resources/subscribe", res(`{"_meta":{"a":1}}`)))
	assert.Contains(t, EmptyResult("resources/subscribe", res(`{"ok":true}`)), `member "ok"`)
	assert.Contains(t, EmptyResult("resources/subscribe", res(`{"zz":1,"ok":true,"_meta":{}}`)), `member "ok"`, "the first extra member in order")
	assert.Contains(t, EmptyResult("resources/subscribe", res(`[]`)), "not an object")
	assert.Contains(t, EmptyResult("resources/subscribe", nil), "no reply")
	e := &harness.Message{Kind: harness.KindError, Error: &harness.ErrorObject{Code: -32601, CodeRaw: "-32601", Message: "Method not found"}}
	assert.Contains(t, EmptyResult("resources/subscribe", e), "-32601")
}

// TestSubscriptionUpdates: an update for the subscribed URI while subscribed and none after
// passes (other notifications aside); an update for another URI, one after unsubscribe, or
// none at all fail; none at all with an unread stream is untestable.
func TestSubscriptionUpdates(t *testing.T) {
	upd := func(seq int, uri string) Notice {
		return Notice{Seq: seq, Method: "notifications/resources/updated", Params: map[string]json.RawMessage{"uri": json.RawMessage(`"` + uri + `"`)}}
	}
	logMsg := Notice{Seq: 2, Method: "notifications/message"}
	const u = "test://static-text"
	why, m := SubscriptionUpdates(Subscription{URI: u, While: []Notice{logMsg, upd(3, u)}, After: []Notice{upd(9, "test://other")}}, nil)
	assert.Empty(t, why)
	assert.Nil(t, m)

	_, m = SubscriptionUpdates(Subscription{URI: u, While: []Notice{upd(3, u), upd(4, "test://static-binary")}}, nil)
	require.NotNil(t, m)
	assert.Equal(t, []int{4}, m.Frames)

	_, m = SubscriptionUpdates(Subscription{URI: u, While: []Notice{upd(3, u)}, After: []Notice{upd(8, u)}}, nil)
	require.NotNil(t, m)
	assert.Contains(t, m.Expected, "after resources/unsubscribe")
	assert.Equal(t, []int{8}, m.Frames)

	_, m = SubscriptionUpdates(Subscription{URI: u, While: []Notice{logMsg}}, []int{5, 6})
	require.NotNil(t, m)
	assert.Equal(t, []int{5, 6}, m.Frames)

	why, m = SubscriptionUpdates(Subscription{URI: u, Unread: "a GET stream"}, nil)
	assert.Nil(t, m)
	assert.Contains(t, why, "a GET stream")
}

// TestListChanged: the method among the notes passes; its absence fails citing the frames, or
// is untestable when a stream may have missed it.
func TestListChanged(t *testing.T) {
	const lc = "notifications/tools/list_changed"
	why, m := ListChanged(lc, []Notice{{Seq: 4, Method: "notifications/message"}, {Seq: 5, Method: lc}}, "", nil)
	assert.Empty(t, why)
	assert.Nil(t, m)
	_, m = ListChanged(lc, []Notice{{Seq: 4, Method: "notifications/prompts/list_changed"}}, "", []int{3, 4})
	require.NotNil(t, m)
	assert.Equal(t, []int{3, 4}, m.Frames)
	why, m = ListChanged(lc, nil, "a GET stream", nil)
	assert.Nil(t, m)
	assert.Contains(t, why, "a GET stream")
}

// TestURLElicitationRequired: a -32042 listing complete URL mode elicitations passes with their
// ids; a missing list, another mode, a missing id, url or message fail; another reply is
// untestable.
func TestURLElicitationRequired(t *testing.T) {
	errMsg := func(data string) *harness.Message {
		return &harness.Message{Kind: harness.KindError, Error: &harness.ErrorObject{Code: -32042, CodeRaw: "-32042", Message: "x", Data: json.RawMessage(data), HasData: data != ""}}
	}
	good := `{"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://a.example/x","message":"m"},{"mode":"url","elicitationId":"e2","url":"https://b.example","message":"n"}]}`
	ids, why, m := URLElicitationRequired(errMsg(good), []int{4})
	assert.Equal(t, []string{"e1", "e2"}, ids)
	assert.Empty(t, why)
	assert.Nil(t, m)
	for data, want := range map[string]string{
		"":                    "lists no elicitations",
		`{"elicitations":[]}`: "lists no elicitations",
		`{"elicitations":[{"mode":"form","elicitationId":"e","url":"u","message":"m"}]}`: `mode "form"`,
		`{"elicitations":[{"mode":"url","url":"u","message":"m"}]}`:                      "no elicitationId",
		`{"elicitations":[{"mode":"url","elicitationId":"e","message":"m"}]}`:            "no url",
		`{"elicitations":[{"mode":"url","elicitationId":"e","url":"u"}]}`:                "no message",
	} {
		_, _, m = URLElicitationRequired(errMsg(data), []int{4})
		require.NotNil(t, m, data)
		assert.Contains(t, m.Actual, want, data)
		assert.Equal(t, []int{4}, m.Frames)
	}
	_, why, m = URLElicitationRequired(&harness.Message{Kind: harness.KindResult, Result: json.RawMessage(`{"content":[]}`)}, nil)
	assert.Nil(t, m)
	assert.Contains(t, why, "not a -32042 error")
}

// TestElicitationCompletes: a completion naming an issued id passes; an unknown or missing id
// fails; no completion at all is na.
func TestElicitationCompletes(t *testing.T) {
	done := func(seq int, params string) Notice {
		var p map[string]json.RawMessage
		_ = json.Unmarshal([]byte(params), &p)
		return Notice{Seq: seq, Method: "notifications/elicitation/complete", Params: p}
	}
	na, m := ElicitationCompletes([]string{"e1"}, []Notice{{Seq: 2, Method: "notifications/message"}, done(3, `{"elicitationId":"e1"}`)})
	assert.Empty(t, na)
	assert.Nil(t, m)
	_, m = ElicitationCompletes([]string{"e1"}, []Notice{done(3, `{"elicitationId":"e1"}`), done(5, `{"elicitationId":"other"}`)})
	require.NotNil(t, m)
	assert.Equal(t, []int{5}, m.Frames)
	_, m = ElicitationCompletes([]string{"e1"}, []Notice{done(6, `{}`)})
	require.NotNil(t, m)
	na, m = ElicitationCompletes([]string{"e1"}, nil)
	assert.Nil(t, m)
	assert.Contains(t, na, "no notifications/elicitation/complete")
}

// TestIssuedElicitations: the ids of the server's elicitation/create requests only.
func TestIssuedElicitations(t *testing.T) {
	frames := []*harness.Frame{
		serverFrame(1, `{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{"mode":"url","elicitationId":"e9","url":"u","message":"m"}}`),
		serverFrame(2, `{"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{"message":"form","requestedSchema":{}}}`),
		{Seq: 3, Dir: harness.DirClientToServer, Raw: []byte(`{"jsonrpc":"2.0","id":"c","method":"elicitation/create","params":{"elicitationId":"x"}}`)},
	}
	assert.Equal(t, []string{"e9"}, IssuedElicitations(frames))
}
