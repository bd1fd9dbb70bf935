package steps

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
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
	id, err := sessionID(w)
	if err != nil {
		return err
	}
	return w.naOrMismatch(checks.VisibleSessionID(id, w.LastSeqs()))
}

// sessionRequiredRefusal judges LHTTP-014 on the reply to the request sent without the session
// id the connection's session was issued (checks.SessionRequiredRefusal).
func sessionRequiredRefusal(_ context.Context, w *World) error {
	id, err := sessionID(w)
	if err != nil {
		return err
	}
	meta, err := w.LastHTTP()
	if err != nil {
		return err
	}
	return w.naOrMismatch(checks.SessionRequiredRefusal(id, meta.Status, w.LastSeqs()))
}

// sessionID returns the Mcp-Session-Id the scenario's Streamable HTTP connection was
// assigned ("" when none).
func sessionID(w *World) (string, error) {
	e, ok := w.Conn.Endpoint()
	if !ok {
		return "", fmt.Errorf("feature bug: a session rule needs a Streamable HTTP connection")
	}
	return e.Session().ID, nil
}
