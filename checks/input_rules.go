package checks

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// serverRequest is one request the server made of the client: its frame and params.
type serverRequest struct {
	f      *harness.Frame
	params map[string]json.RawMessage
}

// requestsOf returns the server's requests of method among frames, in order.
func requestsOf(frames []*harness.Frame, method string) []serverRequest {
	var out []serverRequest
	for _, f := range ServerRequests(frames) {
		msg, _ := harness.ParseMessage(f.Body())
		if msg.Method != method {
			continue
		}
		p := map[string]json.RawMessage{}
		_ = json.Unmarshal(msg.Params, &p)
		out = append(out, serverRequest{f: f, params: p})
	}
	return out
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// mismatch builds the Mismatch of the request r.
func (r serverRequest) mismatch(expected, actual string) *client.Mismatch {
	return &client.Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s", r.f.Seq, actual), Frames: []int{r.f.Seq}}
}

// UndeclaredModes grades INPUT-001 (client/elicitation#Capabilities): an elicitation/create
// uses only a mode the client declared (`elicitation: {}` is form only). judged counts the
// elicitations; one to a client that declared no elicitation at all is LEG-006's, not counted.
func UndeclaredModes(declared map[string]json.RawMessage, frames []*harness.Frame) (judged int, m *client.Mismatch) {
	decl, ok := declared["elicitation"]
	if !ok {
		return 0, nil
	}
	for _, r := range requestsOf(frames, "elicitation/create") {
		judged++
		mode := client.ElicitMode(mustRaw(r.params))
		if !client.ModeDeclared(decl, mode) && m == nil {
			m = r.mismatch("elicitations only in the modes the client declared ("+string(decl)+")", "an elicitation in mode "+mode)
		}
	}
	return judged, m
}

func mustRaw(p map[string]json.RawMessage) json.RawMessage {
	b, _ := json.Marshal(p)
	return b
}

// SamplingTools grades INPUT-008 (client/sampling#Tools in Sampling): a sampling request
// carries tools or toolChoice only to a client that declared sampling.tools. judged counts the
// sampling requests; without sampling declared at all they are LEG-006's.
func SamplingTools(declared map[string]json.RawMessage, frames []*harness.Frame) (judged int, m *client.Mismatch) {
	if declaresSub(declared, "sampling", "tools") || declared["sampling"] == nil {
		return 0, nil
	}
	for _, r := range requestsOf(frames, "sampling/createMessage") {
		judged++
		for _, k := range []string{"tools", "toolChoice"} {
			if _, has := r.params[k]; has && m == nil {
				m = r.mismatch("no tools or toolChoice, since the client did not declare sampling.tools", "a sampling request with "+k)
			}
		}
	}
	return judged, m
}

func declaresSub(declared map[string]json.RawMessage, capability, sub string) bool {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(declared[capability], &m)
	_, ok := m[sub]
	return ok
}

// IncludeContext grades INPUT-009 (client/sampling#Capabilities): includeContext is omitted or
// "none" unless the client declared sampling.context; a warning otherwise (SHOULD NOT).
func IncludeContext(declared map[string]json.RawMessage, frames []*harness.Frame) (judged int, m *client.Mismatch) {
	if declaresSub(declared, "sampling", "context") || declared["sampling"] == nil {
		return 0, nil
	}
	for _, r := range requestsOf(frames, "sampling/createMessage") {
		judged++
		if v, has := r.params["includeContext"]; has && str(v) != "none" && m == nil {
			m = r.mismatch(`includeContext omitted or "none", since the client did not declare sampling.context`, "includeContext "+string(v))
			m.Grade = reports.Warn
		}
	}
	return judged, m
}

// samplingMessage is one message of a sampling request, its content as blocks.
type samplingMessage struct {
	Role   string
	Blocks []map[string]json.RawMessage
}

func samplingMessages(p map[string]json.RawMessage) []samplingMessage {
	var raw []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(p["messages"], &raw)
	out := make([]samplingMessage, 0, len(raw))
	for _, r := range raw {
		var blocks []map[string]json.RawMessage
		if json.Unmarshal(r.Content, &blocks) != nil {
			var one map[string]json.RawMessage
			_ = json.Unmarshal(r.Content, &one)
			blocks = []map[string]json.RawMessage{one}
		}
		out = append(out, samplingMessage{Role: r.Role, Blocks: blocks})
	}
	return out
}

// ToolLoopBalance grades INPUT-010 (client/sampling#Tool Result Messages, #Tool Use and
// Result Balance): in a sampling request, an assistant message with tool uses is followed at
// once by a user message of tool results only, one per tool use, matched by toolUseId.
// judged counts the assistant messages with tool uses.
func ToolLoopBalance(frames []*harness.Frame) (judged int, m *client.Mismatch) {
	for _, r := range requestsOf(frames, "sampling/createMessage") {
		msgs := samplingMessages(r.params)
		for i, msg := range msgs {
			var uses []string
			for _, b := range msg.Blocks {
				if str(b["type"]) == "tool_use" {
					uses = append(uses, str(b["id"]))
				}
			}
			if msg.Role != "assistant" || len(uses) == 0 {
				continue
			}
			judged++
			if why := resultsFor(uses, msgs[i+1:]); why != "" && m == nil {
				m = r.mismatch("the tool uses of message "+fmt.Sprint(i)+" answered by the next message, a user message of tool results only matched by toolUseId", why)
			}
		}
	}
	return judged, m
}

func resultsFor(uses []string, rest []samplingMessage) string {
	if len(rest) == 0 {
		return "" // the last message: the client's model answers it
	}
	next := rest[0]
	if next.Role != "user" {
		return "the next message has role " + next.Role
	}
	got := map[string]bool{}
	for _, b := range next.Blocks {
		if t := str(b["type"]); t != "tool_result" {
			return "the next user message mixes a " + t + " block with the tool results"
		}
		got[str(b["toolUseId"])] = true
	}
	for _, u := range uses {
		if !got[u] {
			return "no tool result for tool use " + u
		}
	}
	return ""
}

// InvalidContentHandled grades INPUT-012 (client/elicitation#Form Mode Security): content
// that violates the requested schema is rejected (an isError result or a JSON-RPC error) or
// asked for again (another elicitation/create within the call). ex is the tools/call whose
// elicitation the client accepted with invalid content; a warning when the server took it.
func InvalidContentHandled(ex *harness.Exchange) (na string, m *client.Mismatch) {
	n := len(requestsOf(ex.Frames, "elicitation/create"))
	if n == 0 {
		return "the call made no elicitation, so no invalid content could be sent", nil
	}
	if n > 1 || ex.Response == nil {
		return "", nil // asked again; or no answer at all, which INPUT-011 judges
	}
	msg, err := harness.ParseMessage(ex.Response.Body())
	if err != nil || msg.Kind == harness.KindError {
		return "", nil
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(msg.Result, &r)
	if r.IsError {
		return "", nil
	}
	return "", &client.Mismatch{Expected: "elicited content that violates the requested schema rejected or asked for again",
		Actual: fmt.Sprintf("frame %d: a successful result", ex.Response.Seq), Frames: []int{ex.Response.Seq}, Grade: reports.Warn}
}

// secretWords is INPUT-004's heuristic: names of secrets that form mode must not ask for.
var secretWords = regexp.MustCompile(`(?i)pass(word|wd|phrase)|api.?key|secret|access.?token|(^|[^a-z])tokens?($|[^a-z])|credit.?card|card.?number|(^|[^a-z])(cvv|cvc)($|[^a-z])`)

// SecretField says which field of a requested schema asks for a secret (INPUT-004, 2025-11-25
// client/elicitation#User Interaction Model: no passwords, API keys, tokens or payment
// credentials in form mode), "" when none does: a property whose name, title or description
// names one.
func SecretField(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.Properties[n]
		if w := secretWords.FindString(n + " " + p.Title + " " + p.Description); w != "" {
			return fmt.Sprintf("property %q asks for %q", n, strings.TrimSpace(w))
		}
	}
	return ""
}

// urlInText is INPUT-007's heuristic: a clickable URL in form text.
var urlInText = regexp.MustCompile(`(?i)https?://[^\s"')]+`)

// FormText grades INPUT-004 (secret) or INPUT-007 (url) over every form elicitation among
// frames: SecretField on its requested schema, or a URL in its message or a property's title
// or description (a warning: SHOULD NOT).
func FormText(frames []*harness.Frame, secret bool) (judged int, m *client.Mismatch) {
	for _, r := range requestsOf(frames, "elicitation/create") {
		if client.ElicitMode(mustRaw(r.params)) != "form" {
			continue
		}
		judged++
		if m != nil {
			continue
		}
		if secret {
			if why := SecretField(r.params["requestedSchema"]); why != "" {
				m = r.mismatch("a form elicitation asking for no password, API key, token or payment credential (URL mode is for those)", why)
			}
			continue
		}
		text := str(r.params["message"]) + " " + string(r.params["requestedSchema"])
		if u := urlInText.FindString(text); u != "" {
			m = r.mismatch("form elicitation text without clickable URLs", "it contains "+u)
			m.Grade = reports.Warn
		}
	}
	return judged, m
}

// credentialParams is INPUT-005's heuristic: query parameters that carry credentials or
// personal data.
var credentialParams = regexp.MustCompile(`(?i)token|passw|secret|api_?key|^auth|^code$|session|^sid$|e-?mail|^user(_?name|_?id)?$|phone|^ssn$`)

// URLProblem says what makes a URL-mode elicitation's url unsafe (INPUT-005, 2025-11-25
// client/elicitation#Safe URL Handling: no credentials or personal data, not
// pre-authenticated): user info, a credential-like query parameter, an email address; with
// https set, it says instead whether the URL is http on a non-loopback host (INPUT-006).
func URLProblem(raw string, https bool) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	if https {
		host := u.Hostname()
		ip := net.ParseIP(host)
		if u.Scheme == "http" && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return "an http URL on " + host
		}
		return ""
	}
	if u.User != nil {
		return "user information in the URL"
	}
	keys := make([]string, 0)
	for k := range u.Query() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if credentialParams.MatchString(k) {
			return fmt.Sprintf("query parameter %q", k)
		}
	}
	if strings.Contains(u.RawQuery+u.Path, "@") {
		return "an email address in the URL"
	}
	return ""
}

// URLElicitations grades INPUT-005 (https false) or INPUT-006 (https true, a warning) over
// every URL-mode elicitation among frames (URLProblem).
func URLElicitations(frames []*harness.Frame, https bool) (judged int, m *client.Mismatch) {
	for _, r := range requestsOf(frames, "elicitation/create") {
		if client.ElicitMode(mustRaw(r.params)) != "url" {
			continue
		}
		judged++
		if why := URLProblem(str(r.params["url"]), https); why != "" && m == nil {
			if https {
				m = r.mismatch("an HTTPS elicitation URL (http only on loopback, for development)", why)
				m.Grade = reports.Warn
			} else {
				m = r.mismatch("an elicitation URL without credentials or personal data", why)
			}
		}
	}
	return judged, m
}
