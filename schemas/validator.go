package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Message kinds accepted in MessageInfo.Kind (the same words as the harness's Kind).
const (
	KindRequest      = "request"
	KindNotification = "notification"
	KindResult       = "result"
	KindError        = "error"
)

// Violation is one schema error: InstancePath is the JSON Pointer of the offending value in
// the validated frame (e.g. "/result/ttlMs"); SchemaPath is the JSON Pointer of the failing
// keyword in the revision's schema document, dereferenced (e.g.
// "/$defs/DiscoverResult/properties/ttlMs/minimum"); Message says what is wrong. Members, on a
// "required" or "additionalProperties" violation only, are the names of the members missing
// or not allowed (sorted), so a rule can claim a violation by the member it is about.
type Violation struct {
	InstancePath string
	SchemaPath   string
	Message      string
	Members      []string
}

// String renders v as "<instance path>: <message> [<schema path>]" (instance path "" is
// shown as "/").
func (v Violation) String() string {
	p := v.InstancePath
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("%s: %s [%s]", p, v.Message, v.SchemaPath)
}

// MessageInfo says what a frame is, so that Validate can pick the most specific type.
// FromServer is the frame's direction. Kind is one of KindRequest, KindNotification,
// KindResult, KindError, or "" (also "invalid") for a frame of unknown shape, validated as
// JSONRPCMessage.
// Method is the frame's own method for requests and notifications, and for results and errors
// the method of the request they answer ("" when unknown). Task reports that the answered
// request was task-augmented (it carried params.task, 2025-11-25): its result is then a
// CreateTaskResult, in revisions that define one.
type MessageInfo struct {
	FromServer bool
	Kind       string
	Method     string
	Task       bool
}

// Validator validates values against the compiled types of one revision's schema. It is
// immutable once built and safe for concurrent use.
type Validator struct {
	rev     string
	docURL  string
	dialect string
	defsKey string
	defs    map[string]map[string]any
	schemas map[string]*jsonschema.Schema

	// requests and notifications map a method to its type, indexed by direction
	// (0: sent by the client, 1: sent by the server).
	requests      [2]map[string]string
	notifications [2]map[string]string
	errorsByCode  map[int64]errorType
	env           envelopes
}

// errorType is a type selected by an error code: whole means the type describes the whole
// error response (e.g. UnsupportedProtocolVersionError), otherwise just the error object
// (e.g. InvalidParamsError).
type errorType struct {
	name  string
	whole bool
}

// envelopes are the generic JSON-RPC types of a revision.
type envelopes struct {
	request, notification, result, error, message string
}

// genericTypes are the type names Validate falls back to when no specific type applies.
var genericTypes = map[string]bool{
	"JSONRPCRequest": true, "JSONRPCNotification": true, "JSONRPCResultResponse": true,
	"JSONRPCResponse": true, "JSONRPCMessage": true,
}

// IsGeneric reports whether typeName, as returned by Validate, is a generic JSON-RPC fallback
// (JSONRPCRequest, JSONRPCNotification, JSONRPCResultResponse or JSONRPCResponse alone,
// JSONRPCMessage): the method was unknown to the revision for that kind and direction, so
// only the envelope was checked. Error responses are never generic.
func IsGeneric(typeName string) bool { return genericTypes[typeName] }

// refuseLoader refuses every URL: only the schema document itself may be referenced. (The
// JSON Schema meta-schemas are built into the library and never fetched.)
type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external reference %s refused: only the pinned schema document is used", u)
}

