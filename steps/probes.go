package steps

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

func init() { bindSteps("probes", registerProbesSteps) }

// registerProbesSteps binds the steps that only features/probes.feature uses.
func registerProbesSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client sends a harmless request with the "([^"]+)" header set to "([^"]*)"$`, func(ctx context.Context, name, value string) error {
		return WorldOf(ctx).probeHeader(ctx, name, &value)
	})
	step(sc, `^the client sends a harmless request without the "([^"]+)" header$`, func(ctx context.Context, name string) error {
		return WorldOf(ctx).probeHeader(ctx, name, nil)
	})
	step(sc, `^the client sends a harmless request as one stdio line ending in CR LF$`, wc(sendHarmlessCRLF))
	step(sc, `^the client sends a harmless request padded to 4 MiB$`, wc(sendHarmlessPadded))
	step(sc, `^the server's reply is recorded$`, wc(replyRecorded))
}

func sendHarmlessCRLF(ctx context.Context, w *World) error {
	req, err := w.harmlessRaw()
	if err != nil {
		return err
	}
	req.Raw = append(req.Raw, '\r')
	return w.Send(ctx, req)
}

func sendHarmlessPadded(ctx context.Context, w *World) error {
	req, err := w.harmlessRaw()
	if err != nil {
		return err
	}
	// The padding is a member of the request object the server must ignore; the JSON-RPC
	// envelope is unchanged.
	pad := `,"x-mcp-conform-padding":"` + strings.Repeat("a", largeProbeBytes) + `"}`
	req.Raw = append(req.Raw[:len(req.Raw)-1], pad...)
	return w.Send(ctx, req)
}

func replyRecorded(ctx context.Context, w *World) error {
	if w.Last == nil {
		return fmt.Errorf("feature bug: no message was sent before this step")
	}
	w.Observed = append(w.Observed, observe(w.Last))
	return nil
}

// largeProbeBytes is the size of the padding PROBE-007 puts in one stdio message (4 MiB).
const largeProbeBytes = 4 << 20

// probeHeader sends the harmless request over HTTP with header name set to *value, or
// without it when value is nil.
func (w *World) probeHeader(ctx context.Context, name string, value *string) error {
	if !w.OverHTTP() {
		return fmt.Errorf("feature bug: header probes need an HTTP target (tag the scenario @transport:http)")
	}
	return w.SendMethod(ctx, w.Harmless(), "", nil, func(h http.Header) []string {
		if value == nil {
			return []string{name}
		}
		h.Set(name, *value)
		return nil
	})
}

// harmlessRaw builds the harmless request of the target (see harmless) with a fresh id, its
// HTTP headers set, marked intentional: probes bend the framing on purpose.
func (w *World) harmlessRaw() (harness.Request, error) {
	req := w.Build(client.Call{Method: w.Harmless(), Intentional: true})
	if len(req.Raw) == 0 || req.Raw[len(req.Raw)-1] != '}' {
		return harness.Request{}, fmt.Errorf("harmless request is not a JSON object: %s", client.Short(req.Raw))
	}
	return req, nil
}

// observe describes in one line what came back for ex: the HTTP status and media type, the
// JSON-RPC response (kind, code, message) or the body, or that nothing came before the timeout.
func observe(ex *harness.Exchange) string {
	var parts []string
	if ex.HTTP != nil {
		s := fmt.Sprintf("HTTP %d", ex.HTTP.Status)
		if ct := ex.HTTP.Headers.Get("Content-Type"); ct != "" {
			s += " " + checks.MediaType(ct)
		}
		parts = append(parts, s)
	}
	switch {
	case ex.Response != nil:
		if msg, err := harness.ParseMessage(ex.Response.Body()); err == nil {
			parts = append(parts, client.Describe(msg))
		} else {
			parts = append(parts, "reply "+client.Short(ex.Response.Body()))
		}
	default:
		body := ""
		for _, f := range ex.Frames {
			if len(strings.TrimSpace(string(f.Raw))) > 0 {
				body = client.Short(f.Raw)
				if f.Problem != "" {
					body += " (" + f.Problem + ")"
				}
				break
			}
		}
		switch {
		case body != "":
			parts = append(parts, "reply "+body)
		case ex.HTTP != nil:
			parts = append(parts, "no body")
		case ex.Err != nil:
			parts = append(parts, "no reply ("+ex.Err.Error()+")")
		default:
			parts = append(parts, "no reply")
		}
	}
	return strings.Join(parts, ", ")
}
