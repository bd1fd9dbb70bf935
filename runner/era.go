package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// detect runs era detection (DESIGN.md "Era handling") and returns the targets to test: one
// per modern revision of this build the server serves, and the legacy revision initialize
// negotiates.
func (e *env) detect(ctx context.Context) ([]*target, []string, string) {
	cfg := e.cfg
	var targets []*target
	var notes []string
	auto := cfg.Revision == "auto"
	// The HTTP+SSE transport of 2024-11-05 predates the modern era: no server/discover on it.
	wantModern := (auto || e.askedModern() != "") && cfg.Transport != harness.TransportSSE
	wantLegacy := auto || len(e.askedLegacy()) > 0
	var probe *harness.Probe
	// hint explains an HTTP reply that is not an MCP endpoint's (replyHint): the run that
	// cannot start leads with it.
	hint := ""
	if wantModern {
		var abort string
		targets, notes, probe, hint, abort = e.detectModern(ctx)
		if abort != "" {
			return nil, notes, abort
		}
	}
	if wantLegacy {
		tg, note, h, abort := e.detectLegacy(ctx, probe)
		if abort != "" {
			return targets, notes, abort
		}
		notes = append(notes, note)
		if hint == "" && h != nil {
			hint = replyHint(h.shared, h.ex)
		}
		if tg == nil && len(targets) == 0 {
			stg, more, abort := e.sseFallback(ctx, h)
			notes = append(notes, more...)
			if abort != "" {
				return targets, notes, abort
			}
			tg = stg
		}
		if tg != nil {
			for _, m := range targets {
				// The server answered initialize in this run: it also speaks that legacy
				// revision, whatever its DiscoverResult listed.
				m.negotiated = append(m.negotiated, tg.revision)
				if m.capsUnknown != "" && !slices.Contains(m.supported, tg.revision) {
					// No DiscoverResult listed the versions: the one initialize negotiated is served.
					m.supported = append(m.supported, tg.revision)
				}
			}
			targets = append(targets, tg)
			older, olderNotes, abort := e.detectOlder(ctx, tg)
			if abort != "" {
				return targets, append(notes, olderNotes...), abort
			}
			targets = append(targets, older...)
			notes = append(notes, olderNotes...)
		}
	}
	if len(targets) == 0 {
		lead := ""
		if hint != "" {
			lead = hint + "; "
		}
		tail := ""
		e.mu.Lock()
		conns := append([]client.Conn{}, e.conns...)
		e.mu.Unlock()
		if len(conns) > 0 {
			tail = e.stderrHint(conns[0])
		}
		return nil, notes, lead + "the server answered neither server/discover (" + strings.Join(e.modernIDs(), ", ") + ") nor initialize (legacy revisions): " + strings.Join(notes, "; ") + tail
	}
	return targets, notes, ""
}

// knownModern returns the modern revisions this build knows, newest first (the table's, or
// the test hook's).
func (e *env) knownModern() []revisions.Revision {
	if e.modernTable != nil {
		return e.modernTable()
	}
	return revisions.Filter(revisions.Revision.Modern)
}

func (e *env) modernIDs() []string {
	var out []string
	for _, r := range e.knownModern() {
		out = append(out, r.ID)
	}
	return out
}

