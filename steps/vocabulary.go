package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/judge"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("vocabulary", registerVocabularySteps) }

// registerVocabularySteps binds the step vocabulary that several feature files share: setup, send,
// observe, transport.
func registerVocabularySteps(sc *godog.ScenarioContext) {
	// Setup.
	step(sc, `^a connected server$`, wc(connectedServer))
	step(sc, `^a fresh connection$`, wc(freshConnection))
	step(sc, `^the server declares the "([^"]+)" capability$`, serverDeclaresCapability)

	// Send.
	step(sc, `^the client sends a harmless request$`, wc(func(ctx context.Context, w *World) error {
		return w.SendMethod(ctx, w.Harmless(), "", nil, nil)
	}))
	step(sc, `^the client sends a "([^"]+)" request$`, func(ctx context.Context, method string) error {
		return WorldOf(ctx).SendMethod(ctx, method, "", nil, nil)
	})
	step(sc, `^the client sends a "([^"]+)" request with protocol version "([^"]+)"$`, func(ctx context.Context, method, v string) error {
		return WorldOf(ctx).SendMethod(ctx, method, v, nil, nil)
	})
	// A control: a server that serves even discover at that version fails DISC-004, and the
	// rule that probes another method is untestable.
	step(sc, `^the server rejects a "([^"]+)" request with protocol version "([^"]+)" \(([A-Z]+-\d+) judges that\)$`, func(ctx context.Context, method, v, rule string) error {
		w := WorldOf(ctx)
		if err := w.SendMethod(ctx, method, v, nil, nil); err != nil {
			return err
		}
		if msg, err := w.ResponseMessage(); err == nil && msg.Kind == harness.KindResult {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the server served %s at protocol version %s instead of refusing it, which %s judges", method, v, rule))
		}
		return nil
	})
	step(sc, `^the client sends a list request for a declared capability$`, func(ctx context.Context) error {
		return WorldOf(ctx).SendList(ctx, "")
	})
	step(sc, `^the client sends a list request for each declared capability$`, sendListForEachCapability)
	step(sc, `^the client sends:$`, func(ctx context.Context, doc *godog.DocString) error {
		return WorldOf(ctx).SendDoc(ctx, doc.Content, false, false)
	})
	step(sc, `^the client sends the malformed message:$`, func(ctx context.Context, doc *godog.DocString) error {
		return WorldOf(ctx).SendDoc(ctx, doc.Content, true, false)
	})
	step(sc, `^the client sends the notification:$`, func(ctx context.Context, doc *godog.DocString) error {
		return WorldOf(ctx).SendDoc(ctx, doc.Content, false, true)
	})
	step(sc, `^the client initializes with protocol version "([^"]+)"$`, func(ctx context.Context, v string) error {
		return WorldOf(ctx).Initialize(ctx, v)
	})

	// Observe.
	step(sc, `^the response is a result$`, func(ctx context.Context) error {
		return WorldOf(ctx).expectKind(harness.KindResult, 0)
	})
	step(sc, `^the response is an error with code (-?\d+)$`, func(ctx context.Context, code int64) error {
		return WorldOf(ctx).expectCode(code, 0)
	})
	// The precondition of a rule about an error: whether the error comes at all is another
	// rule's, and without it this rule is untestable.
	step(sc, `^the response is an error with code (-?\d+) \(([A-Z]+-\d+) judges whether it is\)$`, func(ctx context.Context, code int64, rule string) error {
		w := WorldOf(ctx)
		msg, err := w.ResponseMessage()
		if err == nil && (msg.Kind != harness.KindError || msg.Error.Code != code) {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the server answered %s with %s instead of error %d, which %s judges", client.SentMethod(w.Last), client.Describe(msg), code, rule))
		}
		return w.expectCode(code, 0)
	})
	step(sc, `^the response id is the request id$`, wc(func(ctx context.Context, w *World) error {
		return w.expectID(w.LastID)
	}))
	step(sc, `^the HTTP status is (\d+)$`, expectHTTPStatus)
	step(sc, `^the HTTP status of the rejection is (\d+) \(([A-Z]+-\d+) judges whether the message is rejected\)$`, expectRejectionStatus)
	step(sc, `^the response is an error \(([A-Z]+-\d+) judges its code\)$`, func(ctx context.Context, rule string) error {
		w := WorldOf(ctx)
		msg, err := w.ResponseMessage()
		if err != nil {
			return err
		}
		if msg.Kind != harness.KindError {
			return &client.Mismatch{Expected: "a JSON-RPC error response (" + rule + " judges its code)", Actual: client.Describe(msg), Frames: w.LastSeqs()}
		}
		return nil
	})
	step(sc, `^the value at "([^"]*)" validates as "([^"]+)"$`, valueValidates)
	step(sc, `^no message arrives in reply$`, wc(expectSilence))

	// Provocation: traffic for the run-wide rules to judge.
	step(sc, `^the client exercises the server's declared features$`, wc(func(ctx context.Context, w *World) error {
		return w.oncePerTarget("exercise", func() error { return exerciseFeatures(ctx, w) })
	}))

	// Pagination (PAGE-001..004) and one cacheScope per traversal (CACHE-005).
	step(sc, `^the client pages through every list the server declares$`, pageStep(func(ctx context.Context, w *World, st *pageState) error {
		return w.traverseLists(ctx, st, 1)
	}))
}

