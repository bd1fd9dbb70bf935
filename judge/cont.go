package judge

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/harness"
)

// Run-wide rules of content (schema#ContentBlock, icons, server info): CONT-001..007 and
// PROMPT-006, judged over the content items of every result the server sent.

// Kinds of content items.
const (
	itemBlock      = "content block"
	itemContents   = "resource contents"
	itemAnnotation = "annotations"
	itemIcons      = "icons"
	itemServerInfo = "server info"
)

// contItem is one object a content rule judges: a content block, the contents of a
// resources/read, annotations, an icons array or a server info, with where it was found.
type contItem struct {
	kind   string
	seq    int
	method string
	where  string
	val    any
	// inPrompt marks content blocks of prompts/get messages.
	inPrompt bool
}

func (it contItem) at() string { return fmt.Sprintf("%s (frame %d, %s)", it.where, it.seq, it.method) }

// contentItems returns the content items of a server result frame, walked once per frame.
func (f *Frame) contentItems() []contItem {
	if f.itemsSet {
		return f.items
	}
	f.itemsSet = true
	res, ok := f.decodedResult().(map[string]any)
	if !ok {
		return nil
	}
	var out []contItem
	add := func(kind, where string, v any, inPrompt bool) {
		out = append(out, contItem{kind: kind, seq: f.Seq, method: f.Method, where: where, val: v, inPrompt: inPrompt})
	}
	var block func(where string, v any, inPrompt bool)
	block = func(where string, v any, inPrompt bool) {
		add(itemBlock, where, v, inPrompt)
		b, _ := v.(map[string]any)
		if a, ok := b["annotations"]; ok {
			add(itemAnnotation, where+".annotations", a, false)
		}
		if ic, ok := b["icons"]; ok {
			add(itemIcons, where+".icons", ic, false)
		}
	}
	listed := func(member string) {
		arr, _ := res[member].([]any)
		for i, e := range arr {
			m, _ := e.(map[string]any)
			where := fmt.Sprintf("%s[%d]", member, i)
			if ic, ok := m["icons"]; ok {
				add(itemIcons, where+".icons", ic, false)
			}
			if a, ok := m["annotations"]; ok {
				add(itemAnnotation, where+".annotations", a, false)
			}
		}
	}
	serverInfo := func(where string, v any) {
		add(itemServerInfo, where, v, false)
		if m, ok := v.(map[string]any); ok {
			if ic, ok := m["icons"]; ok {
				add(itemIcons, where+".icons", ic, false)
			}
		}
	}
	if meta, ok := res["_meta"].(map[string]any); ok {
		if si, ok := meta[harness.MetaServerInfo]; ok {
			serverInfo("_meta serverInfo", si)
		}
	}
	switch f.Method {
	case "initialize":
		if si, ok := res["serverInfo"]; ok {
			serverInfo("serverInfo", si)
		}
	case "tools/call":
		arr, _ := res["content"].([]any)
		for i, b := range arr {
			block(fmt.Sprintf("content[%d]", i), b, false)
		}
	case "prompts/get":
		arr, _ := res["messages"].([]any)
		for i, m := range arr {
			mm, _ := m.(map[string]any)
			if c, ok := mm["content"]; ok {
				block(fmt.Sprintf("messages[%d].content", i), c, true)
			}
		}
	case "resources/read":
		arr, _ := res["contents"].([]any)
		for i, c := range arr {
			add(itemContents, fmt.Sprintf("contents[%d]", i), c, false)
		}
	case "tools/list":
		listed("tools")
	case "resources/list":
		listed("resources")
	case "resources/templates/list":
		listed("resourceTemplates")
	case "prompts/list":
		listed("prompts")
	}
	f.items = out
	return out
}

// contRule judges the content items: material tells whether an item bears on the rule at all,
// none is the na reason when no item of the run did, and judge returns what was expected and
// what came ("" when the item is fine).
type contRule struct {
	material func(contItem) bool
	none     string
	judge    func(contItem) (expected, actual string)
}

// entry makes the table entry of rule r: a perFrame check whose subjects are the frames with
// at least one material item.
func (r contRule) entry(rule string) Entry {
	return Entry{Rule: rule, None: r.none, New: each(func(f *Frame) (bool, *Mismatch) {
		if !f.FromServer() {
			return false, nil
		}
		subject := false
		for _, it := range f.contentItems() {
			if !r.material(it) {
				continue
			}
			subject = true
			if exp, act := r.judge(it); exp != "" {
				return true, &Mismatch{Expected: exp, Actual: act + " at " + it.at(), Frames: []int{it.seq}}
			}
		}
		return subject, nil
	})}
}

