package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Kind classifies a JSON-RPC 2.0 message by its members (basic/index#messages).
type Kind string

// Message kinds. KindInvalid is anything that is not exactly one of the others.
const (
	KindRequest      Kind = "request"
	KindNotification Kind = "notification"
	KindResult       Kind = "result"
	KindError        Kind = "error"
	KindInvalid      Kind = "invalid"
)

// Message is a parsed JSON-RPC 2.0 envelope. Raw is the original bytes. ID is the raw JSON of
// the id member (nil when absent; "null" when present as null). Code is the raw JSON text of
// error.code, kept so that `-32602.0` can be told apart from `-32602`.
type Message struct {
	Raw     []byte
	Kind    Kind
	Problem string // why Kind is KindInvalid, or "" when well-formed

	JSONRPC string
	ID      json.RawMessage
	HasID   bool
	Method  string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   *ErrorObject
}

// ErrorObject is the `error` member of a JSON-RPC error response. Code is the integer value
// when CodeRaw is an integer literal; CodeRaw is the raw JSON text of the code.
type ErrorObject struct {
	Code    int64
	CodeRaw string
	Message string
	Data    json.RawMessage
	HasData bool
}

// ErrNotJSON is wrapped by ParseMessage when the bytes are not one JSON object.
var ErrNotJSON = errors.New("not a JSON object")

// ParseMessage parses raw as one JSON-RPC 2.0 message, strictly: it must be valid UTF-8, one
// JSON object with no trailing data, `jsonrpc` exactly "2.0", and exactly one of the shapes
// request (method+id), notification (method, no id), result (id+result) or error
// (error, optional id). Anything else yields a Message of KindInvalid with Problem set; the
// returned error is non-nil only when the bytes are not a JSON object at all.
func ParseMessage(raw []byte) (*Message, error) {
	m, _, err := ParseMessageMembers(raw)
	return m, err
}

// aliasRaw is a json.RawMessage that keeps the decoder's slice of the input instead of a copy:
// json.Unmarshal hands UnmarshalJSON a subslice of the document it was given.
type aliasRaw []byte

// UnmarshalJSON keeps b itself, capped so that an append never writes into the document.
func (r *aliasRaw) UnmarshalJSON(b []byte) error {
	*r = b[:len(b):len(b)]
	return nil
}

// ParseMessageMembers is ParseMessage that also returns the top-level members of the JSON
// object (nil when raw is not one JSON object in valid UTF-8), so that a caller judging both
// the envelope and its members decodes the bytes once.
func ParseMessageMembers(raw []byte) (*Message, map[string]json.RawMessage, error) {
	m := &Message{Raw: raw, Kind: KindInvalid}
	if !utf8.Valid(raw) {
		m.Problem = "invalid UTF-8"
		return m, nil, fmt.Errorf("%w: invalid UTF-8", ErrNotJSON)
	}
	// The members alias raw (a frame's bytes, never written after it is recorded), so that a
	// frame judged for the whole run is not held twice.
	var aliased map[string]aliasRaw
	if err := json.Unmarshal(raw, &aliased); err != nil || aliased == nil {
		// Decoded again to tell trailing data from a value that is no object.
		var members map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&members); err != nil || members == nil {
			m.Problem = "not a JSON object"
			if err == nil {
				err = errors.New("null")
			}
			return m, nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
		}
		m.Problem = "trailing data after the JSON object"
		return m, nil, fmt.Errorf("%w: trailing data", ErrNotJSON)
	}
	members := make(map[string]json.RawMessage, len(aliased))
	for k, v := range aliased {
		members[k] = json.RawMessage(v)
	}
	if v, ok := members["jsonrpc"]; ok {
		_ = json.Unmarshal(v, &m.JSONRPC)
	}
	if v, ok := members["id"]; ok {
		m.ID, m.HasID = v, true
	}
	if v, ok := members["method"]; ok {
		if err := json.Unmarshal(v, &m.Method); err != nil {
			m.Problem = "method is not a string"
			return m, members, nil
		}
	}
	_, hasMethod := members["method"]
	m.Params = members["params"]
	res, hasResult := members["result"]
	errRaw, hasError := members["error"]
	m.Result = res
	if hasError {
		e, problem := parseErrorObject(errRaw)
		m.Error = e
		if problem != "" {
			m.Problem = problem
			return m, members, nil
		}
	}
	switch {
	case m.JSONRPC != "2.0":
		m.Problem = `jsonrpc is not "2.0"`
	case hasMethod && (hasResult || hasError):
		m.Problem = "both method and result/error"
	case hasResult && hasError:
		m.Problem = "both result and error"
	case hasMethod && m.HasID:
		m.Kind = KindRequest
	case hasMethod:
		m.Kind = KindNotification
	case hasResult && m.HasID:
		m.Kind = KindResult
	case hasResult:
		m.Problem = "result without id"
	case hasError:
		m.Kind = KindError
	default:
		m.Problem = "none of method, result, error"
	}
	if m.Kind != KindInvalid && m.HasID && !validID(m.ID) && m.Kind != KindError {
		m.Kind, m.Problem = KindInvalid, "id is not a string or integer"
	}
	return m, members, nil
}

func parseErrorObject(raw json.RawMessage) (*ErrorObject, string) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return nil, "error is not an object"
	}
	e := &ErrorObject{}
	code, ok := members["code"]
	if !ok {
		return e, "error.code is missing"
	}
	e.CodeRaw = string(bytes.TrimSpace(code))
	if err := json.Unmarshal(code, &e.Code); err != nil {
		return e, "error.code is not an integer: " + e.CodeRaw
	}
	if msg, ok := members["message"]; !ok || json.Unmarshal(msg, &e.Message) != nil {
		return e, "error.message is missing or not a string"
	}
	e.Data, e.HasData = members["data"]
	return e, ""
}

// validID reports whether raw is a JSON string or an integer literal (RequestId).
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		var s string
		return json.Unmarshal(raw, &s) == nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return false
	}
	_, err := n.Int64()
	return err == nil
}

// IDKey returns the canonical form of a JSON-RPC id for correlation: the compacted JSON text,
// so that string "1" (`"1"`) and integer 1 (`1`) stay distinct. It returns "" for an absent id.
func IDKey(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// IsBatchReply reports whether raw is a JSON array of JSON-RPC messages (each an object with
// a jsonrpc member): a server's answer to a batch, which only the PROBE-003 scenario sends.
// The stdout rules record it there instead of blaming it as a foreign line.
func IsBatchReply(raw []byte) bool {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return false
	}
	for _, it := range items {
		if _, ok := it["jsonrpc"]; !ok {
			return false
		}
	}
	return true
}

// IsListenNotification reports whether method is a notification that travels only on a
// subscriptions/listen stream (2026-07-28 schema: the acknowledgement, the list-changed
// notifications and notifications/resources/updated).
func IsListenNotification(method string) bool {
	switch method {
	case "notifications/subscriptions/acknowledged", "notifications/tools/list_changed",
		"notifications/prompts/list_changed", "notifications/resources/list_changed",
		"notifications/resources/updated":
		return true
	}
	return false
}
