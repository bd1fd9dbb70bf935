package checks

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// HdrTarget is a request whose Mcp-Name mirrors a listed name: the method, the name (tool or
// prompt) or uri (resource) and the body params.
type HdrTarget struct {
	Method string         // tools/call, prompts/get or resources/read
	Name   string         // the listed name (tool, prompt) or uri (resource) Mcp-Name mirrors
	Params map[string]any // the request's params, without `_meta`
}

// HdrProbe is one request a header step (steps/headers.go) sent, described for the report.
type HdrProbe struct {
	What string            // the request in words ("tools/call \"echo\" without Mcp-Name")
	Ex   *harness.Exchange // its exchange
}

// HdrTool is a listed tool with its x-mcp-header annotations and the tools/list page that
// carried it.
type HdrTool struct {
	Name   string           // the listed tool name
	Safe   bool             // the --call-tools policy lets the suite call it
	Anns   []XMCPAnnotation // every x-mcp-header annotation of its inputSchema (XmcpAnnotations)
	Params []*HdrParam      // the valid, reachable annotations
	Frames []int            // seqs of the tools/list page exchange that listed it
}

// HdrParam is an x-mcp-header parameter reachable through properties: its property chain,
// header name portion, declared type and schema.
type HdrParam struct {
	Path   []string       // the property names from the inputSchema root to the parameter
	Header string         // the x-mcp-header value: the name after "Mcp-Param-"
	Typ    string         // the schema's single type: string, integer or boolean
	Schema map[string]any // the parameter's schema
}

// HdrOmit as a header value in the steps' hdrCall means: send no such header.
const HdrOmit = "\x00omit"

// Name returns the HTTP header that mirrors the parameter: "Mcp-Param-" + Header
// (basic/transports/streamable-http#Server Behavior for Custom Headers).
func (p *HdrParam) Name() string { return "Mcp-Param-" + p.Header }

// Key identifies the parameter in the flat argument maps the steps build (its property chain
// joined with NUL); the steps' hdrCall nests them (SetPath).
func (p *HdrParam) Key() string { return strings.Join(p.Path, "\x00") }

// Sample returns a value of the parameter's type that its schema admits where it says so
// (enum, minimum, maximum); alt gives a different one.
func (p *HdrParam) Sample(alt bool) any {
	switch p.Typ {
	case "integer":
		n, lo, hi := int64(7), int64(-1<<53+1), int64(1<<53-1)
		if v, ok := schemaInt(p.Schema["minimum"]); ok && v > lo {
			lo = v
		}
		if v, ok := schemaInt(p.Schema["maximum"]); ok && v < hi {
			hi = v
		}
		n = max(lo, min(hi, n))
		if alt {
			if n < hi {
				return n + 1
			}
			return n - 1
		}
		return n
	case "boolean":
		return !alt
	}
	var enum []string
	if e, ok := p.Schema["enum"].([]any); ok {
		for _, v := range e {
			if s, ok := v.(string); ok {
				enum = append(enum, s)
			}
		}
	}
	switch {
	case !alt && len(enum) > 0:
		return enum[0]
	case alt && len(enum) > 1:
		return enum[1]
	case alt:
		return "mcp-conform-b"
	}
	return "mcp-conform-a"
}

func schemaInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || f < -(1<<53) || f > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// HeaderText converts an argument value to its header text (streamable-http#Value Encoding):
// strings as they are, integers in decimal, booleans lowercase.
func HeaderText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case json.RawMessage:
		return string(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// DecodeNumbers unmarshals raw keeping numbers as json.Number.
func DecodeNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	return dec.Decode(v)
}

// HasRequired reports whether a listed tool or prompt declares a required argument.
func HasRequired(item map[string]any) bool {
	if is, ok := item["inputSchema"].(map[string]any); ok {
		req, _ := is["required"].([]any)
		return len(req) > 0
	}
	args, _ := item["arguments"].([]any)
	for _, a := range args {
		if m, ok := a.(map[string]any); ok && m["required"] == true {
			return true
		}
	}
	return false
}

// SetOrOmit returns a header edit (Call.EditHeaders) that sets header name to value, or
// deletes it when value is HdrOmit.
func SetOrOmit(name, value string) func(http.Header) {
	return func(h http.Header) {
		if value == HdrOmit {
			h.Del(name)
		} else {
			h.Set(name, value)
		}
	}
}

