// Package checks holds the pure check functions of the step bindings: they judge values
// (JSON documents and pointers, tool schemas and arguments, x-mcp-header annotations, URIs) and
// send nothing, so they are tested without a server.
package checks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// TraceMeta is a valid W3C trace context the client sends, so that a server propagating trace
// context has a reason to emit its own.
var TraceMeta = map[string]any{
	"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
	"tracestate":  "mcpconform=t61rcWkgMzE",
	"baggage":     "mcpconform.run=1",
}

// JSONLiteral matches a JSON literal written in a step: a string, a number, true, false, null,
// an object or an array.
const JSONLiteral = `("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null|\{.*\}|\[.*\])`

// MediaType returns the media type of a Content-Type value, lower case, without parameters.
func MediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// ExchangeSeqs returns the frame numbers of one exchange.
func ExchangeSeqs(ex *harness.Exchange) []int {
	var out []int
	if ex.Sent != nil {
		out = append(out, ex.Sent.Seq)
	}
	for _, f := range ex.Frames {
		out = append(out, f.Seq)
	}
	return out
}

// AtPointer is " at PTR" for a JSON pointer into the message, "" for the whole message ("").
func AtPointer(ptr string) string {
	if ptr == "" {
		return ""
	}
	return " at " + ptr
}

// DescribePointer names the member a schema violation's instance path points at: "member
// /result/instructions", or "top level" for "".
func DescribePointer(ptr string) string {
	if ptr == "" {
		return "top level"
	}
	return "member " + ptr
}

// Pointer resolves the RFC 6901 JSON Pointer ptr in the JSON document raw (numbers as
// json.Number): the value and true, or false when raw is not JSON or ptr names nothing in it;
// a ptr without a leading "/" is the feature's bug.
func Pointer(raw []byte, ptr string) (any, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, nil
	}
	if ptr == "" {
		return v, true, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false, fmt.Errorf("feature bug: JSON Pointer %q must start with /", ptr)
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[tok]
			if !ok {
				return nil, false, nil
			}
			v = x
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false, nil
			}
			v = c[i]
		default:
			return nil, false, nil
		}
	}
	return v, true, nil
}

// ParseLiteral decodes lit, a JSON literal written in a step (JSONLiteral), keeping numbers as
// json.Number; a literal that is not JSON is the feature's bug.
func ParseLiteral(lit string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(lit))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("feature bug: %s is not a JSON literal", lit)
	}
	return v, nil
}

// JSONText returns v as JSON, shortened for a one-line report (client.Short); "" when v
// cannot be marshalled.
func JSONText(v any) string {
	b, _ := json.Marshal(v)
	return client.Short(b)
}