// Compile compiles data, the schema.json of revision rev, with format assertion on (formats
// byte, uri, uri-template registered, see ValidateByte), in the JSON Schema dialect its
// `$schema` names, every definition at once, refusing any external reference. Callers that
// load data themselves must verify it first (Source.Load does).
func Compile(rev string, data []byte) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schemas: %s: parsing schema.json: %w", rev, err)
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schemas: %s: schema.json is not a JSON object", rev)
	}
	v := &Validator{
		rev:     rev,
		docURL:  "https://mcp-conform.invalid/schema/" + url.PathEscape(rev) + "/schema.json",
		defs:    map[string]map[string]any{},
		schemas: map[string]*jsonschema.Schema{},
	}
	v.dialect, _ = root["$schema"].(string)
	if v.dialect == "" {
		return nil, fmt.Errorf("schemas: %s: schema.json has no $schema", rev)
	}
	var rawDefs map[string]any
	for _, k := range []string{"$defs", "definitions"} {
		if m, ok := root[k].(map[string]any); ok {
			v.defsKey, rawDefs = k, m
			break
		}
	}
	if rawDefs == nil {
		return nil, fmt.Errorf("schemas: %s: schema.json has neither $defs nor definitions", rev)
	}
	for name, d := range rawDefs {
		if m, ok := d.(map[string]any); ok {
			v.defs[name] = m
		}
	}

	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	for _, f := range formatsFor() {
		c.RegisterFormat(f)
	}
	if err := c.AddResource(v.docURL, doc); err != nil {
		return nil, fmt.Errorf("schemas: %s: %w", rev, err)
	}
	if _, err := c.Compile(v.docURL); err != nil {
		return nil, fmt.Errorf("schemas: %s: compiling: %w", rev, err)
	}
	for _, name := range sortedKeys(rawDefs) {
		sch, err := c.Compile(v.docURL + "#/" + v.defsKey + "/" + escapeToken(name))
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: compiling %s: %w", rev, name, err)
		}
		v.schemas[name] = sch
	}
	if err := v.index(); err != nil {
		return nil, fmt.Errorf("schemas: %s: %w", rev, err)
	}
	return v, nil
}

// index derives the method and error-code lookups from the definitions.
func (v *Validator) index() error {
	v.env = envelopes{request: "JSONRPCRequest", notification: "JSONRPCNotification",
		result: "JSONRPCResultResponse", error: "JSONRPCErrorResponse", message: "JSONRPCMessage"}
	if !v.Has(v.env.result) {
		v.env.result = "JSONRPCResponse" // draft-07 revisions
	}
	if !v.Has(v.env.error) {
		v.env.error = "JSONRPCError" // draft-07 revisions
	}
	for _, n := range []string{v.env.request, v.env.notification, v.env.result, v.env.error, v.env.message} {
		if !v.Has(n) {
			return fmt.Errorf("no %s definition", n)
		}
	}
	for dir, side := range []string{"Client", "Server"} {
		v.requests[dir] = v.methodIndex(side + "Request")
		v.notifications[dir] = v.methodIndex(side + "Notification")
	}
	v.errorsByCode = map[int64]errorType{}
	for _, name := range sortedKeys(v.defs) {
		props, _ := v.defs[name]["properties"].(map[string]any)
		if code, ok := codeConst(props); ok {
			if _, dup := v.errorsByCode[code]; !dup {
				v.errorsByCode[code] = errorType{name: name}
			}
			continue
		}
		errSchema, _ := props["error"].(map[string]any)
		if errSchema == nil {
			continue
		}
		cands := []map[string]any{errSchema}
		if all, ok := errSchema["allOf"].([]any); ok {
			for _, a := range all {
				if m, ok := a.(map[string]any); ok {
					cands = append(cands, m)
				}
			}
		}
		for _, c := range cands {
			p, _ := c["properties"].(map[string]any)
			if code, ok := codeConst(p); ok {
				if _, dup := v.errorsByCode[code]; !dup {
					v.errorsByCode[code] = errorType{name: name, whole: true}
				}
				break
			}
		}
	}
	return nil
}

// methodIndex maps each method of the members of union (e.g. "ClientRequest") to the member
// type. A missing union (e.g. ServerRequest in 2026-07-28) yields an empty index.
func (v *Validator) methodIndex(union string) map[string]string {
	idx := map[string]string{}
	for _, m := range v.members(union, map[string]bool{}) {
		if meth := v.methodOf(m); meth != "" {
			if _, dup := idx[meth]; !dup {
				idx[meth] = m
			}
		}
	}
	return idx
}

// members expands a union definition (anyOf/oneOf of $refs, or a single $ref) into the
// definitions it admits; a definition with its own method const is its own single member.
func (v *Validator) members(name string, seen map[string]bool) []string {
	d, ok := v.defs[name]
	if !ok || seen[name] {
		return nil
	}
	seen[name] = true
	if v.methodOf(name) != "" {
		return []string{name}
	}
	var out []string
	if ref := v.refName(d); ref != "" {
		return v.members(ref, seen)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		list, _ := d[k].([]any)
		for _, item := range list {
			if m, ok := item.(map[string]any); ok {
				if ref := v.refName(m); ref != "" {
					out = append(out, v.members(ref, seen)...)
				}
			}
		}
	}
	return out
}

