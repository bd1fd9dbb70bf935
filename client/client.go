package client

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
	// EraModern always builds a 2026-07-28 request (default `_meta`, modern headers).
	EraModern
	// EraPlain builds a request without the default `_meta` and, over HTTP, with the legacy
	// headers of the target's revision.
	EraPlain
)

// Call describes one JSON-RPC request or notification for Session.Build: the fields below say
// how each part of the message and, over HTTP, its headers are made.
type Call struct {
	// Method is the JSON-RPC method ("tools/call", "notifications/initialized", ...).
	Method string
	// Params is the params object without `_meta`; nil gives no params member unless `_meta`
	// is added.
	Params map[string]any
	// Meta holds `_meta` keys set over the default `_meta` of a modern request; on a plain
	// request they become its whole `_meta`.
	Meta map[string]any
	// Version is the protocolVersion of modern `_meta` ("" = the target's modern revision, or
	// the newest modern one).
	Version string
	// Era is the shape of the request: eraTarget (the zero value, the target's era),
	// EraModern or EraPlain.
	Era callEra
	// ID is the request id as given (a json.RawMessage is sent verbatim); nil gives a fresh
	// integer id.
	ID any
	// Notification sends the message without an id.
	Notification bool
	// Headers, when non-nil, replaces the derived HTTP headers (a legacy session's).
	Headers http.Header
	// EditHeaders changes the derived HTTP headers; every name it removes is omitted by the
	// transport.
	EditHeaders func(http.Header)
	// Omit names HTTP headers the transport must not send.
	Omit []string
	// Intentional marks a request made invalid on purpose: its schema violations are not the
	// suite's bug, and the judge keeps its reply out of the run-wide rules.
	Intentional bool
}

// modern reports whether c is built as a 2026-07-28 request on w's target.
func (c Call) modern(w *Session) bool {
	switch c.Era {
	case EraModern:
		return true
	case EraPlain:
		return false
	}
	return w.Target.Modern
}

// modernVersion returns the version a modern request on w's target names: the target's
// revision on a modern target, the newest modern revision otherwise (a modern request sent to
// a legacy target).
func (w *Session) modernVersion() string {
	if w != nil && w.Target.Modern {
		return w.Target.Revision
	}
	return revisions.Modern().ID
}

