package steps

import (
	"context"
	"errors"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
)

// maxPromptGets bounds how many listed prompts one scenario fetches.
const maxPromptGets = 25

// keepTransportErr drops the *Mismatch and *client.ListRefused of a list traversal (other rules
// judge them) and keeps errors that mean the run cannot go on.
func keepTransportErr(ctx context.Context, err error) error {
	var m *client.Mismatch
	var r *client.ListRefused
	if err == nil || errors.As(err, &m) || errors.As(err, &r) {
		return ctx.Err()
	}
	return err
}

// getEveryPrompt lists the prompts (when the capability is declared) and gets each of the
// first maxPromptGets, its required arguments filled with "x" (prompts/get has no side
// effects). It returns the listed prompts.
func (w *World) getEveryPrompt(ctx context.Context) ([]map[string]any, error) {
	if !w.Declares("prompts") {
		return nil, nil
	}
	lt, err := w.ListAll(ctx, "prompts/list", "prompts")
	if err := keepTransportErr(ctx, err); err != nil {
		return nil, err
	}
	for i, p := range lt.Items {
		if i == maxPromptGets {
			break
		}
		name, ok := p["name"].(string)
		if !ok {
			continue
		}
		params := map[string]any{"name": name}
		if req := requiredArgs(p); len(req) > 0 {
			args := map[string]any{}
			for _, a := range req {
				args[a] = placeholderArg(a)
			}
			params["arguments"] = args
		}
		if err := w.SendParams(ctx, "prompts/get", params, nil, false); err != nil {
			return nil, err
		}
	}
	return lt.Items, nil
}

// requiredArgs returns the names of a listed prompt's arguments marked required: true.
func requiredArgs(p map[string]any) []string {
	var out []string
	args, _ := p["arguments"].([]any)
	for _, a := range args {
		am, _ := a.(map[string]any)
		if name, ok := am["name"].(string); ok && am["required"] == true {
			out = append(out, name)
		}
	}
	return out
}

// placeholderArg is the value the suite gives a required prompt argument it knows nothing
// about: "x", or a valid URI (the static text fixture) for an argument named like a URI, so a
// server that echoes it back is not blamed for the suite's own input.
func placeholderArg(name string) string {
	n := strings.ToLower(name)
	if strings.Contains(n, "uri") || strings.Contains(n, "url") {
		return "test://static-text"
	}
	return "x"
}
