package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// detect runs era detection (DESIGN.md "Era handling") and returns the targets to test.
func (e *env) detect(ctx context.Context) ([]*target, []string, string) {
	cfg := e.cfg
	var targets []*target
	var notes []string
	wantModern := cfg.Revision == "auto" || revisions.IsModern(cfg.Revision)
	wantLegacy := cfg.Revision == "auto" || !revisions.IsModern(cfg.Revision)
	var probe *harness.Probe
	// hint explains an HTTP reply that is not an MCP endpoint's (replyHint): the run that
	// cannot start leads with it.
	hint := ""
	if wantModern {
		t, err := e.dial(ctx, revisions.Modern().ID)
		if err != nil {
			return nil, notes, "cannot start the server: " + err.Error()
		}
		pctx, cancel := context.WithTimeout(ctx, cfg.StartupTimeout)
		began := time.Now()
		probe, err = harness.ProbeModern(pctx, t, &e.ids, cfg.StartupTimeout)
		cancel()
		if probe != nil && probe.Exchange != nil && probe.Exchange.Response != nil {
			e.startup = time.Since(began)
		}
		if ctx.Err() != nil {
			return nil, notes, e.stopped() + " during the era probe" + e.stderrHint(t)
		}
		if probe != nil {
			hint = replyHint(t, probe.Exchange)
		}
		switch {
		case err != nil:
			return nil, notes, "era probe failed: " + strings.TrimPrefix(err.Error(), "era probe: ") + e.stderrHint(t)
		case probe.Modern:
			notes = append(notes, "modern era detected: "+probe.Reason)
			targets = append(targets, &target{revision: revisions.Modern().ID, modern: true, shared: t,
				caps: capabilities(probe.Result), supported: probe.Supported, server: serverInfo(probe.Result, true)})
		case cfg.Revision != "auto":
			notes = append(notes, "revision forced to "+cfg.Revision+" although the era probe found no modern server: "+probe.Reason)
			targets = append(targets, &target{revision: cfg.Revision, modern: true, shared: t, caps: map[string]json.RawMessage{},
				capsUnknown: "the server's capabilities are unknown: server/discover gave no DiscoverResult (" + probe.Reason + "), which DISC-001 judges"})
		default:
			// A server whose discover is broken may still serve 2026-07-28 requests: it is then
			// tested as modern (DISC-001 judges its discover), not as legacy-only.
			sctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
			serves, err := harness.ProbeServes(sctx, t, &e.ids)
			cancel()
			switch {
			case err == nil && serves.Modern:
				notes = append(notes, "modern era detected although server/discover did not classify the server ("+probe.Reason+"): "+serves.Reason)
				targets = append(targets, &target{revision: revisions.Modern().ID, modern: true, shared: t,
					caps: map[string]json.RawMessage{}, supported: serves.Supported,
					capsUnknown: "the server's capabilities are unknown: server/discover gave no DiscoverResult (" + probe.Reason + "), which DISC-001 judges"})
			default:
				notes = append(notes, "no modern era: "+probe.Reason)
				e.release(t)
			}
		}
	}
	// A server that stayed silent through the startup window has had its start: the
	// handshake gets the per-request timeout, so silence costs one startup timeout, not two.
	handshakeWait := cfg.StartupTimeout
	if probe != nil && !probe.Modern && probe.Exchange != nil && probe.Exchange.Response == nil && e.startup == 0 && cfg.Timeout < handshakeWait {
		handshakeWait = cfg.Timeout
	}
	if wantLegacy {
		ask := revisions.LatestLegacy().ID
		if cfg.Revision != "auto" {
			ask = cfg.Revision
		}
		t, err := e.dial(ctx, ask)
		if err != nil {
			return targets, notes, "cannot start the server: " + err.Error()
		}
		hctx, cancel := context.WithTimeout(ctx, handshakeWait)
		began := time.Now()
		h, err := harness.Initialize(hctx, t, &e.ids, ask)
		cancel()
		if err == nil && e.startup == 0 {
			e.startup = time.Since(began)
		}
		if ctx.Err() != nil {
			return targets, notes, e.stopped() + " during the legacy handshake" + e.stderrHint(t)
		}
		if hint == "" && h != nil {
			hint = replyHint(t, h.Exchange)
		}
		switch {
		case err == nil && revisions.IsLegacy(h.Version):
			e.setRev(t.Conn(), h.Version)
			notes = append(notes, "legacy era: initialize negotiated "+h.Version)
			var ir struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			}
			_ = json.Unmarshal(h.Result, &ir)
			if ir.Capabilities == nil {
				ir.Capabilities = map[string]json.RawMessage{}
			}
			tg := &target{revision: h.Version, shared: t, caps: ir.Capabilities, server: serverInfo(h.Result, false)}
			if probe != nil {
				tg.supported = probe.Supported
			}
			for _, m := range targets {
				if m.capsUnknown != "" && !slices.Contains(m.supported, h.Version) {
					// No DiscoverResult listed the versions: the one initialize negotiated is served.
					m.supported = append(m.supported, h.Version)
				}
			}
			targets = append(targets, tg)
		case err == nil:
			notes = append(notes, fmt.Sprintf("initialize negotiated %q, which is not a legacy revision this build knows", h.Version))
			e.release(t)
		default:
			notes = append(notes, "no legacy era: "+err.Error())
			e.release(t)
		}
	}
	if len(targets) == 0 {
		lead := ""
		if hint != "" {
			lead = hint + "; "
		}
		tail := ""
		e.mu.Lock()
		conns := append([]harness.Transport{}, e.conns...)
		e.mu.Unlock()
		if len(conns) > 0 {
			tail = e.stderrHint(conns[0])
		}
		return nil, notes, lead + "the server answered neither server/discover (" + revisions.Modern().ID + ") nor initialize (legacy revisions): " + strings.Join(notes, "; ") + tail
	}
	return targets, notes, ""
}

