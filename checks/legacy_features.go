package checks

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// Checks of the handshake-era features (LFEAT): the log level a session sets, resource
// subscriptions and list-change notifications, URL elicitation.

// Notice is one notification the server sent, as the LFEAT checks read it: the seq of its
// frame, its method and its params (nil when it has none).
type Notice struct {
	Seq    int
	Method string
	Params map[string]json.RawMessage
}

// NoticesAfter returns the server-to-client notifications among frames whose seq is greater
// than after, in order; frames that are not a well-formed notification are skipped (their
// shape is other rules' to judge).
func NoticesAfter(frames []*harness.Frame, after int) []Notice {
	var out []Notice
	for _, f := range frames {
		if f == nil || f.Dir != harness.DirServerToClient || f.Seq <= after {
			continue
		}
		msg, err := harness.ParseMessage(f.Body())
		if err != nil || msg.Kind != harness.KindNotification {
			continue
		}
		n := Notice{Seq: f.Seq, Method: msg.Method}
		_ = json.Unmarshal(msg.Params, &n.Params)
		out = append(out, n)
	}
	return out
}

// logRank ranks the LoggingLevel values (RFC 5424 severities, least severe first).
var logRank = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// LogLevelKept grades LFEAT-004 (2024-11-05..2025-11-25 server/utilities/logging#Setting Log
// Level): once a session set the minimum level with logging/setLevel, the server sends that
// session only notifications/message at or above it. level is the level set (a LoggingLevel);
// notes are every notification of the session, on every stream the client read; setAt is the
// seq of the setLevel reply, after which notes are judged; calls are the scenario's calls of
// the logging tool. A message whose level is not a LoggingLevel is LOG-005's and is skipped.
// It returns a Mismatch citing the first message below level after setAt; untestable when the
// session got no log message at all (before the level was set included), since the absence
// of low messages is then no evidence: they may have gone on a stream the client did not
// read, or the tool may log nothing; the reason names the first call that got no result
// (UnansweredCall).
func LogLevelKept(level string, notes []Notice, setAt int, calls []*harness.Exchange) (untestable string, m *client.Mismatch) {
	min, ok := logRank[level]
	if !ok {
		return "", nil
	}
	seen := false
	for _, n := range notes {
		if n.Method != "notifications/message" {
			continue
		}
		seen = true
		var got string
		if n.Seq <= setAt || json.Unmarshal(n.Params["level"], &got) != nil {
			continue
		}
		if r, known := logRank[got]; known && r < min {
			return "", &client.Mismatch{
				Expected: fmt.Sprintf("log messages at %q or above after logging/setLevel %q", level, level),
				Actual:   fmt.Sprintf("a notifications/message at %q (frame %d)", got, n.Seq),
				Frames:   []int{n.Seq},
			}
		}
	}
	if !seen {
		why := "the session got no log message at all, before or after the level was set, so the absence of messages below it is no evidence"
		for _, ex := range calls {
			if u := UnansweredCall("the call of the logging fixture tool", ex); u != "" {
				return why + "; " + u, nil
			}
		}
		return why, nil
	}
	return "", nil
}

// UnansweredCall returns "" when the request ex got a result, else what it got, in words
// beginning with what: a call whose side effects are a scenario's evidence gave none. When the
// server closed the request's SSE stream before the response, after an event id (the response
// may come on a resumption the scenario does not make), the words name LHTTP-005, which judges
// that close.
func UnansweredCall(what string, ex *harness.Exchange) string {
	msg := client.ResponseOf(ex)
	if msg != nil && msg.Kind == harness.KindResult {
		return ""
	}
	why := what + " got " + client.DescribeExchange(ex)
	if msg == nil && ex != nil && withEventID(ex) {
		why += " (the server closed its SSE stream before the response, after an event id: LHTTP-005 judges the close)"
	}
	return why
}