// detectModern probes the server with server/discover at the preferred modern revision (the
// forced one under --revision) and returns one target per modern revision to test, the notes,
// the probe, a hint on a reply that is no MCP endpoint's, and why the run cannot start ("" when
// it can).
func (e *env) detectModern(ctx context.Context) (targets []*target, notes []string, probe *harness.Probe, hint, abort string) {
	cfg := e.cfg
	ask := e.knownModern()[0].ID
	forced := e.askedModern()
	if forced != "" {
		ask = forced
	}
	t, err := e.dial(ctx, ask)
	if err != nil {
		return nil, notes, nil, "", e.dialFailed(ctx, err)
	}
	began := time.Now()
	probe, err = harness.ProbeDiscover(ctx, t, &e.ids, ask, cfg.StartupTimeout)
	if probe != nil && probe.Exchange != nil && probe.Exchange.Response != nil {
		e.startup = time.Since(began)
	}
	if ctx.Err() != nil {
		return nil, notes, probe, "", e.stopped() + " during the era probe" + e.stderrHint(t)
	}
	if probe != nil {
		hint = replyHint(t, probe.Exchange)
	}
	unknown := "the server's capabilities are unknown: server/discover gave no DiscoverResult (" + probe.Reason + "), which DISC-001 judges"
	switch {
	case err != nil:
		return nil, notes, probe, hint, "era probe failed: " + strings.TrimPrefix(err.Error(), "era probe: ") + e.stderrHint(t)
	case probe.Modern && forced != "" && probe.Result == nil && len(probe.Supported) > 0 && !slices.Contains(probe.Supported, forced):
		e.release(t)
		return nil, notes, probe, hint, fmt.Sprintf("--revision %s was forced, but the server refused it with UnsupportedProtocolVersion (-32022), listing %s: rerun with --revision auto to test what the server serves", forced, strings.Join(probe.Supported, ", "))
	case probe.Modern && len(modernVersions(e.knownModern(), probe, ask, orAuto(forced))) == 0:
		notes = append(notes, "no modern era: server/discover was refused with -32022 listing only legacy revisions ("+strings.Join(probe.Supported, ", ")+")")
		e.release(t)
		return nil, notes, probe, hint, ""
	case probe.Modern:
		notes = append(notes, "modern era detected: "+probe.Reason)
		targets, more := e.modernTargets(ctx, t, probe, ask, unknown)
		return targets, append(notes, more...), probe, hint, ""
	case forced != "":
		notes = append(notes, "revision forced to "+forced+" although the era probe found no modern server: "+probe.Reason)
		return []*target{{revision: forced, modern: true, shared: t, caps: map[string]json.RawMessage{}, capsUnknown: unknown}}, notes, probe, hint, ""
	}
	// A server whose discover is broken may still serve modern requests: it is then tested as
	// modern (DISC-001 judges its discover), not as legacy-only.
	sctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	serves, err := harness.ProbeServes(sctx, t, &e.ids)
	cancel()
	if err == nil && serves.Modern {
		notes = append(notes, "modern era detected although server/discover did not classify the server ("+probe.Reason+"): "+serves.Reason)
		return []*target{{revision: ask, modern: true, shared: t, caps: map[string]json.RawMessage{}, supported: serves.Supported, capsUnknown: unknown}}, notes, probe, hint, ""
	}
	notes = append(notes, "no modern era: "+probe.Reason)
	e.release(t)
	return nil, notes, probe, hint, ""
}

// modernVersions returns, newest first, the revisions of known to test on a server the probe
// found modern: those its DiscoverResult (or UnsupportedProtocolVersion error) lists, and the
// asked one unless the server refused it with UnsupportedProtocolVersion; only forced when a
// revision is forced ("auto" otherwise). A modern server that lists none of them is tested at
// the asked revision, whose rules then judge its answers, unless it refused that revision with
// -32022 listing legacy revisions only (none: it is a legacy server).
func modernVersions(known []revisions.Revision, probe *harness.Probe, asked, forced string) []string {
	refused := probe.Result == nil && len(probe.Supported) > 0 // only -32022 carries a list without a result
	var out []string
	for _, r := range known {
		served := slices.Contains(probe.Supported, r.ID) || (r.ID == asked && !refused)
		if served && (forced == "auto" || r.ID == forced) {
			out = append(out, r.ID)
		}
	}
	if len(out) == 0 && !(refused && allLegacy(probe.Supported)) {
		out = []string{asked}
	}
	return out
}

