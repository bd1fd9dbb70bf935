package steps

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// registerContSteps binds the steps of content blocks and prompts (CONT, PROMPT).
func registerContSteps(sc *godog.ScenarioContext) {
	// Provocation.
	step(sc, `^the client fetches the server's content blocks, icons and server info$`, wc(gatherContent))
	step(sc, `^the client gets every prompt the server lists$`, wc(func(ctx context.Context, w *world) error {
		_, err := w.getEveryPrompt(ctx)
		return err
	}))
	step(sc, `^the client lists every prompt$`, wc(func(ctx context.Context, w *world) error {
		_, err := w.listAll(ctx, "prompts/list", "prompts")
		return keepTransportErr(ctx, err)
	}))
	step(sc, `^the client gets a prompt that needs no arguments$`, wc(getArgumentlessPrompt))
	step(sc, `^the client gets a prompt the server does not offer$`, wc(func(ctx context.Context, w *world) error {
		return w.sendParams(ctx, "prompts/get", map[string]any{"name": unknownPromptName}, nil, false)
	}))
	step(sc, `^the client gets a prompt without its required arguments$`, wc(getPromptWithoutArgs))

	// Run-wide content rules (steps/sweep.go); na when the run carried nothing they judge.
	contSweep(sc, `^every content block the server sent in this run is a known type with its required fields$`, "CONT-001", checkContentBlocks)
	contSweep(sc, `^all base64 data the server sent in this run is valid with a well-formed MIME type$`, "CONT-002", checkBinaryContent)
	contSweep(sc, `^every annotation the server sent in this run has a valid audience, priority and lastModified$`, "CONT-003", checkAnnotations)
	contSweep(sc, `^every icon the server sent in this run has a src URI and a valid mimeType, sizes and theme$`, "CONT-004", checkIconShape)
	contSweep(sc, `^every icon src the server sent in this run is an https: or data: URI$`, "CONT-005", checkIconSchemes)
	contSweep(sc, `^every server info the server sent in this run has a string name and version$`, "CONT-006", checkServerInfo)
	contSweep(sc, `^every resource link the server sent in this run has a uri and a name$`, "CONT-007", checkResourceLinks)
	contSweep(sc, `^every embedded resource in the prompt messages the server sent in this run has a URI, a MIME type and text or base64 data$`, "PROMPT-006", checkPromptResources)

	// Prompts.
	step(sc, `^every prompts/list page of this scenario is a ListPromptsResult whose prompts and arguments have names$`, wc(checkPromptPages))
	step(sc, `^the prompt result has messages with role user or assistant, each with a content block$`, wc(checkPromptResult))
	step(sc, `^the prompt list is the same after getting each prompt and on a fresh connection$`, wc(checkPromptSetStable))
}

// contentFixtureTools are the fixture tools whose results are content blocks of each type.
var contentFixtureTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
}

// maxPromptGets bounds how many listed prompts one scenario fetches.
const maxPromptGets = 25

// keepTransportErr drops the *Mismatch and *listRefused of a list traversal (other rules judge
// them) and keeps errors that mean the run cannot go on.
func keepTransportErr(ctx context.Context, err error) error {
	switch err.(type) {
	case nil, *Mismatch, *listRefused:
		return ctx.Err()
	}
	return err
}

// gatherContent makes the server send what the content rules judge, without side effects:
// discovery (its serverInfo; the legacy InitializeResult was recorded at the handshake), every
// declared list (icons, annotations), a call of each content fixture tool the server lists
// and the call policy allows, and a get of every listed prompt.
func gatherContent(ctx context.Context, w *world) error {
	if w.s.t.modern {
		if err := w.sendMethod(ctx, "server/discover", "", nil, nil); err != nil {
			return err
		}
	}
	if w.declares("tools") {
		lt, err := w.listAll(ctx, "tools/list", "tools")
		if err := keepTransportErr(ctx, err); err != nil {
			return err
		}
		for _, f := range contentFixtureTools {
			name := w.s.env.fixtureName(f)
			for _, t := range lt.Items {
				if t["name"] != name {
					continue
				}
				if ok, _ := w.s.env.mayCall(t); ok {
					if err := w.sendParams(ctx, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}}, nil, false); err != nil {
						return err
					}
				}
				break
			}
		}
	}
	if w.declares("resources") {
		for _, l := range [][2]string{{"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"}} {
			_, err := w.listAll(ctx, l[0], l[1])
			if err := keepTransportErr(ctx, err); err != nil {
				return err
			}
		}
	}
	_, err := w.getEveryPrompt(ctx)
	return err
}

