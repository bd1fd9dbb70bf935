package client

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
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