// EmptyResult returns what is wrong with the reply to a request whose result is the
// EmptyResult ("" when it is a result whose only member, if any, is `_meta`): what is the
// request's name for the message.
func EmptyResult(what string, msg *harness.Message) string {
	switch {
	case msg == nil:
		return "no reply to " + what
	case msg.Kind != harness.KindResult:
		return what + " got " + client.Describe(msg)
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(msg.Result, &res) != nil {
		return what + " got a result that is not an object: " + client.Short(msg.Result)
	}
	if extra := nonMetaMembers(res); len(extra) > 0 {
		return fmt.Sprintf("%s got a result with member %q (an empty result was due)", what, extra[0])
	}
	return ""
}

// nonMetaMembers returns the members of the result object res other than `_meta`, sorted:
// none in an EmptyResult (basic/index#Result).
func nonMetaMembers(res map[string]json.RawMessage) []string {
	var extra []string
	for k := range res {
		if k != "_meta" {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	return extra
}

// Subscription is what a scenario recorded of one resource subscription (LFEAT-002): the URI,
// the notifications of the session between the subscribe reply and the unsubscribe request
// (While, after the trigger ran) and after the unsubscribe reply (After, after the trigger ran
// again), and why the notifications could have gone where the client did not read (Unread,
// "" when nowhere: over Streamable HTTP the client holds the session's GET stream, and only a
// GET that got no reply head in time, or a stream the server ended before the trigger's
// result, leaves room for a notification the client did not see).
type Subscription struct {
	URI    string
	While  []Notice
	After  []Notice
	Unread string
}

// SubscriptionUpdates grades the notifications of LFEAT-002 (2024-11-05..2025-11-25
// server/resources#Subscriptions): while subscribed, the change the trigger made is notified
// as notifications/resources/updated for the subscribed URI and no other; after
// resources/unsubscribe, no update for it comes. frames are cited when no update came. It
// returns untestable (the reason) when no update came while sub.Unread names where it could
// have gone, and a Mismatch otherwise.
func SubscriptionUpdates(sub Subscription, frames []int) (untestable string, m *client.Mismatch) {
	updated := func(n Notice) (string, bool) {
		var uri string
		if n.Method != "notifications/resources/updated" || json.Unmarshal(n.Params["uri"], &uri) != nil {
			return "", false
		}
		return uri, true
	}
	seen := false
	for _, n := range sub.While {
		uri, ok := updated(n)
		switch {
		case !ok:
		case uri != sub.URI:
			return "", &client.Mismatch{
				Expected: "notifications/resources/updated only for the subscribed " + sub.URI,
				Actual:   fmt.Sprintf("an update for %s, which the session did not subscribe to (frame %d)", uri, n.Seq),
				Frames:   []int{n.Seq},
			}
		default:
			seen = true
		}
	}
	for _, n := range sub.After {
		if uri, ok := updated(n); ok && uri == sub.URI {
			return "", &client.Mismatch{
				Expected: "no notifications/resources/updated for " + sub.URI + " after resources/unsubscribe",
				Actual:   fmt.Sprintf("an update for it after the unsubscribe reply (frame %d)", n.Seq),
				Frames:   []int{n.Seq},
			}
		}
	}
	switch {
	case seen:
		return "", nil
	case sub.Unread != "":
		return "no notifications/resources/updated for " + sub.URI + " came on the streams read; " + sub.Unread, nil
	}
	return "", &client.Mismatch{
		Expected: "notifications/resources/updated for the subscribed " + sub.URI + " after the trigger changed it",
		Actual:   "no such notification while subscribed",
		Frames:   frames,
	}
}

// ListChanged grades LFEAT-003 (2024-11-05..2025-11-25 server/tools#List Changed
// Notification, and the same sentence of prompts and resources): after the trigger changed the
// list, a server that declared listChanged notifies the session with method. notes are the
// session's notifications after the trigger was sent; frames are cited when none came; unread
// is as Subscription.Unread.
func ListChanged(method string, notes []Notice, unread string, frames []int) (untestable string, m *client.Mismatch) {
	for _, n := range notes {
		if n.Method == method {
			return "", nil
		}
	}
	if unread != "" {
		return "no " + method + " came on the streams read; " + unread, nil
	}
	return "", &client.Mismatch{
		Expected: method + " to the session after the trigger changed the list",
		Actual:   "no such notification",
		Frames:   frames,
	}
}

// URLElicitationRequired grades LFEAT-011 (2025-11-25 client/elicitation#URL Elicitation
// Required Error) on msg, the reply to a request that needs a URL mode elicitation: a -32042
// error whose data.elicitations lists at least one elicitation, each of mode "url" with a
// non-empty string elicitationId, a url and a message. It returns the elicitationIds it
// listed; untestable when the reply is not a -32042 error (the request may not have needed an
// elicitation after all); a Mismatch naming the first defect otherwise.
func URLElicitationRequired(msg *harness.Message, frames []int) (ids []string, untestable string, m *client.Mismatch) {
	if msg == nil || msg.Kind != harness.KindError || msg.Error.Code != -32042 {
		return nil, "the fixture call got " + client.Describe(msg) + ", not a -32042 error", nil
	}
	fail := func(actual string) ([]string, string, *client.Mismatch) {
		return nil, "", &client.Mismatch{
			Expected: "a -32042 error whose data.elicitations lists URL mode elicitations, each with mode \"url\", an elicitationId, a url and a message",
			Actual:   actual, Frames: frames,
		}
	}
	var data struct {
		Elicitations []map[string]json.RawMessage `json:"elicitations"`
	}
	if !msg.Error.HasData || json.Unmarshal(msg.Error.Data, &data) != nil || len(data.Elicitations) == 0 {
		return fail("error data " + client.Short(msg.Error.Data) + " lists no elicitations")
	}
	for i, el := range data.Elicitations {
		switch {
		case str(el["mode"]) != "url":
			return fail(fmt.Sprintf("elicitations[%d] has mode %s", i, client.Short(el["mode"])))
		case str(el["elicitationId"]) == "":
			return fail(fmt.Sprintf("elicitations[%d] has no elicitationId string", i))
		case str(el["url"]) == "":
			return fail(fmt.Sprintf("elicitations[%d] has no url string", i))
		case str(el["message"]) == "":
			return fail(fmt.Sprintf("elicitations[%d] has no message string", i))
		}
		ids = append(ids, str(el["elicitationId"]))
	}
	return ids, "", nil
}

// ElicitationCompletes grades LFEAT-012 (2025-11-25 client/elicitation#Completion
// Notifications for URL Mode Elicitation): every notifications/elicitation/complete a session
// receives carries the elicitationId of a URL mode elicitation the server issued in that
// session (issued). notes are the session's notifications. It returns na when the server sent
// none (the notification is optional) and a Mismatch citing the first one with an id it did
// not issue.
func ElicitationCompletes(issued []string, notes []Notice) (na string, m *client.Mismatch) {
	known := map[string]bool{}
	for _, id := range issued {
		known[id] = true
	}
	sent := false
	for _, n := range notes {
		if n.Method != "notifications/elicitation/complete" {
			continue
		}
		sent = true
		var id string
		if json.Unmarshal(n.Params["elicitationId"], &id) != nil || !known[id] {
			return "", &client.Mismatch{
				Expected: "notifications/elicitation/complete naming an elicitationId the server issued in this session",
				Actual:   fmt.Sprintf("elicitationId %s (frame %d); issued: %v", client.Short(n.Params["elicitationId"]), n.Seq, issued),
				Frames:   []int{n.Seq},
			}
		}
	}
	if !sent {
		return "the server sent no notifications/elicitation/complete (it may choose not to)", nil
	}
	return "", nil
}

// IssuedElicitations returns the elicitationId of every elicitation/create request the server
// sent among frames (URL mode elicitations carry one).
func IssuedElicitations(frames []*harness.Frame) []string {
	var out []string
	for _, r := range requestsOf(frames, "elicitation/create") {
		if id := str(r.params["elicitationId"]); id != "" {
			out = append(out, id)
		}
	}
	return out
}
