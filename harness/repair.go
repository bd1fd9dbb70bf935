package harness

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Repair is one wire defect of a server frame that the harness read past: Rule is the rule
// the defect breaks (MSG-001, MSG-002) and What says what was wrong, in one line.
type Repair struct {
	Rule string `json:"rule"`
	What string `json:"what"`
}

// Rules whose defects Repaired reads past.
const (
	ruleJSONRPC = "MSG-001" // basic/index#Messages: jsonrpc is "2.0"
	ruleUTF8    = "MSG-002" // basic/transports#Messages: UTF-8, no byte order mark
)

var utf8BOM = []byte("\xef\xbb\xbf")

// Repaired reads raw, a server frame that is not a well-formed JSON-RPC message, as if its
// wire defects were absent, so that the reply still reaches the request it answers and the
// other rules judge its content (issue "Honest verdicts": whatever the server answers gets a
// verdict). The defects read past are a leading UTF-8 byte order mark and invalid UTF-8
// (MSG-002; invalid sequences become U+FFFD) and a missing or wrong "jsonrpc" member
// (MSG-001; set to "2.0"). It returns the repaired bytes, the defects, and the message they
// parse to; nil when raw needs none of these repairs or is no well-formed message even
// repaired. The recorded frame keeps raw: MSG-001 and MSG-002 judge the bytes the server sent.
func Repaired(raw []byte) ([]byte, []Repair, *Message) {
	b := raw
	var reps []Repair
	if bytes.HasPrefix(b, utf8BOM) {
		b = b[len(utf8BOM):]
		reps = append(reps, Repair{Rule: ruleUTF8, What: "the message starts with a UTF-8 byte order mark"})
	}
	if !utf8.Valid(b) {
		b = bytes.ToValidUTF8(b, []byte("\uFFFD"))
		reps = append(reps, Repair{Rule: ruleUTF8, What: "the message is not valid UTF-8"})
	}
	m, members, err := ParseMessageMembers(b)
	if err != nil {
		return nil, nil, nil
	}
	if m.JSONRPC != "2.0" {
		what := `the message has no "jsonrpc" member`
		if v, ok := members["jsonrpc"]; ok {
			what = `"jsonrpc" is ` + string(bytes.TrimSpace(v)) + `, not "2.0"`
		}
		members["jsonrpc"] = json.RawMessage(`"2.0"`)
		fixed, err := json.Marshal(members)
		if err != nil {
			return nil, nil, nil
		}
		b = fixed
		reps = append(reps, Repair{Rule: ruleJSONRPC, What: what})
		if m, _, err = ParseMessageMembers(b); err != nil {
			return nil, nil, nil
		}
	}
	if len(reps) == 0 || m.Kind == KindInvalid {
		return nil, nil, nil
	}
	return b, reps, m
}
