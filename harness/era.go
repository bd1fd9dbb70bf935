package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// Modern error codes a client recognises as "this server speaks 2026-07-28" during era
// detection (basic/index#Error Codes): HeaderMismatch, MissingRequiredClientCapability and
// UnsupportedProtocolVersion.
const (
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
)

// Probe is the outcome of the modern era probe: a `server/discover` request carrying the
// preferred modern version (basic/transports/stdio#Backward Compatibility,
// basic/transports/streamable-http#Backward Compatibility).
//
// Modern is true when the server answered with a DiscoverResult or a recognised modern error;
// Supported then lists the versions it named (DiscoverResult.supportedVersions or the
// UnsupportedProtocolVersion error's data.supported). Exchange is the probe exchange and
// Reason a one-line explanation of the classification.
type Probe struct {
	Modern    bool
	Supported []string
	Result    json.RawMessage
	Exchange  *Exchange
	Reason    string
}

// SendFor sends raw on t with the HTTP headers the revision requires: ModernHeaders for a
// modern request, LegacyHeaders(legacyVersion) otherwise (stdio ignores headers).
func SendFor(ctx context.Context, t Transport, raw []byte, id any, method string, modern bool, legacyVersion string) (*Exchange, error) {
	req := Request{Raw: raw, Method: method}
	if id != nil {
		b, _ := json.Marshal(id)
		req.ID = b
	} else {
		req.Notification = true
	}
	if t.Name() == TransportHTTP {
		if modern {
			req.Header = ModernHeaders(raw)
		} else {
			req.Header = LegacyHeaders(legacyVersion)
		}
	}
	return t.Send(ctx, req)
}

// ProbeModern runs the modern era probe on t with the preferred modern version
// (revisions.Modern) and the startup window as the wait (ProbeDiscover).
func ProbeModern(ctx context.Context, t Transport, ids *IDs, window time.Duration) (*Probe, error) {
	return ProbeDiscover(ctx, t, ids, revisions.Modern().ID, window)
}

// ProbeDiscover runs the modern era probe on t: a `server/discover` whose `_meta` names
// version. window bounds the wait (the caller gives the startup window for a fresh server);
// silence is read as legacy only once window has passed: when ctx ends first (the run's
// deadline, an interrupt) the probe returns an error, since a server not yet given its start is
// not legacy. Per the spec the fallback is never keyed on one error code: any error other than
// a recognised modern one, any non-2xx HTTP reply without such an error, and silence mean
// legacy. A transport failure (process exited, connection refused) is returned as an error,
// not read as legacy.
func ProbeDiscover(ctx context.Context, t Transport, ids *IDs, version string, window time.Duration) (*Probe, error) {
	wctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	id := ids.Next()
	ex, err := SendFor(wctx, t, ModernRequest(id, "server/discover", version, nil), id, "server/discover", true, "")
	p := &Probe{Exchange: ex}
	if ex == nil || ex.Response == nil {
		if ctx.Err() != nil {
			return p, fmt.Errorf("era probe: the run ended (%w) before the startup window (%s) passed, with no reply to server/discover", ctx.Err(), window)
		}
		if wctx.Err() != nil {
			p.Reason = fmt.Sprintf("no reply to server/discover within the startup window (%s)", window)
			return p, nil
		}
	}
	if err != nil && (ex == nil || ex.Response == nil) {
		return p, fmt.Errorf("era probe: %w", err)
	}
	if ex == nil {
		return p, errors.New("era probe: the transport returned no exchange")
	}
	if ex.Response == nil {
		if ex.HTTP != nil {
			p.Reason = fmt.Sprintf("HTTP %d without a JSON-RPC response", ex.HTTP.Status)
			return p, nil
		}
		if ex.Err != nil {
			return p, fmt.Errorf("era probe: %w", ex.Err)
		}
		p.Reason = "no reply to server/discover"
		return p, nil
	}
	msg, _ := ParseMessage(ex.Response.Body())
	switch msg.Kind {
	case KindResult:
		var dr struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(msg.Result, &dr) == nil && dr.SupportedVersions != nil {
			p.Modern, p.Supported, p.Result = true, dr.SupportedVersions, msg.Result
			p.Reason = "server/discover returned a DiscoverResult"
			return p, nil
		}
		p.Reason = "server/discover returned a result without supportedVersions"
	case KindError:
		switch msg.Error.Code {
		case CodeUnsupportedProtocolVersion:
			var data struct {
				Supported []string `json:"supported"`
			}
			if json.Unmarshal(msg.Error.Data, &data) == nil && data.Supported != nil {
				p.Modern, p.Supported = true, data.Supported
				p.Reason = "server/discover returned UnsupportedProtocolVersion (-32022)"
				return p, nil
			}
			p.Reason = "error -32022 without data.supported"
		case CodeHeaderMismatch, CodeMissingRequiredClientCapability:
			p.Modern = true
			p.Reason = fmt.Sprintf("server/discover returned modern error %d", msg.Error.Code)
			return p, nil
		default:
			p.Reason = fmt.Sprintf("server/discover returned error %d (%s)", msg.Error.Code, msg.Error.Message)
		}
	default:
		p.Reason = "server/discover reply is not a JSON-RPC response: " + msg.Problem
	}
	p.Reason = httpStatusPrefix(ex) + p.Reason
	return p, nil
}

