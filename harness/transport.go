package harness

import (
	"context"
	"encoding/json"
	"net/http"
)

// Request is one message the client writes: Raw is the exact bytes (a single JSON-RPC message,
// or deliberately malformed bytes; no trailing newline, the stdio transport adds it).
//
// ID is the canonical JSON of the request id used to correlate the reply (type-sensitive:
// `1` and `"1"` differ); nil for notifications and for messages whose id is deliberately
// unreadable, in which case a reply without an id (or with id null) is taken as the answer.
// Method is the JSON-RPC method (empty when there is none), recorded on the frame and used to
// pick the schema type of the reply. Notification says no response is expected: the transport
// waits the quiet window and returns what arrived meanwhile (stdio) or the HTTP status (http).
// Intentional marks the frame as invalid on purpose (see Frame.Intentional).
//
// Header (http only) holds the MCP request headers to send (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name, ...), normally built by ModernHeaders; Content-Type and Accept are added by the
// transport unless present here or listed in Omit, and the user's --header values are always
// added. Omit lists header names not to send at all.
//
// Sentinel (stdio and HTTP+SSE, whose replies share one stream), set on a request whose reply may rightly never come (deliberately
// malformed input), is a harmless request written right after it on the same connection:
// once the sentinel is answered, QuietWindow more without a reply proves that none is coming
// (the Exchange's Err is then a *NoReplyError), so a silent server costs a quiet window, not the
// request's deadline. The sentinel's own exchange is recorded like any other.
type Request struct {
	Raw          []byte
	ID           json.RawMessage
	Method       string
	Notification bool
	Intentional  bool
	Header       http.Header
	Omit         []string
	Sentinel     *Request
	// NoQuiet (stdio) makes Send return a notification once written, without its quiet window:
	// for a notification nothing is expected after (notifications/initialized); what the server
	// sends later is still recorded.
	NoQuiet bool
	// Batch, when Raw is a JSON-RPC batch (BuildBatch) holding requests, lists their ids in
	// order: the transport waits for a response to each (Exchange.Responses), over stdio and
	// Streamable HTTP, on a connection that reads batches (StdioConfig.Batches,
	// HTTPConfig.Batches) or not (the responses may come one by one). ID is then nil and
	// Notification false; a batch of notifications alone is sent as a Notification.
	Batch []json.RawMessage
	// sentinel is set by the transport on the Sentinel it writes (Frame.Sentinel).
	sentinel bool
}

// Exchange is what a Send observed: the frame that was sent, every frame received for it in
// order (the response and the notifications that came before it on the same stream; on stdio,
// the frames read while the request was the only one pending), the response frame itself
// (nil when none arrived in time), and for http the status and headers of the POST reply.
// Err is set when the exchange did not complete (timeout, connection refused, process exited);
// the frames seen up to that point are still present.
type Exchange struct {
	Sent     *Frame
	Frames   []*Frame
	Response *Frame
	HTTP     *HTTPMeta
	Err      error
	// Responses, for a Request with Batch, are the responses to its requests in the order of
	// Batch, nil where none came; a response a batch carried is its MemberFrame. Response is
	// then the frame that brought the last one.
	Responses []*Frame
}

// Transport is one connection to the server under test: a stdio child process or a Streamable
// HTTP endpoint. Send writes one message and waits, bounded by ctx, for its reply (or, for a
// notification, for the quiet window to pass). Implementations are safe for concurrent Sends.
// Close releases the connection; for stdio it runs the shutdown ladder (close stdin, wait,
// SIGTERM, SIGKILL to the process group) and returns once the child is reaped.
type Transport interface {
	Name() string
	Conn() int
	Send(ctx context.Context, req Request) (*Exchange, error)
	Close() error
}