func connectedServer(ctx context.Context, w *World) error {
	t, err := w.Env.Shared(ctx)
	w.Conn = t
	return err
}

func serverDeclaresCapability(ctx context.Context, name string) error {
	w := WorldOf(ctx)
	if why := w.Target.CapsUnknown; why != "" {
		return w.SetSkip(reports.Untestable, why)
	}
	if _, ok := w.Target.Caps[name]; !ok {
		return w.Undeclared(fmt.Sprintf("the server does not declare the %q capability", name))
	}
	return nil
}

func sendListForEachCapability(ctx context.Context) error {
	w := WorldOf(ctx)
	for _, lm := range client.ListMethods {
		if _, ok := w.Target.Caps[lm.Capability]; ok {
			if err := w.SendMethod(ctx, lm.Method, "", nil, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func expectHTTPStatus(ctx context.Context, status int) error {
	w := WorldOf(ctx)
	if w.Last == nil || w.Last.HTTP == nil {
		return fmt.Errorf("no HTTP reply to check (transport %s)", w.Opts.Transport)
	}
	if w.Last.HTTP.Status != status {
		return &client.Mismatch{Expected: fmt.Sprintf("HTTP status %d", status), Actual: fmt.Sprintf("HTTP status %d", w.Last.HTTP.Status), Frames: w.LastSeqs()}
	}
	return nil
}

// expectRejectionStatus checks the HTTP status of the reply to a message the server must
// reject; a message the server served (a result) makes the rule untestable, naming rule, which
// judges whether such a message is rejected: one defect fails one rule.
func expectRejectionStatus(ctx context.Context, status int, rule string) error {
	w := WorldOf(ctx)
	if msg, err := w.ResponseMessage(); err == nil && msg.Kind == harness.KindResult {
		return w.SetSkip(reports.Untestable, fmt.Sprintf("the server served the message (%s) instead of rejecting it, which %s judges", client.Describe(msg), rule))
	}
	return expectHTTPStatus(ctx, status)
}

func valueValidates(ctx context.Context, ptr, typ string) error {
	w := WorldOf(ctx)
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	return w.validateAt(msg.Raw, ptr, typ, w.LastSeqs())
}

// exerciseFeatures sends the side-effect-free traffic every server can take: discovery (with
// a W3C trace context in `_meta` on a modern target), each declared list, a read of the first
// listed resource, a get of the first prompt without required arguments, and a call of the
// fixture tool test_simple_text with a progress token. Errors and timeouts are recorded, not
// judged: the run-wide rules judge the frames.
func exerciseFeatures(ctx context.Context, w *World) error {
	if w.Target.Modern {
		if err := w.SendParams(ctx, "server/discover", nil, checks.TraceMeta, false); err != nil {
			return err
		}
	} else if err := w.SendMethod(ctx, "ping", "", nil, nil); err != nil {
		return err
	}
	// list traverses a declared list; a listing that fails is the listing rules' to judge.
	list := func(method, member string) ([]json.RawMessage, error) {
		lt, err := w.ListAll(ctx, method, member)
		if _, failed := client.ListProblem(err); err != nil && !failed {
			return nil, err
		}
		return lt.Raw, nil
	}
	if w.Declares("tools") {
		tools, err := list("tools/list", "tools")
		if err != nil {
			return err
		}
		simple := w.Opts.FixtureName("test_simple_text")
		for _, raw := range tools {
			var t struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &t) == nil && t.Name == simple {
				n := w.Env.IDs().Next()
				token := map[string]any{"progressToken": "mcpconform-progress-" + strconv.FormatInt(n, 10)}
				if err := w.Send(ctx, w.Build(w.ToolsCall(simple, nil, token))); err != nil {
					return err
				}
			}
		}
	}
	if w.Declares("resources") {
		rs, err := list("resources/list", "resources")
		if err != nil {
			return err
		}
		var first struct {
			URI string `json:"uri"`
		}
		if len(rs) > 0 && json.Unmarshal(rs[0], &first) == nil && first.URI != "" {
			if err := w.SendParams(ctx, "resources/read", map[string]any{"uri": first.URI}, nil, false); err != nil {
				return err
			}
		}
		if _, err := list("resources/templates/list", "resourceTemplates"); err != nil {
			return err
		}
	}
	if w.Declares("prompts") {
		prompts, err := list("prompts/list", "prompts")
		if err != nil {
			return err
		}
		for _, raw := range prompts {
			var p struct {
				Name      string `json:"name"`
				Arguments []struct {
					Required bool `json:"required"`
				} `json:"arguments"`
			}
			_ = json.Unmarshal(raw, &p)
			required := false
			for _, a := range p.Arguments {
				required = required || a.Required
			}
			if p.Name != "" && !required {
				return w.SendParams(ctx, "prompts/get", map[string]any{"name": p.Name}, nil, false)
			}
		}
	}
	return nil
}

// w and wc adapt world-only step functions to godog's signatures.
func w(fn func(*World) error) func(context.Context) error {
	return func(ctx context.Context) error { return fn(WorldOf(ctx)) }
}

func wc(fn func(context.Context, *World) error) func(context.Context) error {
	return func(ctx context.Context) error { return fn(ctx, WorldOf(ctx)) }
}

func freshConnection(ctx context.Context, w *World) error {
	t, err := w.Env.Dial(ctx, w.Target.Revision)
	if err != nil {
		return fmt.Errorf("cannot start a fresh connection: %w", err)
	}
	w.Own = append(w.Own, t)
	w.Conn, w.Fresh = t, true
	return nil
}

// expectKind checks that the last response is a result or an error; an error with code soft
// (when non-zero) is graded a warning instead of the rule's level.
func (w *World) expectKind(kind harness.Kind, soft int64) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	if msg.Kind == kind {
		return nil
	}
	want := map[harness.Kind]string{harness.KindResult: "a result", harness.KindError: "an error response"}[kind]
	m := &client.Mismatch{Expected: want, Actual: client.Describe(msg), Frames: w.LastSeqs()}
	if soft != 0 && msg.Kind == harness.KindError && msg.Error.Code == soft {
		m.Grade = reports.Warn
	}
	return m
}

// codeDefect returns the untestable outcome for msg, a reply that should have been error want
// (code), when msg itself is a defect of a code rule: a malformed error object (MSG-007) or a
// code that judge.CodeRule names; nil otherwise.
func (w *World) codeDefect(msg *harness.Message, code int64, want string) error {
	switch {
	case msg == nil:
		return nil
	case msg.Kind == harness.KindInvalid && strings.HasPrefix(msg.Problem, "error"):
		return w.SetSkip(reports.Untestable, fmt.Sprintf("the reply's error object is malformed (%s), which MSG-007 judges", msg.Problem))
	case msg.Kind == harness.KindError && msg.Error.Code == harness.CodeHeaderMismatch && code != harness.CodeHeaderMismatch && w.OverStdio():
		return w.SetSkip(reports.Untestable, fmt.Sprintf("the server answered with %s instead of %s: HeaderMismatch on stdio, which has no headers, is ERR-002's", client.Describe(msg), want))
	case msg.Kind == harness.KindError && msg.Error.Code != code:
		if rule := judge.CodeRule(w.Target.Revision, msg.Error.Code); rule != "" {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the server answered with %s instead of %s; a code of that range is itself a defect, which %s judges", client.Describe(msg), want, rule))
		}
	}
	return nil
}

func (w *World) expectCode(code, soft int64) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		if h := w.Last.HTTP; h != nil && h.Status >= 400 && w.Last.Err == nil && w.Target.Modern {
			// An error status without a JSON-RPC error body is ERR-010's (a 2026-07-28
			// rule): the code it should carry cannot be judged.
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the reply is HTTP %d without a JSON-RPC error body, which ERR-010 judges", h.Status))
		}
		return err
	}
	want := fmt.Sprintf("error %d", code)
	if msg.Kind != harness.KindError || msg.Error.Code != soft {
		if err := w.codeDefect(msg, code, want); err != nil {
			return err
		}
	}
	if msg.Kind != harness.KindError {
		return &client.Mismatch{Expected: want, Actual: client.Describe(msg), Frames: w.LastSeqs()}
	}
	if msg.Error.Code != code {
		m := &client.Mismatch{Expected: want, Actual: client.Describe(msg), Frames: w.LastSeqs()}
		if soft != 0 && msg.Error.Code == soft {
			m.Grade = reports.Warn
		}
		return m
	}
	if msg.Error.CodeRaw != strconv.FormatInt(code, 10) {
		return &client.Mismatch{Expected: want + " written as an integer", Actual: "code written as " + msg.Error.CodeRaw, Frames: w.LastSeqs()}
	}
	return nil
}

