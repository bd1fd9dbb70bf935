package steps

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// lhttpState is what the legacy Streamable HTTP session scenarios keep between steps: the
// request sent under a session id never issued, the DELETE and the request after it, and the
// session ids of the sessions opened.
type lhttpState struct {
	never, del, after *harness.Exchange
	ids               []string
	idFrames          []int
}

// lhttpOf returns the scenario's legacy Streamable HTTP state, made on first use (see stateOf).
func lhttpOf(w *World) *lhttpState {
	return stateOf(w, func() *lhttpState { return &lhttpState{} })
}

func init() { bindSteps("legacy-http-streams", registerLegacyStreamSteps) }

// registerLegacyStreamSteps binds the GET stream, DELETE and session id steps of
// features/legacy-basic-transports.feature.
func registerLegacyStreamSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client opens a GET stream on the endpoint$`, wc(func(ctx context.Context, w *World) error {
		_, err := w.OpenGET(ctx, "")
		return err
	}))
	step(sc, `^the client closes its GET streams$`, wc(func(ctx context.Context, w *World) error {
		w.CloseStreams()
		return ctx.Err()
	}))
	step(sc, `^the client sends a "([^"]+)" request with a session id the server never issued$`, func(ctx context.Context, method string) error {
		w := WorldOf(ctx)
		err := w.Send(ctx, w.Build(client.Call{Method: method,
			EditHeaders: func(h http.Header) { h.Set(harness.HeaderSessionID, "mcpconform-never-issued-session-0") }}))
		lhttpOf(w).never = w.Last
		return err
	})
	step(sc, `^the client ends its session with an HTTP DELETE$`, wc(func(ctx context.Context, w *World) error {
		err := w.SendBare(ctx, http.MethodDelete)
		lhttpOf(w).del = w.Last
		return err
	}))
	step(sc, `^the client sends a "([^"]+)" request in the ended session$`, func(ctx context.Context, method string) error {
		w := WorldOf(ctx)
		err := w.Send(ctx, w.Build(client.Call{Method: method}))
		lhttpOf(w).after = w.Last
		return err
	})
	step(sc, `^the client opens (\d+) sessions$`, func(ctx context.Context, n int) error {
		w := WorldOf(ctx)
		st := lhttpOf(w)
		var err error
		st.ids, st.idFrames, err = w.SessionIDs(ctx, n)
		return err
	})
	step(sc, `^the endpoint that served the POSTs answers the GET too$`, wc(func(_ context.Context, w *World) error {
		ex, err := heldGET(w)
		if err != nil {
			return err
		}
		return nilIfNil(checks.EndpointServesGET(ex.HTTP, checks.ExchangeSeqs(ex)))
	}))
	step(sc, `^the GET got an SSE stream or 405$`, wc(func(_ context.Context, w *World) error {
		ex, err := heldGET(w)
		if err != nil {
			return err
		}
		untestable, m := checks.GETStreamOr405(ex.HTTP, checks.ExchangeSeqs(ex))
		if untestable != "" {
			return w.SetSkip(reports.Untestable, untestable)
		}
		return nilIfNil(m)
	}))
	step(sc, `^the initialized notification and every response the client POSTed got 202 Accepted with no body, or an HTTP error status$`, wc(postsAccepted))
	step(sc, `^the requests in the ended and the never-issued session got 404$`, wc(sessionGone))
	step(sc, `^the DELETE got a 2xx status or 405$`, wc(deleteAnswered))
	step(sc, `^the session ids are distinct, long and not sequential$`, wc(func(_ context.Context, w *World) error {
		st := lhttpOf(w)
		return w.naOrMismatch(checks.DistinctSessionIDs(st.ids, st.idFrames))
	}))
	step(sc, `^every SSE reply in this scenario opened with a priming event$`, wc(func(_ context.Context, w *World) error {
		return w.naOrMismatch(checks.PrimingEvent(scenarioStreams(w)))
	}))
	step(sc, `^every SSE reply to a POST in this scenario carried its response and ended after it$`, wc(func(_ context.Context, w *World) error {
		na, untestable, m := checks.ResponseEndsStream(scenarioStreams(w))
		if untestable != "" {
			return w.SetSkip(reports.Untestable, untestable)
		}
		return w.naOrMismatch(na, m)
	}))
	step(sc, `^every SSE reply the server closed before its response carried a retry field first$`, wc(func(_ context.Context, w *World) error {
		return w.naOrMismatch(checks.RetryBeforeClose(scenarioStreams(w)))
	}))
	step(sc, `^no GET stream in this scenario carried a JSON-RPC response$`, wc(func(_ context.Context, w *World) error {
		return w.naOrMismatch(checks.NoResponseOnGET(scenarioStreams(w)))
	}))
	step(sc, `^the SSE event ids of this scenario's streams are unique$`, wc(func(_ context.Context, w *World) error {
		return w.naOrMismatch(checks.UniqueEventIDs(scenarioStreams(w)))
	}))
	step(sc, `^no message of this scenario travelled on two streams$`, wc(func(_ context.Context, w *World) error {
		return nilIfNil(checks.NotBroadcast(scenarioStreams(w)))
	}))
}

