package steps

import (
	"context"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-utilities-logging", registerServerUtilitiesLoggingSteps) }

// registerServerUtilitiesLoggingSteps binds the steps that only
// features/server-utilities-logging.feature uses.
func registerServerUtilitiesLoggingSteps(sc *godog.ScenarioContext) {
	// Send.
	step(sc, `^the client calls the logging fixture tool, if listed, without a log level$`, wc(func(ctx context.Context, w *World) error {
		return w.callLoggingTool(ctx, "", false, false)
	}))
	step(sc, `^the client calls the logging fixture tool with log level "([^"]+)"$`, func(ctx context.Context, level string) error {
		return WorldOf(ctx).callLoggingTool(ctx, level, true, false)
	})
	step(sc, `^the client calls the logging fixture tool, if listed, with log level "([^"]+)" while a listen stream is open$`, func(ctx context.Context, level string) error {
		return WorldOf(ctx).callLoggingTool(ctx, level, false, true)
	})
	step(sc, `^the client calls the logging fixture tool in its session$`, wc(func(ctx context.Context, w *World) error {
		err := w.callLoggingTool(ctx, "", true, false)
		w.SettleHeld(ctx) // what the server sent on the session's GET stream has arrived
		return err
	}))
	step(sc, `^the client holds a GET stream in its session$`, wc(func(ctx context.Context, w *World) error {
		if w.OverHTTP() {
			// A GET without a stream (405) or without a reply head in time leaves the log
			// messages to the POST replies; LFEAT-004 is untestable when none came at all.
			if _, err := w.OpenGET(ctx, ""); err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return nil
	}))
	step(sc, `^the client sets the log level "([^"]+)" in its session$`, func(ctx context.Context, level string) error {
		w := WorldOf(ctx)
		_, known := logLevels[level]
		return w.SendParams(ctx, "logging/setLevel", map[string]any{"level": level}, nil, !known)
	})
	step(sc, `^the client sends a list request with the log level "([^"]+)"$`, sendsListRequestLog)
	step(sc, `^the client sets the log level "([^"]+)" in a session of its own$`, setsLevelOwnSession)

	// Observe.
	step(sc, `^no log message in this run went to a request that did not ask for log messages$`, AskJudge("LOG-001"))
	step(sc, `^every log message in this run is at or above the level its request asked for$`, AskJudge("LOG-002"))
	step(sc, `^every log message in this run travelled with the response of the request that asked for it$`, AskJudge("LOG-003"))
	step(sc, `^every log message the server sent in this run has a known level and data$`, AskJudge("LOG-005"))
	step(sc, `^logging/setLevel got an empty result$`, wc(func(_ context.Context, w *World) error {
		if what := checks.EmptyResult("logging/setLevel", client.ResponseOf(w.Last)); what != "" {
			return &client.Mismatch{Expected: "an empty result to logging/setLevel", Actual: what, Frames: w.LastSeqs()}
		}
		return nil
	}))
	step(sc, `^no log message after the level was set is below "([^"]+)"$`, logLevelKept)
}

// logLevelKept judges LFEAT-004 on the notifications of the scenario's own session, on every
// stream the client read, after the reply to its last logging/setLevel (checks.LogLevelKept):
// untestable when the session got no log message at all, and over Streamable HTTP when the
// server assigned no Mcp-Session-Id.
func logLevelKept(ctx context.Context, level string) error {
	w := WorldOf(ctx)
	if w.OverHTTP() {
		// Without an Mcp-Session-Id a Streamable HTTP server keeps no session (2025-11-25
		// basic/transports#Session Management): the level has nothing to hold for, and a
		// server that ties it to the TCP connection sees a later POST on another connection
		// as a new client. A sessionless server is neither right nor wrong here.
		if id, err := sessionID(w); err != nil {
			return err
		} else if id == "" {
			return w.SetSkip(reports.Untestable, "the server assigned no Mcp-Session-Id at initialize: over Streamable HTTP there is no session for the level set by logging/setLevel to hold in")
		}
	}
	var calls []*harness.Exchange
	for _, ex := range w.Exchanges {
		if ex.Sent != nil && ex.Sent.Method == "tools/call" {
			calls = append(calls, ex)
		}
	}
	for i := len(w.Exchanges) - 1; i >= 0; i-- {
		if ex := w.Exchanges[i]; ex.Sent != nil && ex.Sent.Method == "logging/setLevel" && ex.Response != nil {
			why, m := checks.LogLevelKept(level, checks.NoticesAfter(w.Conn.Frames(), 0), ex.Response.Seq, calls)
			return verdictOf(w, why, m)
		}
	}
	return fmt.Errorf("feature bug: no answered logging/setLevel in this scenario")
}

func sendsListRequestLog(ctx context.Context, level string) error {
	w := WorldOf(ctx)
	_, known := logLevels[level]
	return w.SendParams(ctx, w.listOrDiscover(), nil, map[string]any{logLevelMeta: level}, !known)
}

// setsLevelOwnSession sends logging/setLevel with level (LFEAT-005) in a session of its own:
// the level holds for the whole session, so on the shared session it would change what the
// later scenarios receive. The scenario's fresh connection is initialised with the revision
// under test first; a handshake the server fails is LEG-001's to judge. An unknown level is an
// intentionally invalid request.
func setsLevelOwnSession(ctx context.Context, level string) error {
	w := WorldOf(ctx)
	if err := w.OpenOwnSession(ctx); err != nil {
		return err
	}
	_, known := logLevels[level]
	return w.SendParams(ctx, "logging/setLevel", map[string]any{"level": level}, nil, !known)
}

// logLevels ranks the LoggingLevel values (RFC 5424 severities, least severe first).
var logLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// callLoggingTool calls the fixture tool test_tool_with_logging (or its --fixture-map alias)
// with `_meta` logLevel level ("" for none). required makes a missing tool, an undeclared tools
// capability or a call the policy forbids end the scenario as untestable; otherwise the step
// does nothing then, and the run-wide check judges what the run shows. duringListen holds a
// subscriptions/listen stream open (HTTP) while the tool runs.
func (w *World) callLoggingTool(ctx context.Context, level string, required, duringListen bool) error {
	skip := func(why string) error {
		if required {
			return w.SetSkip(reports.Untestable, why)
		}
		return nil
	}
	if !w.Declares("tools") {
		return skip(fmt.Sprintf("no tool %q: the server declares no tools (%s)", w.Opts.FixtureName(loggingFixtureTool), undeclaredToolsJudge))
	}
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	if p, failed := client.ListProblem(err); failed {
		// A broken tool list is the listing rules' to fail (PAGE-001, TOOL-001), never the
		// logging rules': without the fixture they are untestable or judge the run as it is.
		return skip("the fixture tool could not be looked up: " + p)
	}
	if err != nil {
		return err
	}
	name := w.Opts.FixtureName(loggingFixtureTool)
	var tool map[string]any
	for _, t := range lt.Items {
		if t["name"] == name {
			tool = t
		}
	}
	if tool == nil {
		return skip(fmt.Sprintf("no tool %q", name))
	}
	if ok, why := w.Opts.MayCall(tool); !ok {
		return skip(why)
	}
	meta := map[string]any{}
	if !w.Target.Modern {
		// Handshake-era revisions set the level per session (logging/setLevel), which would
		// change what every later scenario of the shared session receives: no level is asked.
		level, duringListen = "", false
	}
	if level != "" {
		meta[logLevelMeta] = level
	}
	call := func(ctx context.Context) error {
		if w.OverHTTP() {
			return w.SendStream(ctx, w.Build(w.ToolsCall(name, nil, meta))) // keeps how its SSE reply ended
		}
		return w.Send(ctx, w.Build(w.ToolsCall(name, nil, meta)))
	}
	if duringListen && w.OverHTTP() {
		return w.HoldListen(ctx, call, w.ListenHold())
	}
	return call(ctx)
}