func (w *World) expectID(want json.RawMessage) error {
	msg, err := w.ResponseMessage()
	if err != nil {
		return err
	}
	if !msg.HasID {
		return &client.Mismatch{Expected: "id " + string(want), Actual: "no id member", Frames: w.LastSeqs()}
	}
	if harness.IDKey(msg.ID) != harness.IDKey(want) {
		if why := w.idTypeOnly(want, msg.ID); why != "" {
			return w.SetSkip(reports.Untestable, why)
		}
		return &client.Mismatch{Expected: "id " + harness.IDKey(want), Actual: "id " + harness.IDKey(msg.ID), Frames: w.LastSeqs()}
	}
	return nil
}

// idTypeOnly says why a response whose id differs from the request's only in its JSON type or
// surrounding spaces ("7" for 7) is not the scenario rule's defect but MSG-003's (a response
// repeats the request id with the same type, basic/index#Responses); "" when the ids differ
// otherwise, and always for MSG-003 itself.
func (w *World) idTypeOnly(want, got json.RawMessage) string {
	if w.Rule.ID == "MSG-003" || harness.LooseIDKey(harness.IDKey(want)) != harness.LooseIDKey(harness.IDKey(got)) {
		return ""
	}
	return fmt.Sprintf("the response repeats id %s as %s, in another JSON type, which MSG-003 judges", harness.IDKey(want), harness.IDKey(got))
}

