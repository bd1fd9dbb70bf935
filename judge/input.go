package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
)

// serverRequest returns the method and params of a server frame that is a JSON-RPC request
// (a method that is no notification, and an id member); ok is false otherwise.
func serverRequest(f *Frame) (method string, params json.RawMessage, ok bool) {
	method, ok = methodAndID(f)
	if !ok || strings.HasPrefix(method, "notifications/") {
		return "", nil, false
	}
	m, _ := f.Object()
	return method, m["params"], true
}

// serverRequestIDs is LEG-009 (2025-11-25 basic/index#Requests): the id of every request the
// server sends is a string or an integer, never null, and no id repeats within the session
// (a connection: a stdio process or an HTTP client holding one session).
type serverRequestIDs struct {
	n    int
	seen map[int]map[string]int // connection -> id key -> seq of the first request with it
	bad  *Mismatch
}

func newServerRequestIDs(Deps) Check { return &serverRequestIDs{seen: map[int]map[string]int{}} }

func (c *serverRequestIDs) Observe(f *Frame) {
	if _, _, ok := serverRequest(f); !ok {
		return
	}
	c.n++
	if c.bad != nil {
		return
	}
	m, _ := f.Object()
	id := bytes.TrimSpace(m["id"])
	if why := RequestIDProblem(id); why != "" {
		c.bad = &Mismatch{Expected: "server request ids that are strings or integers", Actual: fmt.Sprintf("frame %d: %s", f.Seq, why), Frames: []int{f.Seq}}
		return
	}
	ids := c.seen[f.Conn]
	if ids == nil {
		ids = map[string]int{}
		c.seen[f.Conn] = ids
	}
	key := harness.IDKey(id)
	if prev, dup := ids[key]; dup {
		c.bad = &Mismatch{Expected: "a server request id never used before in the session",
			Actual: fmt.Sprintf("frame %d reuses id %s of frame %d", f.Seq, id, prev), Frames: []int{prev, f.Seq}}
		return
	}
	ids[key] = f.Seq
}

func (c *serverRequestIDs) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.bad} }

// RequestIDProblem says why raw is not a request id (a string or an integer: basic/index
// #Requests), "" when it is one.
func RequestIDProblem(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	switch {
	case s == "null":
		return "the id is null"
	case strings.HasPrefix(s, `"`):
		return ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return "the id " + s + " is neither a string nor a number"
	}
	if _, err := n.Int64(); err != nil || strings.ContainsAny(s, ".eE") {
		return "the id " + s + " is not an integer"
	}
	return ""
}

// requestSchema makes the constructor of a check that reports the schema violations of the
// server's requests of the given methods (every request when none) that rule owns (Reports).
func requestSchema(rule string, methods ...string) func(Deps) Check {
	return each(func(f *Frame) (bool, *Mismatch) {
		method, _, ok := serverRequest(f)
		if !ok || (len(methods) > 0 && !contains(methods, method)) {
			return false, nil
		}
		var mine []SchemaError
		for _, e := range f.Schema {
			if Reports(rule, e) {
				mine = append(mine, e)
			}
		}
		if len(mine) == 0 {
			return true, nil
		}
		e := mine[0]
		return true, &Mismatch{Expected: "a " + method + " request valid against the schema",
			Actual: fmt.Sprintf("frame %d: %s at %q", f.Seq, e.Message, e.InstancePath), Frames: []int{f.Seq}, SchemaErrors: mine}
	})
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// inputRequest makes the constructor of rule's check over the params of every server request
// of method: problem says what is wrong with them ("" when nothing), and so is a schema
// violation rule claims (Claimants) at an instance path under under (a claim that only takes
// a union's echo from SCHEMA-001, such as INPUT-003's URL-branch one, is not reported); the
// first offender is cited.
func inputRequest(rule, method, under, expected string, problem func(params json.RawMessage) string) func(Deps) Check {
	return first(expected, func(f *Frame) (bool, string) {
		m, params, ok := serverRequest(f)
		if !ok || m != method {
			return false, ""
		}
		if why := problem(params); why != "" {
			return true, why
		}
		for _, e := range f.Schema {
			if strings.HasPrefix(e.InstancePath, under) && contains(Claimants(e), rule) {
				return true, fmt.Sprintf("%s at %q", e.Message, e.InstancePath)
			}
		}
		return true, ""
	})
}

// checkElicitShape is INPUT-002 (client/elicitation#Elicitation Requests): every
// elicitation/create has a message; form mode a requestedSchema; url mode a url.
var checkElicitShape = inputRequest("INPUT-002", "elicitation/create", "/params", "elicitation requests with a message, and a requestedSchema (form) or a url (url mode)", ElicitationShape)

// checkRequestedSchema is INPUT-003 (client/elicitation#Requested Schema): the requested
// schema of a form elicitation is a flat object of primitive properties.
var checkRequestedSchema = inputRequest("INPUT-003", "elicitation/create", "/params/requestedSchema", "a requestedSchema that is a flat object of primitive properties", RequestedSchemaProblem)

// checkSamplingMessages is INPUT-013 (client/sampling#Messages): every sampling message has
// role user or assistant and content.
var checkSamplingMessages = inputRequest("INPUT-013", "sampling/createMessage", "/params/messages", "sampling messages with role user or assistant and content", SamplingMessagesProblem)

// ElicitationShape says what an elicitation/create's params lack, "" when nothing: a string
// message; in form mode (mode absent or "form") an object requestedSchema; in url mode an
// absolute url.
func ElicitationShape(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "params are not an object"
	}
	if !isJSONString(p["message"]) {
		return "no string message"
	}
	switch mode := stringOf(p["mode"]); {
	case len(p["mode"]) > 0 && !isJSONString(p["mode"]):
		return "mode is not a string"
	case mode == "" || mode == "form":
		if !isJSONObject(p["requestedSchema"]) {
			return "a form elicitation without an object requestedSchema"
		}
	case mode == "url":
		u, err := url.Parse(stringOf(p["url"]))
		if !isJSONString(p["url"]) || err != nil || !u.IsAbs() {
			return "a url elicitation without an absolute url"
		}
	default:
		return fmt.Sprintf("unknown mode %q", mode)
	}
	return ""
}

