package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// listMethods maps the capabilities whose list request every declaring server must answer to
// that request's method, in the order scenarios try them.
var listMethods = []struct{ capability, method string }{
	{"tools", "tools/list"}, {"resources", "resources/list"}, {"prompts", "prompts/list"},
}

// jsonLiteral matches a JSON literal written in a step: a string, a number, true, false, null,
// an object or an array.
const jsonLiteral = `("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null|\{.*\}|\[.*\])`

// registerSteps binds the shared step vocabulary: setup, send, observe, transport.
func registerSteps(sc *godog.ScenarioContext) {
	// Setup.
	step(sc, `^a connected server$`, wc(func(ctx context.Context, w *world) error {
		t, err := w.s.sharedConn(ctx)
		w.conn = t
		return err
	}))
	step(sc, `^a fresh connection$`, wc(freshConnection))
	step(sc, `^the server declares the "([^"]+)" capability$`, func(ctx context.Context, name string) error {
		w := worldOf(ctx)
		if _, ok := w.s.t.caps[name]; !ok {
			return w.setSkip(reports.NA, fmt.Sprintf("the server does not declare the %q capability", name))
		}
		return nil
	})

	// Send.
	step(sc, `^the client sends a harmless request$`, wc(func(ctx context.Context, w *world) error {
		return w.sendMethod(ctx, harmless(w), "", nil, nil)
	}))
	step(sc, `^the client sends a harmless request with id (.+)$`, func(ctx context.Context, id string) error {
		w := worldOf(ctx)
		if !json.Valid([]byte(id)) {
			return fmt.Errorf("feature bug: id %s is not JSON", id)
		}
		return w.sendMethod(ctx, harmless(w), "", json.RawMessage(id), nil)
	})
	step(sc, `^the client sends a "([^"]+)" request$`, func(ctx context.Context, method string) error {
		return worldOf(ctx).sendMethod(ctx, method, "", nil, nil)
	})
	step(sc, `^the client sends a "([^"]+)" request with protocol version "([^"]+)"$`, func(ctx context.Context, method, v string) error {
		return worldOf(ctx).sendMethod(ctx, method, v, nil, nil)
	})
	step(sc, `^the client sends a list request for a declared capability$`, func(ctx context.Context) error {
		return worldOf(ctx).sendList(ctx, "")
	})
	step(sc, `^the client sends a list request for a declared capability with protocol version "([^"]+)"$`, func(ctx context.Context, v string) error {
		return worldOf(ctx).sendList(ctx, v)
	})
	step(sc, `^the client sends a list request for each declared capability$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		for _, lm := range listMethods {
			if _, ok := w.s.t.caps[lm.capability]; ok {
				if err := w.sendMethod(ctx, lm.method, "", nil, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	step(sc, `^the client sends:$`, func(ctx context.Context, doc *godog.DocString) error {
		return worldOf(ctx).sendDoc(ctx, doc.Content, false, false)
	})
	step(sc, `^the client sends the malformed message:$`, func(ctx context.Context, doc *godog.DocString) error {
		return worldOf(ctx).sendDoc(ctx, doc.Content, true, false)
	})
	step(sc, `^the client sends the notification:$`, func(ctx context.Context, doc *godog.DocString) error {
		return worldOf(ctx).sendDoc(ctx, doc.Content, false, true)
	})
	step(sc, `^the client sends a "([^"]+)" request without the "([^"]+)" header$`, func(ctx context.Context, method, name string) error {
		return worldOf(ctx).sendMethod(ctx, method, "", nil, func(h http.Header) []string { h.Del(name); return []string{name} })
	})
	step(sc, `^the client sends a "([^"]+)" request with the "([^"]+)" header set to "([^"]*)"$`, func(ctx context.Context, method, name, value string) error {
		return worldOf(ctx).sendMethod(ctx, method, "", nil, func(h http.Header) []string { h.Set(name, value); return nil })
	})
	step(sc, `^the client sends a "([^"]+)" request with its MCP header names in (lower|upper) case$`, func(ctx context.Context, method, spelling string) error {
		spell := strings.ToLower
		if spelling == "upper" {
			spell = strings.ToUpper
		}
		return worldOf(ctx).sendMethod(ctx, method, "", nil, func(h http.Header) []string {
			for k, vs := range h {
				if strings.HasPrefix(strings.ToLower(k), "mcp-") {
					delete(h, k)
					h[spell(k)] = vs // raw map key: sent as spelled
				}
			}
			return nil
		})
	})
	step(sc, `^the client closes the server's standard input$`, wc(func(ctx context.Context, w *world) error {
		s, err := w.stdio()
		if err != nil {
			return err
		}
		return s.CloseStdin()
	}))
	step(sc, `^the client initializes with the revision under test$`, wc(func(ctx context.Context, w *world) error {
		return w.initialize(ctx, w.s.t.revision)
	}))
	step(sc, `^the client initializes with protocol version "([^"]+)"$`, func(ctx context.Context, v string) error {
		return worldOf(ctx).initialize(ctx, v)
	})
	step(sc, `^the client initializes with each legacy version the server supports$`, wc(func(ctx context.Context, w *world) error {
		versions := []string{w.s.t.revision}
		for _, v := range w.s.t.supported {
			if revisions.IsLegacy(v) && v != w.s.t.revision {
				versions = append(versions, v)
			}
		}
		for i, v := range versions {
			if i > 0 {
				if err := freshConnection(ctx, w); err != nil {
					return err
				}
			}
			if err := w.initialize(ctx, v); err != nil {
				return err
			}
		}
		return nil
	}))

	// Observe.
	step(sc, `^the response is a result$`, func(ctx context.Context) error {
		return worldOf(ctx).expectKind(harness.KindResult, 0)
	})
	step(sc, `^the response is a result \(an error with code (-?\d+) is a warning\)$`, func(ctx context.Context, soft int64) error {
		return worldOf(ctx).expectKind(harness.KindResult, soft)
	})
	step(sc, `^the response is an error$`, func(ctx context.Context) error {
		return worldOf(ctx).expectKind(harness.KindError, 0)
	})
	step(sc, `^the response is an error with code (-?\d+)$`, func(ctx context.Context, code int64) error {
		return worldOf(ctx).expectCode(code, 0)
	})
	step(sc, `^the response is an error with code (-?\d+) \(code (-?\d+) is a warning\)$`, func(ctx context.Context, code, soft int64) error {
		return worldOf(ctx).expectCode(code, soft)
	})
	step(sc, `^the response id is exactly (.+)$`, func(ctx context.Context, want string) error {
		return worldOf(ctx).expectID(json.RawMessage(want))
	})
	step(sc, `^a response, if any, has no null id$`, wc(func(ctx context.Context, w *world) error {
		if w.last == nil {
			return fmt.Errorf("no message was sent before this step")
		}
		if w.last.Response == nil {
			return nil // silence is judged by MSG-014/MSG-015, not by this rule
		}
		msg, err := w.responseMessage()
		if err != nil {
			return err
		}
		if msg.HasID && string(bytes.TrimSpace(msg.ID)) == "null" {
			m := &Mismatch{Expected: "an error without an id member (MCP ids are never null)", Actual: `"id": null`, Frames: w.lastSeqs()}
			if w.lastID == nil {
				// JSON-RPC 2.0 itself asks for null when the id could not be read (DESIGN.md).
				m.Grade = reports.Warn
			}
			return m
		}
		return nil
	}))
	step(sc, `^the response id is the request id$`, wc(func(ctx context.Context, w *world) error {
		return w.expectID(w.lastID)
	}))
	step(sc, `^the HTTP status is (\d+)$`, func(ctx context.Context, status int) error {
		w := worldOf(ctx)
		if w.last == nil || w.last.HTTP == nil {
			return fmt.Errorf("no HTTP reply to check (transport %s)", w.s.env.cfg.Transport)
		}
		if w.last.HTTP.Status != status {
			return &Mismatch{Expected: fmt.Sprintf("HTTP status %d", status), Actual: fmt.Sprintf("HTTP status %d", w.last.HTTP.Status), Frames: w.lastSeqs()}
		}
		return nil
	})
	step(sc, `^the value at "([^"]*)" is `+jsonLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return worldOf(ctx).compareAt(ptr, lit, true)
	})
	step(sc, `^the value at "([^"]*)" is not `+jsonLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return worldOf(ctx).compareAt(ptr, lit, false)
	})
	step(sc, `^the value at "([^"]*)" contains `+jsonLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return worldOf(ctx).containsAt(ptr, lit, true)
	})
	step(sc, `^the value at "([^"]*)" does not contain `+jsonLiteral+`$`, func(ctx context.Context, ptr, lit string) error {
		return worldOf(ctx).containsAt(ptr, lit, false)
	})
	step(sc, `^the value at "([^"]*)" is a non-empty array of strings$`, func(ctx context.Context, ptr string) error {
		w := worldOf(ctx)
		v, err := w.valueAt(ptr)
		if err != nil {
			return err
		}
		arr, ok := v.([]any)
		bad := !ok || len(arr) == 0
		for _, x := range arr {
			if _, s := x.(string); !s {
				bad = true
			}
		}
		if bad {
			return &Mismatch{Expected: fmt.Sprintf("a non-empty array of strings at %s", ptr), Actual: jsonText(v), Frames: w.lastSeqs()}
		}
		return nil
	})
	step(sc, `^the value at "([^"]*)" is a known protocol revision$`, func(ctx context.Context, ptr string) error {
		w := worldOf(ctx)
		v, err := w.valueAt(ptr)
		if err != nil {
			return err
		}
		if s, ok := v.(string); !ok || !revisions.Known(s) {
			return &Mismatch{Expected: "one of " + strings.Join(revisions.IDs(), ", "), Actual: jsonText(v), Frames: w.lastSeqs()}
		}
		return nil
	})
	step(sc, `^the value at "([^"]*)" validates as "([^"]+)"$`, func(ctx context.Context, ptr, typ string) error {
		w := worldOf(ctx)
		msg, err := w.responseMessage()
		if err != nil {
			return err
		}
		return w.validateAt(msg.Raw, ptr, typ, w.lastSeqs())
	})
	step(sc, `^every entry at "([^"]*)" matches "([^"]+)"$`, func(ctx context.Context, ptr, expr string) error {
		w := worldOf(ctx)
		re, err := regexp.Compile(expr)
		if err != nil {
			return fmt.Errorf("feature bug: %w", err)
		}
		v, err := w.valueAt(ptr)
		if err != nil {
			return err
		}
		arr, _ := v.([]any)
		for _, x := range arr {
			if s, ok := x.(string); !ok || !re.MatchString(s) {
				return &Mismatch{Expected: fmt.Sprintf("every entry at %s to match %s", ptr, expr), Actual: "entry " + jsonText(x), Frames: w.lastSeqs()}
			}
		}
		return nil
	})
	step(sc, `^the response validates as "([^"]+)"$`, func(ctx context.Context, typ string) error {
		w := worldOf(ctx)
		msg, err := w.responseMessage()
		if err != nil {
			return err
		}
		return w.validateAt(msg.Raw, "", typ, w.lastSeqs())
	})
	step(sc, `^the result validates as "([^"]+)"$`, func(ctx context.Context, typ string) error {
		w := worldOf(ctx)
		msg, err := w.responseMessage()
		if err != nil {
			return err
		}
		return w.validateAt(msg.Raw, "/result", typ, w.lastSeqs())
	})
	step(sc, `^the response validates against the schema$`, wc(func(ctx context.Context, w *world) error {
		if _, err := w.responseMessage(); err != nil {
			return err
		}
		errs, err := judge.Validate(w.s.env.cfg.Schemas, w.s.t.revision, w.last.Response, w.s.env.replyRequest(w.last.Response))
		if err != nil {
			return err
		}
		if len(errs) > 0 {
			return &Mismatch{Expected: "a response valid against the " + w.s.t.revision + " schema (" + errs[0].Type + ")",
				Actual: fmt.Sprintf("%s at %q", errs[0].Message, errs[0].InstancePath), Frames: w.lastSeqs()}
		}
		return nil
	}))
	step(sc, `^every result in this scenario has a string at "([^"]*)"$`, func(ctx context.Context, ptr string) error {
		return worldOf(ctx).eachResult(ptr, func(v any, present bool) string {
			if _, ok := v.(string); !present || !ok {
				return "a string at " + ptr
			}
			return ""
		})
	})
	step(sc, `^every result in this scenario that has "([^"]*)" has the value (.+) there$`, func(ctx context.Context, ptr, lit string) error {
		want, err := parseLiteral(lit)
		if err != nil {
			return err
		}
		return worldOf(ctx).eachResult(ptr, func(v any, present bool) string {
			if present && !reflect.DeepEqual(v, want) {
				return lit + " at " + ptr
			}
			return ""
		})
	})
	step(sc, `^every result in this scenario has a value at "([^"]*)" that validates as "([^"]+)"$`, func(ctx context.Context, ptr, typ string) error {
		w := worldOf(ctx)
		for _, ex := range w.exchanges {
			if ex.Response == nil {
				continue
			}
			msg, _ := harness.ParseMessage(ex.Response.Raw)
			if msg.Kind != harness.KindResult {
				continue
			}
			if err := w.validateAt(msg.Raw, ptr, typ, []int{ex.Response.Seq}); err != nil {
				if m, ok := err.(*Mismatch); ok {
					m.Actual = fmt.Sprintf("response to %s: %s", ex.Response.Method, m.Actual)
				}
				return err
			}
		}
		return nil
	})
	step(sc, `^no message arrives in reply$`, wc(expectSilence))
	step(sc, `^the client waits up to (\d+) seconds for the server to exit$`, func(ctx context.Context, secs int) error {
		s, err := worldOf(ctx).stdio()
		if err != nil {
			return err
		}
		s.WaitExit(time.Duration(secs) * time.Second)
		return nil
	})
	step(sc, `^the server exits within (\d+) seconds$`, func(ctx context.Context, secs int) error {
		w := worldOf(ctx)
		s, err := w.stdio()
		if err != nil {
			return err
		}
		if !s.WaitExit(time.Duration(secs) * time.Second) {
			return &Mismatch{Expected: fmt.Sprintf("the server process to exit within %ds of stdin EOF", secs), Actual: "still running"}
		}
		return nil
	})
	step(sc, `^every line the server wrote to stdout is a JSON-RPC message$`, wc(func(ctx context.Context, w *world) error {
		return w.stdoutProblems(func(p string) bool { return !strings.HasPrefix(p, harness.ProblemSplit) },
			"every stdout line to be one JSON-RPC message")
	}))
	step(sc, `^no message the server wrote was split over several lines$`, wc(func(ctx context.Context, w *world) error {
		return w.stdoutProblems(func(p string) bool { return strings.HasPrefix(p, harness.ProblemSplit) },
			"each message on a single line")
	}))
	step(sc, `^each initialize result echoes the requested version$`, wc(func(ctx context.Context, w *world) error {
		if len(w.inits) == 0 {
			return fmt.Errorf("feature bug: no initialize was sent")
		}
		for _, in := range w.inits {
			if in.ex.Response == nil {
				return &Mismatch{Expected: "an InitializeResult for " + in.requested, Actual: "no response", Frames: []int{in.ex.Sent.Seq}}
			}
			msg, _ := harness.ParseMessage(in.ex.Response.Raw)
			var got struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if msg.Kind != harness.KindResult || json.Unmarshal(msg.Result, &got) != nil || got.ProtocolVersion != in.requested {
				actual := describe(msg)
				if got.ProtocolVersion != "" {
					actual = "protocolVersion " + strconv.Quote(got.ProtocolVersion)
				}
				return &Mismatch{Expected: "protocolVersion " + strconv.Quote(in.requested) + " echoed", Actual: actual,
					Frames: []int{in.ex.Sent.Seq, in.ex.Response.Seq}}
			}
		}
		return nil
	}))
	// Streamable HTTP (basic/transports/streamable-http).
	step(sc, `^the client sends an HTTP (GET|DELETE) to the endpoint$`, func(ctx context.Context, method string) error {
		return worldOf(ctx).sendBare(ctx, method)
	})
	step(sc, `^the HTTP status is 405 \(a dual-era server may answer as its legacy transport does\)$`, wc(expect405))
	step(sc, `^the notification, unless refused with an error status, gets 202 Accepted with no body$`, wc(func(ctx context.Context, w *world) error {
		h, err := w.lastHTTP()
		if err != nil {
			return err
		}
		if h.Status >= 300 {
			return w.setSkip(reports.NA, fmt.Sprintf("the server refused the notification with HTTP %d (judged by HTTP-003)", h.Status))
		}
		return expectSilence(ctx, w)
	}))
	step(sc, `^every reply to a request in this scenario has Content-Type application/json or text/event-stream$`, wc(func(ctx context.Context, w *world) error {
		n := 0
		for _, ex := range w.exchanges {
			if ex.HTTP == nil || ex.Sent == nil {
				continue
			}
			if msg, err := harness.ParseMessage(ex.Sent.Raw); err != nil || msg.Kind != harness.KindRequest {
				continue
			}
			n++
			ct := ex.HTTP.Headers.Get("Content-Type")
			if mt := mediaType(ct); mt != "application/json" && mt != "text/event-stream" {
				return &Mismatch{Expected: "Content-Type application/json or text/event-stream",
					Actual: fmt.Sprintf("HTTP %d with Content-Type %q in reply to %s", ex.HTTP.Status, ct, ex.Sent.Method), Frames: exchangeSeqs(ex)}
			}
		}
		if n == 0 {
			return fmt.Errorf("feature bug: no request got an HTTP reply in this scenario")
		}
		return nil
	}))
	step(sc, `^every application/json reply in this scenario is one response object with the request id$`, wc(func(ctx context.Context, w *world) error {
		n := 0
		for _, ex := range w.exchanges {
			if ex.HTTP == nil || ex.Sent == nil || mediaType(ex.HTTP.Headers.Get("Content-Type")) != "application/json" {
				continue
			}
			sent, err := harness.ParseMessage(ex.Sent.Raw)
			if err != nil || sent.Kind != harness.KindRequest {
				continue
			}
			n++
			var body []byte
			if len(ex.Frames) > 0 {
				body = ex.Frames[0].Raw
			}
			msg, err := harness.ParseMessage(body)
			switch {
			case len(bytes.TrimSpace(body)) == 0 || bytes.TrimSpace(body)[0] != '{' || err != nil:
				return &Mismatch{Expected: "one JSON-RPC response object", Actual: "body " + short(body), Frames: exchangeSeqs(ex)}
			case msg.Kind != harness.KindResult && msg.Kind != harness.KindError:
				return &Mismatch{Expected: "one JSON-RPC response object", Actual: describe(msg), Frames: exchangeSeqs(ex)}
			case !msg.HasID || harness.IDKey(msg.ID) != harness.IDKey(sent.ID):
				actual := "no id member"
				if msg.HasID {
					actual = "id " + harness.IDKey(msg.ID)
				}
				return &Mismatch{Expected: "the request's id " + harness.IDKey(sent.ID), Actual: actual, Frames: exchangeSeqs(ex)}
			}
		}
		if n == 0 {
			return w.setSkip(reports.NA, "no request was answered with application/json (every reply was an SSE stream)")
		}
		return nil
	}))
	step(sc, `^no reply in this scenario has the "([^"]+)" header$`, func(ctx context.Context, name string) error {
		w := worldOf(ctx)
		for _, ex := range w.exchanges {
			if ex.HTTP == nil {
				continue
			}
			if vs := ex.HTTP.Headers.Values(name); len(vs) > 0 {
				return &Mismatch{Expected: "no " + name + " response header", Actual: fmt.Sprintf("%s: %s", name, strings.Join(vs, ", ")), Frames: exchangeSeqs(ex)}
			}
		}
		return nil
	})
	step(sc, `^the reply carries nothing but the response$`, wc(func(ctx context.Context, w *world) error {
		if _, err := w.responseMessage(); err != nil {
			return err
		}
		for _, f := range w.last.Frames {
			if f != w.last.Response && len(bytes.TrimSpace(f.Raw)) > 0 {
				return &Mismatch{Expected: "only the response on the reply", Actual: "also " + short(f.Raw), Frames: w.lastSeqs()}
			}
		}
		return nil
	}))
	step(sc, `^every error in this scenario with code (-?\d+(?:, -?\d+)*) came with HTTP status (\d+)$`, func(ctx context.Context, codes string, status int) error {
		w := worldOf(ctx)
		want := map[int64]bool{}
		for _, c := range strings.Split(codes, ", ") {
			n, _ := strconv.ParseInt(c, 10, 64)
			want[n] = true
		}
		n := 0
		for _, ex := range w.exchanges {
			if ex.HTTP == nil || ex.Response == nil {
				continue
			}
			msg, err := harness.ParseMessage(ex.Response.Raw)
			if err != nil || msg.Kind != harness.KindError || !want[msg.Error.Code] {
				continue
			}
			n++
			if ex.HTTP.Status != status {
				return &Mismatch{Expected: fmt.Sprintf("HTTP status %d with error %d", status, msg.Error.Code),
					Actual: fmt.Sprintf("HTTP status %d", ex.HTTP.Status), Frames: exchangeSeqs(ex)}
			}
		}
		if n == 0 {
			return w.setSkip(reports.NA, "the server sent none of the errors "+codes)
		}
		return nil
	})
	step(sc, `^every message the server sent in this run validates against the schema$`, askJudge("SCHEMA-001"))
}

