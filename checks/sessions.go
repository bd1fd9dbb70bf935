package checks

import (
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/client"
)

// SessionRequiredRefusal grades LHTTP-014 (2025-03-26..2025-11-25 basic/transports#Session
// Management): a server that requires sessions answers a request after initialization that
// carries no Mcp-Session-Id with 400 Bad Request. issued is the session id the server sent
// with its InitializeResult ("" when it sent none); status is the HTTP status of the reply to
// the request sent without it; frames are the frames of that exchange. It returns na, the
// reason the rule does not apply, when the server does not require sessions (it issued no
// id, or served the request with a 2xx); a Mismatch citing frames for any status but 400;
// neither when the server answered 400.
func SessionRequiredRefusal(issued string, status int, frames []int) (na string, m *client.Mismatch) {
	switch {
	case issued == "":
		return "the server issued no Mcp-Session-Id with its InitializeResult: it does not use sessions", nil
	case status >= 200 && status < 300:
		return fmt.Sprintf("the server served the request without Mcp-Session-Id (HTTP %d): it does not require sessions", status), nil
	case status == http.StatusBadRequest:
		return "", nil
	}
	return "", &client.Mismatch{
		Expected: "HTTP 400 Bad Request for a request without Mcp-Session-Id after initialization (the server issued one)",
		Actual:   fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)),
		Frames:   frames,
	}
}

// VisibleSessionID grades LHTTP-012 (2025-03-26..2025-11-25 basic/transports#Session
// Management): a session id holds only visible ASCII, 0x21 to 0x7E. id is the Mcp-Session-Id
// the server sent with its InitializeResult; frames are those of the handshake. It returns na
// when the server assigned none, and a Mismatch naming the first byte outside the range.
func VisibleSessionID(id string, frames []int) (na string, m *client.Mismatch) {
	if id == "" {
		return "the server assigned no Mcp-Session-Id with its InitializeResult", nil
	}
	for i := 0; i < len(id); i++ {
		if b := id[i]; b < 0x21 || b > 0x7e {
			return "", &client.Mismatch{
				Expected: "an Mcp-Session-Id of visible ASCII only (0x21 to 0x7E)",
				Actual:   fmt.Sprintf("byte 0x%02X at offset %d of %q", b, i, id),
				Frames:   frames,
			}
		}
	}
	return "", nil
}