func blockType(it contItem) string {
	b, _ := it.val.(map[string]any)
	t, _ := b["type"].(string)
	return t
}

func isKind(kind string) func(contItem) bool {
	return func(it contItem) bool { return it.kind == kind }
}

// contentTypes are the content block types of the specification (ContentBlock).
var contentTypes = map[string]bool{"text": true, "image": true, "audio": true, "resource_link": true, "resource": true}

// checkContentBlocks (CONT-001): a content block is an object of a known type with the fields
// that type requires. resource_link's uri and name are CONT-007's; mimeType well-formedness
// and base64 are CONT-002's.
var checkContentBlocks = contRule{
	material: isKind(itemBlock),
	none:     "the server sent no content block in this run (no tool result or prompt message)",
	judge: func(it contItem) (string, string) {
		b, ok := it.val.(map[string]any)
		if !ok {
			return "every content block to be an object", jsonText(it.val)
		}
		t, ok := b["type"].(string)
		if !ok || !contentTypes[t] {
			return "a content block type text, image, audio, resource_link or resource", "type " + jsonText(b["type"])
		}
		need := map[string][]string{"text": {"text"}, "image": {"data", "mimeType"}, "audio": {"data", "mimeType"}}[t]
		for _, k := range need {
			if _, ok := b[k].(string); !ok {
				return fmt.Sprintf("a %s block with a string %s", t, k), jsonText(b)
			}
		}
		if t == "resource" {
			r, ok := b["resource"].(map[string]any)
			if !ok {
				return "a resource block with a resource object", jsonText(b)
			}
			if _, ok := r["uri"].(string); !ok {
				return "an embedded resource with a string uri", jsonText(r)
			}
			_, text := r["text"].(string)
			_, blob := r["blob"].(string)
			if text == blob {
				return "an embedded resource with either a string text or a string blob", jsonText(r)
			}
		}
		return "", ""
	},
}

// checkBinaryContent (CONT-002): image and audio data and every blob (embedded resource,
// resources/read contents) are strictly valid base64; image and audio carry a well-formed
// mimeType, and any other mimeType next to base64 data is well-formed too.
var checkBinaryContent = contRule{
	material: func(it contItem) bool {
		switch it.kind {
		case itemBlock:
			t := blockType(it)
			if t == "image" || t == "audio" {
				return true
			}
			b, _ := it.val.(map[string]any)
			r, _ := b["resource"].(map[string]any)
			_, blob := r["blob"]
			return t == "resource" && blob
		case itemContents:
			c, _ := it.val.(map[string]any)
			_, blob := c["blob"]
			return blob
		}
		return false
	},
	none: "the server sent no image, audio or blob content in this run",
	judge: func(it contItem) (string, string) {
		obj, _ := it.val.(map[string]any)
		field, requireMime := "blob", false
		if t := blockType(it); t == "image" || t == "audio" {
			field, requireMime = "data", true
		} else if it.kind == itemBlock {
			obj, _ = obj["resource"].(map[string]any)
		}
		data, _ := obj[field].(string)
		if problem := base64Problem(data, obj[field]); problem != "" {
			return "strictly valid base64 in " + field, problem
		}
		mt, present := obj["mimeType"]
		if !present {
			if requireMime {
				return "a mimeType next to base64 " + field, "no mimeType"
			}
			return "", ""
		}
		if s, ok := mt.(string); !ok || !wellFormedMIME(s) {
			return "a well-formed mimeType (type/subtype)", "mimeType " + jsonText(mt)
		}
		return "", ""
	},
}

// base64Problem says why v (whose string value is s) is not strictly valid standard base64
// (RFC 4648 §4, padded, no line breaks or other characters), "" when it is.
func base64Problem(s string, v any) string {
	if _, ok := v.(string); !ok {
		return "a " + jsonKind(v) + " instead of a string"
	}
	if strings.ContainsAny(s, "\r\n") {
		return "base64 with line breaks"
	}
	if _, err := base64.StdEncoding.Strict().DecodeString(s); err != nil {
		return fmt.Sprintf("invalid base64 (%v) in %s", err, short([]byte(strconv.Quote(s))))
	}
	return ""
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "object"
}

