package judge

import (
	"bytes"
	"fmt"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
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
func Validate(set *schemas.Set, rev string, f, req *harness.Frame) ([]reports.SchemaError, error) {
	v := &Frame{Frame: f}
	var err error
	v.Msg, v.Members, err = harness.ParseMessageMembers(f.Raw)
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

func validate(set *schemas.Set, rev string, f *Frame) ([]reports.SchemaError, error) {
	if len(f.Raw) == 0 || f.Truncated || f.NotJSON {
		return nil, nil
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
	typ, vs, err := v.Validate(f.Raw, schemas.MessageInfo{FromServer: f.FromServer(), Kind: kind, Method: f.Method})
	if err != nil {
		return nil, err
	}
	var out []reports.SchemaError
	for _, x := range vs {
		if x.InstancePath == "/id" && msg.Kind == harness.KindError && msg.Error != nil &&
			string(bytes.TrimSpace(msg.ID)) == "null" && (msg.Error.Code == -32700 || nullIDExcused(f)) {
			// A parse error cannot repeat an id it could not read, nor can the refusal of a
			// message that had none (DESIGN.md "Verdicts").
			continue
		}
		out = append(out, reports.SchemaError{Frame: f.Seq, Type: typ, InstancePath: x.InstancePath, SchemaPath: x.SchemaPath, Message: x.Message})
	}
	return out, nil
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
// revision. It keeps the first MaxSchemaErrors violations and the seqs of every violating
// frame.
type schemaConformance struct {
	rev    string
	n      int
	total  int
	errs   []reports.SchemaError
	frames []int
}

func newSchemaConformance(d Deps) Check { return &schemaConformance{rev: d.Revision} }

func (c *schemaConformance) Observe(f *Frame) {
	if !f.FromServer() || len(f.Raw) == 0 || f.Truncated || f.NotJSON || f.SchemaErr != nil {
		return
	}
	c.n++
	if len(f.Schema) == 0 {
		return
	}
	c.total += len(f.Schema)
	c.frames = append(c.frames, f.Seq)
	if room := MaxSchemaErrors - len(c.errs); room > 0 {
		c.errs = append(c.errs, f.Schema[:min(room, len(f.Schema))]...)
	}
}

func (c *schemaConformance) Finish() Outcome {
	o := Outcome{Judged: c.n}
	if c.total > 0 {
		e := c.errs[0]
		o.Mismatch = &Mismatch{
			Expected:     "every server frame validates against the " + c.rev + " schema",
			Actual:       fmt.Sprintf("%d violations in %d frames; first: frame %d %s at %q", c.total, len(c.frames), e.Frame, e.Message, e.InstancePath),
			Frames:       c.frames,
			SchemaErrors: c.errs,
		}
	}
	return o
}