// httpStatusPrefix returns "HTTP 401: " for an exchange answered with a status other than 2xx
// (its JSON body is then seldom the reply meant for the request), "" otherwise.
func httpStatusPrefix(ex *Exchange) string {
	if ex == nil || ex.HTTP == nil || ex.HTTP.Status/100 == 2 {
		return ""
	}
	return fmt.Sprintf("HTTP %d: ", ex.HTTP.Status)
}

// ProbeServes is the second look of era detection, for a server whose server/discover did not
// classify it as modern: a 2026-07-28 `tools/list` (ModernRequest, preferred version). The
// server serves 2026-07-28 requests when the reply is a result carrying a string resultType
// (only 2026-07-28 results have one, basic/index#Result Responses) or a recognised modern
// error (HeaderMismatch, MissingRequiredClientCapability, UnsupportedProtocolVersion with
// data.supported). A legacy server answering before initialize in the legacy shape (no
// resultType), an error of another code, or silence do not count. The probe's Reason then says
// what was seen; an error is returned only when the transport failed.
func ProbeServes(ctx context.Context, t Transport, ids *IDs) (*Probe, error) {
	id := ids.Next()
	ex, err := SendFor(ctx, t, ModernRequest(id, "tools/list", revisions.Modern().ID, nil), id, "tools/list", true, "")
	p := &Probe{Exchange: ex}
	asked := "a " + revisions.Modern().ID + " tools/list"
	if ex == nil || ex.Response == nil {
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return p, fmt.Errorf("era probe: %w", err)
		}
		p.Reason = "no reply to " + asked
		return p, nil
	}
	msg, _ := ParseMessage(ex.Response.Body())
	switch msg.Kind {
	case KindResult:
		var r struct {
			ResultType *string `json:"resultType"`
		}
		if json.Unmarshal(msg.Result, &r) == nil && r.ResultType != nil {
			p.Modern = true
			p.Reason = asked + " was answered with a result carrying resultType"
			return p, nil
		}
		p.Reason = asked + " was answered in the legacy shape (no resultType)"
	case KindError:
		switch msg.Error.Code {
		case CodeUnsupportedProtocolVersion:
			var data struct {
				Supported []string `json:"supported"`
			}
			if json.Unmarshal(msg.Error.Data, &data) == nil && data.Supported != nil {
				p.Modern, p.Supported = true, data.Supported
				p.Reason = asked + " was answered with UnsupportedProtocolVersion (-32022)"
				return p, nil
			}
		case CodeHeaderMismatch, CodeMissingRequiredClientCapability:
			p.Modern = true
			p.Reason = fmt.Sprintf("%s was answered with modern error %d", asked, msg.Error.Code)
			return p, nil
		}
		p.Reason = fmt.Sprintf("%s was answered with error %d", asked, msg.Error.Code)
	default:
		p.Reason = "the reply to " + asked + " is not a JSON-RPC response"
	}
	return p, nil
}

// Handshake is the outcome of a legacy `initialize` (2025-11-25 basic/lifecycle): the version
// the server chose, its InitializeResult and the exchange.
type Handshake struct {
	Version  string
	Result   json.RawMessage
	Exchange *Exchange
}

// Initialize sends `initialize` asking for version v on t and, when the server answers with a
// result, `notifications/initialized`. It returns an error when no InitializeResult came back.
func Initialize(ctx context.Context, t Transport, ids *IDs, v string) (*Handshake, error) {
	id := ids.Next()
	ex, err := SendFor(ctx, t, InitializeRequest(id, v), id, "initialize", false, "")
	h := &Handshake{Exchange: ex}
	if ex == nil || ex.Response == nil {
		switch {
		case err != nil:
		case ex != nil && ex.Err != nil:
			err = ex.Err
		case ex != nil && ex.HTTP != nil:
			err = fmt.Errorf("HTTP %d without a JSON-RPC response", ex.HTTP.Status)
		default:
			err = errors.New("no reply")
		}
		return h, fmt.Errorf("initialize: %w", err)
	}
	msg, _ := ParseMessage(ex.Response.Body())
	if msg.Kind != KindResult {
		if msg.Kind == KindError {
			return h, fmt.Errorf("initialize: error %d: %s", msg.Error.Code, msg.Error.Message)
		}
		return h, fmt.Errorf("initialize: %sreply is not a result", httpStatusPrefix(ex))
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(msg.Result, &ir); err != nil || ir.ProtocolVersion == "" {
		return h, fmt.Errorf("initialize: result has no protocolVersion")
	}
	h.Version, h.Result = ir.ProtocolVersion, msg.Result
	note := Request{Raw: BuildRequest(nil, "notifications/initialized", nil), Method: "notifications/initialized", Notification: true, NoQuiet: true}
	if t.Name() == TransportHTTP {
		note.Header = LegacyHeaders(h.Version)
	}
	if _, err := t.Send(ctx, note); err != nil && ctx.Err() != nil {
		return h, fmt.Errorf("notifications/initialized: %w", err)
	}
	return h, nil
}
