package judge

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/harness"
)

// Run-wide rules of capabilities: CAP-005, ERR-008.

// loggingDeclared is CAP-005: no notifications/message unless some DiscoverResult or
// InitializeResult of the revision declares `logging`. Without any such result in the frames
// nothing can be concluded. The log messages are counted as they come; the verdict waits for
// Finish, since a declaration may come after them.
type loggingDeclared struct {
	seen, declared bool
	seqs           []int
	first          []byte
}

func newLoggingDeclared(Deps) Check { return &loggingDeclared{} }

func (c *loggingDeclared) Observe(f *Frame) {
	if !f.FromServer() || f.NotJSON {
		return
	}
	msg := f.Msg
	if (f.Method == "server/discover" || f.Method == "initialize") && msg.Kind == harness.KindResult {
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		if json.Unmarshal(msg.Result, &r) == nil && r.Capabilities != nil {
			c.seen = true
			if _, ok := r.Capabilities["logging"]; ok {
				c.declared = true
			}
		}
	}
	if msg.Kind == harness.KindNotification && msg.Method == "notifications/message" {
		if c.first == nil {
			c.first = f.Raw
		}
		c.seqs = append(c.seqs, f.Seq)
	}
}

func (c *loggingDeclared) Finish() Outcome {
	if !c.seen {
		return Outcome{}
	}
	o := Outcome{Judged: len(c.seqs)}
	if !c.declared && len(c.seqs) > 0 {
		o.Mismatch = &Mismatch{
			Expected: "no notifications/message from a server whose capabilities lack logging",
			Actual:   fmt.Sprintf("%d log message notification(s), the first: %s", len(c.seqs), short(c.first)),
			Frames:   c.seqs,
		}
	}
	return o
}

// checkMissingCapability is ERR-008 over the run: every -32021 error carries
// data.requiredCapabilities, a non-empty ClientCapabilities object.
var checkMissingCapability = each(func(f *Frame) (bool, *Mismatch) {
	if !f.FromServer() || f.NotJSON || f.Msg.Kind != harness.KindError || f.Msg.Error.Code != -32021 {
		return false, nil
	}
	if p := requiredCapabilitiesProblem(f.Msg.Error.Data); p != "" {
		return true, &Mismatch{Expected: "data.requiredCapabilities on every -32021 error: a ClientCapabilities object naming what is missing",
			Actual: p + " in " + short(f.Raw), Frames: []int{f.Seq}}
	}
	return true, nil
})

// requiredCapabilitiesProblem checks the data of a -32021 error against the shape of
// MissingRequiredClientCapabilityError (ClientCapabilities, which must name something).
func requiredCapabilitiesProblem(data json.RawMessage) string {
	var d map[string]json.RawMessage
	if len(data) == 0 || json.Unmarshal(data, &d) != nil || d == nil {
		return "no data object"
	}
	raw, ok := d["requiredCapabilities"]
	if !ok {
		return "no requiredCapabilities"
	}
	var caps map[string]json.RawMessage
	if json.Unmarshal(raw, &caps) != nil || caps == nil {
		return "requiredCapabilities is not an object"
	}
	if len(caps) == 0 {
		return "requiredCapabilities is empty"
	}
	isObject := func(r json.RawMessage) bool {
		var m map[string]json.RawMessage
		return json.Unmarshal(r, &m) == nil && m != nil
	}
	members := map[string][]string{"elicitation": {"form", "url"}, "sampling": {"context", "tools"}, "roots": nil}
	for _, name := range sortedKeys(caps) {
		v := caps[name]
		if !isObject(v) {
			return fmt.Sprintf("requiredCapabilities.%s is not an object", name)
		}
		var inner map[string]json.RawMessage
		_ = json.Unmarshal(v, &inner)
		if name == "experimental" || name == "extensions" {
			for _, k := range sortedKeys(inner) {
				if !isObject(inner[k]) {
					return fmt.Sprintf("requiredCapabilities.%s.%s is not an object", name, k)
				}
			}
			continue
		}
		for _, m := range members[name] {
			if x, ok := inner[m]; ok && !isObject(x) {
				return fmt.Sprintf("requiredCapabilities.%s.%s is not an object", name, m)
			}
		}
	}
	return ""
}