// allLegacy reports whether every version of vs is a handshake-era revision this build knows:
// a server refusing server/discover with -32022 and such a list serves no modern revision, and
// is tested as the legacy server it says it is.
func allLegacy(vs []string) bool {
	for _, v := range vs {
		if !slices.Contains(revisions.LegacyIDs(), v) {
			return false
		}
	}
	return len(vs) > 0
}

// modernTargets returns one target per modern revision to test (modernVersions). The probe's
// connection t serves the first; each other revision gets a connection of its own and a
// server/discover at that revision for its capabilities. A revision without a DiscoverResult
// (the probe answered with a modern error, or its own discover gave none) has unknown
// capabilities (target.capsUnknown: the rules gated on one are untestable naming DISC-001).
func (e *env) modernTargets(ctx context.Context, t client.Conn, probe *harness.Probe, asked, unknown string) ([]*target, []string) {
	var targets []*target
	var notes []string
	for i, v := range modernVersions(e.knownModern(), probe, asked, orAuto(e.askedModern())) {
		tg := &target{revision: v, modern: true, supported: probe.Supported}
		p := probe
		if i == 0 {
			tg.shared = t
			e.setRev(t.Conn(), v)
		} else {
			c, err := e.dial(ctx, v)
			if err != nil {
				notes = append(notes, "cannot test "+v+": "+err.Error())
				continue
			}
			tg.shared = c
		}
		if v != asked {
			// A fresh process gets the startup window for its first reply; the probe's own
			// process has had its start.
			wait := e.cfg.Timeout
			if i > 0 && e.cfg.Transport == harness.TransportStdio {
				wait = e.cfg.StartupTimeout
			}
			var err error
			p, err = harness.ProbeDiscover(ctx, tg.shared, &e.ids, v, wait)
			if err != nil {
				notes = append(notes, "cannot test "+v+": "+strings.TrimPrefix(err.Error(), "era probe: "))
				if i > 0 {
					e.release(tg.shared)
				} else {
					targets = append(targets, &target{revision: v, modern: true, shared: t, caps: map[string]json.RawMessage{}, supported: probe.Supported, capsUnknown: unknown})
				}
				continue
			}
			notes = append(notes, "server/discover at "+v+": "+p.Reason)
		}
		if p.Result != nil {
			tg.caps, tg.server = capabilities(p.Result), serverInfo(p.Result, true)
			if p.Supported != nil {
				tg.supported = p.Supported
			}
		} else {
			tg.caps = map[string]json.RawMessage{}
			tg.capsUnknown = "the server's capabilities are unknown: server/discover at " + v + " gave no DiscoverResult (" + p.Reason + "), which DISC-001 judges"
		}
		targets = append(targets, tg)
	}
	return targets, notes
}

// legacyHandshake is the connection and exchange of the legacy handshake, for replyHint.
type legacyHandshake struct {
	shared client.Conn
	ex     *harness.Exchange
}

// detectLegacy sends initialize asking for the newest legacy revision (the newest one a
// --revision list names) on a connection of its own and returns the legacy target (nil when there is
// none), the note saying what happened, the handshake, and why the run cannot go on ("" when
// it can). A forced revision the server answers with another version aborts the run: the
// server does not serve it (basic/lifecycle#Version Negotiation), and testing the other one
// in its place would gate the wrong revision.
func (e *env) detectLegacy(ctx context.Context, probe *harness.Probe) (*target, string, *legacyHandshake, string) {
	ask := revisions.LatestLegacy().ID
	forced := ""
	if asked := e.askedLegacy(); len(asked) > 0 {
		ask, forced = asked[0], asked[0]
	}
	t, err := e.dial(ctx, ask)
	if err != nil {
		return nil, "", nil, e.dialFailed(ctx, err)
	}
	hctx, cancel := context.WithTimeout(ctx, e.handshakeWait(probe))
	began := time.Now()
	h, err := harness.Initialize(hctx, t, &e.ids, ask)
	cancel()
	if err == nil && e.startup == 0 {
		e.startup = time.Since(began)
	}
	if ctx.Err() != nil {
		return nil, "", nil, e.stopped() + " during the legacy handshake" + e.stderrHint(t)
	}
	var lh *legacyHandshake
	if h != nil {
		lh = &legacyHandshake{shared: t, ex: h.Exchange}
	}
	switch {
	case err == nil && forced != "" && h.Version != forced:
		e.release(t)
		return nil, "", lh, notServed(forced, h.Version)
	case err == nil && revisions.IsLegacy(h.Version):
		e.setRev(t.Conn(), h.Version)
		tg := &target{revision: h.Version, shared: t, caps: capabilities(h.Result), server: serverInfo(h.Result, false)}
		if probe != nil {
			tg.supported = probe.Supported
		}
		return tg, "legacy era: initialize negotiated " + h.Version, lh, ""
	case err == nil:
		e.release(t)
		return nil, fmt.Sprintf("initialize negotiated %q, which is not a legacy revision this build knows", h.Version), lh, ""
	default:
		e.release(t)
		return nil, "no legacy era: " + err.Error(), lh, ""
	}
}

