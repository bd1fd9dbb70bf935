package harness

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// Request header names of the Streamable HTTP transport (2026-07-28
// basic/transports/streamable-http#Request Metadata). Names are case-insensitive; ModernHeaders
// and LegacyHeaders store them under their canonical form, so http.Header.Get finds them.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// ModernHeaders builds the 2026-07-28 request headers for the JSON-RPC message body
// (streamable-http#Standard Request Headers): MCP-Protocol-Version from
// params._meta["io.modelcontextprotocol/protocolVersion"], Mcp-Method from method, and Mcp-Name
// from params.name (tools/call, prompts/get) or params.uri (resources/read). A header is left
// out when its source is absent or not a string. The Mcp-Name value goes through
// EncodeHeaderValue (the spec allows the base64 sentinel only there and in Mcp-Param-*); the
// others are sent verbatim. A body that is not a JSON object yields an empty header set.
func ModernHeaders(body []byte) http.Header {
	h := http.Header{}
	var msg struct {
		Method json.RawMessage `json:"method"`
		Params struct {
			Name json.RawMessage            `json:"name"`
			URI  json.RawMessage            `json:"uri"`
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		// Params of the wrong shape: fall back to the method alone.
		var m struct {
			Method json.RawMessage `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil {
			return h
		}
		msg.Method = m.Method
	}
	str := func(raw json.RawMessage) (string, bool) {
		var s string
		if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if v, ok := str(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"]); ok {
		h.Set(HeaderProtocolVersion, v)
	}
	method, ok := str(msg.Method)
	if !ok {
		return h
	}
	h.Set(HeaderMethod, method)
	var name string
	switch method {
	case "tools/call", "prompts/get":
		name, ok = str(msg.Params.Name)
	case "resources/read":
		name, ok = str(msg.Params.URI)
	default:
		ok = false
	}
	if ok {
		h.Set(HeaderName, EncodeHeaderValue(name))
	}
	return h
}

// LegacyHeaders returns the request headers of the 2025-06-18 .. 2025-11-25 Streamable HTTP
// transport: only MCP-Protocol-Version (none when version is "", as before negotiation).
func LegacyHeaders(protocolVersion string) http.Header {
	h := http.Header{}
	if protocolVersion != "" {
		h.Set(HeaderProtocolVersion, protocolVersion)
	}
	return h
}

// EncodeHeaderValue returns v as an HTTP header value per streamable-http#Value Encoding: as is
// when every byte is printable ASCII (0x20-0x7E), it has no leading or trailing space and it
// does not itself look like the sentinel; otherwise "=?base64?" + standard base64 of the UTF-8
// bytes + "?=".
func EncodeHeaderValue(v string) string {
	plain := !strings.HasPrefix(v, " ") && !strings.HasSuffix(v, " ") &&
		!(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?="))
	for i := 0; plain && i < len(v); i++ {
		plain = v[i] >= 0x20 && v[i] <= 0x7e
	}
	if plain {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
