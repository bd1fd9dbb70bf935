package checks

import (
	"fmt"
	"net/http"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
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

// SessionGone grades LHTTP-015 (2025-03-26..2025-11-25 basic/transports#Session Management:
// once the server terminates a session it MUST answer requests with that session id with
// 404 Not Found). issued is the session id the server sent with its InitializeResult; never
// is the request sent with an id the server never issued, del the DELETE of the session and
// after the request sent with its id after the DELETE. When the DELETE got a 2xx the session
// is terminated and after must get 404 (fail otherwise); never should get 404 (warn
// otherwise, as the sentence names terminated sessions only: soft is then set). na when the
// server issued no id.
func SessionGone(issued string, never, del, after *harness.Exchange) (na string, m *client.Mismatch, soft bool) {
	if issued == "" {
		return "the server issued no Mcp-Session-Id with its InitializeResult: it does not use sessions", nil, false
	}
	if del.HTTP.Status/100 == 2 && after.HTTP.Status != http.StatusNotFound {
		return "", &client.Mismatch{Expected: "HTTP 404 for a request in the session the server ended (its DELETE got a 2xx)",
			Actual: fmt.Sprintf("HTTP %d %s", after.HTTP.Status, http.StatusText(after.HTTP.Status)), Frames: append(ExchangeSeqs(del), ExchangeSeqs(after)...)}, false
	}
	if never.HTTP.Status != http.StatusNotFound {
		return "", &client.Mismatch{Expected: "HTTP 404 for a request with a session id the server never issued",
			Actual: fmt.Sprintf("HTTP %d %s", never.HTTP.Status, http.StatusText(never.HTTP.Status)), Frames: ExchangeSeqs(never)}, true
	}
	return "", nil, false
}

// DeleteAnswered grades LHTTP-016 (basic/transports#Session Management: the server MAY
// refuse a DELETE of the session with 405 Method Not Allowed, else it ends the session): the
// DELETE gets a 2xx or 405. na when the server issued no session id (there was none to end).
func DeleteAnswered(issued string, status int, frames []int) (na string, m *client.Mismatch) {
	if issued == "" {
		return "the server issued no Mcp-Session-Id with its InitializeResult: there is no session to end", nil
	}
	if status/100 == 2 || status == http.StatusMethodNotAllowed {
		return "", nil
	}
	return "", &client.Mismatch{Expected: "a 2xx (the session ended) or 405 Method Not Allowed in reply to DELETE",
		Actual: fmt.Sprintf("HTTP %d %s", status, http.StatusText(status)), Frames: frames}
}