// refName returns the definition name of a local "$ref" in s, or "".
func (v *Validator) refName(s map[string]any) string {
	ref, _ := s["$ref"].(string)
	prefix := "#/" + v.defsKey + "/"
	if !strings.HasPrefix(ref, prefix) {
		return ""
	}
	return unescapeToken(ref[len(prefix):])
}

// methodOf returns properties.method.const of definition name, or "".
func (v *Validator) methodOf(name string) string {
	props, _ := v.defs[name]["properties"].(map[string]any)
	m, _ := props["method"].(map[string]any)
	s, _ := m["const"].(string)
	return s
}

func codeConst(props map[string]any) (int64, bool) {
	c, _ := props["code"].(map[string]any)
	n, ok := c["const"].(interface{ String() string })
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	return i, err == nil
}

// Revision returns the specification revision of the schema, e.g. "2026-07-28".
func (v *Validator) Revision() string { return v.rev }

// Dialect returns the `$schema` of the schema document (the JSON Schema draft used).
func (v *Validator) Dialect() string { return v.dialect }

// Has reports whether the revision defines typeName (under $defs or definitions).
func (v *Validator) Has(typeName string) bool {
	_, ok := v.schemas[typeName]
	return ok
}

// Types returns the names of all definitions of the revision, sorted.
func (v *Validator) Types() []string { return sortedKeys(v.schemas) }

// ValidateAs validates raw, one JSON value, against definition typeName, and returns its
// violations (nil when valid) with instancePrefix (a JSON Pointer such as "/result", or "")
// prepended to every instance path. The error is non-nil when raw is not JSON or typeName is
// not defined by the revision.
func (v *Validator) ValidateAs(raw []byte, typeName string, instancePrefix string) ([]Violation, error) {
	inst, err := decode(raw)
	if err != nil {
		return nil, err
	}
	return v.validateValue(inst, typeName, instancePrefix)
}

func (v *Validator) validateValue(inst any, typeName, prefix string) ([]Violation, error) {
	sch, ok := v.schemas[typeName]
	if !ok {
		return nil, fmt.Errorf("schemas: revision %s defines no type %q", v.rev, typeName)
	}
	err := sch.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, fmt.Errorf("schemas: validating against %s: %w", typeName, err)
	}
	var out []Violation
	v.leaves(ve, prefix, &out)
	return normalize(out), nil
}

// leaves appends the leaf errors of the tree under e. For a failed anyOf/oneOf it keeps only
// the branches whose discriminator matched (see prune).
func (v *Validator) leaves(e *jsonschema.ValidationError, prefix string, out *[]Violation) {
	if len(e.Causes) > 0 {
		causes := e.Causes
		switch e.ErrorKind.(type) {
		case *kind.AnyOf, *kind.OneOf:
			causes = prune(e)
		}
		for _, c := range causes {
			v.leaves(c, prefix, out)
		}
		return
	}
	loc, kw := e.SchemaURL, e.ErrorKind.KeywordPath()
	if ref, ok := e.ErrorKind.(*kind.Reference); ok {
		loc, kw = ref.URL, nil
	}
	msg := ""
	if o := e.BasicOutput(); o.Error != nil {
		msg = o.Error.String()
	}
	var members []string
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		members = slices.Sorted(slices.Values(k.Missing))
	case *kind.AdditionalProperties:
		members = slices.Sorted(slices.Values(k.Properties))
	}
	*out = append(*out, Violation{
		InstancePath: prefix + pointer(e.InstanceLocation),
		SchemaPath:   v.schemaPath(loc) + pointer(kw),
		Message:      msg,
		Members:      members,
	})
}

// prune returns the branches of a failed anyOf/oneOf worth reporting. A branch that failed a
// `const` on a direct member of the value (a discriminator such as ContentBlock's "type") is
// dropped when another branch did not: for an image block with bad data the report names the
// ImageContent error, not "type must be text" for every other kind of block. When every branch
// failed its discriminator (an unknown "type"), all are kept.
func prune(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	depth := len(e.InstanceLocation) + 1
	var matched []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if !constMismatch(c, depth) {
			matched = append(matched, c)
		}
	}
	if len(matched) == 0 {
		return e.Causes
	}
	return matched
}

