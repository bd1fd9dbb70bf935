package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
	"github.com/mcp-conform/mcp-conform/schemas"
)

// MaxSchemaErrors caps the schema errors the SCHEMA-001 mismatch carries (and that the runner
// attaches to one result), so a server that breaks every frame does not make the report
// unreadable.
const MaxSchemaErrors = 200

// Validate validates recorded frame f against the JSON Schema of revision rev (DESIGN.md: every
// frame, both directions, by its most specific type). req is the client frame whose HTTP
// response carried f (the frame numbered f.ReplyTo), nil when unknown. Frames that are not
// JSON-RPC messages at all (stdio framing violations), empty HTTP bodies and frames cut at
// --max-frame are not schema-checked: the transport rules judge them. The error is non-nil
// when rev has no compiled schema or the frame cannot be classified.
//
// An error response with "id": null is excused its /id violation when it is a parse error
// (-32700) or answers, over HTTP, a message that had no readable id: JSON-RPC 2.0 writes null
// there while the MCP schema wants the member omitted; MSG-009 and HTTP-003 grade that.
func Validate(set *schemas.Set, rev string, f, req *harness.Frame) ([]SchemaError, error) {
	v := &Frame{Frame: f}
	var err error
	v.Msg, v.Members, err = harness.ParseMessageMembers(f.Body())
	v.NotJSON = err != nil
	if req != nil {
		r := &Frame{Frame: req}
		var rerr error
		r.Msg, r.Members, rerr = harness.ParseMessageMembers(req.Raw)
		r.NotJSON = rerr != nil
		v.Request = r
	}
	return validate(set, rev, v)
}

func validate(set *schemas.Set, rev string, f *Frame) ([]SchemaError, error) {
	if len(f.Raw) == 0 || f.Truncated || f.NotJSON {
		return nil, nil
	}
	if revisions.IsModern(rev) && f.FromServer() && f.Request != nil && !f.Request.NotJSON && !revisions.IsModern(requestVersion(f.Request)) {
		// The reply to a request that named no 2026-07-28 version in its _meta (none at all,
		// or an unsupported one) may come from the legacy side of a dual-era server: it is
		// validated against the latest legacy schema. Whether the request should have been
		// refused is judged by META-001..003, VER-001 and DISC-004.
		rev = revisions.LatestLegacy().ID
	}
	v, err := set.Validator(rev)
	if err != nil {
		return nil, err
	}
	msg := f.Msg
	kind := string(msg.Kind)
	if msg.Kind == harness.KindInvalid {
		kind = ""
	}
	info := schemas.MessageInfo{FromServer: f.FromServer(), Kind: kind, Method: f.Method, Task: taskAugmented(f.Request)}
	typ, vs, err := v.Validate(f.Body(), info)
	if err != nil {
		return nil, err
	}
	if len(vs) > 0 {
		if body, ok := withoutEchoes(f); ok {
			// The reply repeats a value the suite made invalid on purpose (a resources/read
			// of "test://template/%zz/data" answered with contents naming that URI): the
			// suite's own violation, not the server's. The reply is judged with a valid value
			// in its place; whether the server should have refused the request is the rule
			// about that request's (RES-008).
			if typ2, vs2, err2 := v.Validate(body, info); err2 == nil {
				typ, vs = typ2, vs2
			}
		}
	}
	var out []SchemaError
	for _, x := range vs {
		unreadable := msg.Kind == harness.KindError && msg.Error != nil && (msg.Error.Code == -32700 || nullIDExcused(f))
		if x.InstancePath == "/id" && unreadable && string(bytes.TrimSpace(msg.ID)) == "null" {
			// A parse error cannot repeat an id it could not read, nor can the refusal of a
			// message that had none (DESIGN.md "Verdicts").
			continue
		}
		if x.InstancePath == "" && msg.Kind == harness.KindError && !msg.HasID && slices.Equal(x.Members, []string{"id"}) &&
			(unreadable || f.Request == nil) {
			// An error without the id member where the revision's schema requires one
			// (JSONRPCError up to 2025-06-18 has a required, non-null id). When the message it
			// refuses had no readable id, no id the server could write would validate, so the
			// omission 2025-11-25 prescribes is no violation; when the suite cannot tell which
			// message it answers (stdio, no id to correlate by), whether an answer was due is the
			// rules' about the unanswered request, not the schema's.
			continue
		}
		out = append(out, SchemaError{Frame: f.Seq, Type: typ, InstancePath: x.InstancePath, SchemaPath: x.SchemaPath, Message: x.Message, Members: x.Members})
	}
	return out, nil
}

// echoPlaceholder is the valid value (a URI, and so a string of any format the schema asks of
// a request parameter) that stands in for an intentionally invalid value a reply repeats.
const echoPlaceholder = "mcpconform://echoed-invalid-value"