// sendBare sends an HTTP request without body (GET, DELETE) to the endpoint with the
// MCP-Protocol-Version of the revision under test (and Accept: text/event-stream for GET).
func (w *world) sendBare(ctx context.Context, method string) error {
	h, ok := w.conn.(*harness.HTTP)
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := http.Header{}
	if method == http.MethodGet {
		hdr.Set("Accept", "text/event-stream")
	}
	hdr.Set(harness.HeaderProtocolVersion, w.s.t.revision)
	cctx, cancel := context.WithTimeout(ctx, w.timeout()+w.s.env.cfg.QuietWindow)
	defer cancel()
	ex, err := h.Do(cctx, method, hdr, nil)
	if ex == nil || ex.HTTP == nil {
		if err == nil {
			err = fmt.Errorf("transport returned no reply")
		}
		return err
	}
	w.lastID = nil
	w.note(ex)
	return ctx.Err()
}

func (w *world) lastHTTP() (*harness.HTTPMeta, error) {
	if w.last == nil || w.last.HTTP == nil {
		return nil, fmt.Errorf("no HTTP reply to check (transport %s)", w.s.env.cfg.Transport)
	}
	return w.last.HTTP, nil
}

// expect405 checks that the last HTTP request got 405. A server that also speaks a legacy
// revision is bound by the rule only for modern traffic (streamable-http#Earlier Streamable
// HTTP Revisions): its legacy answers (an SSE stream, or 400/404 for a missing session) are na.
func expect405(ctx context.Context, w *world) error {
	h, err := w.lastHTTP()
	if err != nil {
		return err
	}
	if h.Status == http.StatusMethodNotAllowed {
		return nil
	}
	var legacy []string
	for _, v := range w.s.t.supported {
		if revisions.IsLegacy(v) {
			legacy = append(legacy, v)
		}
	}
	sse := h.Status/100 == 2 && mediaType(h.Headers.Get("Content-Type")) == "text/event-stream"
	if len(legacy) > 0 && (sse || h.Status == http.StatusBadRequest || h.Status == http.StatusNotFound) {
		return w.setSkip(reports.NA, fmt.Sprintf("the server also speaks %s and answered HTTP %d as that transport may", strings.Join(legacy, ", "), h.Status))
	}
	return &Mismatch{Expected: "HTTP status 405", Actual: fmt.Sprintf("HTTP status %d", h.Status), Frames: w.lastSeqs()}
}