// detectOlder offers each handshake revision older than main's (the one initialize negotiated;
// under a --revision list only the listed ones) in an initialize of its own, all at once, and
// returns a target for each the server accepts: one it echoes in protocolVersion
// (basic/lifecycle#Version Negotiation: a server that does not support the requested version
// answers another one, which is no acceptance). Each target's connection is the shared session
// of its revision; its focusOf is main's revision (focusRule). The notes say what each revision
// got, in table order. abort, when a listed revision is not accepted, says why the run cannot
// gate it.
func (e *env) detectOlder(ctx context.Context, main *target) (targets []*target, notes []string, abort string) {
	older := revisions.FilterIDs(func(r revisions.Revision) bool {
		return !r.Modern() && revisions.Before(r.ID, main.revision)
	})
	if e.cfg.Revision != "auto" {
		older = slices.DeleteFunc(e.askedLegacy(), func(id string) bool { return id == main.revision })
	} else if e.selected != nil {
		// Under auto, a revision where no selected rule would run is not offered at all.
		older = slices.DeleteFunc(older, func(rev string) bool {
			return !slices.ContainsFunc(e.selected, func(r catalog.Rule) bool {
				return focusRule(&target{revision: rev, focusOf: main.revision}, r, e.cfg.Transport)
			})
		})
	}
	found := make([]*target, len(older))
	notes = make([]string, len(older))
	answered := make([]string, len(older))
	var wg sync.WaitGroup
	for i, rev := range older {
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[i], answered[i], notes[i] = e.offerOlder(ctx, rev, main)
		}()
	}
	wg.Wait()
	for i, t := range found {
		switch {
		case t != nil:
			targets = append(targets, t)
		case e.cfg.Revision != "auto" && abort == "":
			abort = notServed(older[i], answered[i])
		}
	}
	return targets, notes, abort
}

// offerOlder is detectOlder for one revision rev: the target when the server accepts it, the
// protocolVersion initialize answered ("" when none), and the note either way.
func (e *env) offerOlder(ctx context.Context, rev string, main *target) (*target, string, string) {
	t, err := e.dial(ctx, rev)
	if err != nil {
		return nil, "", fmt.Sprintf("older revision %s: not offered: %v", rev, err)
	}
	// The startup window, as for the first handshake (handshakeWait): a fresh process over
	// stdio; over HTTP a session set up while the others are, on a loaded machine (CI under
	// -race saw --timeout pass for one of four concurrent HTTP+SSE handshakes).
	hctx, cancel := context.WithTimeout(ctx, e.cfg.StartupTimeout)
	h, err := harness.Initialize(hctx, t, &e.ids, rev)
	cancel()
	switch {
	case err != nil:
		e.release(t)
		return nil, "", fmt.Sprintf("older revision %s: initialize failed: %v", rev, err)
	case h.Version != rev:
		e.release(t)
		return nil, h.Version, fmt.Sprintf("older revision %s: not accepted (initialize answered %q)", rev, h.Version)
	}
	e.setRev(t.Conn(), rev)
	return &target{revision: rev, shared: t, caps: capabilities(h.Result), server: serverInfo(h.Result, false), focusOf: main.revision}, rev,
		fmt.Sprintf("older revision %s: accepted; the rules whose verdict can differ from %s and SCHEMA-001 run there", rev, main.revision)
}