// scenarioStreams lists the scenario's POST replies and held GET streams (checks.ScenarioStreams).
func scenarioStreams(w *World) []checks.SSEStream {
	return checks.ScenarioStreams(w.Exchanges, w.Streams, w.Held)
}

// heldGET returns the exchange of the scenario's first GET stream, once closed.
func heldGET(w *World) (*harness.Exchange, error) {
	if len(w.Held) == 0 || w.Held[0].Ex == nil || w.Held[0].Ex.HTTP == nil {
		return nil, fmt.Errorf("feature bug: no GET stream was opened and closed before this step")
	}
	return w.Held[0].Ex, nil
}

// initializedAccepted judges LHTTP-002 on the reply to the notifications/initialized that
// ended the scenario's handshake (checks.Accepted202).
func initializedAccepted(_ context.Context, w *World) error {
	for _, ex := range w.Exchanges {
		if client.SentMethod(ex) != "notifications/initialized" || ex.HTTP == nil {
			continue
		}
		body := 0
		for _, f := range ex.Frames {
			body += f.Size
		}
		return nilIfNil(checks.Accepted202("notification", ex.HTTP.Status, body, checks.ExchangeSeqs(ex)))
	}
	return fmt.Errorf("feature bug: no notifications/initialized got an HTTP reply in this scenario")
}

// postsAccepted judges LHTTP-002 on the initialized notification and on every response the
// client POSTed in the scenario (its answers to the server's requests, checks.ResponsesAccepted).
func postsAccepted(ctx context.Context, w *World) error {
	if err := initializedAccepted(ctx, w); err != nil {
		return err
	}
	return nilIfNil(checks.ResponsesAccepted(w.PostedResponses(ctx)))
}

// sessionGone judges LHTTP-015 on the requests sent in a session the server never issued and
// in the one the scenario ended (checks.SessionGone).
func sessionGone(_ context.Context, w *World) error {
	id, err := sessionID(w)
	if err != nil {
		return err
	}
	st := lhttpOf(w)
	if st.never == nil || st.del == nil || st.after == nil || st.never.HTTP == nil || st.del.HTTP == nil || st.after.HTTP == nil {
		return fmt.Errorf("no HTTP reply to one of the requests this step judges")
	}
	na, m, soft := checks.SessionGone(id, st.never, st.del, st.after)
	if soft {
		m.Grade = reports.Warn
	}
	return w.naOrMismatch(na, m)
}

// deleteAnswered judges LHTTP-016 on the reply to the scenario's DELETE (checks.DeleteAnswered).
func deleteAnswered(_ context.Context, w *World) error {
	id, err := sessionID(w)
	if err != nil {
		return err
	}
	st := lhttpOf(w)
	if st.del == nil || st.del.HTTP == nil {
		return fmt.Errorf("no HTTP reply to the DELETE")
	}
	return w.naOrMismatch(checks.DeleteAnswered(id, st.del.HTTP.Status, checks.ExchangeSeqs(st.del)))
}

func init() { bindSteps("legacy-http-resume", registerLegacyResumeSteps) }

// registerLegacyResumeSteps binds the resumption steps of features/legacy-basic-transports.feature.
func registerLegacyResumeSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client calls the fixture tool "([^"]+)" and drops the connection after the first event id$`, func(ctx context.Context, tool string) error {
		w := WorldOf(ctx)
		c := w.FixtureToolCall(tool, nil, nil)
		c.ID = w.Env.IDs().Next()
		_, err := w.PostAndDrop(ctx, w.Build(c))
		return err
	})
	step(sc, `^the client resumes the dropped stream with a GET carrying its Last-Event-ID$`, wc(func(ctx context.Context, w *World) error {
		if len(w.Dropped) == 0 || w.Dropped[0].LastEventID == "" {
			return nil // nothing to resume: the Then-step says why
		}
		_, err := w.OpenGET(ctx, w.Dropped[0].LastEventID)
		return err
	}))
	step(sc, `^the resumption replayed only messages of the dropped stream$`, wc(func(_ context.Context, w *World) error {
		d, resumed, streams, err := droppedAndResumed(w)
		if err != nil {
			return err
		}
		return w.naOrMismatch(checks.ReplayOnlyThatStream(d, resumed, streams))
	}))
	step(sc, `^the resumption delivered the response to the dropped request$`, wc(func(_ context.Context, w *World) error {
		d, resumed, _, err := droppedAndResumed(w)
		if err != nil {
			return err
		}
		return w.naOrMismatch(checks.DeliveredOnResume(d, resumed))
	}))
}

// droppedAndResumed returns the scenario's dropped stream, its resumption (nil when none) and
// every stream of the scenario.
func droppedAndResumed(w *World) (*client.DroppedStream, *checks.SSEStream, []checks.SSEStream, error) {
	if len(w.Dropped) == 0 {
		return nil, nil, nil, fmt.Errorf("feature bug: no stream was dropped before this step")
	}
	streams := scenarioStreams(w)
	return w.Dropped[0], checks.Resumption(w.Dropped[0], streams, w.Held), streams, nil
}