func constMismatch(e *jsonschema.ValidationError, depth int) bool {
	if _, ok := e.ErrorKind.(*kind.Const); ok && len(e.InstanceLocation) == depth {
		return true
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf: // a nested union mismatches only if all its branches do
		for _, c := range e.Causes {
			if !constMismatch(c, depth) {
				return false
			}
		}
		return len(e.Causes) > 0
	}
	for _, c := range e.Causes {
		if constMismatch(c, depth) {
			return true
		}
	}
	return false
}

// schemaPath turns an absolute schema location into a JSON Pointer within the document.
func (v *Validator) schemaPath(loc string) string {
	rest, ok := strings.CutPrefix(loc, v.docURL)
	if !ok {
		return loc
	}
	rest = strings.TrimPrefix(rest, "#")
	if u, err := url.PathUnescape(rest); err == nil {
		rest = u
	}
	return rest
}

// step validates the value at member At of the frame ("" for the frame itself) against Type,
// prefixing instance paths with "/"+At.
type step struct {
	Type string
	At   string
}

// plan is the choice of types for one frame.
type plan struct {
	name  string
	steps []step
}

func single(t string) plan { return plan{name: t, steps: []step{{Type: t}}} }

func pair(envelope, t, at string) plan {
	return plan{name: envelope + "+" + t, steps: []step{{Type: envelope}, {Type: t, At: at}}}
}

// Validate validates raw, one JSON-RPC frame, against the most specific type the revision
// defines for it and returns the type used and the violations (nil when valid):
//   - requests and notifications: the member of ClientRequest/ServerRequest (or
//     ClientNotification/ServerNotification, by direction) whose properties.method.const is
//     info.Method; in the draft-07 revisions, whose request types lack the JSON-RPC members,
//     also the envelope: "JSONRPCRequest+CallToolRequest";
//   - results: the method-specific wrapper "<X>ResultResponse" when defined (where its result
//     is a union with InputRequiredResult, the branch is chosen by result.resultType
//     "input_required" and also validated at /result: "CallToolResultResponse+CallToolResult");
//     else the envelope and the request's "<X>Result" (or EmptyResult, or CreateTaskResult
//     when info.Task) at /result: "JSONRPCResultResponse+ListToolsResult";
//   - errors: JSONRPCErrorResponse (JSONRPCError in draft-07) and, when the revision defines a
//     type for error.code, that type: at /error when it describes the error object
//     ("JSONRPCErrorResponse+InvalidParamsError"), alone when it describes the whole response
//     ("UnsupportedProtocolVersionError");
//   - otherwise the generic type (see IsGeneric): JSONRPCRequest, JSONRPCNotification, the
//     result envelope, or JSONRPCMessage when info.Kind is "".
//
// Violations are the leaf errors, deduplicated and sorted by instance path, schema path and
// message. The error is non-nil when raw is not one JSON value or info.Kind is not valid.
func (v *Validator) Validate(raw []byte, info MessageInfo) (typeName string, vs []Violation, err error) {
	inst, err := decode(raw)
	if err != nil {
		return "", nil, err
	}
	p, err := v.plan(inst, info)
	if err != nil {
		return "", nil, err
	}
	obj, _ := inst.(map[string]any)
	var all []Violation
	for _, s := range p.steps {
		val := inst
		prefix := ""
		if s.At != "" {
			m, ok := obj[s.At]
			if !ok {
				continue // the envelope reports the missing member
			}
			val, prefix = m, "/"+escapeToken(s.At)
		}
		got, err := v.validateValue(val, s.Type, prefix)
		if err != nil {
			return p.name, nil, err
		}
		all = append(all, got...)
	}
	return p.name, normalize(all), nil
}

// TypeFor returns the type name Validate would use for a frame described by info, without
// validating anything; for errors it is the envelope (the code-specific type needs the frame).
func (v *Validator) TypeFor(info MessageInfo) (string, error) {
	p, err := v.plan(nil, info)
	return p.name, err
}

