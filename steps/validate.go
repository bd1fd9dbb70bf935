package steps

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"sort"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/schemas"
)

// maxSchemaErrors caps the schema errors attached to one result, so a server that breaks
// every frame does not make the report unreadable.
const maxSchemaErrors = 200

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func mustDecode(s string) []byte {
	b, _ := base64.StdEncoding.DecodeString(s)
	return b
}

// validateFrame validates one recorded frame against the schema of revision rev, by its most
// specific type. Frames that are not JSON-RPC messages at all (stdio framing violations) and
// empty HTTP bodies are not schema-checked: the transport rules judge them.
//
// excuse, when not nil, is asked about an error frame with "id": null whose code is not -32700:
// true when the id could not be known either (see nullIDExcused).
func validateFrame(set *schemas.Set, rev string, f *harness.Frame, excuse func(*harness.Frame) bool) ([]reports.SchemaError, error) {
	if len(f.Raw) == 0 || f.Truncated {
		return nil, nil
	}
	msg, err := harness.ParseMessage(f.Raw)
	if err != nil {
		return nil, nil
	}
	v, err := set.Validator(rev)
	if err != nil {
		return nil, err
	}
	kind := string(msg.Kind)
	if msg.Kind == harness.KindInvalid {
		kind = ""
	}
	typ, vs, err := v.Validate(f.Raw, schemas.MessageInfo{FromServer: f.Dir == harness.DirServerToClient, Kind: kind, Method: f.Method})
	if err != nil {
		return nil, err
	}
	out := make([]reports.SchemaError, 0, len(vs))
	for _, x := range vs {
		if x.InstancePath == "/id" && msg.Kind == harness.KindError && msg.Error != nil &&
			string(bytes.TrimSpace(msg.ID)) == "null" && (msg.Error.Code == -32700 || excuse != nil && excuse(f)) {
			// A parse error cannot repeat an id it could not read, nor can the refusal of a
			// message that had none; JSON-RPC 2.0 writes null there while the MCP schema wants
			// the member omitted. MSG-009 and HTTP-003 grade that (a warning), so it does not
			// also fail SCHEMA-001 (DESIGN.md "Verdicts").
			continue
		}
		out = append(out, reports.SchemaError{Frame: f.Seq, Type: typ, InstancePath: x.InstancePath, SchemaPath: x.SchemaPath, Message: x.Message})
	}
	return out, nil
}

// validateFrames validates every frame of the run against the schema of the revision its
// connection speaks (DESIGN.md: every frame, both directions). A server frame's violations are
// attached to each result that cites the frame and fail SCHEMA-001 of that revision; a client
// frame's violations, unless the frame was made invalid on purpose, turn the results citing it
// into error (a bug of the suite, never blamed on the server).
func (e *env) validateFrames(run *reports.Run) {
	bySeq := map[int][]reports.SchemaError{}
	serverByRev := map[string][]reports.SchemaError{}
	clientBad := map[int]string{}
	for _, f := range e.rec.Frames() {
		e.mu.Lock()
		rev := e.connRev[f.Conn]
		e.mu.Unlock()
		if rev == "" {
			continue
		}
		errs, err := validateFrame(e.cfg.Schemas, rev, f, e.nullIDExcused)
		if err != nil {
			run.Notes = append(run.Notes, fmt.Sprintf("frame %d not validated: %v", f.Seq, err))
			continue
		}
		if len(errs) == 0 {
			continue
		}
		if f.Dir == harness.DirServerToClient {
			bySeq[f.Seq] = errs
			serverByRev[rev] = append(serverByRev[rev], errs...)
		} else if !f.Intentional {
			clientBad[f.Seq] = fmt.Sprintf("mcp-conform sent a frame that violates the %s schema (frame %d, %s: %s)", rev, f.Seq, errs[0].InstancePath, errs[0].Message)
		}
	}
	for i := range run.Results {
		res := &run.Results[i]
		for _, seq := range res.Frames {
			if len(res.SchemaErrors) < maxSchemaErrors {
				res.SchemaErrors = append(res.SchemaErrors, bySeq[seq]...)
			}
			if why, bad := clientBad[seq]; bad && res.Verdict != reports.NA {
				res.Verdict, res.Reason = reports.Error, why
			}
		}
		if res.Rule == "SCHEMA-001" && res.Verdict == reports.Pass {
			if errs := serverByRev[res.Revision]; len(errs) > 0 {
				frames := map[int]bool{}
				for _, x := range errs {
					frames[x.Frame] = true
				}
				res.Verdict = reports.Fail
				res.Expected = "every server frame validates against the " + res.Revision + " schema"
				res.Actual = fmt.Sprintf("%d violations in %d frames; first: frame %d %s at %q", len(errs), len(frames), errs[0].Frame, errs[0].Message, errs[0].InstancePath)
				res.Reason = "expected " + res.Expected + ", got " + res.Actual
				res.SchemaErrors = nil
				for seq := range frames {
					res.Frames = append(res.Frames, seq)
				}
				res.SchemaErrors = append(res.SchemaErrors, errs[:min(len(errs), maxSchemaErrors)]...)
			}
		}
		res.Frames = dedupe(res.Frames)
		if len(res.SchemaErrors) > maxSchemaErrors {
			res.SchemaErrors = res.SchemaErrors[:maxSchemaErrors]
		}
	}
}

func dedupe(a []int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, x := range a {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}

// nullIDExcused reports whether server frame f answers (over HTTP) a client message that had
// no readable id: a notification, a body that is not a JSON-RPC request, or a GET or DELETE.
// Only then may an error's "id": null be excused as the JSON-RPC 2.0 habit.
func (e *env) nullIDExcused(f *harness.Frame) bool {
	if f.ReplyTo == 0 {
		return false
	}
	for _, c := range e.rec.Frames() {
		if c.Seq != f.ReplyTo {
			continue
		}
		msg, err := harness.ParseMessage(c.Raw)
		return err != nil || !msg.HasID || msg.Kind == harness.KindInvalid && string(bytes.TrimSpace(msg.ID)) == "null"
	}
	return false
}