// Build makes the harness request for c: the JSON-RPC bytes, the id (raw JSON), the method
// and, over HTTP, the headers.
func (w *Session) Build(c Call) harness.Request {
	modern := c.modern(w)
	var idv any
	var idRaw json.RawMessage
	if !c.Notification {
		idv = c.ID
		if idv == nil {
			n := w.Env.IDs().Next()
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
func (w *Session) buildRaw(raw []byte, id json.RawMessage, method string, intentional, notification bool) harness.Request {
	req := harness.Request{Raw: raw, ID: id, Method: method, Intentional: intentional, Notification: notification}
	w.setHeaders(&req, w.Target.Modern, Call{})
	return req
}

// setHeaders sets the HTTP headers of req (nothing on stdio): c.Headers when given, else the
// ones a conforming client derives from the body (modern) or the legacy headers of the
// target's revision, then c.EditHeaders; a name the edit removes is omitted.
func (w *Session) setHeaders(req *harness.Request, modern bool, c Call) {
	if w.Opts.Transport != harness.TransportHTTP {
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
		req.Header = harness.LegacyHeaders(w.Target.Revision)
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

// InitializeCall is the legacy `initialize` request asking for protocol version v, with empty
// client capabilities (2025-11-25 basic/lifecycle#Initialization).
func (w *Session) InitializeCall(v string) harness.Request {
	id := w.Env.IDs().Next()
	req := harness.Request{Raw: harness.InitializeRequest(id, v), ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: "initialize"}
	if w.Opts.Transport == harness.TransportHTTP {
		req.Header = harness.LegacyHeaders("")
	}
	return req
}

// ToolsCall is the one tools/call builder (server/tools#Calling Tools): name is sent as given
// (the name a server listed; nil omits the member, for the invalid-params probes); args nil
// sends `{}`, any other value, object or not, is sent as given; meta is extra `_meta` (see
// Call.Meta). Callers that pick a tool go through FixtureToolCall or ListedToolCall, which
// apply --fixture-map and --call-tools.
func (w *Session) ToolsCall(name any, args any, meta map[string]any) Call {
	p := map[string]any{}
	if name != nil {
		p["name"] = name
	}
	if args == nil {
		args = map[string]any{}
	}
	p["arguments"] = args
	return Call{Method: "tools/call", Params: p, Meta: meta}
}

// FixtureToolCall returns the tools/call of the fixture tool fixture (FixtureTools) by the
// server's name for it (--fixture-map); fixture tools are always callable under --call-tools.
func (w *Session) FixtureToolCall(fixture string, args any, meta map[string]any) Call {
	return w.ToolsCall(w.Opts.FixtureName(fixture), args, meta)
}

// ListedToolCall returns the tools/call of tool, an entry of the server's tools/list, when the
// --call-tools policy allows it (Options.MayCall); otherwise ok is false and why is the reason
// an untestable verdict gives.
func (w *Session) ListedToolCall(tool map[string]any, args any, meta map[string]any) (c Call, ok bool, why string) {
	if ok, why := w.Opts.MayCall(tool); !ok {
		return Call{}, false, why
	}
	return w.ToolsCall(tool["name"], args, meta), true, ""
}

// OpenOwnSession initialises the scenario's fresh connection (Given a fresh connection) as a
// session of the legacy revision under test: initialize, then notifications/initialized
// (basic/lifecycle#Initialization of that revision). A scenario that changes session state
// (a log level, a subscription) uses one so the target's shared session is left as it was. A
// handshake the server fails is a *PreconditionFailed naming LEG-001; a connection that is not
// fresh, or a modern target, is the feature's bug.
func (w *Session) OpenOwnSession(ctx context.Context) error {
	return w.OpenOwnSessionWith(ctx, nil)
}

// OpenOwnSessionWith is OpenOwnSession with the client capabilities caps declared in the
// initialize request (nil declares none), for a scenario whose server behaviour depends on
// them (URL mode elicitation, client/elicitation#Capabilities). The client answers the
// server's requests as the connection already does, whatever caps says: beyond ping
// (PingOnly) none, unless the caller set an answerer first (OpenSessionDeclaring).
func (w *Session) OpenOwnSessionWith(ctx context.Context, caps map[string]any) error {
	if w.Conn == nil || !w.Fresh {
		return fmt.Errorf("feature bug: a session of its own needs a fresh connection (Given a fresh connection)")
	}
	if w.Target.Modern {
		return fmt.Errorf("feature bug: a session of its own needs a legacy target")
	}
	req := w.InitializeCall(w.Target.Revision)
	if caps != nil {
		req.Raw = harness.BuildRequest(json.RawMessage(req.ID), "initialize", map[string]any{
			"protocolVersion": w.Target.Revision, "capabilities": caps, "clientInfo": harness.ClientInfo,
		})
	}
	if err := w.Send(ctx, req); err != nil {
		return err
	}
	w.Inits = append(w.Inits, InitAttempt{Requested: w.Target.Revision, Ex: w.Last})
	if msg := ResponseOf(w.Last); msg == nil || msg.Kind != harness.KindResult {
		return &PreconditionFailed{What: "initialize on a fresh connection got " + DescribeExchange(w.Last), Rule: "LEG-001"}
	}
	// Nothing answers notifications/initialized: the session goes on at once, not after a quiet
	// window (what the server sends later is still recorded, and judged run-wide).
	note := w.Build(Call{Method: "notifications/initialized", Notification: true})
	note.NoQuiet = true
	return w.Send(ctx, note)
}

// inSession makes a request of a scenario on a legacy Streamable HTTP target go in a session:
// the scenario's fresh connection, not yet initialised, gets a session of its own first
// (OpenOwnSession), since a legacy server rightly refuses a request outside any session (400,
// 2025-11-25 basic/transports#Session Management) and that refusal is no evidence about the
// request. The connection then carries the session's headers on every request (harness.HTTP),
// the deliberately malformed ones included. Stdio, modern targets and connections already in
// a session are left as they are.
func (w *Session) inSession(ctx context.Context) error {
	h, ok := w.Conn.Endpoint()
	if !ok || w.Target.Modern || !w.Fresh || h.Session().Open {
		return nil
	}
	return w.OpenOwnSession(ctx)
}

// sessionStateMethods are the requests that change what later requests of the same session or
// connection see: the log level of a legacy session (2025-11-25 server/utilities/logging
// #Setting Log Level), a resource subscription (server/resources#Subscriptions), a
// subscriptions/listen stream (2026-07-28), and initialize, which opens a new session (and, over
// HTTP, replaces the one the connection carries).
var sessionStateMethods = map[string]bool{
	"logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true,
	ListenMethod: true, "initialize": true,
}

// refuseShared is the client's refusal to change session state on a connection the target's
// scenarios share: such a request (sessionStateMethods, or an HTTP DELETE, which ends the
// session) would change what every later scenario on it sees, so a scenario that sends one
// takes a connection of its own (Given a fresh connection, OpenOwnSession). The refusal is the
// suite's fault: the scenario's verdict is error, with this message.
func refuseShared(conn Conn, what string) error {
	if !conn.Shared() {
		return nil
	}
	return fmt.Errorf("suite bug: %s changes session state and was refused on the connection the scenarios share (connection %d); the scenario must send it on a connection of its own", what, conn.Conn())
}

// GuardShared applies refuseShared to req when its method changes session state: nil, or the
// suite-bug error when req would change the state of conn, the target's shared connection.
func GuardShared(conn Conn, req harness.Request) error {
	if !sessionStateMethods[req.Method] {
		return nil
	}
	return refuseShared(conn, req.Method)
}

// ProgressMeta is the _meta key of a request's progress token (basic/utilities/progress).
const ProgressMeta = "progressToken"

// ListenMethod is the 2026-07-28 subscription request (basic/patterns#Subscriptions).
const ListenMethod = "subscriptions/listen"