func (v *Validator) plan(inst any, info MessageInfo) (plan, error) {
	dir := 0
	if info.FromServer {
		dir = 1
	}
	obj, _ := inst.(map[string]any)
	switch info.Kind {
	case "", "invalid":
		return single(v.env.message), nil
	case KindRequest:
		return v.methodPlan(v.requests[dir][info.Method], v.env.request), nil
	case KindNotification:
		return v.methodPlan(v.notifications[dir][info.Method], v.env.notification), nil
	case KindResult:
		req := v.requests[1-dir][info.Method] // the request came from the other side
		if req == "" {
			return single(v.env.result), nil
		}
		base := strings.TrimSuffix(req, "Request")
		if info.Task && v.Has("CreateTaskResult") {
			return pair(v.env.result, "CreateTaskResult", "result"), nil
		}
		if w := base + "ResultResponse"; v.Has(w) {
			return v.wrapperPlan(w, obj), nil
		}
		for _, t := range []string{base + "Result", "EmptyResult"} {
			if v.Has(t) {
				return pair(v.env.result, t, "result"), nil
			}
		}
		return single(v.env.result), nil
	case KindError:
		e, ok := obj["error"].(map[string]any)
		if !ok {
			return single(v.env.error), nil
		}
		code, ok := intValue(e["code"])
		if !ok {
			return single(v.env.error), nil
		}
		t, ok := v.errorsByCode[code]
		switch {
		case !ok:
			return single(v.env.error), nil
		case t.whole:
			return single(t.name), nil
		default:
			return pair(v.env.error, t.name, "error"), nil
		}
	}
	return plan{}, fmt.Errorf("schemas: unknown message kind %q", info.Kind)
}

// methodPlan validates a request or notification type, with the envelope when the type lacks
// the JSON-RPC members (draft-07 revisions).
func (v *Validator) methodPlan(t, envelope string) plan {
	if t == "" {
		return single(envelope)
	}
	props, _ := v.defs[t]["properties"].(map[string]any)
	if _, full := props["jsonrpc"]; full {
		return single(t)
	}
	return plan{name: envelope + "+" + t, steps: []step{{Type: envelope}, {Type: t}}}
}

// wrapperPlan validates a <X>ResultResponse; when its result is a union that includes
// InputRequiredResult, the branch that result.resultType selects is validated at /result too,
// because InputRequiredResult alone admits almost any object with a resultType.
func (v *Validator) wrapperPlan(w string, obj map[string]any) plan {
	props, _ := v.defs[w]["properties"].(map[string]any)
	res, _ := props["result"].(map[string]any)
	list, _ := res["anyOf"].([]any)
	if len(list) == 0 {
		return single(w)
	}
	var input string
	var others []string
	for _, item := range list {
		m, _ := item.(map[string]any)
		switch n := v.refName(m); {
		case n == "":
			return single(w)
		case n == "InputRequiredResult":
			input = n
		default:
			others = append(others, n)
		}
	}
	result, _ := obj["result"].(map[string]any)
	rt, _ := result["resultType"].(string)
	branch := ""
	switch {
	case rt == "input_required" && input != "":
		branch = input
	case len(others) == 1:
		branch = others[0]
	default:
		return single(w)
	}
	return plan{name: w + "+" + branch, steps: []step{{Type: w}, {Type: branch, At: "result"}}}
}

// intValue returns the integer value of a decoded JSON number (json.Number), also when it is
// written with a zero fraction (-32602.0, accepted by type integer).
func intValue(x any) (int64, bool) {
	n, ok := x.(interface{ String() string })
	if !ok {
		return 0, false
	}
	if i, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

func decode(raw []byte) (any, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schemas: not one JSON value: %w", err)
	}
	return inst, nil
}

// normalize removes duplicate violations and sorts them.
func normalize(vs []Violation) []Violation {
	if len(vs) == 0 {
		return nil
	}
	type key struct{ instance, schema, message string }
	seen := make(map[key]bool, len(vs))
	out := vs[:0:0]
	for _, x := range vs {
		if k := (key{x.InstancePath, x.SchemaPath, x.Message}); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.InstancePath != b.InstancePath {
			return a.InstancePath < b.InstancePath
		}
		if a.SchemaPath != b.SchemaPath {
			return a.SchemaPath < b.SchemaPath
		}
		return a.Message < b.Message
	})
	return out
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
