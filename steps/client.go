package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// This file is the client's request builder: every JSON-RPC request or notification a
// scenario sends is built here, from a call, so that `_meta`, ids and the HTTP headers derived
// from the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) are made one way
// (DESIGN.md "Architecture (inside the core)", Client).

// callEra says which era's shape a call takes.
type callEra int

const (
	// eraTarget shapes the call for the target under test: modern `_meta` on a 2026-07-28
	// target, a plain request on a legacy one.
	eraTarget callEra = iota
	// eraModern always builds a 2026-07-28 request (default `_meta`, modern headers).
	eraModern
	// eraPlain builds a request without the default `_meta` and, over HTTP, with the legacy
	// headers of the target's revision.
	eraPlain
)

// call describes one request for world.build. Params is the params object without `_meta`
// (nil: no params member unless `_meta` is added); Meta holds `_meta` keys set over the
// default `_meta` of a modern request (on a plain request they become its whole `_meta`);
// Version is the protocolVersion of modern `_meta` (default the modern revision). ID nil gives
// a fresh integer id; Notification sends no id. Headers, when non-nil, replaces the derived
// HTTP headers (a legacy session's); EditHeaders changes the derived ones, and every name it
// removes is omitted by the transport, as are the names in Omit. Intentional marks a request
// made invalid on purpose (its schema violations are not the suite's bug, and the judge keeps
// its reply out of the run-wide rules).
type call struct {
	Method       string
	Params       map[string]any
	Meta         map[string]any
	Version      string
	Era          callEra
	ID           any
	Notification bool
	Headers      http.Header
	EditHeaders  func(http.Header)
	Omit         []string
	Intentional  bool
}

// modern reports whether c is built as a 2026-07-28 request on w's target.
func (c call) modern(w *session) bool {
	switch c.Era {
	case eraModern:
		return true
	case eraPlain:
		return false
	}
	return w.t.Modern
}

// modernVersion returns the version a modern request on w's target names: the target's
// revision on a modern target, the newest modern revision otherwise (a modern request sent to
// a legacy target).
func (w *session) modernVersion() string {
	if w != nil && w.t.Modern {
		return w.t.Revision
	}
	return revisions.Modern().ID
}

// build makes the harness request for c: the JSON-RPC bytes, the id (raw JSON), the method
// and, over HTTP, the headers.
func (w *session) build(c call) harness.Request {
	modern := c.modern(w)
	var idv any
	var idRaw json.RawMessage
	if !c.Notification {
		idv = c.ID
		if idv == nil {
			n := w.env.IDs().Next()
			idv, idRaw = n, json.RawMessage(strconv.FormatInt(n, 10))
		} else if raw, ok := idv.(json.RawMessage); ok {
			idRaw = raw
		} else {
			idRaw, _ = json.Marshal(idv)
		}
	}
	var p map[string]any
	if c.Params != nil {
		p = make(map[string]any, len(c.Params)+1)
		for k, v := range c.Params {
			p[k] = v
		}
	}
	var meta map[string]any
	if modern {
		v := c.Version
		if v == "" {
			v = w.modernVersion()
		}
		meta = harness.ModernMeta(v)
	}
	if len(c.Meta) > 0 && meta == nil {
		meta = map[string]any{}
	}
	for k, v := range c.Meta {
		meta[k] = v
	}
	if meta != nil {
		if p == nil {
			p = map[string]any{}
		}
		p["_meta"] = meta
	}
	req := harness.Request{Raw: harness.BuildRequest(idv, c.Method, p), ID: idRaw, Method: c.Method,
		Notification: c.Notification, Intentional: c.Intentional, Omit: append([]string(nil), c.Omit...)}
	w.setHeaders(&req, modern, c)
	return req
}

// buildRaw wraps bytes a feature wrote (a DocString, a deliberately malformed line) as a
// request of the target's era: id is its id (nil for none) and, over HTTP, the headers are
// derived from the bytes.
func (w *session) buildRaw(raw []byte, id json.RawMessage, method string, intentional, notification bool) harness.Request {
	req := harness.Request{Raw: raw, ID: id, Method: method, Intentional: intentional, Notification: notification}
	w.setHeaders(&req, w.t.Modern, call{})
	return req
}

// setHeaders sets the HTTP headers of req (nothing on stdio): c.Headers when given, else the
// ones a conforming client derives from the body (modern) or the legacy headers of the
// target's revision, then c.EditHeaders; a name the edit removes is omitted.
func (w *session) setHeaders(req *harness.Request, modern bool, c call) {
	if w.opts.Transport != harness.TransportHTTP {
		return
	}
	switch {
	case c.Headers != nil:
		req.Header = c.Headers.Clone()
	case modern:
		req.Header = harness.ModernHeaders(req.Raw)
		if req.Header.Get(harness.HeaderProtocolVersion) == "" {
			req.Header.Set(harness.HeaderProtocolVersion, w.modernVersion())
		}
	default:
		req.Header = harness.LegacyHeaders(w.t.Revision)
	}
	if c.EditHeaders != nil {
		before := req.Header.Clone()
		c.EditHeaders(req.Header)
		for k := range before {
			if req.Header.Values(k) == nil {
				req.Omit = append(req.Omit, k)
			}
		}
	}
}