// getEveryPrompt lists the prompts (when the capability is declared) and gets each of the
// first maxPromptGets, its required arguments filled with "x" (prompts/get has no side
// effects). It returns the listed prompts.
func (w *world) getEveryPrompt(ctx context.Context) ([]map[string]any, error) {
	if !w.declares("prompts") {
		return nil, nil
	}
	lt, err := w.listAll(ctx, "prompts/list", "prompts")
	if err := keepTransportErr(ctx, err); err != nil {
		return nil, err
	}
	for i, p := range lt.Items {
		if i == maxPromptGets {
			break
		}
		name, ok := p["name"].(string)
		if !ok {
			continue
		}
		params := map[string]any{"name": name}
		if req := requiredArgs(p); len(req) > 0 {
			args := map[string]any{}
			for _, a := range req {
				args[a] = placeholderArg(a)
			}
			params["arguments"] = args
		}
		if err := w.sendParams(ctx, "prompts/get", params, nil, false); err != nil {
			return nil, err
		}
	}
	return lt.Items, nil
}

// requiredArgs returns the names of a listed prompt's arguments marked required: true.
func requiredArgs(p map[string]any) []string {
	var out []string
	args, _ := p["arguments"].([]any)
	for _, a := range args {
		am, _ := a.(map[string]any)
		if name, ok := am["name"].(string); ok && am["required"] == true {
			out = append(out, name)
		}
	}
	return out
}

// listPromptsForPick lists the prompts for a step that needs one: na when the capability is
// not declared or the list is empty, untestable when the list is refused.
func (w *world) listPromptsForPick(ctx context.Context) ([]map[string]any, error) {
	if !w.declares("prompts") {
		return nil, w.setSkip(reports.NA, `the server does not declare the "prompts" capability`)
	}
	lt, err := w.listAll(ctx, "prompts/list", "prompts")
	if r, ok := err.(*listRefused); ok {
		return nil, w.setSkip(reports.Untestable, "prompts/list failed: "+r.Error())
	}
	if err := keepTransportErr(ctx, err); err != nil {
		return nil, err
	}
	if len(lt.Items) == 0 {
		return nil, w.setSkip(reports.NA, "the server lists no prompts")
	}
	return lt.Items, nil
}

// getArgumentlessPrompt gets the fixture prompt test_simple_prompt, or else the first listed
// prompt without required arguments.
func getArgumentlessPrompt(ctx context.Context, w *world) error {
	items, err := w.listPromptsForPick(ctx)
	if err != nil {
		return err
	}
	pick := ""
	fixture := w.s.env.fixtureName("test_simple_prompt")
	for _, p := range items {
		name, ok := p["name"].(string)
		if !ok || len(requiredArgs(p)) > 0 {
			continue
		}
		if pick == "" || name == fixture {
			pick = name
		}
	}
	if pick == "" {
		return w.setSkip(reports.Untestable, `every listed prompt has required arguments (no prompt "test_simple_prompt")`)
	}
	return w.sendParams(ctx, "prompts/get", map[string]any{"name": pick}, nil, false)
}

// getPromptWithoutArgs gets the fixture prompt test_prompt_with_arguments, or else the first
// listed prompt with a required argument, with empty arguments.
func getPromptWithoutArgs(ctx context.Context, w *world) error {
	items, err := w.listPromptsForPick(ctx)
	if err != nil {
		return err
	}
	pick := ""
	fixture := w.s.env.fixtureName("test_prompt_with_arguments")
	for _, p := range items {
		name, ok := p["name"].(string)
		if !ok || len(requiredArgs(p)) == 0 {
			continue
		}
		if pick == "" || name == fixture {
			pick = name
		}
	}
	if pick == "" {
		return w.setSkip(reports.Untestable, `no listed prompt declares a required argument (no prompt "test_prompt_with_arguments")`)
	}
	return w.sendParams(ctx, "prompts/get", map[string]any{"name": pick, "arguments": map[string]any{}}, nil, false)
}

// ---------------------------------------------------------------------------------------------
// Content items: what the content rules judge, found in the server's results.

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

// contentItems walks every result the server sent in frames and returns the content items.
func contentItems(frames []*harness.Frame) []contItem {
	var out []contItem
	for _, f := range frames {
		if f.Dir != harness.DirServerToClient {
			continue
		}
		msg, err := harness.ParseMessage(f.Raw)
		if err != nil || msg.Kind != harness.KindResult {
			continue
		}
		res, ok := decodeAny(msg.Result).(map[string]any)
		if !ok {
			continue
		}
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
	}
	return out
}