// stringFormats are the string formats a requested schema may use (client/elicitation
// #Supported Schema Types).
var stringFormats = map[string]bool{"email": true, "uri": true, "date": true, "date-time": true}

// RequestedSchemaProblem says how the requestedSchema of a form elicitation's params is not a
// flat object of primitive properties (string, number, integer, boolean, or an array of enum
// strings for multi-select), "" when it is one or the elicitation is not a form.
func RequestedSchemaProblem(params json.RawMessage) string {
	var p struct {
		Mode   string          `json:"mode"`
		Schema json.RawMessage `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil || (p.Mode != "" && p.Mode != "form") || !isJSONObject(p.Schema) {
		return "" // INPUT-002 judges a missing requestedSchema
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(p.Schema, &s) != nil || s.Type != "object" {
		return `requestedSchema is not of type "object"`
	}
	for name, raw := range s.Properties {
		if why := primitiveProblem(raw); why != "" {
			return fmt.Sprintf("property %q %s", name, why)
		}
	}
	return ""
}

func primitiveProblem(raw json.RawMessage) string {
	var d struct {
		Type   string `json:"type"`
		Format string `json:"format"`
		Items  *struct {
			Type  string            `json:"type"`
			Enum  []json.RawMessage `json:"enum"`
			AnyOf []json.RawMessage `json:"anyOf"`
		} `json:"items"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return "is not a schema object"
	}
	switch d.Type {
	case "string":
		if d.Format != "" && !stringFormats[d.Format] {
			return fmt.Sprintf("has string format %q (allowed: email, uri, date, date-time)", d.Format)
		}
		return ""
	case "number", "integer", "boolean":
		return ""
	case "array":
		if d.Items != nil && (len(d.Items.Enum) > 0 || len(d.Items.AnyOf) > 0) {
			return ""
		}
		return "is an array that is not a multi-select enum"
	}
	return fmt.Sprintf("is of type %q, not a primitive", d.Type)
}

// SamplingMessagesProblem says what is wrong with the messages of a sampling/createMessage's
// params: each needs role "user" or "assistant" and a content object or array of objects
// with a type; "" when nothing is.
func SamplingMessagesProblem(params json.RawMessage) string {
	var p struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "messages is not an array of objects"
	}
	for i, m := range p.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("message %d has role %q", i, m.Role)
		}
		blocks := []json.RawMessage{m.Content}
		if c := bytes.TrimSpace(m.Content); len(c) > 0 && c[0] == '[' {
			blocks = nil
			_ = json.Unmarshal(c, &blocks)
		}
		for _, b := range blocks {
			var t struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(b, &t) != nil || t.Type == "" {
				return fmt.Sprintf("message %d has content without a type", i)
			}
		}
	}
	return ""
}

// serverCancellations is LEG-011 (2025-11-25 basic/utilities/cancellation#Behavior
// Requirements): a notifications/cancelled the server sends names a request the server
// itself issued earlier on the connection. A cancellation that crosses the client's answer is
// allowed (#Timing Considerations: both parties handle the race), so an answered request is
// not flagged; an id the server never issued (the client's own request, or none) is.
type serverCancellations struct {
	n      int
	issued map[int]map[string]bool // connection -> id keys of the server's requests
	bad    *Mismatch
}

func newServerCancellations(Deps) Check {
	return &serverCancellations{issued: map[int]map[string]bool{}}
}

func (c *serverCancellations) Observe(f *Frame) {
	if _, _, ok := serverRequest(f); ok {
		m, _ := f.Object()
		if c.issued[f.Conn] == nil {
			c.issued[f.Conn] = map[string]bool{}
		}
		c.issued[f.Conn][harness.IDKey(m["id"])] = true
		return
	}
	m, ok := f.Object()
	if !ok || stringOf(m["method"]) != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(m["params"], &p)
	if len(p.RequestID) == 0 {
		return // no request named: a 2026-07-28 subscription end or a malformed one, not this rule's
	}
	c.n++
	if c.bad == nil && !c.issued[f.Conn][harness.IDKey(p.RequestID)] {
		c.bad = &Mismatch{Expected: "a cancellation naming a request the server issued on the connection",
			Actual: fmt.Sprintf("frame %d cancels request %s, which the server never sent", f.Seq, bytes.TrimSpace(p.RequestID)), Frames: []int{f.Seq}}
	}
}

func (c *serverCancellations) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.bad} }