// mimeToken is a media type or subtype name (RFC 6838 §4.2).
var mimeToken = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$`)

// wellFormedMIME reports whether s is a media type type/subtype, with optional parameters.
func wellFormedMIME(s string) bool {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil {
		return false
	}
	typ, sub, ok := strings.Cut(mt, "/")
	return ok && mimeToken.MatchString(typ) && mimeToken.MatchString(sub)
}

// checkAnnotations (CONT-003): annotations are an object whose audience holds only "user" and
// "assistant", whose priority is a number in [0, 1] and whose lastModified is an ISO 8601
// date or date-time.
var checkAnnotations = contRule{
	material: isKind(itemAnnotation),
	none:     "the server sent no annotations in this run",
	judge: func(it contItem) (string, string) {
		a, ok := it.val.(map[string]any)
		if !ok {
			return "annotations to be an object", jsonText(it.val)
		}
		if v, ok := a["audience"]; ok {
			arr, ok := v.([]any)
			if !ok {
				return "audience to be an array of roles", "audience " + jsonText(v)
			}
			for _, r := range arr {
				if r != "user" && r != "assistant" {
					return `audience entries "user" or "assistant"`, "audience " + jsonText(v)
				}
			}
		}
		if v, ok := a["priority"]; ok {
			n, isNum := v.(json.Number)
			f, err := n.Float64()
			if !isNum || err != nil || f < 0 || f > 1 {
				return "priority a number from 0 to 1", "priority " + jsonText(v)
			}
		}
		if v, ok := a["lastModified"]; ok {
			s, _ := v.(string)
			if !isISO8601(s) {
				return `lastModified an ISO 8601 timestamp (e.g. "2025-01-12T15:00:58Z")`, "lastModified " + jsonText(v)
			}
		}
		return "", ""
	},
}

// iso8601 matches an ISO 8601 calendar date in extended format, optionally with a time of day
// (minutes, seconds and a fraction) and a UTC offset.
var iso8601 = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$`)

// isISO8601 reports whether s is an ISO 8601 date or date-time with valid field values.
func isISO8601(s string) bool {
	m := iso8601.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	y, mo, d := n(1), n(2), n(3)
	if mo < 1 || mo > 12 || d < 1 || d > 31 || time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Day() != d {
		return false
	}
	if m[4] != "" && (n(4) > 24 || n(5) > 59 || (m[6] != "" && n(6) > 60)) {
		return false
	}
	return m[7] == "" || (n(7) <= 23 && (m[8] == "" || n(8) <= 59))
}

// checkIconShape (CONT-004): icons are an array of objects, each with a src URI and, when
// present, a well-formed mimeType, sizes as an array of strings and theme light or dark.
var checkIconShape = contRule{
	material: isKind(itemIcons),
	none:     "the server sent no icons in this run (tools, resources, prompts, server info)",
	judge: func(it contItem) (string, string) {
		arr, ok := it.val.([]any)
		if !ok {
			return "icons to be an array of Icon objects", jsonText(it.val)
		}
		for i, e := range arr {
			ic, ok := e.(map[string]any)
			if !ok {
				return "every icon to be an object", fmt.Sprintf("icon %d is %s", i, jsonText(e))
			}
			src, _ := ic["src"].(string)
			if !isAbsoluteURI(src) {
				return "every icon to have a src URI", fmt.Sprintf("icon %d src %s", i, jsonText(ic["src"]))
			}
			if v, ok := ic["mimeType"]; ok {
				if s, _ := v.(string); !wellFormedMIME(s) {
					return "an icon mimeType type/subtype", fmt.Sprintf("icon %d mimeType %s", i, jsonText(v))
				}
			}
			if v, ok := ic["sizes"]; ok {
				sizes, ok := v.([]any)
				for _, s := range sizes {
					if _, isStr := s.(string); !isStr {
						ok = false
					}
				}
				if !ok {
					return "icon sizes to be an array of strings", fmt.Sprintf("icon %d sizes %s", i, jsonText(v))
				}
			}
			if v, ok := ic["theme"]; ok && v != "light" && v != "dark" {
				return `icon theme "light" or "dark"`, fmt.Sprintf("icon %d theme %s", i, jsonText(v))
			}
		}
		return "", ""
	},
}