// valueAt resolves a JSON Pointer (RFC 6901) in the last response.
func (w *World) valueAt(ptr string) (any, error) {
	msg, err := w.ResponseMessage()
	if err != nil {
		return nil, err
	}
	v, ok, err := checks.Pointer(msg.Raw, ptr)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &client.Mismatch{Expected: "a value at " + ptr, Actual: "nothing there in " + client.Short(msg.Raw), Frames: w.LastSeqs()}
	}
	return v, nil
}

func (w *World) compareAt(ptr, lit string, equal bool) error {
	want, err := checks.ParseLiteral(lit)
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
		return &client.Mismatch{Expected: exp, Actual: checks.JSONText(v), Frames: w.LastSeqs()}
	}
	return nil
}

func (w *World) containsAt(ptr, lit string, contains bool) error {
	want, err := checks.ParseLiteral(lit)
	if err != nil {
		return err
	}
	v, err := w.valueAt(ptr)
	if err != nil {
		return err
	}
	arr, ok := v.([]any)
	if !ok {
		return &client.Mismatch{Expected: "an array at " + ptr, Actual: checks.JSONText(v), Frames: w.LastSeqs()}
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
		return &client.Mismatch{Expected: exp, Actual: checks.JSONText(v), Frames: w.LastSeqs()}
	}
	return nil
}

