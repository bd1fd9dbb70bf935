package client

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
)

// TestShortNeverSplitsACharacter: a long reply is cut to at most 160 bytes with "...", on a
// character boundary, so a report never shows half a UTF-8 sequence.
func TestShortNeverSplitsACharacter(t *testing.T) {
	assert.Equal(t, "short", Short([]byte("  short \n")))
	for pad := 0; pad < 4; pad++ {
		s := Short([]byte(strings.Repeat("a", pad) + strings.Repeat("é€😀", 40)))
		assert.True(t, utf8.ValidString(s), "pad %d: %q", pad, s)
		assert.True(t, strings.HasSuffix(s, "..."))
		assert.LessOrEqual(t, len(s), 160)
	}
}

func TestSentMethodOfAnUnsentRequest(t *testing.T) {
	require.Equal(t, "a request that could not be sent", SentMethod(&harness.Exchange{Err: errors.New("transport closed")}))
	require.Equal(t, "a request that could not be sent", SentMethod(nil))
	require.Equal(t, "ping", SentMethod(&harness.Exchange{Sent: &harness.Frame{Method: "ping"}}))
}
