package judge

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Progress (basic/patterns/progress of 2026-07-28, basic/utilities/progress of the handshake
// revisions): PROG-001 (a notification names only a token the client issued), PROG-002 (the token
// echoed with its JSON type), PROG-003 (progress increases per token), PROG-004 (none after
// the request completed) and PROG-006 (the notification's shape). Each rule is its own instance
// of one fold, which keeps per connection the tokens the client set on its requests and when
// each request was answered, and classifies every notifications/progress once, so that one
// defect fails one rule: a token of the wrong JSON type is PROG-002's, not an unknown token; a
// progress value that is no number is PROG-006's, not a decrease.
//
// On a 2026-07-28 Streamable HTTP request stream a notification with a token other than the
// request's is HTTP-007's, one after the response HTTP-009's (both judge every event of such a
// stream), and one on a subscriptions/listen stream HTTP-023's; on 2026-07-28 stdio STDIO-004
// leaves notifications/progress to these rules.

// progressRequest is a request of the client that set a progress token.
type progressRequest struct {
	sent     int     // seq of the request
	answered int     // seq of its response, 0 while in flight
	last     float64 // the last progress reported for it
	reported bool    // a progress value was reported
}

// progressFold is one progress rule's fold (rule names which).
type progressFold struct {
	rule    string
	modern  bool
	byToken map[int]map[string]*progressRequest // connection -> IDKey of the token
	byID    map[int]map[string]*progressRequest // connection -> IDKey of the request id
	n       int
	m       *Mismatch
}

func progressRule(rule string) func(Deps) Check {
	return func(d Deps) Check {
		r, _ := revisions.Lookup(d.Revision)
		return &progressFold{rule: rule, modern: r.Modern(),
			byToken: map[int]map[string]*progressRequest{}, byID: map[int]map[string]*progressRequest{}}
	}
}

func (c *progressFold) Observe(f *Frame) {
	if f.NotJSON || f.Msg.Kind == harness.KindInvalid {
		return
	}
	msg := f.Msg
	if c.byToken[f.Conn] == nil {
		c.byToken[f.Conn], c.byID[f.Conn] = map[string]*progressRequest{}, map[string]*progressRequest{}
	}
	tokens, ids := c.byToken[f.Conn], c.byID[f.Conn]
	switch {
	case !f.FromServer():
		if msg.Kind != harness.KindRequest || !msg.HasID {
			return
		}
		if c.rule == "PROG-001" {
			c.n++ // a request with or without a token: progress may only follow the former
		}
		if tok, ok := requestMeta(msg.Params)[progressMeta]; ok && validToken(tok) {
			r := &progressRequest{sent: f.Seq}
			tokens[harness.IDKey(tok)], ids[harness.IDKey(msg.ID)] = r, r
		}
	case msg.Kind == harness.KindResult || msg.Kind == harness.KindError:
		if r := ids[harness.IDKey(msg.ID)]; msg.HasID && r != nil && r.answered == 0 {
			r.answered = f.Seq
		}
	case msg.Kind == harness.KindNotification && msg.Method == "notifications/progress":
		c.progress(f, tokens)
	}
}

// progress judges one notifications/progress of the server.
func (c *progressFold) progress(f *Frame, tokens map[string]*progressRequest) {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(f.Msg.Params, &p)
	if c.rule == "PROG-006" {
		c.n++
		if bad := progressShape(p); bad != "" && c.m == nil {
			c.m = &Mismatch{Expected: "notifications/progress params with a string or integer progressToken, a numeric progress and, if present, a numeric total and a string message",
				Actual: fmt.Sprintf("frame %d: %s", f.Seq, bad), Frames: []int{f.Seq}}
		}
		return
	}
	tok := p["progressToken"]
	if !validToken(tok) {
		return // PROG-006's
	}
	key := harness.IDKey(tok)
	if c.modern && sseEvent(f) && f.Request != nil && f.Request.Msg.Method == listenMethod {
		return // on a subscriptions/listen stream: HTTP-023's
	}
	if c.modern && onRequestStream(f) {
		if rm := requestMessage(f); rm == nil || harness.IDKey(requestMeta(rm.Params)[progressMeta]) != key {
			return // a token other than its stream's request's: HTTP-007's
		}
	}
	exact := tokens[key]
	other := tokens[otherType(key)]
	cite := func(r *progressRequest, expected, actual string) {
		if c.m == nil {
			frames := []int{f.Seq}
			if r != nil {
				frames = []int{r.sent, f.Seq}
			}
			c.m = &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s", f.Seq, actual), Frames: frames}
		}
	}
	switch c.rule {
	case "PROG-001":
		c.n++
		if exact == nil && other == nil {
			cite(nil, "notifications/progress only for a progressToken the client set on a request of this connection",
				"progressToken "+key+", which no request of this connection set")
		}
	case "PROG-002":
		if exact != nil {
			c.n++
		} else if other != nil {
			c.n++
			cite(other, "the progressToken echoed exactly as the request set it (same JSON type)", "progressToken "+key+" for the request's "+otherType(key))
		}
	case "PROG-003", "PROG-004":
		if exact == nil || (c.modern && onRequestStream(f) && exact.answered != 0) {
			return // after the response on its own stream: HTTP-009's
		}
		c.n++
		if c.rule == "PROG-004" {
			if exact.answered != 0 && exact.answered < f.Seq {
				cite(exact, "no notifications/progress for a request after its response",
					fmt.Sprintf("progressToken %s after the response (frame %d)", key, exact.answered))
			}
			return
		}
		v, err := strconv.ParseFloat(string(p["progress"]), 64)
		if err != nil || exact.answered != 0 {
			return // not a number: PROG-006's; after the response: PROG-004's
		}
		if exact.reported && v <= exact.last {
			cite(exact, "progress increasing with each notification of a token", fmt.Sprintf("progress %s after %s for progressToken %s", p["progress"], strconv.FormatFloat(exact.last, 'g', -1, 64), key))
		}
		exact.last, exact.reported = v, true
	}
}

func (c *progressFold) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// validToken reports whether raw is a string or an integer (ProgressToken).
func validToken(raw json.RawMessage) bool {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return true
	case float64:
		return x == float64(int64(x))
	}
	return false
}

// otherType returns the IDKey of the same token written with the other JSON type: "7" for 7
// and 7 for "7"; "" when the string holds no integer.
func otherType(key string) string {
	var s string
	if json.Unmarshal([]byte(key), &s) == nil {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s
		}
		return ""
	}
	return strconv.Quote(key)
}

// progressShape returns what is wrong with the params of a notifications/progress ("" when
// nothing): ProgressNotificationParams of every revision.
func progressShape(p map[string]json.RawMessage) string {
	if p == nil {
		return "params is not an object"
	}
	number := func(name string) bool {
		var v float64
		return json.Unmarshal(p[name], &v) == nil && p[name] != nil
	}
	switch {
	case !validToken(p["progressToken"]):
		return "progressToken " + orNone(short(p["progressToken"])) + " is not a string or an integer"
	case !number("progress"):
		return "progress " + orNone(short(p["progress"])) + " is not a number"
	}
	if _, ok := p["total"]; ok && !number("total") {
		return "total " + short(p["total"]) + " is not a number"
	}
	if m, ok := p["message"]; ok {
		var s string
		if json.Unmarshal(m, &s) != nil {
			return "message " + short(m) + " is not a string"
		}
	}
	return ""
}
