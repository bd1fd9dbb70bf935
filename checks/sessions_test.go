package checks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSessionRequiredRefusal: LHTTP-014 holds on 400 only; a server that issued no session id
// or served the request does not require sessions (na); any other refusal is a mismatch that
// names the status and cites the frames.
func TestSessionRequiredRefusal(t *testing.T) {
	na, m := SessionRequiredRefusal("s-1", 400, []int{7, 8})
	assert.Empty(t, na)
	assert.Nil(t, m)

	for _, status := range []int{200, 202} {
		na, m = SessionRequiredRefusal("s-1", status, nil)
		assert.Contains(t, na, "does not require sessions", status)
		assert.Nil(t, m)
	}
	na, m = SessionRequiredRefusal("", 400, nil)
	assert.Contains(t, na, "issued no Mcp-Session-Id")
	assert.Nil(t, m)

	for status, text := range map[int]string{404: "HTTP 404 Not Found", 401: "HTTP 401 Unauthorized", 500: "HTTP 500 Internal Server Error"} {
		na, m = SessionRequiredRefusal("s-1", status, []int{7, 8})
		assert.Empty(t, na)
		require.NotNil(t, m, status)
		assert.Equal(t, text, m.Actual)
		assert.Equal(t, []int{7, 8}, m.Frames)
	}
}

// TestVisibleSessionID: only 0x21..0x7E pass; a space, a control or a non-ASCII byte is named
// with its offset; no id is na.
func TestVisibleSessionID(t *testing.T) {
	na, m := VisibleSessionID("a1B2-~!_", nil)
	assert.Empty(t, na)
	assert.Nil(t, m)
	na, _ = VisibleSessionID("", nil)
	assert.Contains(t, na, "assigned no Mcp-Session-Id")
	for id, want := range map[string]string{"ab cd": "byte 0x20 at offset 2", "ab\x7f": "byte 0x7F at offset 2", "é1": "byte 0xC3 at offset 0", "a\tb": "byte 0x09 at offset 1"} {
		_, m = VisibleSessionID(id, []int{3})
		require.NotNil(t, m, id)
		assert.Contains(t, m.Actual, want)
		assert.Equal(t, []int{3}, m.Frames)
	}
}