// dialFailed says why the run cannot start after a connection of era detection could not be
// opened: the run's own stop (an interrupt, --run-timeout) when ctx has ended, since the
// server is then not at fault, else that the server cannot be started.
func (e *env) dialFailed(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return e.stopped() + " during era detection"
	}
	return "cannot start the server: " + err.Error()
}

// askedModern returns the modern revision a --revision list names, "" under auto or when it
// names none.
func (e *env) askedModern() string {
	for _, id := range e.asked() {
		if revisions.IsModern(id) {
			return id
		}
	}
	return ""
}

// askedLegacy returns the handshake revisions a --revision list names, newest first; nil
// under auto.
func (e *env) askedLegacy() []string {
	var out []string
	for _, id := range e.asked() {
		if !revisions.IsModern(id) {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return revisions.Compare(b, a) })
	return out
}

// asked splits --revision (Config.Revision) at commas: nil for auto.
func (e *env) asked() []string {
	if e.cfg.Revision == "auto" {
		return nil
	}
	return strings.Split(e.cfg.Revision, ",")
}

// orAuto returns forced, or "auto" when it is "".
func orAuto(forced string) string {
	if forced == "" {
		return "auto"
	}
	return forced
}

// notServed says why a forced handshake revision cannot be tested: initialize answered another
// version (answered, "" when it failed).
func notServed(forced, answered string) string {
	if answered == "" {
		return fmt.Sprintf("--revision %s was forced, but initialize at %s failed: the run cannot gate it", forced, forced)
	}
	return fmt.Sprintf("--revision %s was forced, but the server's initialize answered protocolVersion %q: it does not serve %s (a server that does not support the requested version answers another one it supports, basic/lifecycle#Version Negotiation), and testing %q instead would not gate the revision asked for; rerun with --revision auto to test what the server serves", forced, answered, forced, answered)
}

// handshakeWait bounds the first reply to initialize. On stdio the handshake runs on a freshly
// started process, whose first frame gets the startup window (--startup-timeout) whatever the
// probe's process did. Over HTTP the endpoint is the one the probe reached: after a probe that
// got no reply through the whole startup window the server has had its start, and the
// handshake gets the request timeout, so silence costs one startup timeout, not two.
func (e *env) handshakeWait(probe *harness.Probe) time.Duration {
	cfg := e.cfg
	if cfg.Transport == harness.TransportStdio {
		return cfg.StartupTimeout
	}
	silent := probe != nil && !probe.Modern && probe.Exchange != nil && probe.Exchange.Response == nil && e.startup == 0
	if silent && cfg.Timeout < cfg.StartupTimeout {
		return cfg.Timeout
	}
	return cfg.StartupTimeout
}

func (e *env) stderrHint(t client.Conn) string {
	if s, ok := t.Process(); ok {
		junk, first := 0, ""
		for _, f := range s.Frames() {
			if f.Dir == harness.DirServerToClient && f.Problem != "" && !strings.HasPrefix(f.Problem, harness.ProblemSplit) {
				if junk == 0 {
					first = client.Short(f.Raw)
				}
				junk++
			}
		}
		hint := ""
		if junk > 0 {
			lines := "lines that are not JSON-RPC messages"
			if junk == 1 {
				lines = "line that is not a JSON-RPC message"
			}
			hint = fmt.Sprintf("; the server wrote %d stdout %s (first: %q)", junk, lines, first)
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

// capabilities returns the `capabilities` object of a DiscoverResult or an InitializeResult
// (an empty map when it has none).
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