// isAbsoluteURI reports whether s parses as a URI with a scheme (RFC 3986 absolute form).
func isAbsoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && !strings.ContainsAny(s, " \t\r\n")
}

// checkIconSchemes (CONT-005): every icon src is an https: or data: URI; clients must reject
// the others (basic/index#icons, Security considerations).
var checkIconSchemes = contRule{
	material: isKind(itemIcons),
	none:     "the server sent no icons in this run (tools, resources, prompts, server info)",
	judge: func(it contItem) (string, string) {
		arr, _ := it.val.([]any)
		for i, e := range arr {
			ic, _ := e.(map[string]any)
			src, ok := ic["src"].(string)
			if !ok {
				continue // CONT-004's
			}
			scheme, _, _ := strings.Cut(src, ":")
			if s := strings.ToLower(scheme); s != "https" && s != "data" {
				return "icon src URIs with the https: or data: scheme", fmt.Sprintf("icon %d src %s", i, short([]byte(strconv.Quote(src))))
			}
		}
		return "", ""
	},
}

// checkServerInfo (CONT-006): the server's Implementation object has a string name and
// version; title, description and websiteUrl, when present, are strings, websiteUrl a URI.
var checkServerInfo = contRule{
	material: isKind(itemServerInfo),
	none:     "the server sent no server info in this run",
	judge: func(it contItem) (string, string) {
		si, ok := it.val.(map[string]any)
		if !ok {
			return "server info to be an Implementation object", jsonText(it.val)
		}
		for _, k := range []string{"name", "version"} {
			if _, ok := si[k].(string); !ok {
				return "server info with a string " + k, jsonText(si)
			}
		}
		for _, k := range []string{"title", "description", "websiteUrl"} {
			if v, ok := si[k]; ok {
				if _, isStr := v.(string); !isStr {
					return "server info " + k + " to be a string", k + " " + jsonText(v)
				}
			}
		}
		if v, ok := si["websiteUrl"].(string); ok && !isAbsoluteURI(v) {
			return "server info websiteUrl to be a URI", "websiteUrl " + jsonText(v)
		}
		return "", ""
	},
}

// checkResourceLinks (CONT-007): a resource_link block has a string uri (a URI) and a string
// name.
var checkResourceLinks = contRule{
	material: func(it contItem) bool { return it.kind == itemBlock && blockType(it) == "resource_link" },
	none:     "the server sent no resource_link content block in this run",
	judge: func(it contItem) (string, string) {
		b, _ := it.val.(map[string]any)
		uri, _ := b["uri"].(string)
		if !isAbsoluteURI(uri) {
			return "a resource_link with a uri", "uri " + jsonText(b["uri"])
		}
		if _, ok := b["name"].(string); !ok {
			return "a resource_link with a string name", jsonText(b)
		}
		return "", ""
	},
}

// checkPromptResources (PROMPT-006): a resource block in a prompt message embeds a resource
// with a URI, a MIME type and either text or base64 blob data.
var checkPromptResources = contRule{
	material: func(it contItem) bool { return it.inPrompt && blockType(it) == "resource" },
	none:     `no prompt message the server sent in this run embeds a resource (prompt "test_prompt_with_embedded_resource")`,
	judge: func(it contItem) (string, string) {
		b, _ := it.val.(map[string]any)
		r, ok := b["resource"].(map[string]any)
		if !ok {
			return "an embedded resource object", jsonText(b)
		}
		uri, _ := r["uri"].(string)
		if !isAbsoluteURI(uri) {
			return "an embedded resource with a valid uri", "uri " + jsonText(r["uri"])
		}
		mt, _ := r["mimeType"].(string)
		if !wellFormedMIME(mt) {
			return "an embedded resource with a MIME type", "mimeType " + jsonText(r["mimeType"]) + " in " + jsonText(r)
		}
		_, isText := r["text"].(string)
		blob, hasBlob := r["blob"]
		switch {
		case isText && !hasBlob:
			return "", ""
		case hasBlob && r["text"] == nil:
			if p := base64Problem(fmt.Sprint(blob), blob); p != "" {
				return "an embedded resource blob in base64", p
			}
			return "", ""
		}
		return "an embedded resource with either text or a base64 blob", jsonText(r)
	},
}
