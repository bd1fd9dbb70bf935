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

func init() { bindSteps("legacy-basic-transports", registerLegacyBasicTransportsSteps) }

// registerLegacyBasicTransportsSteps binds the steps that only
// features/legacy-basic-transports.feature uses.
func registerLegacyBasicTransportsSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client opens a session of its own$`, wc(func(ctx context.Context, w *World) error {
		return w.OpenOwnSession(ctx)
	}))
	step(sc, `^the client sends a "([^"]+)" request without Mcp-Session-Id$`, func(ctx context.Context, method string) error {
		w := WorldOf(ctx)
		return w.Send(ctx, w.Build(client.Call{Method: method, Omit: []string{harness.HeaderSessionID}}))
	})
	step(sc, `^a server that requires sessions refuses it with HTTP 400$`, wc(sessionRequiredRefusal))
	step(sc, `^the session id the server assigned, if any, is visible ASCII$`, wc(sessionIDVisible))
	step(sc, `^the client sends a "([^"]+)" request with MCP-Protocol-Version "([^"]*)"$`, func(ctx context.Context, method, v string) error {
		w := WorldOf(ctx)
		return w.Send(ctx, w.Build(client.Call{Method: method, Intentional: true,
			EditHeaders: func(h http.Header) { h.Set(harness.HeaderProtocolVersion, v) }}))
	})
	step(sc, `^the client sends a "([^"]+)" request without MCP-Protocol-Version$`, func(ctx context.Context, method string) error {
		w := WorldOf(ctx)
		return w.Send(ctx, w.Build(client.Call{Method: method, Omit: []string{harness.HeaderProtocolVersion}}))
	})
}

// sessionIDVisible judges LHTTP-012 on the session id the connection's session was assigned
// (checks.VisibleSessionID).
func sessionIDVisible(_ context.Context, w *World) error {
	e, ok := w.Conn.Endpoint()
	if !ok {
		return fmt.Errorf("feature bug: LHTTP-012 needs a Streamable HTTP connection")
	}
	na, m := checks.VisibleSessionID(e.Session().ID, w.LastSeqs())
	if na != "" {
		return w.SetSkip(reports.NA, na)
	}
	if m != nil {
		return m
	}
	return nil
}

// sessionRequiredRefusal judges LHTTP-014 on the reply to the request sent without the session
// id the connection's session was issued (checks.SessionRequiredRefusal).
func sessionRequiredRefusal(_ context.Context, w *World) error {
	e, ok := w.Conn.Endpoint()
	if !ok {
		return fmt.Errorf("feature bug: LHTTP-014 needs a Streamable HTTP connection")
	}
	meta, err := w.LastHTTP()
	if err != nil {
		return err
	}
	na, m := checks.SessionRequiredRefusal(e.Session().ID, meta.Status, w.LastSeqs())
	if na != "" {
		return w.SetSkip(reports.NA, na)
	}
	if m != nil {
		return m
	}
	return nil
}
