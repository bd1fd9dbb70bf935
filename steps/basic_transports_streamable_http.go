package steps

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func init() {
	bindSteps("basic-transports-streamable-http", registerBasicTransportsStreamableHTTPSteps)
}

// registerBasicTransportsStreamableHTTPSteps binds the steps that only
// features/basic-transports-streamable-http.feature uses.
func registerBasicTransportsStreamableHTTPSteps(sc *godog.ScenarioContext) {
	step(sc, `^the rule binds only a server that supports the modern revision alone$`, wc(bindsModernOnly))
	step(sc, `^a server that also serves a legacy revision may answer it as a legacy request$`, wc(legacyAnswerAllowed))

	// Send.
	step(sc, `^the client sends a "([^"]+)" request without the "([^"]+)" header$`, func(ctx context.Context, method, name string) error {
		return WorldOf(ctx).SendMethod(ctx, method, "", nil, func(h http.Header) []string { h.Del(name); return []string{name} })
	})
	step(sc, `^the client sends a "([^"]+)" request with the "([^"]+)" header set to "([^"]*)"$`, func(ctx context.Context, method, name, value string) error {
		return WorldOf(ctx).SendMethod(ctx, method, "", nil, func(h http.Header) []string { h.Set(name, value); return nil })
	})
	step(sc, `^the client sends a "([^"]+)" request with its MCP header names in (lower|upper) case$`, sendWithMCPHeaderCase)
	// A control: a server that does not compare a header at all fails the rule of that
	// comparison, and a subtler probe of the same header is untestable.
	step(sc, `^the server rejects a "([^"]+)" request with the "([^"]+)" header set to "([^"]*)" \(([A-Z]+-\d+) judges that\)$`, func(ctx context.Context, method, name, value, rule string) error {
		w := WorldOf(ctx)
		if err := w.SendMethod(ctx, method, "", nil, func(h http.Header) []string { h.Set(name, value); return nil }); err != nil {
			return err
		}
		if msg, err := w.ResponseMessage(); err == nil && msg.Kind == harness.KindResult {
			return w.SetSkip(reports.Untestable, fmt.Sprintf("the server served a %s request with %s: %s (%s), so it does not compare that header at all, which %s judges", method, name, value, client.Describe(msg), rule))
		}
		return nil
	})

	// Streamable HTTP (basic/transports/streamable-http).
	step(sc, `^the client sends an HTTP (GET|DELETE) to the endpoint$`, func(ctx context.Context, method string) error {
		return WorldOf(ctx).SendBare(ctx, method)
	})
	step(sc, `^the HTTP status is 405 \(a dual-era server may answer as its legacy transport does\)$`, wc(expect405))
	step(sc, `^the notification, unless refused with an error status, gets 202 Accepted with no body$`, wc(notificationGets202))
	step(sc, `^every reply to a request in this scenario has Content-Type application/json or text/event-stream$`, wc(everyReplyHasContentType))
	step(sc, `^every application/json reply in this scenario is one response object with the request id$`, wc(everyJSONReplyIsOneResponse))
	step(sc, `^no reply in this scenario has the "([^"]+)" header$`, noReplyHasHeader)
	step(sc, `^the reply carries nothing but the response$`, wc(replyCarriesOnlyResponse))
	step(sc, `^every error in this scenario with code (-?\d+(?:, -?\d+)*) came with HTTP status (\d+)$`, errorCodesCameWithStatus)

	// Send.
	step(sc, `^the client calls the fixture tool "([^"]+)" asking for progress$`, func(ctx context.Context, tool string) error {
		return WorldOf(ctx).callTool(ctx, tool, true, false)
	})
	step(sc, `^the client calls the fixture tool "([^"]+)" asking for progress and log messages$`, func(ctx context.Context, tool string) error {
		return WorldOf(ctx).callTool(ctx, tool, true, true)
	})
	step(sc, `^the client calls the fixture tool "([^"]+)" without progress token or log level$`, func(ctx context.Context, tool string) error {
		return WorldOf(ctx).callTool(ctx, tool, false, false)
	})
	step(sc, `^the client sends (\d+) requests at once, some calling the fixture tool "([^"]+)" with progress$`, func(ctx context.Context, n int, tool string) error {
		return WorldOf(ctx).SendAtOnce(ctx, n, tool)
	})
	step(sc, `^the client opens a subscriptions/listen stream and holds it$`, wc(func(ctx context.Context, w *World) error {
		return w.HoldListen(ctx, nil, w.ListenHold())
	}))
	step(sc, `^the client opens a subscriptions/listen stream and closes it after the first event$`, wc(func(ctx context.Context, w *World) error {
		return w.HoldListen(ctx, nil, 0)
	}))
	step(sc, `^the client opens a subscriptions/listen stream and, while it is open, calls the fixture tool "([^"]+)" asking for progress and log messages$`, listenWhileCallingFixture)
	step(sc, `^the client sends the intentionally invalid notification:$`, func(ctx context.Context, doc *godog.DocString) error {
		return WorldOf(ctx).SendDoc(ctx, doc.Content, true, true)
	})
	step(sc, `^the client sends a harmless request with a foreign Origin header$`, wc(sendWithForeignOrigin))
	step(sc, `^the client sends requests that a modern server refuses with a 4xx status$`, wc(sendRefusable))

	// Observe: SSE streams over the whole run (package judge; na when the run had none).
	step(sc, `^every SSE event the server sent in this run carries one JSON-RPC message$`, AskJudge("HTTP-006"))
	step(sc, `^every notification on a request's SSE stream in this run relates to that request$`, AskJudge("HTTP-007"))
	step(sc, `^no SSE stream of this run carries a JSON-RPC request$`, AskJudge("HTTP-008"))
	step(sc, `^every SSE response of this run has the header X-Accel-Buffering: no$`, AskJudge("HTTP-010"))
	step(sc, `^no reply in this run carries the response to another request$`, AskJudge("HTTP-012"))
	step(sc, `^no event follows the response on any SSE stream of this run$`, AskJudge("HTTP-009"))
	step(sc, `^every 4xx reply to a well-formed modern request in this run carries a JSON-RPC error$`, every4xxReplyIsJSONRPCError)

	// Observe: this scenario.
	step(sc, `^every SSE stream in this scenario ended right after its response$`, everySSEStreamEndsAfterResponse)
	step(sc, `^each of those requests got its own response on its own POST$`, eachRequestGotOwnPOST)
	step(sc, `^the listen reply is an SSE stream that opens with the acknowledgement and stays open$`, listenReplyOpensWithAck)
	step(sc, `^the listen stream carried no notifications/progress or notifications/message$`, listenStreamCarriedNoProgress)
	step(sc, `^any keep-alive on the listen stream is an SSE comment$`, keepAliveIsSSEComment)
	step(sc, `^every notification the server refused in this scenario got an HTTP error status and any body is an error without id$`, wc(judgeRefusedNotifications))
	step(sc, `^a JSON-RPC error body of the 403 reply, if any, has no id$`, wc(forbiddenBodyHasNoID))
}

