package steps

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() { bindSteps("deprecated", registerDeprecatedSteps) }

// registerDeprecatedSteps binds the steps that only features/deprecated.feature uses.
func registerDeprecatedSteps(sc *godog.ScenarioContext) {
	// Setup.
	step(sc, `^the server serves no handshake-era revision$`, wc(servesNoHandshakeEra))

	// Send.
	step(sc, `^the client sends each method that `+regexp.QuoteMeta(revisions.Modern().ID)+` removed$`, wc(sendRemovedMethods))
	step(sc, `^the client opens the endpoint as a deprecated HTTP\+SSE client would$`, wc(openLegacySSE))

	// Observe.
	step(sc, `^the server adopts none of the deprecated Logging, Roots and Sampling features$`, AskJudge("DEP-001"))
	step(sc, `^the endpoint did not answer as a deprecated HTTP\+SSE server$`, wc(judgeLegacySSE))
	step(sc, `^each removed method was refused with method-not-found$`, wc(judgeRemovedMethods))
	step(sc, `^no message in this run uses the removed URL elicitation completion$`, AskJudge("DEP-004"))
}

func servesNoHandshakeEra(ctx context.Context, w *World) error {
	if legacy := w.legacyRevisions(); len(legacy) > 0 {
		return w.SetSkip(reports.NA, "the server also serves "+strings.Join(legacy, ", ")+": an existing implementation, which may keep a deprecated feature during its deprecation window (only new implementations are asked not to adopt it)")
	}
	return nil
}

// removedMethods are the requests of earlier revisions that 2026-07-28 no longer defines in the
// core protocol (changelog#Major changes 4, 5 and 6). They are sent with no params but `_meta`,
// so that no header the tasks extension derives from a param (Mcp-Name from taskId) is due.
// tasks/get and tasks/cancel belong to the tasks extension and are skipped when the server
// advertises it.
var removedMethods = []string{"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel"}

// legacyRevisions returns the handshake-era revisions the server serves: those its discover
// result lists and those initialize negotiated in the same run (target.negotiated), each once.
func (w *World) legacyRevisions() []string {
	var out []string
	for _, v := range append(append([]string(nil), w.Target.Supported...), w.Target.Negotiated...) {
		if revisions.IsLegacy(v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// sendRemovedMethods sends each removed method as a 2026-07-28 request (tasks/get and
// tasks/cancel only when the server does not advertise the tasks extension).
func sendRemovedMethods(ctx context.Context, w *World) error {
	_, tasks := w.ServerExtensions()[tasksExtensionID]
	var outs []removedOutcome
	for _, method := range removedMethods {
		if tasks && (method == "tasks/get" || method == "tasks/cancel") {
			continue
		}
		if err := w.SendParams(ctx, method, nil, nil, false); err != nil {
			return err
		}
		outs = append(outs, removedOutcome{method: method, ex: w.Last})
	}
	logextOf(w).removed = outs
	return nil
}

// judgeRemovedMethods checks that each removed method got -32601 (HTTP: status 404). A server
// that also serves handshake-era revisions and answers one of them otherwise is noted (info):
// such a server implements the method for its legacy clients.
func judgeRemovedMethods(ctx context.Context, w *World) error {
	outs := logextOf(w).removed
	if len(outs) == 0 {
		return fmt.Errorf("feature bug: no removed method was sent")
	}
	for _, o := range outs {
		actual := "no response"
		var msg *harness.Message
		if o.ex.Response != nil {
			msg, _ = harness.ParseMessage(o.ex.Response.Body())
		}
		switch {
		case msg == nil:
		case msg.Kind == harness.KindError && msg.Error.Code == -32601:
			if o.ex.HTTP == nil || o.ex.HTTP.Status == http.StatusNotFound {
				continue
			}
			actual = fmt.Sprintf("error -32601 with HTTP status %d", o.ex.HTTP.Status)
		default:
			actual = client.Describe(msg)
		}
		m := &client.Mismatch{Expected: fmt.Sprintf("%s, removed in %s, to be refused with -32601 (HTTP 404)", o.method, revisions.Modern().ID),
			Actual: actual, Frames: checks.ExchangeSeqs(o.ex)}
		if legacy := w.legacyRevisions(); len(legacy) > 0 {
			m.Grade = reports.Info
			m.Actual += " (the server also serves " + strings.Join(legacy, ", ") + ")"
		}
		return m
	}
	return nil
}

// openLegacySSE GETs the endpoint as a 2024-11-05 HTTP+SSE client opens its stream: Accept:
// text/event-stream and no MCP headers, on a connection of its own whose frames no run-wide
// rule judges (an `endpoint` event is not a JSON-RPC message).
func openLegacySSE(ctx context.Context, w *World) error {
	if !w.OverHTTP() {
		return w.SetSkip(reports.NA, "the HTTP+SSE transport concerns HTTP servers only")
	}
	t, err := w.Env.Dial(ctx, "")
	if err != nil {
		return fmt.Errorf("cannot open a connection for the HTTP+SSE probe: %w", err)
	}
	w.Own = append(w.Own, t)
	h, ok := t.Endpoint()
	if !ok {
		return fmt.Errorf("this step needs an HTTP connection")
	}
	hdr := http.Header{}
	hdr.Set("Accept", "text/event-stream")
	cctx, cancel := context.WithTimeout(ctx, w.Timeout()+w.Opts.QuietWindow)
	defer cancel()
	ex, _ := h.Do(cctx, http.MethodGet, hdr, nil)
	if ex == nil {
		return fmt.Errorf("transport returned no reply")
	}
	w.Note(ex)
	logextOf(w).legacySSE = ex
	return ctx.Err()
}

// judgeLegacySSE is DEP-002: the GET opened an SSE stream whose first event is `endpoint`.
func judgeLegacySSE(ctx context.Context, w *World) error {
	ex := logextOf(w).legacySSE
	if ex == nil {
		return fmt.Errorf("feature bug: the endpoint was not opened")
	}
	for _, f := range ex.Frames {
		if f.Dir == harness.DirServerToClient && f.SSE != nil {
			if f.SSE.Event == "endpoint" {
				return &client.Mismatch{Expected: "no deprecated HTTP+SSE transport (GET answered with an endpoint event) in a new implementation",
					Actual: fmt.Sprintf("an SSE stream whose first event is endpoint: %s", client.Short(f.Raw)), Frames: checks.ExchangeSeqs(ex)}
			}
			break
		}
	}
	return nil
}