// mediaType returns the media type of a Content-Type value, lower case, without parameters.
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// exchangeSeqs returns the frame numbers of one exchange.
func exchangeSeqs(ex *harness.Exchange) []int {
	var out []int
	if ex.Sent != nil {
		out = append(out, ex.Sent.Seq)
	}
	for _, f := range ex.Frames {
		out = append(out, f.Seq)
	}
	return out
}

// w and wc adapt world-only step functions to godog's signatures.
func w(fn func(*world) error) func(context.Context) error {
	return func(ctx context.Context) error { return fn(worldOf(ctx)) }
}

func wc(fn func(context.Context, *world) error) func(context.Context) error {
	return func(ctx context.Context) error { return fn(ctx, worldOf(ctx)) }
}

func freshConnection(ctx context.Context, w *world) error {
	t, err := w.s.env.dial(ctx, w.s.t.revision)
	if err != nil {
		return fmt.Errorf("cannot start a fresh connection: %w", err)
	}
	w.own = append(w.own, t)
	w.conn, w.fresh = t, true
	return nil
}

// harmless is a request every server of the revision answers with a result: server/discover
// (2026-07-28) or ping (legacy).
func harmless(w *world) string {
	if w.s.t.modern {
		return "server/discover"
	}
	return "ping"
}