func (e *env) stderrHint(t harness.Transport) string {
	if s, ok := t.(*harness.Stdio); ok {
		junk, first := 0, ""
		for _, f := range s.Frames() {
			if f.Dir == harness.DirServerToClient && f.Problem != "" && !strings.HasPrefix(f.Problem, harness.ProblemSplit) {
				if junk == 0 {
					first = short(f.Raw)
				}
				junk++
			}
		}
		hint := ""
		if junk > 0 {
			hint = fmt.Sprintf("; the server wrote %d stdout lines that are not JSON-RPC messages (first: %q)", junk, first)
		}
		if d := e.rec.Dropped(); d > 0 {
			hint += fmt.Sprintf(" and %d more lines that were not recorded", d)
		}
		if tail := strings.TrimSpace(s.StderrTail()); tail != "" {
			if len(tail) > 400 {
				tail = "..." + tail[len(tail)-400:]
			}
			hint += "; server stderr: " + tail
		}
		return hint
	}
	return ""
}

func capabilities(discover json.RawMessage) map[string]json.RawMessage {
	var dr struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(discover, &dr)
	if dr.Capabilities == nil {
		return map[string]json.RawMessage{}
	}
	return dr.Capabilities
}

// serverInfo returns the server's self-reported identity: `_meta` serverInfo of the
// DiscoverResult (2026-07-28) or InitializeResult.serverInfo (legacy).
func serverInfo(result json.RawMessage, modern bool) *reports.Server {
	var r struct {
		Meta       map[string]json.RawMessage `json:"_meta"`
		ServerInfo json.RawMessage            `json:"serverInfo"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	raw := r.ServerInfo
	if modern {
		raw = r.Meta[harness.MetaServerInfo]
	}
	var info reports.Server
	if json.Unmarshal(raw, &info) != nil || info.Name == "" {
		return nil
	}
	return &info
}
