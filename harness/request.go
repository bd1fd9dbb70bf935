package harness

import (
	"encoding/json"
	"sync/atomic"
)

// Keys of the per-request `_meta` fields (basic/index#_meta).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// ClientInfo is the Implementation object mcp-conform sends as clientInfo.
var ClientInfo = map[string]any{"name": "mcp-conform", "version": "dev"}

// IDs hands out request ids unique within a run: positive integers from 1, so that ids the
// features write literally (strings, 0, negatives, large numbers) never collide with them.
type IDs struct{ n atomic.Int64 }

// Next returns a fresh integer id.
func (g *IDs) Next() int64 { return g.n.Add(1) + 1000 }

// ModernMeta returns the default modern request `_meta` for protocol version v: protocol
// version, empty client capabilities and clientInfo (HARN-002).
func ModernMeta(v string) map[string]any {
	return map[string]any{
		MetaProtocolVersion:    v,
		MetaClientCapabilities: map[string]any{},
		MetaClientInfo:         ClientInfo,
	}
}

// BuildRequest marshals a JSON-RPC request (notification when id is nil) with the given
// params. It never fails for the map and scalar values the suite uses; it panics otherwise.
func BuildRequest(id any, method string, params map[string]any) []byte {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return b
}

// ModernRequest builds a modern-era request: params is copied and given the default `_meta`
// for protocol version v (ModernMeta).
func ModernRequest(id any, method, v string, params map[string]any) []byte {
	p := map[string]any{}
	for k, val := range params {
		p[k] = val
	}
	p["_meta"] = ModernMeta(v)
	return BuildRequest(id, method, p)
}

// InitializeRequest builds a legacy `initialize` request (2025-11-25 basic/lifecycle) asking
// for protocol version v with empty client capabilities.
func InitializeRequest(id any, v string) []byte {
	return BuildRequest(id, "initialize", map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{},
		"clientInfo":      ClientInfo,
	})
}