func (w *world) stdio() (*harness.Stdio, error) {
	s, ok := w.conn.(*harness.Stdio)
	if !ok {
		return nil, fmt.Errorf("this step needs a stdio connection")
	}
	return s, nil
}

// timeout returns the deadline for the next request: for the first request on a freshly
// started process the request timeout plus the time the server took to start for the era
// probe (never more than the startup window), the request timeout otherwise.
func (w *world) timeout() time.Duration {
	cfg := w.s.env.cfg
	if w.fresh && cfg.Transport == harness.TransportStdio {
		return min(cfg.StartupTimeout, cfg.Timeout+2*w.s.env.startup)
	}
	return cfg.Timeout
}

func (w *world) send(ctx context.Context, req harness.Request) error {
	if w.conn == nil {
		return fmt.Errorf("feature bug: no connection (missing Given step)")
	}
	if req.Notification {
		req.ID = nil
	}
	wait := w.timeout()
	if req.Notification {
		wait = w.s.env.cfg.QuietWindow + w.s.env.cfg.Timeout // the transport returns after the quiet window
	}
	cctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ex, err := w.conn.Send(cctx, req)
	if ex == nil {
		if err == nil {
			err = fmt.Errorf("transport returned no exchange")
		}
		return err
	}
	if ex.Response != nil {
		w.fresh = false
	}
	w.lastID = req.ID
	w.note(ex)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// sendMethod sends a default request for method: on a modern target a request with the
// default `_meta` for version v (the modern revision when v is ""), on a legacy target a plain
// request. id, when nil, is a fresh integer. edit may change the HTTP headers (and returns
// names to omit); such requests are marked intentional.
func (w *world) sendMethod(ctx context.Context, method, v string, id json.RawMessage, edit func(http.Header) []string) error {
	c := call{Method: method, Version: v}
	if id != nil {
		c.ID = id
	}
	req := w.build(c)
	if edit != nil {
		req.Omit = edit(req.Header)
		req.Intentional = true
	}
	return w.send(ctx, req)
}

func (w *world) sendList(ctx context.Context, v string) error {
	for _, lm := range listMethods {
		if _, ok := w.s.t.caps[lm.capability]; ok {
			return w.sendMethod(ctx, lm.method, v, nil, nil)
		}
	}
	return w.setSkip(reports.NA, "the server declares none of the tools, resources and prompts capabilities")
}

// expand replaces the DocString placeholders: $id (a fresh integer id), $params (the default
// params of the revision: `{"_meta":{...}}` or `{}`), $meta, $harmless and $version.
func (w *world) expand(doc string) (string, json.RawMessage) {
	var id json.RawMessage
	if strings.Contains(doc, "$id") {
		id = json.RawMessage(strconv.FormatInt(w.s.env.ids.Next(), 10))
		doc = strings.ReplaceAll(doc, "$id", string(id))
	}
	params, meta := "{}", "{}"
	if w.s.t.modern {
		m, _ := json.Marshal(harness.ModernMeta(revisions.Modern().ID))
		meta = string(m)
		params = `{"_meta":` + meta + `}`
	}
	r := strings.NewReplacer("$params", params, "$meta", meta, "$harmless", harmless(w), "$version", w.s.t.revision)
	return r.Replace(doc), id
}

func (w *world) sendDoc(ctx context.Context, doc string, malformed, notification bool) error {
	text, id := w.expand(doc)
	raw := []byte(strings.TrimSpace(text))
	var method string
	if msg, err := harness.ParseMessage(raw); err == nil {
		method = msg.Method
		if msg.HasID && id == nil {
			id = msg.ID
		}
	} else if !malformed {
		return fmt.Errorf("feature bug: DocString is not JSON: %v", err)
	}
	return w.send(ctx, w.buildRaw(raw, id, method, malformed, notification))
}

func (w *world) initialize(ctx context.Context, v string) error {
	if err := w.send(ctx, w.initializeCall(v)); err != nil {
		return err
	}
	w.inits = append(w.inits, initAttempt{requested: v, ex: w.last})
	return nil
}

// expectKind checks that the last response is a result or an error; an error with code soft
// (when non-zero) is graded a warning instead of the rule's level.
func (w *world) expectKind(kind harness.Kind, soft int64) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	if msg.Kind == kind {
		return nil
	}
	want := map[harness.Kind]string{harness.KindResult: "a result", harness.KindError: "an error response"}[kind]
	m := &Mismatch{Expected: want, Actual: describe(msg), Frames: w.lastSeqs()}
	if soft != 0 && msg.Kind == harness.KindError && msg.Error.Code == soft {
		m.Grade = reports.Warn
	}
	return m
}