func (w *World) validateAt(raw []byte, ptr, typ string, frames []int) error {
	val, ok, err := checks.Pointer(raw, ptr)
	if err != nil {
		return err
	}
	if !ok {
		return &client.Mismatch{Expected: "a " + typ + " at " + ptr, Actual: "nothing there", Frames: frames}
	}
	b, _ := json.Marshal(val)
	v, err := w.Opts.Schemas.Validator(w.Target.Revision)
	if err != nil {
		return err
	}
	if !v.Has(typ) {
		return fmt.Errorf("feature bug: the %s schema has no type %s", w.Target.Revision, typ)
	}
	vs, err := v.ValidateAs(b, typ, ptr)
	if err != nil {
		return err
	}
	for _, x := range vs {
		// A violation another rule claims (a read result's missing ttlMs is CACHE-001's) is
		// that rule's to report, and one nobody claims is SCHEMA-001's: one defect fails one
		// rule (judge.Claim).
		if !judge.Reports(w.Rule.ID, judge.SchemaError{Type: typ, InstancePath: x.InstancePath, SchemaPath: x.SchemaPath, Message: x.Message, Members: x.Members}) {
			continue
		}
		return &client.Mismatch{Expected: "a valid " + typ + checks.AtPointer(ptr), Actual: fmt.Sprintf("a message whose %s fails the schema (%s)", checks.DescribePointer(x.InstancePath), x.Message), Frames: frames}
	}
	return nil
}

func expectSilence(ctx context.Context, w *World) error {
	if w.Last == nil {
		return fmt.Errorf("no message was sent before this step")
	}
	if w.OverHTTP() {
		h := w.Last.HTTP
		if h == nil {
			return fmt.Errorf("no HTTP reply: %v", w.Last.Err)
		}
		body := 0
		for _, f := range w.Last.Frames {
			body += len(f.Raw)
		}
		if !w.Target.Modern && body == 0 {
			// No reply came; whether the empty reply's status is 202 is the legacy transport's
			// rule (LHTTP-002), not the lifecycle's.
			return nil
		}
		if h.Status != http.StatusAccepted || body > 0 {
			return &client.Mismatch{Expected: "202 Accepted with no body", Actual: fmt.Sprintf("HTTP %d with %d body bytes", h.Status, body), Frames: w.LastSeqs()}
		}
		return nil
	}
	for _, f := range w.Last.Frames {
		// Notifications the server sends meanwhile (list_changed, log messages) are not replies,
		// nor are responses to requests of other scenarios sharing the connection (the
		// transport correlated them: Method is the method of the request they answer).
		if msg, err := harness.ParseMessage(f.Body()); err == nil &&
			(msg.Kind == harness.KindNotification || (msg.Kind == harness.KindResult || msg.Kind == harness.KindError) && f.Method != "") {
			continue
		}
		return &client.Mismatch{Expected: "no message in reply to a notification", Actual: client.Short(f.Raw), Frames: w.LastSeqs()}
	}
	return nil
}