// withoutEchoes returns the body of server frame f with every JSON string that repeats a string
// parameter of the request it answers replaced by echoPlaceholder, when that request was made
// invalid on purpose (Intentional) and the body repeats one; ok is false otherwise.
func withoutEchoes(f *Frame) ([]byte, bool) {
	if !f.FromServer() || f.Request == nil || !f.Request.Intentional || f.Request.Msg == nil {
		return nil, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(f.Request.Msg.Params, &params) != nil {
		return nil, false
	}
	placeholder, _ := jsonString(echoPlaceholder)
	body, changed := f.Body(), false
	for name, raw := range params {
		var s string
		if name == "_meta" || json.Unmarshal(raw, &s) != nil || s == "" {
			continue
		}
		enc, err := jsonString(s)
		if err != nil || !bytes.Contains(body, enc) {
			continue
		}
		body, changed = bytes.ReplaceAll(body, enc, placeholder), true
	}
	return body, changed
}

// jsonString encodes s as a JSON string the way servers commonly do (no HTML escaping).
func jsonString(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// nullIDExcused reports whether server frame f answers (over HTTP) a client message that had
// no readable id: a notification, a body that is not a JSON-RPC request, or a GET or DELETE.
func nullIDExcused(f *Frame) bool {
	if f.ReplyTo == 0 || f.Request == nil {
		return false
	}
	c := f.Request
	return c.NotJSON || !c.Msg.HasID || c.Msg.Kind == harness.KindInvalid && string(bytes.TrimSpace(c.Msg.ID)) == "null"
}

// schemaConformance is SCHEMA-001: every server frame validates against the schema of its
// revision. It keeps every violation; Finish reports them all, and reclaimed those that no
// broken rule claims (see Claim).
type schemaConformance struct {
	rev  string
	n    int
	errs []SchemaError
}

func newSchemaConformance(d Deps) Check { return &schemaConformance{rev: d.Revision} }

func (c *schemaConformance) Observe(f *Frame) {
	if !f.FromServer() || len(f.Raw) == 0 || f.Truncated || f.NotJSON || f.SchemaErr != nil {
		return
	}
	c.n++
	c.errs = append(c.errs, f.Schema...)
}

func (c *schemaConformance) Finish() Outcome { return c.outcome(c.errs, nil) }

// outcome is the outcome over errs, the violations SCHEMA-001 judges; judgedBy are the rules
// that judge the others (named on a pass).
func (c *schemaConformance) outcome(errs []SchemaError, judgedBy []string) Outcome {
	o := Outcome{Judged: c.n}
	if len(errs) == 0 {
		if len(judgedBy) > 0 {
			o.Note = "the schema violations found are judged by " + strings.Join(judgedBy, ", ")
		}
		return o
	}
	var frames []int
	seen := map[int]bool{}
	for _, e := range errs {
		if !seen[e.Frame] {
			seen[e.Frame] = true
			frames = append(frames, e.Frame)
		}
	}
	e := errs[0]
	actual := fmt.Sprintf("%d violations in %d frames; first: frame %d %s at %q", len(errs), len(frames), e.Frame, e.Message, e.InstancePath)
	if len(judgedBy) > 0 {
		actual += " (others are judged by " + strings.Join(judgedBy, ", ") + ")"
	}
	o.Mismatch = &Mismatch{
		Expected:     "every server frame validates against the " + c.rev + " schema",
		Actual:       actual,
		Frames:       frames,
		SchemaErrors: errs[:min(len(errs), MaxSchemaErrors)],
	}
	return o
}

// sessionRule is LEG-007: after the handshake every frame of a legacy session conforms to the
// negotiated revision (basic/lifecycle#Operation). Its scenario validates a whole result, so
// when it is broken the violations no other rule claims are its own.
const sessionRule = "LEG-007"

// reclaimed is the outcome over the violations that no broken rule claims, at any specificity
// (broken reports whether a rule's own verdict at this revision is fail or warn): a violation
// another rule judges, and found broken, is that rule's, not SCHEMA-001's (DESIGN "Verdict
// principles": one defect fails one rule).
func (c *schemaConformance) reclaimed(broken func(rule string) bool) Outcome {
	var mine []SchemaError
	by := map[string]bool{}
	for _, e := range c.errs {
		owner := ""
		owners := claimedBy(e)
		for _, r := range owners {
			if broken(r) {
				owner = r
				break
			}
		}
		if len(owners) == 0 && broken(sessionRule) {
			owner = sessionRule
		}
		if owner == "" {
			mine = append(mine, e)
		} else {
			by[owner] = true
		}
	}
	return c.outcome(mine, slices.Sorted(maps.Keys(by)))
}

// taskAugmented reports whether req, the request a reply answers, is task-augmented (a `task`
// object in its params, 2025-11-25 basic/utilities/tasks#Creating Tasks): its result is then
// a CreateTaskResult, not the method's own result.
func taskAugmented(req *Frame) bool {
	if req == nil || req.NotJSON || req.Msg == nil || len(req.Msg.Params) == 0 {
		return false
	}
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(req.Msg.Params, &p) == nil && len(bytes.TrimSpace(p.Task)) > 0 && bytes.TrimSpace(p.Task)[0] == '{'
}