func decodeAny(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// contRule judges the content items: it returns nil when the rule holds, and a Mismatch
// (expected, actual, the offending frame) otherwise; material tells whether an item bears on
// the rule at all.
type contRule struct {
	material func(contItem) bool
	none     string
	judge    func(contItem) (expected, actual string)
}

// contSweep binds expr to a run-wide rule judged over the content items of the run: na when
// nothing the server sent so far bears on it.
func contSweep(sc *godog.ScenarioContext, expr, rule string, r contRule) {
	check := func(frames []*harness.Frame) *Mismatch {
		for _, it := range contentItems(frames) {
			if !r.material(it) {
				continue
			}
			if exp, act := r.judge(it); exp != "" {
				return &Mismatch{Expected: exp, Actual: act + " at " + it.at(), Frames: []int{it.seq}}
			}
		}
		return nil
	}
	sweep := registerSweep(rule, check)
	step(sc, expr, wc(func(ctx context.Context, w *world) error {
		for _, it := range contentItems(w.s.env.framesOf(w.s.t.revision)) {
			if r.material(it) {
				return sweep(ctx)
			}
		}
		return w.setSkip(reports.NA, r.none)
	}))
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

// ---------------------------------------------------------------------------------------------
// Prompts.

// checkPromptPages (PROMPT-001): every prompts/list reply of the scenario is a result that
// validates as ListPromptsResult, each prompt with a string name and each argument with a
// string name.
func checkPromptPages(ctx context.Context, w *world) error {
	pages := 0
	for _, ex := range w.exchanges {
		if ex.Sent == nil || ex.Sent.Method != "prompts/list" {
			continue
		}
		pages++
		seqs := exchangeSeqs(ex)
		if ex.Response == nil {
			return &Mismatch{Expected: "a prompts/list result", Actual: "no response", Frames: seqs}
		}
		msg, _ := harness.ParseMessage(ex.Response.Raw)
		if msg.Kind != harness.KindResult {
			return &Mismatch{Expected: "a prompts/list result (the prompts capability is declared)", Actual: describe(msg), Frames: seqs}
		}
		if err := w.validateAt(msg.Raw, "/result", "ListPromptsResult", seqs); err != nil {
			return err
		}
		res, _ := decodeAny(msg.Result).(map[string]any)
		list, ok := res["prompts"].([]any)
		if !ok {
			return &Mismatch{Expected: "a prompts array", Actual: short(msg.Result), Frames: seqs}
		}
		for i, e := range list {
			p, _ := e.(map[string]any)
			if _, ok := p["name"].(string); !ok {
				return &Mismatch{Expected: "every prompt to have a string name", Actual: fmt.Sprintf("prompts[%d] is %s", i, jsonText(e)), Frames: seqs}
			}
			args, present := p["arguments"]
			if !present {
				continue
			}
			arr, ok := args.([]any)
			if !ok {
				return &Mismatch{Expected: "prompt arguments to be an array", Actual: fmt.Sprintf("prompts[%d].arguments is %s", i, jsonText(args)), Frames: seqs}
			}
			for j, a := range arr {
				am, _ := a.(map[string]any)
				if _, ok := am["name"].(string); !ok {
					return &Mismatch{Expected: "every prompt argument to have a string name", Actual: fmt.Sprintf("prompts[%d].arguments[%d] is %s", i, j, jsonText(a)), Frames: seqs}
				}
				if v, ok := am["required"]; ok {
					if _, isBool := v.(bool); !isBool {
						return &Mismatch{Expected: "argument required to be a boolean", Actual: fmt.Sprintf("prompts[%d].arguments[%d].required is %s", i, j, jsonText(v)), Frames: seqs}
					}
				}
			}
		}
	}
	if pages == 0 {
		return fmt.Errorf("feature bug: no prompts/list in this scenario")
	}
	return nil
}

// checkPromptResult (PROMPT-003): the last response is a GetPromptResult whose messages each
// have role user or assistant and an object content.
func checkPromptResult(ctx context.Context, w *world) error {
	msg, err := w.responseMessage()
	if err != nil {
		return err
	}
	if msg.Kind != harness.KindResult {
		return &Mismatch{Expected: "a prompts/get result", Actual: describe(msg), Frames: w.lastSeqs()}
	}
	res, _ := decodeAny(msg.Result).(map[string]any)
	if res["resultType"] == "input_required" {
		return w.setSkip(reports.Untestable, "the prompt asked for more input (input_required); the suite does not answer it here")
	}
	if err := w.validateAt(msg.Raw, "/result", "GetPromptResult", w.lastSeqs()); err != nil {
		return err
	}
	msgs, ok := res["messages"].([]any)
	if !ok {
		return &Mismatch{Expected: "a messages array", Actual: short(msg.Result), Frames: w.lastSeqs()}
	}
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		if r := mm["role"]; r != "user" && r != "assistant" {
			return &Mismatch{Expected: `every message role "user" or "assistant"`, Actual: fmt.Sprintf("messages[%d].role %s", i, jsonText(r)), Frames: w.lastSeqs()}
		}
		c, ok := mm["content"].(map[string]any)
		if t, _ := c["type"].(string); !ok || !contentTypes[t] {
			return &Mismatch{Expected: "every message to carry one content block", Actual: fmt.Sprintf("messages[%d].content %s", i, jsonText(mm["content"])), Frames: w.lastSeqs()}
		}
	}
	return nil
}

// checkPromptSetStable (PROMPT-002): the prompt list of this connection, the list after a
// prompts/get of every prompt, and the list on a fresh connection hold the same prompts
// (compared by name and definition, `_meta` aside).
func checkPromptSetStable(ctx context.Context, w *world) error {
	if !w.declares("prompts") {
		return w.setSkip(reports.NA, `the server does not declare the "prompts" capability`)
	}
	type snapshot struct {
		label string
		set   map[string]string
		seqs  []int
	}
	take := func(label string) (*snapshot, error) {
		from := len(w.exchanges)
		lt, err := w.listAll(ctx, "prompts/list", "prompts")
		if r, ok := err.(*listRefused); ok {
			return nil, w.setSkip(reports.Untestable, "prompts/list failed "+label+": "+r.Error())
		}
		if err := keepTransportErr(ctx, err); err != nil {
			return nil, err
		}
		if _, ok := err.(*Mismatch); ok {
			return nil, w.setSkip(reports.Untestable, "prompts/list "+label+" could not be followed to its end: "+err.Error())
		}
		s := &snapshot{label: label, set: map[string]string{}}
		for _, ex := range w.exchanges[from:] {
			s.seqs = append(s.seqs, exchangeSeqs(ex)...)
		}
		for _, p := range lt.Items {
			name, _ := p["name"].(string)
			def := map[string]any{}
			for k, v := range p {
				if k != "_meta" {
					def[k] = v
				}
			}
			b, _ := json.Marshal(def)
			s.set[name] = string(b)
		}
		return s, nil
	}
	first, err := take("on this connection")
	if err != nil {
		return err
	}
	if _, err := w.getEveryPrompt(ctx); err != nil {
		return err
	}
	after, err := take("after getting each prompt")
	if err != nil {
		return err
	}
	if err := freshConnection(ctx, w); err != nil {
		return err
	}
	if w.s.t.modern {
		if err := w.sendMethod(ctx, "server/discover", "", nil, nil); err != nil {
			return err
		}
	}
	fresh, err := take("on a fresh connection")
	if err != nil {
		return err
	}
	for _, s := range []*snapshot{after, fresh} {
		if diff := setDiff(first.set, s.set); diff != "" {
			return &Mismatch{Expected: "the same prompts " + s.label + " as on the first list",
				Actual: diff, Frames: append(append([]int{}, first.seqs...), s.seqs...)}
		}
	}
	return nil
}

// setDiff describes how b differs from a (missing, added and changed names), "" when equal.
func setDiff(a, b map[string]string) string {
	var missing, added, changed []string
	for k, v := range a {
		if bv, ok := b[k]; !ok {
			missing = append(missing, strconv.Quote(k))
		} else if bv != v {
			changed = append(changed, strconv.Quote(k))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			added = append(added, strconv.Quote(k))
		}
	}
	var parts []string
	for _, p := range []struct {
		label string
		names []string
	}{{"missing", missing}, {"added", added}, {"changed", changed}} {
		if len(p.names) > 0 {
			sort.Strings(p.names)
			parts = append(parts, p.label+" "+strings.Join(p.names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// placeholderArg is the value the suite gives a required prompt argument it knows nothing
// about: "x", or a valid URI (the static text fixture) for an argument named like a URI, so a
// server that echoes it back is not blamed for the suite's own input.
func placeholderArg(name string) string {
	n := strings.ToLower(name)
	if strings.Contains(n, "uri") || strings.Contains(n, "url") {
		return "test://static-text"
	}
	return "x"
}