func (w *world) expectCode(code, soft int64) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	want := fmt.Sprintf("error %d", code)
	if msg.Kind != harness.KindError {
		return &Mismatch{Expected: want, Actual: describe(msg), Frames: w.lastSeqs()}
	}
	if msg.Error.Code != code {
		m := &Mismatch{Expected: want, Actual: describe(msg), Frames: w.lastSeqs()}
		if soft != 0 && msg.Error.Code == soft {
			m.Grade = reports.Warn
		}
		return m
	}
	if msg.Error.CodeRaw != strconv.FormatInt(code, 10) {
		return &Mismatch{Expected: want + " written as an integer", Actual: "code written as " + msg.Error.CodeRaw, Frames: w.lastSeqs()}
	}
	return nil
}

func (w *world) expectID(want json.RawMessage) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	if !msg.HasID {
		return &Mismatch{Expected: "id " + string(want), Actual: "no id member", Frames: w.lastSeqs()}
	}
	if harness.IDKey(msg.ID) != harness.IDKey(want) {
		return &Mismatch{Expected: "id " + harness.IDKey(want), Actual: "id " + harness.IDKey(msg.ID), Frames: w.lastSeqs()}
	}
	return nil
}

// valueAt resolves a JSON Pointer (RFC 6901) in the last response.
func (w *world) valueAt(ptr string) (any, error) {
	msg, err := w.responseMessage()
	if err != nil {
		return nil, err
	}
	v, ok, err := pointer(msg.Raw, ptr)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &Mismatch{Expected: "a value at " + ptr, Actual: "nothing there in " + short(msg.Raw), Frames: w.lastSeqs()}
	}
	return v, nil
}