// initializeCall is the legacy `initialize` request asking for protocol version v, with empty
// client capabilities (2025-11-25 basic/lifecycle#Initialization).
func (w *session) initializeCall(v string) harness.Request {
	id := w.env.IDs().Next()
	req := harness.Request{Raw: harness.InitializeRequest(id, v), ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: "initialize"}
	if w.opts.Transport == harness.TransportHTTP {
		req.Header = harness.LegacyHeaders("")
	}
	return req
}

// toolsCall is the one tools/call builder (server/tools#Calling Tools): name is sent as given
// (the name a server listed; nil omits the member, for the invalid-params probes); args nil
// sends `{}`, any other value, object or not, is sent as given; meta is extra `_meta` (see
// call.Meta). Callers that pick a tool go through fixtureToolCall or listedToolCall, which
// apply --fixture-map and --call-tools.
func (w *session) toolsCall(name any, args any, meta map[string]any) call {
	p := map[string]any{}
	if name != nil {
		p["name"] = name
	}
	if args == nil {
		args = map[string]any{}
	}
	p["arguments"] = args
	return call{Method: "tools/call", Params: p, Meta: meta}
}

// fixtureToolCall calls the fixture tool fixture (FixtureTools) by the server's name for it
// (--fixture-map); fixture tools are always callable under --call-tools.
func (w *session) fixtureToolCall(fixture string, args any, meta map[string]any) call {
	return w.toolsCall(w.opts.fixtureName(fixture), args, meta)
}

// listedToolCall calls tool, an entry of the server's tools/list, when the --call-tools policy
// allows it; otherwise ok is false and why is the reason an untestable verdict gives.
func (w *session) listedToolCall(tool map[string]any, args any, meta map[string]any) (c call, ok bool, why string) {
	if ok, why := w.opts.mayCall(tool); !ok {
		return call{}, false, why
	}
	return w.toolsCall(tool["name"], args, meta), true, ""
}

// openOwnSession initialises the scenario's fresh connection (Given a fresh connection) as a
// session of the legacy revision under test: initialize, then notifications/initialized
// (basic/lifecycle#Initialization of that revision). A scenario that changes session state
// (a log level, a subscription) uses one so the target's shared session is left as it was. A
// handshake the server fails is a *preconditionFailed naming LEG-001.
func (w *session) openOwnSession(ctx context.Context) error {
	if w.conn == nil || !w.fresh {
		return fmt.Errorf("feature bug: a session of its own needs a fresh connection (Given a fresh connection)")
	}
	if w.t.Modern {
		return fmt.Errorf("feature bug: a session of its own needs a legacy target")
	}
	if err := w.initialize(ctx, w.t.Revision); err != nil {
		return err
	}
	if msg := responseOf(w.last); msg == nil || msg.Kind != harness.KindResult {
		return &preconditionFailed{What: "initialize on a fresh connection got " + describeExchange(w.last), Rule: "LEG-001"}
	}
	return w.send(ctx, w.build(call{Method: "notifications/initialized", Notification: true}))
}

// inSession makes a request of a scenario on a legacy Streamable HTTP target go in a session:
// the scenario's fresh connection, not yet initialised, gets a session of its own first
// (openOwnSession), since a legacy server rightly refuses a request outside any session (400,
// 2025-11-25 basic/transports#Session Management) and that refusal is no evidence about the
// request. The connection then carries the session's headers on every request (harness.HTTP),
// the deliberately malformed ones included. Stdio, modern targets and connections already in
// a session are left as they are.
func (w *session) inSession(ctx context.Context) error {
	h, ok := w.conn.Endpoint()
	if !ok || w.t.Modern || !w.fresh || h.Session().Open {
		return nil
	}
	return w.openOwnSession(ctx)
}

// sessionStateMethods are the requests that change what later requests of the same session or
// connection see: the log level of a legacy session (2025-11-25 server/utilities/logging
// #Setting Log Level), a resource subscription (server/resources#Subscriptions), a
// subscriptions/listen stream (2026-07-28), and initialize, which opens a new session (and, over
// HTTP, replaces the one the connection carries).
var sessionStateMethods = map[string]bool{
	"logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true,
	listenMethod: true, "initialize": true,
}

// refuseShared is the client's refusal to change session state on a connection the target's
// scenarios share: such a request (sessionStateMethods, or an HTTP DELETE, which ends the
// session) would change what every later scenario on it sees, so a scenario that sends one
// takes a connection of its own (Given a fresh connection, openOwnSession). The refusal is the
// suite's fault: the scenario's verdict is error, with this message.
func refuseShared(conn Conn, what string) error {
	if !conn.Shared() {
		return nil
	}
	return fmt.Errorf("suite bug: %s changes session state and was refused on the connection the scenarios share (connection %d); the scenario must send it on a connection of its own", what, conn.Conn())
}

// guardShared applies refuseShared to req when its method changes session state.
func guardShared(conn Conn, req harness.Request) error {
	if !sessionStateMethods[req.Method] {
		return nil
	}
	return refuseShared(conn, req.Method)
}

// progressMeta is the _meta key of a request's progress token (basic/utilities/progress).
const progressMeta = "progressToken"

// listenMethod is the 2026-07-28 subscription request (basic/patterns#Subscriptions).
const listenMethod = "subscriptions/listen"
