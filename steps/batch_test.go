package steps

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsBatchReply(t *testing.T) {
	assert.True(t, isBatchReply([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`)))
	assert.True(t, isBatchReply([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"x"}}]`)))
	for _, junk := range []string{`[]`, `[1]`, `[{"id":1}]`, `{"jsonrpc":"2.0"}`, `starting`, `[{"jsonrpc":"2.0"},"x"]`} {
		assert.False(t, isBatchReply([]byte(junk)), junk)
	}
}