func (w *world) compareAt(ptr, lit string, equal bool) error {
	want, err := parseLiteral(lit)
	if err != nil {
		return err
	}
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	if reflect.DeepEqual(v, want) != equal {
		exp := lit + " at " + ptr
		if !equal {
			exp = "anything but " + exp
		}
		return &Mismatch{Expected: exp, Actual: jsonText(v), Frames: w.lastSeqs()}
	}
	return nil
}

func (w *world) containsAt(ptr, lit string, contains bool) error {
	want, err := parseLiteral(lit)
	if err != nil {
		return err
	}
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	arr, ok := v.([]any)
	if !ok {
		return &Mismatch{Expected: "an array at " + ptr, Actual: jsonText(v), Frames: w.lastSeqs()}
	}
	found := false
	for _, x := range arr {
		if reflect.DeepEqual(x, want) {
			found = true
		}
	}
	if found != contains {
		exp := ptr + " to contain " + lit
		if !contains {
			exp = ptr + " not to contain " + lit
		}
		return &Mismatch{Expected: exp, Actual: jsonText(v), Frames: w.lastSeqs()}
	}
	return nil
}

func (w *world) validateAt(raw []byte, ptr, typ string, frames []int) error {
	val, ok, err := pointer(raw, ptr)
	if err != nil {
		return err
	}
	if !ok {
		return &Mismatch{Expected: "a " + typ + " at " + ptr, Actual: "nothing there", Frames: frames}
	}
	b, _ := json.Marshal(val)
	v, err := w.s.env.cfg.Schemas.Validator(w.s.t.revision)
	if err != nil {
		return err
	}
	if !v.Has(typ) {
		return fmt.Errorf("feature bug: the %s schema has no type %s", w.s.t.revision, typ)
	}
	vs, err := v.ValidateAs(b, typ, ptr)
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		return &Mismatch{Expected: "a valid " + typ + " at " + ptr, Actual: fmt.Sprintf("%s at %q", vs[0].Message, vs[0].InstancePath), Frames: frames}
	}
	return nil
}