// RejectedForHeaders reports whether an exchange was refused for its headers: a -32020 error,
// or a 400 without a JSON-RPC response.
func RejectedForHeaders(ex *harness.Exchange) bool {
	if ex.Response == nil {
		return ex.HTTP != nil && ex.HTTP.Status == http.StatusBadRequest
	}
	msg, _ := harness.ParseMessage(ex.Response.Body())
	return msg.Kind == harness.KindError && msg.Error.Code == -32020
}

// OutcomeOf describes an exchange's reply in a few words.
func OutcomeOf(ex *harness.Exchange) string {
	var parts []string
	if ex.HTTP != nil {
		parts = append(parts, fmt.Sprintf("HTTP %d", ex.HTTP.Status))
	}
	if ex.Response != nil {
		msg, _ := harness.ParseMessage(ex.Response.Body())
		parts = append(parts, client.Describe(msg))
	} else {
		parts = append(parts, "no JSON-RPC response")
		if ex.Err != nil {
			parts = append(parts, ex.Err.Error())
		}
	}
	return strings.Join(parts, ", ")
}

// Pick returns the tool's valid parameter of type typ ("" = any, string preferred).
func (t *HdrTool) Pick(typ string) *HdrParam {
	for _, want := range []string{"string", "integer", "boolean"} {
		if typ != "" && want != typ {
			continue
		}
		for _, p := range t.Params {
			if p.Typ == want {
				return p
			}
		}
	}
	return nil
}

// HasAnnotationOf reports whether any x-mcp-header annotation of the tool, valid or not, is on
// a schema of type typ ("" = any type).
func (t *HdrTool) HasAnnotationOf(typ string) bool {
	for _, a := range t.Anns {
		if typ == "" || a.Typ() == typ {
			return true
		}
	}
	return false
}

// SetPath sets v at the property chain path of m, making the intermediate objects it lacks
// (and replacing members on the way that are not objects); path must not be empty.
func SetPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// CheckUnique reports x-mcp-header values of one tool equal but for letter case.
func CheckUnique(t *HdrTool) string {
	seen := map[string]string{}
	var dup []string
	for _, a := range t.Anns {
		s, ok := a.Value.(string)
		if !ok {
			continue
		}
		k := strings.ToLower(s)
		if prev, ok := seen[k]; ok {
			dup = append(dup, fmt.Sprintf("%q at %s and %q at %s", prev, pointerOf(t, prev), s, a.ptr))
			continue
		}
		seen[k] = s
	}
	sort.Strings(dup)
	return strings.Join(dup, "; ")
}

func pointerOf(t *HdrTool, value string) string {
	for _, a := range t.Anns {
		if a.Value == value {
			return a.ptr
		}
	}
	return ""
}

// XMCPAnnotation is one x-mcp-header annotation found anywhere in an inputSchema: the JSON
// Pointer of the schema carrying it, its value, that schema, the property name it sits on
// ("" when the schema is not a property), and, when the schema is reachable from the root
// through `properties` keys alone, that property chain.
type XMCPAnnotation struct {
	ptr       string
	Value     any            // the x-mcp-header value as decoded
	Schema    map[string]any // the schema object that carries the annotation
	prop      string
	Path      []string // the property chain from the root, when reachable
	reachable bool
}

// Typ returns the annotated schema's single non-null type ("" when none or several).
func (a XMCPAnnotation) Typ() string {
	switch t := a.Schema["type"].(type) {
	case string:
		return t
	case []any:
		var types []string
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				types = append(types, s)
			}
		}
		if len(types) == 1 {
			return types[0]
		}
	}
	return ""
}

