package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// AnswerableCapabilities is every client capability the suite can answer when a server asks
// (DeclaredAnswer): sampling with tools, form and URL elicitation, roots. A session declaring
// them all sees every tool a server registers only for clients with a capability.
const AnswerableCapabilities = `{"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}},"roots":{}}`

// ToolsOfferedDeclaring opens a legacy session of its own on a fresh connection of the
// target (dial: the run's Env.Dial), declaring AnswerableCapabilities and accepting what the
// server asks, lists its tools (every page) and closes the connection. It returns the tool
// names listed. It errors when the target is not legacy, the connection cannot be opened,
// initialize fails or tools/list fails; the caller then learns nothing and goes on.
func (w *Session) ToolsOfferedDeclaring(ctx context.Context) (map[string]bool, error) {
	if w.Target.Modern {
		return nil, fmt.Errorf("a session declaring client capabilities is a legacy one")
	}
	conn, err := w.Env.Dial(ctx, w.Target.Revision)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	probe := NewSession(w.Env, w.Target, w.Opts)
	probe.Conn, probe.Fresh = conn, true
	if err := probe.OpenSessionDeclaring(ctx, json.RawMessage(AnswerableCapabilities), "accept"); err != nil {
		return nil, err
	}
	lt, err := probe.ListAll(ctx, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, t := range lt.Items {
		if name, ok := t["name"].(string); ok {
			names[name] = true
		}
	}
	return names, nil
}