func (w *world) eachResult(ptr string, check func(v any, present bool) string) error {
	n := 0
	for _, ex := range w.exchanges {
		if ex.Response == nil {
			continue
		}
		msg, _ := harness.ParseMessage(ex.Response.Raw)
		if msg.Kind != harness.KindResult {
			continue
		}
		n++
		v, present, err := pointer(msg.Raw, ptr)
		if err != nil {
			return err
		}
		if want := check(v, present); want != "" {
			actual := "nothing there"
			if present {
				actual = jsonText(v)
			}
			return &Mismatch{Expected: want + " in the response to " + ex.Response.Method, Actual: actual, Frames: []int{ex.Sent.Seq, ex.Response.Seq}}
		}
	}
	if n == 0 {
		return &Mismatch{Expected: "at least one result", Actual: "no result in this scenario", Frames: w.lastSeqs()}
	}
	return nil
}

func expectSilence(ctx context.Context, w *world) error {
	if w.last == nil {
		return fmt.Errorf("no message was sent before this step")
	}
	if w.s.env.cfg.Transport == harness.TransportHTTP {
		h := w.last.HTTP
		if h == nil {
			return fmt.Errorf("no HTTP reply: %v", w.last.Err)
		}
		body := 0
		for _, f := range w.last.Frames {
			body += len(f.Raw)
		}
		if h.Status != http.StatusAccepted || body > 0 {
			return &Mismatch{Expected: "202 Accepted with no body", Actual: fmt.Sprintf("HTTP %d with %d body bytes", h.Status, body), Frames: w.lastSeqs()}
		}
		return nil
	}
	for _, f := range w.last.Frames {
		// Notifications the server sends meanwhile (list_changed, log messages) are not replies,
		// nor are responses to requests of other scenarios sharing the connection (the
		// transport correlated them: Method is the method of the request they answer).
		if msg, err := harness.ParseMessage(f.Raw); err == nil &&
			(msg.Kind == harness.KindNotification || (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && f.Method != "") {
			continue
		}
		return &Mismatch{Expected: "no message in reply to a notification", Actual: short(f.Raw), Frames: w.lastSeqs()}
	}
	return nil
}

func (w *world) stdoutProblems(match func(string) bool, expected string) error {
	s, err := w.stdio()
	if err != nil {
		return err
	}
	for _, f := range s.Frames() {
		if f.Dir == harness.DirServerToClient && f.Problem != "" && match(f.Problem) && !isBatchReply(f.Raw) {
			return &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s: %s", f.Seq, f.Problem, short(f.Raw)), Frames: []int{f.Seq}}
		}
	}
	return nil
}

// pointer resolves the RFC 6901 JSON Pointer ptr in the JSON document raw.
func pointer(raw []byte, ptr string) (any, bool, error) {
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

func parseLiteral(lit string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(lit))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("feature bug: %s is not a JSON literal", lit)
	}
	return v, nil
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return short(b)
}

// isBatchReply reports whether raw is a JSON array of JSON-RPC messages: a server's answer to a
// batch, which only PROBE-003 sends. It is recorded there, not blamed on the stdout rules.
func isBatchReply(raw []byte) bool {
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