// XmcpAnnotations walks an inputSchema and returns every x-mcp-header annotation in it, in a
// stable order.
func XmcpAnnotations(schema any) []XMCPAnnotation {
	var out []XMCPAnnotation
	var walk func(node any, ptr, prop string, path []string, reachable bool)
	walk = func(node any, ptr, prop string, path []string, reachable bool) {
		sch, ok := node.(map[string]any)
		if !ok {
			return
		}
		if v, ok := sch["x-mcp-header"]; ok {
			out = append(out, XMCPAnnotation{ptr: ptr, Value: v, Schema: sch, prop: prop, Path: path, reachable: reachable && len(path) > 0})
		}
		for _, kw := range schemaMapKeywords {
			m, ok := sch[kw].(map[string]any)
			if !ok {
				continue
			}
			for _, k := range sortedKeys(m) {
				child := ptr + "/" + escapePointer(kw) + "/" + escapePointer(k)
				if kw == "properties" {
					walk(m[k], child, k, append(append([]string(nil), path...), k), reachable)
				} else {
					walk(m[k], child, map[bool]string{true: k}[kw == "patternProperties"], nil, false)
				}
			}
		}
		for _, kw := range schemaKeywords {
			if v, ok := sch[kw].(map[string]any); ok {
				walk(v, ptr+"/"+escapePointer(kw), "", nil, false)
			}
		}
		for _, kw := range schemaArrayKeywords {
			if arr, ok := sch[kw].([]any); ok {
				for i, v := range arr {
					walk(v, fmt.Sprintf("%s/%s/%d", ptr, kw, i), "", nil, false)
				}
			}
		}
	}
	walk(schema, "", "", nil, true)
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// XmcpCheck judges one annotation: "" when it holds, otherwise why not.
type XmcpCheck func(XMCPAnnotation) string

func where(a XMCPAnnotation) string {
	if a.ptr == "" {
		return "at the inputSchema root"
	}
	return "at " + a.ptr
}

// CheckToken is the XmcpCheck that the annotation's value is a non-empty RFC 9110 token
// (1*tchar), which excludes CTLs, CR, LF (server/tools#x-mcp-header).
func CheckToken(a XMCPAnnotation) string {
	s, ok := a.Value.(string)
	if !ok {
		return fmt.Sprintf("x-mcp-header %s is %s, not a string", where(a), JSONText(a.Value))
	}
	if s == "" {
		return "empty x-mcp-header " + where(a)
	}
	for i := 0; i < len(s); i++ {
		if !isTchar(s[i]) {
			return fmt.Sprintf("x-mcp-header %s %s has %q, not a token character", strconv.Quote(s), where(a), s[i:i+1])
		}
	}
	return ""
}

func isTchar(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// maxSafe is 2^53-1, the largest integer an IEEE 754 double holds exactly.
const maxSafe = 1<<53 - 1

// CheckType is the XmcpCheck that the annotated parameter is a string, integer or boolean
// (never number, object, array), and that an integer's bounds and listed values stay within
// ±(2^53-1) (server/tools#x-mcp-header).
func CheckType(a XMCPAnnotation) string {
	typ := a.Typ()
	if typ == "" {
		typ = constType(a.Schema)
	}
	switch typ {
	case "string", "boolean":
		return ""
	case "integer":
	case "":
		return fmt.Sprintf("x-mcp-header parameter %s declares no single type (type %s)", where(a), JSONText(a.Schema["type"]))
	default:
		return fmt.Sprintf("x-mcp-header parameter %s has type %s", where(a), typ)
	}
	bounds := []struct {
		kw    string
		limit int64
		upper bool
	}{{"minimum", -maxSafe, false}, {"exclusiveMinimum", -maxSafe - 1, false}, {"maximum", maxSafe, true}, {"exclusiveMaximum", maxSafe + 1, true}}
	for _, b := range bounds {
		n, ok := a.Schema[b.kw].(json.Number)
		if !ok {
			continue
		}
		if c, ok := compareNumber(n, b.limit); ok && (b.upper && c > 0 || !b.upper && c < 0) {
			return fmt.Sprintf("integer x-mcp-header parameter %s has %s %s, outside ±(2^53-1)", where(a), b.kw, n)
		}
	}
	vals, _ := a.Schema["enum"].([]any)
	if c, ok := a.Schema["const"]; ok {
		vals = append(vals, c)
	}
	for _, v := range vals {
		if n, ok := v.(json.Number); ok {
			hi, ok1 := compareNumber(n, maxSafe)
			lo, ok2 := compareNumber(n, -maxSafe)
			if ok1 && ok2 && (hi > 0 || lo < 0) {
				return fmt.Sprintf("integer x-mcp-header parameter %s admits %s, outside ±(2^53-1)", where(a), n)
			}
		}
	}
	return ""
}

// compareNumber compares a JSON number exactly with an integer: -1, 0 or +1.
func compareNumber(n json.Number, limit int64) (int, bool) {
	r, ok := new(big.Rat).SetString(n.String())
	if !ok {
		return 0, false
	}
	return r.Cmp(new(big.Rat).SetInt64(limit)), true
}

// constType returns the JSON type shared by every enum/const value of a schema without type
// ("" when there are none or they differ).
func constType(s map[string]any) string {
	vals, _ := s["enum"].([]any)
	if c, ok := s["const"]; ok {
		vals = append(vals, c)
	}
	typ := ""
	for _, v := range vals {
		t := ""
		switch x := v.(type) {
		case string:
			t = "string"
		case bool:
			t = "boolean"
		case json.Number:
			t = "number"
			if _, err := x.Int64(); err == nil {
				t = "integer"
			}
		default:
			return ""
		}
		if typ != "" && t != typ {
			return ""
		}
		typ = t
	}
	return typ
}

// CheckReachable is the XmcpCheck that the annotation sits on a property reached from the
// root through `properties` keys alone (server/tools#x-mcp-header).
func CheckReachable(a XMCPAnnotation) string {
	if a.reachable {
		return ""
	}
	return "x-mcp-header " + where(a) + " is not reachable from the root through properties alone"
}

// CheckSensitive is the XmcpCheck that neither the annotated property's name nor the header
// name looks like a password, key, token or personal data (server/tools#x-mcp-header warning).
func CheckSensitive(a XMCPAnnotation) string {
	names := []string{a.prop}
	if s, ok := a.Value.(string); ok {
		names = append(names, s)
	}
	for _, n := range names {
		if w := sensitiveWord(n); w != "" {
			return fmt.Sprintf("x-mcp-header %s mirrors %q (%s) into a header visible to intermediaries", where(a), n, w)
		}
	}
	return ""
}

// sensitiveWord returns the sensitive word or pair found in name ("" when none): the name is
// split into lower-case words at non-alphanumerics and camelCase boundaries.
func sensitiveWord(name string) string {
	words := splitWords(name)
	for i, w := range words {
		if sensitiveWords[w] && !(w == "token" && i > 0 && harmlessTokenPrefixes[words[i-1]]) {
			return w
		}
		if i > 0 && sensitivePairs[[2]string{words[i-1], w}] {
			return words[i-1] + " " + w
		}
	}
	return ""
}

func splitWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum {
			flush()
			continue
		}
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 && len(cur) > 0 {
			prevLower := rs[i-1] >= 'a' && rs[i-1] <= 'z' || rs[i-1] >= '0' && rs[i-1] <= '9'
			nextLower := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
			if prevLower || nextLower && rs[i-1] >= 'A' && rs[i-1] <= 'Z' {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// sensitiveWords are parameter-name words that suggest secrets or personal data; sensitivePairs
// are such two-word names.
var (
	sensitiveWords = map[string]bool{
		"password": true, "passwd": true, "passphrase": true, "pwd": true, "secret": true, "token": true,
		"credential": true, "credentials": true, "authorization": true, "auth": true, "bearer": true,
		"apikey": true, "privatekey": true, "accesskey": true, "cookie": true, "ssn": true, "email": true,
	}
	sensitivePairs = map[[2]string]bool{
		{"api", "key"}: true, {"private", "key"}: true, {"access", "key"}: true, {"secret", "key"}: true,
		{"client", "secret"}: true, {"social", "security"}: true,
	}
	// harmlessTokenPrefixes make "token" a paging or sizing word, not a credential.
	harmlessTokenPrefixes = map[string]bool{"page": true, "next": true, "prev": true, "previous": true, "continuation": true, "cursor": true, "max": true, "sync": true}
)

// Schema keywords whose value is a map of schemas, a schema, or an array of schemas
// (JSON Schema 2020-12 and draft-07); other keywords hold data and are not walked.
var (
	schemaMapKeywords   = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	schemaKeywords      = []string{"items", "additionalItems", "contains", "not", "if", "then", "else", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
	schemaArrayKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)
