package runner

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// snippetBytes is how much of a body that is not a JSON-RPC message a hint quotes.
const snippetBytes = 200

// credentialsHint is what a run says about an endpoint answering 401 or 403.
const credentialsHint = "the endpoint wants credentials: pass --header 'Authorization: …'"

// replyHint explains an HTTP reply that is not what an MCP endpoint sends, for the messages of
// a run that could not start: a 401 or 403 asks for --header; a reply without a JSON-RPC
// response gives its status, Content-Type and first snippetBytes bytes (quoted, so no control
// character reaches the console), and, for a 404 or an HTML page, asks whether the URL's path
// is the MCP endpoint. It returns "" for anything else (stdio, a JSON-RPC response).
func replyHint(t client.Conn, ex *harness.Exchange) string {
	if ex == nil || ex.HTTP == nil {
		return ""
	}
	status := ex.HTTP.Status
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		lead := credentialsHint
		if sent := sentCredentials(ex); sent != "" {
			lead = fmt.Sprintf("the endpoint refused the credentials sent (%s from --header): check their value and scope", sent)
		}
		hint := fmt.Sprintf("%s (HTTP %d", lead, status)
		if wa := ex.HTTP.Headers.Get("WWW-Authenticate"); wa != "" {
			hint += ", WWW-Authenticate: " + quoteSnippet([]byte(wa))
		}
		return hint + ")"
	}
	if ex.Response != nil {
		return ""
	}
	ct := ex.HTTP.Headers.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt == "text/event-stream" {
		return ""
	}
	hint := fmt.Sprintf("HTTP %d", status)
	if ct == "" {
		hint += " without a Content-Type"
	} else {
		hint += ", Content-Type " + strconv.Quote(ct)
	}
	var body []byte
	for _, f := range ex.Frames {
		if len(f.Raw) > 0 {
			body = f.Raw
			break
		}
	}
	if len(body) == 0 {
		hint += ", empty body"
	} else {
		hint += ", body " + quoteSnippet(body)
	}
	answered := ""
	switch {
	case status == http.StatusNotFound:
		answered = "404"
	case mt == "text/html" || mt == "application/xhtml+xml":
		answered = "an HTML page"
	}
	if h, ok := t.Endpoint(); ok && answered != "" {
		path := "/"
		if u, err := url.Parse(h.URL()); err == nil && u.Path != "" {
			path = u.Path
		}
		if path == "/" {
			hint += "; is /mcp the MCP endpoint? the server answered " + answered + " for /"
		} else {
			hint += fmt.Sprintf("; is %s the MCP endpoint? the server answered %s for it", path, answered)
		}
	}
	return hint
}

// quoteSnippet returns the first snippetBytes bytes of b as a Go-quoted string: control
// characters and invalid UTF-8 escaped, "..." after the quote when b was longer.
func quoteSnippet(b []byte) string {
	more := len(b) > snippetBytes
	if more {
		b = b[:snippetBytes]
	}
	s := strconv.Quote(string(b))
	if more {
		s += "..."
	}
	return s
}

// sentCredentials returns the name of the header of the request of ex that carried
// credentials (Authorization, Cookie, or an *api-key / *token header), "" when none did.
func sentCredentials(ex *harness.Exchange) string {
	if ex.Sent == nil || ex.Sent.HTTP == nil {
		return ""
	}
	for name := range ex.Sent.HTTP.Headers {
		l := strings.ToLower(name)
		if l == "authorization" || l == "cookie" || strings.Contains(l, "api-key") || strings.Contains(l, "apikey") || strings.HasSuffix(l, "token") {
			return http.CanonicalHeaderKey(name)
		}
	}
	return ""
}