func sendWithMCPHeaderCase(ctx context.Context, method, spelling string) error {
	spell := strings.ToLower
	if spelling == "upper" {
		spell = strings.ToUpper
	}
	return WorldOf(ctx).SendMethod(ctx, method, "", nil, func(h http.Header) []string {
		for k, vs := range h {
			if strings.HasPrefix(strings.ToLower(k), "mcp-") {
				delete(h, k)
				h[spell(k)] = vs // raw map key: sent as spelled
			}
		}
		return nil
	})
}

func notificationGets202(ctx context.Context, w *World) error {
	h, err := w.LastHTTP()
	if err != nil {
		return err
	}
	if h.Status >= 300 {
		return w.SetSkip(reports.NA, fmt.Sprintf("the server refused the notification with HTTP %d (judged by HTTP-003)", h.Status))
	}
	return expectSilence(ctx, w)
}

func everyReplyHasContentType(ctx context.Context, w *World) error {
	n := 0
	for _, ex := range w.Exchanges {
		if ex.HTTP == nil || ex.Sent == nil {
			continue
		}
		if msg, err := harness.ParseMessage(ex.Sent.Raw); err != nil || msg.Kind != harness.KindRequest {
			continue
		}
		n++
		ct := ex.HTTP.Headers.Get("Content-Type")
		if mt := checks.MediaType(ct); mt != "application/json" && mt != "text/event-stream" {
			return &client.Mismatch{Expected: "Content-Type application/json or text/event-stream",
				Actual: fmt.Sprintf("HTTP %d with Content-Type %q in reply to %s", ex.HTTP.Status, ct, client.SentMethod(ex)), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return fmt.Errorf("feature bug: no request got an HTTP reply in this scenario")
	}
	return nil
}

func everyJSONReplyIsOneResponse(ctx context.Context, w *World) error {
	n := 0
	for _, ex := range w.Exchanges {
		if ex.HTTP == nil || ex.Sent == nil || checks.MediaType(ex.HTTP.Headers.Get("Content-Type")) != "application/json" {
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
			return &client.Mismatch{Expected: "one JSON-RPC response object", Actual: "body " + client.Short(body), Frames: checks.ExchangeSeqs(ex)}
		case msg.Kind != harness.KindResult && msg.Kind != harness.KindError:
			return &client.Mismatch{Expected: "one JSON-RPC response object", Actual: client.Describe(msg), Frames: checks.ExchangeSeqs(ex)}
		case !msg.HasID || harness.IDKey(msg.ID) != harness.IDKey(sent.ID):
			actual := "no id member"
			if msg.HasID {
				actual = "id " + harness.IDKey(msg.ID)
			}
			return &client.Mismatch{Expected: "the request's id " + harness.IDKey(sent.ID), Actual: actual, Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return w.SetSkip(reports.NA, "no request was answered with application/json (every reply was an SSE stream)")
	}
	return nil
}

func noReplyHasHeader(ctx context.Context, name string) error {
	w := WorldOf(ctx)
	for _, ex := range w.Exchanges {
		if ex.HTTP == nil {
			continue
		}
		if vs := ex.HTTP.Headers.Values(name); len(vs) > 0 {
			return &client.Mismatch{Expected: "no " + name + " response header", Actual: fmt.Sprintf("%s: %s", name, strings.Join(vs, ", ")), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	return nil
}

func replyCarriesOnlyResponse(ctx context.Context, w *World) error {
	if _, err := w.ResponseMessage(); err != nil {
		return err
	}
	for _, f := range w.Last.Frames {
		if f != w.Last.Response && len(bytes.TrimSpace(f.Raw)) > 0 {
			return &client.Mismatch{Expected: "only the response on the reply", Actual: "also " + client.Short(f.Raw), Frames: w.LastSeqs()}
		}
	}
	return nil
}

func errorCodesCameWithStatus(ctx context.Context, codes string, status int) error {
	w := WorldOf(ctx)
	want := map[int64]bool{}
	for _, c := range strings.Split(codes, ", ") {
		n, _ := strconv.ParseInt(c, 10, 64)
		want[n] = true
	}
	n := 0
	for _, ex := range w.Exchanges {
		if ex.HTTP == nil || ex.Response == nil {
			continue
		}
		msg, err := harness.ParseMessage(ex.Response.Body())
		if err != nil || msg.Kind != harness.KindError || !want[msg.Error.Code] {
			continue
		}
		n++
		if ex.HTTP.Status != status {
			return &client.Mismatch{Expected: fmt.Sprintf("HTTP status %d with error %d", status, msg.Error.Code),
				Actual: fmt.Sprintf("HTTP status %d", ex.HTTP.Status), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return w.SetSkip(reports.NA, "the server sent none of the errors "+codes)
	}
	return nil
}

func listenWhileCallingFixture(ctx context.Context, tool string) error {
	w := WorldOf(ctx)
	return w.HoldListen(ctx, func(ctx context.Context) error { return w.callTool(ctx, tool, true, true) }, w.ListenHold())
}

func sendWithForeignOrigin(ctx context.Context, w *World) error {
	if why := nonLoopback(w.Opts.URL); why != "" {
		return w.SetSkip(reports.Untestable, why)
	}
	return w.SendMethod(ctx, w.Harmless(), "", nil, func(h http.Header) []string { h.Set("Origin", foreignOrigin); return nil })
}

func every4xxReplyIsJSONRPCError(ctx context.Context) error {
	w := WorldOf(ctx)
	n := 0
	for _, ex := range w.Exchanges {
		if ex.HTTP != nil && refusable(ex.HTTP.Status) {
			n++
		}
	}
	if n == 0 {
		return w.SetSkip(reports.NA, "the server refused none of the requests with 400 or 404")
	}
	return AskJudge("ERR-010")(ctx)
}

func everySSEStreamEndsAfterResponse(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.streamsEnded()
}

func eachRequestGotOwnPOST(ctx context.Context) error {
	for _, ex := range WorldOf(ctx).Concurrent {
		if ex.Response == nil {
			actual := "no response"
			if ex.Err != nil {
				actual += ": " + ex.Err.Error()
			}
			return &client.Mismatch{Expected: "the response to " + client.SentMethod(ex) + " on the reply to its own POST", Actual: actual, Frames: checks.ExchangeSeqs(ex)}
		}
	}
	return nil
}

func listenReplyOpensWithAck(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.listenStaysOpen()
}

func listenStreamCarriedNoProgress(ctx context.Context) error {
	w := WorldOf(ctx)
	lr, err := w.listenOffered()
	if err != nil {
		return err
	}
	for _, f := range lr.Ex.Frames {
		if msg, err := harness.ParseMessage(f.Body()); err == nil && msg.Kind == harness.KindNotification &&
			(msg.Method == "notifications/progress" || msg.Method == "notifications/message") {
			return &client.Mismatch{Expected: "request-scoped notifications only on the stream of their request", Actual: msg.Method + " on the listen stream: " + client.Short(f.Raw), Frames: []int{f.Seq}}
		}
	}
	return nil
}

func keepAliveIsSSEComment(ctx context.Context) error {
	w := WorldOf(ctx)
	lr, err := w.listenOffered()
	if err != nil {
		return err
	}
	for _, f := range lr.Ex.Frames {
		if f.SSE == nil || len(bytes.TrimSpace(f.Raw)) == 0 && f.Problem == "" {
			continue
		}
		if _, err := harness.ParseMessage(f.Body()); err != nil {
			return &client.Mismatch{Expected: "keep-alives sent as SSE comment lines (\":\")", Actual: "an event whose data is no JSON-RPC message: " + client.Short(f.Raw), Frames: []int{f.Seq}}
		}
	}
	return nil
}

func forbiddenBodyHasNoID(ctx context.Context, w *World) error {
	h, err := w.LastHTTP()
	if err != nil {
		return err
	}
	if h.Status != http.StatusForbidden {
		return w.SetSkip(reports.NA, fmt.Sprintf("the server answered the foreign Origin with HTTP %d, not 403 (judged by HTTP-018)", h.Status))
	}
	for _, f := range w.Last.Frames {
		msg, err := harness.ParseMessage(f.Body())
		if err != nil || msg.Kind == harness.KindInvalid {
			continue // no JSON-RPC body: the permission is not used
		}
		if msg.HasID {
			return &client.Mismatch{Expected: "a JSON-RPC error without id in the 403 body", Actual: "a body with \"id\": " + string(msg.ID), Frames: w.LastSeqs()}
		}
		if msg.Kind != harness.KindError {
			return &client.Mismatch{Expected: "a JSON-RPC error without id in the 403 body", Actual: client.Describe(msg), Frames: w.LastSeqs()}
		}
	}
	return nil
}

func sendTargetsWithMcpName(ctx context.Context, how string) error {
	return hdrStep(func(ctx context.Context, w *World, st *hdrState) error {
		return w.hdrSendTargets(ctx, st, how)
	})(ctx)
}

func findSafeXmcpTool(ctx context.Context, kind string) error {
	return hdrStep(func(ctx context.Context, w *World, st *hdrState) error {
		typ := ""
		if kind == "integer parameter" {
			typ = "integer"
		}
		return w.hdrFindTool(ctx, st, typ, true)
	})(ctx)
}

func callSafeToolSentinelParam(ctx context.Context, w *World, st *hdrState) error {
	if err := w.hdrFindTool(ctx, st, "", false); err != nil || st.tool == nil {
		return err
	}
	value := st.sample(false)
	if st.param.Typ == "string" {
		value = "mcp-conform-\u00e9" // not header-safe: a conforming client encodes it
	}
	header := "=?base64?" + base64.StdEncoding.EncodeToString([]byte(checks.HeaderText(value))) + "?="
	return w.hdrCall(ctx, st, map[string]any{st.param.Key(): value}, st.param.Name(), header, "a sentinel-encoded "+st.param.Name())
}

func callToolMirroringEveryArg(ctx context.Context, w *World, st *hdrState) error {
	args := map[string]any{}
	for _, p := range st.tool.Params {
		args[p.Key()] = p.Sample(false)
	}
	return w.hdrCall(ctx, st, args, "", "", "every x-mcp-header argument with its header")
}

func callToolHeaderDiffers(ctx context.Context, w *World, st *hdrState) error {
	return w.hdrCall(ctx, st, map[string]any{st.param.Key(): st.sample(false)}, st.param.Name(), checks.HeaderText(st.sample(true)),
		st.param.Name()+" differing from the argument")
}

func callToolHeaderRawBytes(ctx context.Context, w *World, st *hdrState) error {
	value := st.sample(false)
	header := checks.HeaderText(value) + "\u00e9"
	if st.param.Typ == "string" {
		value, header = "mcp-conform-\u00e9", "mcp-conform-\u00e9" // equal but for the encoding
	}
	return w.hdrCall(ctx, st, map[string]any{st.param.Key(): value}, st.param.Name(), header, st.param.Name()+" with raw UTF-8 bytes")
}

func callToolIntegerSpelling(ctx context.Context, body, header string) error {
	return hdrToolStep(func(ctx context.Context, w *World, st *hdrState) error {
		n := st.sample(false).(int64)
		form := func(how string) string {
			if how == "with a fraction" {
				return strconv.FormatInt(n, 10) + ".0"
			}
			return strconv.FormatInt(n, 10)
		}
		return w.hdrCall(ctx, st, map[string]any{st.param.Key(): json.RawMessage(form(body))}, st.param.Name(), form(header),
			fmt.Sprintf("%s %s in the body and %s in the header", strings.Join(st.param.Path, "."), form(body), form(header)))
	})(ctx)
}

// expect405 checks that the last HTTP request got 405. A server that also speaks a legacy
// revision is bound by the rule only for modern traffic (streamable-http#Earlier Streamable
// HTTP Revisions): its legacy answers (an SSE stream, or 400/404 for a missing session) are na.
func expect405(ctx context.Context, w *World) error {
	h, err := w.LastHTTP()
	if err != nil {
		return err
	}
	if h.Status == http.StatusMethodNotAllowed {
		return nil
	}
	var legacy []string
	for _, v := range w.Target.Supported {
		if revisions.IsLegacy(v) {
			legacy = append(legacy, v)
		}
	}
	sse := h.Status/100 == 2 && checks.MediaType(h.Headers.Get("Content-Type")) == "text/event-stream"
	if len(legacy) > 0 && (sse || h.Status == http.StatusBadRequest || h.Status == http.StatusNotFound) {
		return w.SetSkip(reports.NA, fmt.Sprintf("the server also speaks %s and answered HTTP %d as that transport may", strings.Join(legacy, ", "), h.Status))
	}
	return &client.Mismatch{Expected: "HTTP status 405", Actual: fmt.Sprintf("HTTP status %d", h.Status), Frames: w.LastSeqs()}
}

// refusable reports whether status is one a modern server refuses a request with and whose
// body a dual-era client inspects before falling back (400, 404).
func refusable(status int) bool {
	return status == http.StatusBadRequest || status == http.StatusNotFound
}

// callTool sends a tools/call of tool (a fixture name: the call is harmless), asking for
// progress with a fresh string progressToken and, when logs is set, for log messages at level
// debug, and keeps how its reply stream ended.
func (w *World) callTool(ctx context.Context, tool string, progress, logs bool) error {
	id := w.Env.IDs().Next()
	meta := map[string]any{}
	if progress {
		meta[client.ProgressMeta] = fmt.Sprintf("mcpconform-progress-%d", id)
	}
	if logs && w.Target.Modern {
		meta[logLevelMeta] = "debug"
	}
	c := w.FixtureToolCall(tool, nil, meta)
	c.ID = id
	req := w.Build(c)
	return w.SendStream(ctx, req)
}

// streamsEnded checks HTTP-009 for the SSE replies of this scenario: each was closed by the
// server right after the response (within the quiet window), then the run-wide part.
func (w *World) streamsEnded() error {
	n := 0
	for _, ex := range w.Exchanges {
		info, ok := w.Streams[ex]
		if !ok || !info.SSE || ex.Response == nil {
			continue
		}
		n++
		if info.End != harness.EndEOF || info.EventsAfterResponse > 0 {
			actual := fmt.Sprintf("the stream was still open %s after the response", w.Opts.QuietWindow)
			if info.EventsAfterResponse > 0 {
				actual = fmt.Sprintf("%d events after the response", info.EventsAfterResponse)
			}
			return &client.Mismatch{Expected: "the final response to end the SSE stream", Actual: actual, Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if n == 0 {
		return w.SetSkip(reports.NA, "the server answered none of this scenario's requests with an SSE stream")
	}
	return nil
}

// listenOffered returns the held listen stream, or ends the scenario as na when the server
// does not offer subscriptions/listen (-32601 or 404).
func (w *World) listenOffered() (*client.ListenRun, error) {
	lr := w.Listen
	if lr == nil || lr.Ex == nil {
		return nil, fmt.Errorf("feature bug: no subscriptions/listen stream was opened")
	}
	if lr.Ex.HTTP == nil {
		return nil, &client.Mismatch{Expected: "an HTTP reply to subscriptions/listen", Actual: fmt.Sprint(lr.Ex.Err), Frames: checks.ExchangeSeqs(lr.Ex)}
	}
	if lr.Ex.HTTP.Status == http.StatusNotFound {
		return nil, w.SetSkip(reports.NA, noListenDeclared+" (HTTP 404)")
	}
	if lr.Ex.Response != nil {
		if msg, err := harness.ParseMessage(lr.Ex.Response.Body()); err == nil && msg.Kind == harness.KindError {
			if msg.Error.Code == -32601 {
				return nil, w.SetSkip(reports.NA, noListenDeclared+" (-32601)")
			}
			// A refused subscription is SUB-001's failure; the stream rules have no stream to
			// judge (on stdio the same case is untestable, naming SUB-001).
			return nil, w.SetSkip(reports.Untestable, fmt.Sprintf("the rule needs an open listen stream; subscriptions/listen was refused with %s (HTTP %d), which SUB-001 judges", client.Describe(msg), lr.Ex.HTTP.Status))
		}
	}
	return lr, nil
}

// listenStaysOpen checks HTTP-024 on the held listen stream.
func (w *World) listenStaysOpen() error {
	lr, err := w.listenOffered()
	if err != nil {
		return err
	}
	ex := lr.Ex
	seqs := checks.ExchangeSeqs(ex)
	ct := ex.HTTP.Headers.Get("Content-Type")
	if ex.HTTP.Status != http.StatusOK || checks.MediaType(ct) != "text/event-stream" {
		return &client.Mismatch{Expected: "HTTP 200 with an SSE stream (text/event-stream)", Actual: fmt.Sprintf("HTTP %d with Content-Type %q", ex.HTTP.Status, ct), Frames: seqs}
	}
	var firstMsg *harness.Message
	for _, f := range ex.Frames {
		if msg, err := harness.ParseMessage(f.Body()); err == nil {
			firstMsg = msg
			break
		}
	}
	if firstMsg == nil || firstMsg.Method != "notifications/subscriptions/acknowledged" {
		actual := "no event"
		if firstMsg != nil {
			actual = client.Describe(firstMsg)
			if firstMsg.Method != "" {
				actual = firstMsg.Method
			}
		}
		return &client.Mismatch{Expected: "the stream to open with notifications/subscriptions/acknowledged", Actual: actual, Frames: seqs}
	}
	switch lr.Info.End {
	case harness.EndContext:
		return nil
	case harness.EndEOF:
		actual := "the server closed the stream"
		if ex.Response != nil {
			actual += " after a subscriptions/listen response"
		}
		return &client.Mismatch{Expected: fmt.Sprintf("the listen stream still open after %s", lr.Hold), Actual: actual, Frames: seqs}
	}
	return &client.Mismatch{Expected: fmt.Sprintf("the listen stream still open after %s", lr.Hold), Actual: fmt.Sprintf("reading ended (%s): %v", lr.Info.End, ex.Err), Frames: seqs}
}

// sendRefusable sends requests a 2026-07-28 server refuses with 400 or 404: an unknown method,
// a missing Mcp-Method header, an unsupported protocol version and, when prompts are declared,
// prompts/get of a prompt that does not exist.
func sendRefusable(ctx context.Context, w *World) error {
	unknown := `{"jsonrpc":"2.0","id":$id,"method":"mcpconform/nonexistent","params":$params}`
	if err := w.SendDoc(ctx, unknown, false, false); err != nil {
		return err
	}
	if err := w.SendMethod(ctx, "server/discover", "", nil, func(h http.Header) []string { h.Del(harness.HeaderMethod); return []string{harness.HeaderMethod} }); err != nil {
		return err
	}
	if err := w.SendMethod(ctx, "server/discover", revisions.Future, nil, nil); err != nil {
		return err
	}
	if _, ok := w.Target.Caps["prompts"]; ok {
		doc := `{"jsonrpc":"2.0","id":$id,"method":"prompts/get","params":{"name":"` + unknownPrompt + `","_meta":$meta}}`
		if err := w.SendDoc(ctx, doc, false, false); err != nil {
			return err
		}
	}
	return nil
}

// judgeRefusedNotifications checks HTTP-003 over the notifications of the scenario.
func judgeRefusedNotifications(ctx context.Context, w *World) error {
	refused := 0
	for _, ex := range w.Exchanges {
		if ex.Sent == nil || ex.HTTP == nil {
			continue
		}
		if sent, err := harness.ParseMessage(ex.Sent.Raw); err != nil || sent.Kind != harness.KindNotification {
			continue
		}
		status := ex.HTTP.Status
		var body *harness.Message
		var raw []byte
		for _, f := range ex.Frames {
			if len(bytes.TrimSpace(f.Raw)) > 0 {
				raw = f.Raw
				body, _ = harness.ParseMessage(f.Body())
				break
			}
		}
		isRPC := body != nil && body.Kind != harness.KindInvalid
		switch {
		case status == http.StatusAccepted:
			continue // accepted (HTTP-002 judges the empty body)
		case status >= 400 && status < 600:
			refused++
			// An error with "id": null is MSG-009's (basic/index: the id MUST NOT be null; the
			// JSON-RPC 2.0 habit for an id that could not be read): this rule judges the status
			// and that the body is an error, and one habit fails one rule.
			nullID := body != nil && body.Kind == harness.KindError && harness.IDKey(body.ID) == "null"
			if isRPC && (body.Kind != harness.KindError || body.HasID && !nullID) {
				actual := client.Describe(body)
				if body.HasID {
					actual += " with \"id\": " + string(body.ID)
				}
				return &client.Mismatch{Expected: "a refusal body that is a JSON-RPC error without id", Actual: actual, Frames: checks.ExchangeSeqs(ex)}
			}
		case status >= 200 && status < 300:
			if isRPC && body.Kind == harness.KindError {
				return &client.Mismatch{Expected: "an HTTP error status (4xx/5xx) for a refused notification", Actual: fmt.Sprintf("HTTP %d with %s", status, client.Short(raw)), Frames: checks.ExchangeSeqs(ex)}
			}
		default:
			return &client.Mismatch{Expected: "202 Accepted or an HTTP error status", Actual: fmt.Sprintf("HTTP %d", status), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	if refused == 0 {
		return w.SetSkip(reports.NA, "the server accepted every notification the suite sent, so no refusal could be judged")
	}
	return nil
}

// nonLoopback returns why the Origin rules cannot be judged on target, or "" when its host is a
// loopback address (a server reached there is a local one that must refuse foreign origins).
func nonLoopback(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "cannot parse the target URL: " + err.Error()
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("the target %s is not a loopback address: which origins a remote server trusts is its deployment's choice, so the suite cannot tell a valid Origin from an invalid one", host)
}

// bindsModernOnly marks a rule that binds only a server supporting the modern revision alone
// (streamable-http#Earlier Streamable HTTP Revisions: "A server that supports only this
// revision and receives such traffic from an older client SHOULD respond as follows"): on a
// server that also serves a legacy revision (listed in supportedVersions, or answering
// initialize) a departure is recorded as info, not graded.
// legacyAnswerAllowed is META-003's precondition: a request without params._meta carries no
// sign of 2026-07-28, so a server that also serves a legacy revision may answer it as a legacy
// request (an error such as -32601, or a legacy result). On such a server a broken expectation
// is recorded as info; a server of 2026-07-28 alone must reject it.
func legacyAnswerAllowed(ctx context.Context, w *World) error {
	dual, err := w.DualEra(ctx)
	if err != nil {
		return err
	}
	if dual {
		w.ObserveOnly = "a request without params._meta carries no " + revisions.Modern().ID +
			" marker, and the server also serves a legacy revision, so it may answer the request as a legacy one"
	}
	return nil
}

func bindsModernOnly(ctx context.Context, w *World) error {
	dual, err := w.DualEra(ctx)
	if err != nil {
		return err
	}
	if dual {
		w.ObserveOnly = "the server also serves a legacy revision, and the rule binds only a server that supports " +
			revisions.Modern().ID + " alone"
	}
	return nil
}
