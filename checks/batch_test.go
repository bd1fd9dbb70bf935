package checks

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

func TestBatchAnswered(t *testing.T) {
	sent := &harness.Frame{Seq: 1, Dir: harness.DirClientToServer, Raw: []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}]`)}
	server := func(seq int, raw string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Raw: []byte(raw)}
	}
	arr := server(2, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`)
	one, two := server(2, `{"jsonrpc":"2.0","id":1,"result":{}}`), server(3, `{"jsonrpc":"2.0","id":2,"result":{}}`)

	assert.Nil(t, BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{arr}, Response: arr, Responses: []*harness.Frame{arr, arr}}), "one array")
	assert.Nil(t, BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{one, two}, Response: two, Responses: []*harness.Frame{one, two}}), "one by one")

	refusal := server(2, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch requests are not supported."}}`)
	m := BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{refusal}, Responses: []*harness.Frame{nil, nil}, Err: errors.New("no response")})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "-32600")
	assert.Contains(t, m.Expected, "MUST support receiving JSON-RPC batches")
	assert.Equal(t, []int{1, 2}, m.Frames)

	parseErr := server(2, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Failed to parse message"}}`)
	m = BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{parseErr}, Response: parseErr, Responses: []*harness.Frame{parseErr, nil}})
	require.NotNil(t, m, "a parse error the transport took for the first request's answer")
	assert.Contains(t, m.Actual, "refused as a whole")

	inArray := server(2, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}},{"jsonrpc":"2.0","id":2,"result":{}}]`)
	assert.NotNil(t, BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{inArray}, Responses: []*harness.Frame{inArray, inArray}}), "a member refused")

	status := server(2, `Bad Request`)
	status.HTTP = &harness.HTTPMeta{Status: 400}
	m = BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{status}, HTTP: status.HTTP, Responses: []*harness.Frame{nil, nil}})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "HTTP 400")

	m = BatchAnswered(&harness.Exchange{Sent: sent, Frames: []*harness.Frame{one}, Response: one, Responses: []*harness.Frame{one, nil}, Err: errors.New("no response within 10s")})
	require.NotNil(t, m)
	assert.Contains(t, m.Actual, "id 2")
	assert.Contains(t, m.Actual, "within 10s")

	assert.NotNil(t, BatchAnswered(nil))
}
