package steps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// maxResourceReads bounds how many listed resources one scenario reads (RES-012).
const maxResourceReads = 20

// resWorld is what the resource and completion steps of one scenario pass from their When
// steps to their Then steps.
type resWorld struct {
	// resources and templates are the items of the last traversals.
	resources []map[string]any
	templates []map[string]any
	// listings are the resource URI sets of RES-002, each with its frames.
	listings []resListing
	// reads are the resources/read exchanges of the scenario's When step.
	reads []*harness.Exchange
	// completions are the completion/complete exchanges, by reference kind.
	completions []resCompletion
}

type resListing struct {
	what   string
	uris   []string
	frames []int
}

type resCompletion struct {
	kind string
	ex   *harness.Exchange
}

// registerResSteps binds the steps of resources and completion (RES, CMPL).
func registerResSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client lists every resource$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		items, err := w.listDeclared(ctx, "resources/list", "resources")
		r.resources = items
		return err
	})
	step(sc, `^the client lists every resource template$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		items, err := w.listDeclared(ctx, "resources/templates/list", "resourceTemplates")
		r.templates = items
		return err
	})
	step(sc, `^the client lists every resource and every resource template it can$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		items, err := w.listDeclared(ctx, "resources/list", "resources")
		if err != nil {
			return err
		}
		r.resources = items
		lt, err := w.listAll(ctx, "resources/templates/list", "resourceTemplates")
		if _, refused := err.(*listRefused); err != nil && !refused {
			return err
		}
		if lt != nil && err == nil {
			r.templates = lt.Items
		}
		return nil
	})
	step(sc, `^every result in this scenario validates as "([^"]+)"$`, func(ctx context.Context, typ string) error {
		return worldOf(ctx).eachResultValidates(typ, "")
	})

	// RES-002.
	step(sc, `^the client lists the resources on a fresh connection, reads one, lists again, then lists on another fresh connection$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.listAcrossConnections(ctx, w.res)
	})
	step(sc, `^every listing named the same resources$`, func(ctx context.Context) error {
		r := worldOf(ctx).res
		for _, l := range r.listings[1:] {
			if !reflect.DeepEqual(l.uris, r.listings[0].uris) {
				return &Mismatch{Expected: "the same resource set on every connection and after a read (" + r.listings[0].what + ": " + strings.Join(r.listings[0].uris, ", ") + ")",
					Actual: l.what + ": " + strings.Join(l.uris, ", "), Frames: append(append([]int{}, r.listings[0].frames...), l.frames...)}
			}
		}
		return nil
	})

	// RES-003, RES-012.
	step(sc, `^the client reads the fixture resources, or else the first listed resource$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.readFixtureResources(ctx, w.res)
	})
	step(sc, `^the client reads every listed resource$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		if len(r.resources) == 0 {
			return w.setSkip(reports.Untestable, "the server lists no resources to read")
		}
		for i, res := range r.resources {
			if i == maxResourceReads {
				break
			}
			uri, _ := res["uri"].(string)
			if err := w.readResource(ctx, r, uri); err != nil {
				return err
			}
		}
		return nil
	})
	step(sc, `^every read got a result whose contents are text or blob items$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectReadContents(w.res)
	})
	step(sc, `^every read that returned several contents returned valid items$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectSeveralContents(w.res)
	})

	// RES-004, RES-005.
	step(sc, `^the client reads resources that do not exist$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		id := randomHex()
		uris := []string{"mcpconform://missing/" + id}
		for _, res := range r.resources {
			if u, _ := res["uri"].(string); u != "" {
				if p, err := url.Parse(u); err == nil && p.Scheme != "" && p.Scheme != "file" {
					uris = append(uris, p.Scheme+"://mcpconform-missing-"+id)
					break
				}
			}
		}
		for _, u := range uris {
			if err := w.readResource(ctx, r, u); err != nil {
				return err
			}
		}
		return nil
	})
	step(sc, `^each of those reads failed with code (-?\d+)$`, func(ctx context.Context, code int64) error {
		w := worldOf(ctx)
		return w.expectReadErrors(w.res, code)
	})
	step(sc, `^none of those reads returned an empty contents array$`, func(ctx context.Context) error {
		for _, ex := range worldOf(ctx).res.reads {
			msg := responseOf(ex)
			if msg == nil || msg.Kind != harness.KindResult {
				continue
			}
			var res struct {
				Contents []json.RawMessage `json:"contents"`
			}
			if json.Unmarshal(msg.Result, &res) == nil && res.Contents != nil && len(res.Contents) == 0 {
				return &Mismatch{Expected: "an error for " + readURI(ex) + " (it does not exist)", Actual: "a result with contents: []", Frames: exchangeSeqs(ex)}
			}
		}
		return nil
	})

	// RES-007.
	step(sc, `^every listed resource URI is an RFC 3986 URI and every template an RFC 6570 template$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		for _, res := range r.resources {
			u, _ := res["uri"].(string)
			if err := checkURI(u); err != nil {
				return &Mismatch{Expected: "resource URIs that conform to RFC 3986", Actual: fmt.Sprintf("%q: %v", u, err), Frames: w.framesOf("resources/list")}
			}
		}
		for _, t := range r.templates {
			u, _ := t["uriTemplate"].(string)
			if err := checkURITemplate(u); err != nil {
				return &Mismatch{Expected: "URI templates that conform to RFC 6570", Actual: fmt.Sprintf("%q: %v", u, err), Frames: w.framesOf("resources/templates/list")}
			}
		}
		if len(r.resources)+len(r.templates) == 0 {
			return w.setSkip(reports.Untestable, "the server lists no resources and no resource templates")
		}
		return nil
	})

	// RES-008.
	step(sc, `^the client reads malformed resource URIs$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		uris := []string{"not a uri", "://", "mcpconform://bad%zz/" + randomHex()}
		for _, t := range r.templates {
			if tpl, _ := t["uriTemplate"].(string); templateVar.MatchString(tpl) {
				uris = append(uris, fillTemplate(tpl, "%zz"), fillTemplate(tpl, "a b"))
				break
			}
		}
		for _, u := range uris {
			if err := w.readResource(ctx, r, u); err != nil {
				return err
			}
		}
		return nil
	})
	step(sc, `^each of those reads failed with an error$`, func(ctx context.Context) error {
		for _, ex := range worldOf(ctx).res.reads {
			msg := responseOf(ex)
			if msg == nil || msg.Kind != harness.KindError {
				return &Mismatch{Expected: "a JSON-RPC error for the malformed URI " + fmt.Sprintf("%q", readURI(ex)), Actual: describeExchange(ex), Frames: exchangeSeqs(ex)}
			}
		}
		return nil
	})

	// RES-009.
	step(sc, `^the client reads file URIs that climb out of a listed file resource's directory$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		var base *url.URL
		for _, res := range r.resources {
			u, _ := res["uri"].(string)
			if p, err := url.Parse(u); err == nil && strings.EqualFold(p.Scheme, "file") {
				base = p
				break
			}
		}
		if base == nil {
			return w.setSkip(reports.NA, "the server lists no file:// resources")
		}
		dir := base.EscapedPath()
		if i := strings.LastIndexByte(dir, '/'); i >= 0 {
			dir = dir[:i+1]
		}
		prefix := "file://" + base.Host
		climb := strings.Repeat("../", 12)
		for _, p := range []string{
			dir + climb + "etc/passwd",
			dir + strings.Repeat("%2e%2e/", 12) + "etc/passwd",
			dir + strings.Repeat("..%2f", 12) + "etc/passwd",
			dir + strings.Repeat("%2E%2E%2F", 12) + "etc/passwd",
			"/" + climb + "etc/passwd",
		} {
			if err := w.readResource(ctx, r, prefix+p); err != nil {
				return err
			}
		}
		return nil
	})
	step(sc, `^each of those reads failed without any contents$`, func(ctx context.Context) error {
		for _, ex := range worldOf(ctx).res.reads {
			msg := responseOf(ex)
			if msg == nil || msg.Kind != harness.KindError {
				return &Mismatch{Expected: "an error for " + readURI(ex) + ", which lies outside the served directory", Actual: describeExchange(ex), Frames: exchangeSeqs(ex)}
			}
		}
		return nil
	})

	// RES-010.
	step(sc, `^the client lists every resource template the server offers$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		r := w.res
		lt, err := w.listAll(ctx, "resources/templates/list", "resourceTemplates")
		if lr, ok := err.(*listRefused); ok {
			if msg := responseOf(w.last); msg != nil && msg.Kind == harness.KindError && msg.Error.Code == -32601 {
				return w.setSkip(reports.NA, "the server does not offer resource templates (resources/templates/list is -32601)")
			}
			return &Mismatch{Expected: "a resources/templates/list result (or -32601 when templates are not offered)", Actual: lr.Actual, Frames: lr.Frames}
		}
		if lt != nil {
			r.templates = lt.Items
		}
		return err
	})

	// CMPL.
	step(sc, `^the client requests completions for a prompt argument and a resource template variable$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.requestCompletions(ctx, w.res)
	})
	step(sc, `^every completion result carries at most 100 string values, an integer total and a boolean hasMore$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectCompletionShape(w.res)
	})
	step(sc, `^every completion result that has fewer values than its total says hasMore$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.expectHasMore(w.res)
	})
	step(sc, `^every completion request got a result$`, func(ctx context.Context) error {
		for _, c := range worldOf(ctx).res.completions {
			if msg := responseOf(c.ex); msg == nil || msg.Kind != harness.KindResult {
				return &Mismatch{Expected: "a completion result for a " + c.kind + " reference", Actual: describeExchange(c.ex), Frames: exchangeSeqs(c.ex)}
			}
		}
		return nil
	})
	step(sc, `^the client requests completions for a prompt that does not exist$`, func(ctx context.Context) error {
		w := worldOf(ctx)
		return w.send(ctx, w.stateRequest("completion/complete", map[string]any{
			"ref":      map[string]any{"type": "ref/prompt", "name": "mcpconform_missing_" + randomHex()},
			"argument": map[string]any{"name": "arg", "value": ""},
		}, nil))
	})
	step(sc, `^the server does not declare the "([^"]+)" capability$`, func(ctx context.Context, name string) error {
		w := worldOf(ctx)
		if _, ok := w.s.t.caps[name]; ok {
			return w.setSkip(reports.NA, fmt.Sprintf("the server declares the %q capability", name))
		}
		return nil
	})
	step(sc, `^the client requests completions for the first prompt argument or template variable it lists$`, wc(func(ctx context.Context, w *world) error {
		ref, arg, err := w.completionTarget(ctx)
		if err != nil {
			return err
		}
		return w.send(ctx, w.stateRequest("completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": arg, "value": ""}}, nil))
	}))
}

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// fillTemplate replaces every expression of an RFC 6570 template with value, unencoded.
func fillTemplate(tpl, value string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		j := strings.IndexByte(tpl, '}')
		if i < 0 || j < i {
			b.WriteString(tpl)
			return b.String()
		}
		b.WriteString(tpl[:i])
		b.WriteString(value)
		tpl = tpl[j+1:]
	}
}

// listDeclared traverses a list of the declared resources capability; a refusal is a
// Mismatch (a declared capability answers its list requests).
func (w *world) listDeclared(ctx context.Context, method, member string) ([]map[string]any, error) {
	lt, err := w.listAll(ctx, method, member)
	if lr, ok := err.(*listRefused); ok {
		return nil, &Mismatch{Expected: "a " + method + " result (the resources capability is declared)", Actual: lr.Actual, Frames: lr.Frames}
	}
	if err != nil {
		return nil, err
	}
	return lt.Items, nil
}

// eachResultValidates validates the result of every exchange of the scenario (whose method is
// method, when set) against typ.
func (w *world) eachResultValidates(typ, method string) error {
	n := 0
	for _, ex := range w.exchanges {
		msg := responseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult || (method != "" && ex.Sent.Method != method) {
			continue
		}
		n++
		if err := w.validateAt(msg.Raw, "/result", typ, exchangeSeqs(ex)); err != nil {
			if m, ok := err.(*Mismatch); ok {
				m.Actual = "response to " + ex.Sent.Method + ": " + m.Actual
			}
			return err
		}
	}
	if n == 0 {
		return &Mismatch{Expected: "at least one result", Actual: "no result in this scenario", Frames: w.lastSeqs()}
	}
	return nil
}

// framesOf returns the frames of the scenario's exchanges of method.
func (w *world) framesOf(method string) []int {
	var out []int
	for _, ex := range w.exchanges {
		if ex.Sent != nil && ex.Sent.Method == method {
			out = append(out, exchangeSeqs(ex)...)
		}
	}
	return out
}

func (w *world) readResource(ctx context.Context, r *resWorld, uri string) error {
	req := w.stateRequest("resources/read", map[string]any{"uri": uri}, nil)
	// Malformed URIs (RES-008) are invalid by the schema's uri format on purpose.
	req.Intentional = checkURI(uri) != nil
	if err := w.send(ctx, req); err != nil {
		return err
	}
	r.reads = append(r.reads, w.last)
	return nil
}

// readURI is the uri param of a resources/read exchange.
func readURI(ex *harness.Exchange) string {
	var req struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if ex.Sent != nil {
		_ = json.Unmarshal(ex.Sent.Raw, &req)
	}
	return fmt.Sprintf("%q", req.Params.URI)
}

func (w *world) listAcrossConnections(ctx context.Context, r *resWorld) error {
	list := func(what string) error {
		items, err := w.listDeclared(ctx, "resources/list", "resources")
		if err != nil {
			return err
		}
		var uris []string
		for _, it := range items {
			u, _ := it["uri"].(string)
			uris = append(uris, u)
		}
		sort.Strings(uris)
		r.listings = append(r.listings, resListing{what: what, uris: uris, frames: w.lastSeqs()})
		if r.resources == nil {
			r.resources = items
		}
		return nil
	}
	if err := freshConnection(ctx, w); err != nil {
		return err
	}
	if err := list("first connection"); err != nil {
		return err
	}
	if len(r.resources) > 0 {
		uri, _ := r.resources[0]["uri"].(string)
		if err := w.readResource(ctx, r, uri); err != nil {
			return err
		}
	}
	if err := list("first connection after a read"); err != nil {
		return err
	}
	if err := freshConnection(ctx, w); err != nil {
		return err
	}
	return list("second connection")
}

func (w *world) readFixtureResources(ctx context.Context, r *resWorld) error {
	listed := map[string]bool{}
	for _, res := range r.resources {
		if u, _ := res["uri"].(string); u != "" {
			listed[u] = true
		}
	}
	var uris []string
	for _, f := range []string{"test://static-text", "test://static-binary"} {
		if u := w.s.env.fixtureName(f); listed[u] {
			uris = append(uris, u)
		}
	}
	if len(uris) == 0 {
		if len(r.resources) == 0 {
			return w.setSkip(reports.Untestable, `the server lists no resources (fixtures "test://static-text", "test://static-binary")`)
		}
		u, _ := r.resources[0]["uri"].(string)
		uris = []string{u}
	}
	for _, u := range uris {
		if err := w.readResource(ctx, r, u); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) expectReadContents(r *resWorld) error {
	for _, ex := range r.reads {
		msg := responseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &Mismatch{Expected: "a resources/read result for the listed resource " + readURI(ex), Actual: describeExchange(ex), Frames: exchangeSeqs(ex)}
		}
		if err := w.validateAt(msg.Raw, "/result", "ReadResourceResult", exchangeSeqs(ex)); err != nil {
			return err
		}
		if err := w.validateContents(msg, ex); err != nil {
			return err
		}
	}
	return nil
}

// validateContents checks every contents item: a TextResourceContents or a
// BlobResourceContents, never both text and blob.
func (w *world) validateContents(msg *harness.Message, ex *harness.Exchange) error {
	var res struct {
		Contents []map[string]json.RawMessage `json:"contents"`
	}
	_ = json.Unmarshal(msg.Result, &res)
	for i, c := range res.Contents {
		_, text := c["text"]
		_, blob := c["blob"]
		typ := "TextResourceContents"
		switch {
		case text && blob:
			return &Mismatch{Expected: "each contents item to be text or blob", Actual: fmt.Sprintf("item %d of %s has both", i, readURI(ex)), Frames: exchangeSeqs(ex)}
		case blob:
			typ = "BlobResourceContents"
		}
		if err := w.validateAt(msg.Raw, fmt.Sprintf("/result/contents/%d", i), typ, exchangeSeqs(ex)); err != nil {
			return err
		}
		var uri string
		_ = json.Unmarshal(c["uri"], &uri)
		if err := checkURI(uri); err != nil {
			return &Mismatch{Expected: "each contents item's uri to be a URI", Actual: fmt.Sprintf("item %d: %q: %v", i, uri, err), Frames: exchangeSeqs(ex)}
		}
	}
	return nil
}

func (w *world) expectSeveralContents(r *resWorld) error {
	for _, ex := range r.reads {
		msg := responseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			continue
		}
		var res struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(msg.Result, &res) != nil || len(res.Contents) < 2 {
			continue
		}
		if err := w.validateContents(msg, ex); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) expectReadErrors(r *resWorld, code int64) error {
	for _, ex := range r.reads {
		msg := responseOf(ex)
		want := fmt.Sprintf("error %d for %s (no such resource)", code, readURI(ex))
		if msg == nil || msg.Kind != harness.KindError || msg.Error.Code != code {
			return &Mismatch{Expected: want, Actual: describeExchange(ex), Frames: exchangeSeqs(ex)}
		}
	}
	return nil
}

// requestCompletions sends completion/complete with an empty value for a prompt argument
// (test_prompt_with_arguments, else the first listed prompt with arguments) and for a template
// variable (test://template/{id}/data, else the first listed template with a variable).
func (w *world) requestCompletions(ctx context.Context, r *resWorld) error {
	var refs []struct {
		kind string
		ref  map[string]any
		arg  string
	}
	if lt, err := w.listAll(ctx, "prompts/list", "prompts"); err == nil {
		want := w.s.env.fixtureName("test_prompt_with_arguments")
		var pick map[string]any
		for _, p := range lt.Items {
			args, _ := p["arguments"].([]any)
			if len(args) == 0 {
				continue
			}
			if pick == nil || p["name"] == want {
				pick = p
			}
		}
		if pick != nil {
			arg, _ := pick["arguments"].([]any)[0].(map[string]any)
			name, _ := arg["name"].(string)
			refs = append(refs, struct {
				kind string
				ref  map[string]any
				arg  string
			}{"ref/prompt", map[string]any{"type": "ref/prompt", "name": pick["name"]}, name})
		}
	}
	if lt, err := w.listAll(ctx, "resources/templates/list", "resourceTemplates"); err == nil {
		want := w.s.env.fixtureName("test://template/{id}/data")
		var pick string
		for _, t := range lt.Items {
			tpl, _ := t["uriTemplate"].(string)
			if !templateVar.MatchString(tpl) {
				continue
			}
			if pick == "" || tpl == want {
				pick = tpl
			}
		}
		if pick != "" {
			refs = append(refs, struct {
				kind string
				ref  map[string]any
				arg  string
			}{"ref/resource", map[string]any{"type": "ref/resource", "uri": pick}, templateVar.FindStringSubmatch(pick)[1]})
		}
	}
	if len(refs) == 0 {
		return w.setSkip(reports.Untestable, `the server lists no prompt with arguments and no resource template with a variable (fixtures "test_prompt_with_arguments", "test://template/{id}/data")`)
	}
	for _, c := range refs {
		if err := w.send(ctx, w.stateRequest("completion/complete", map[string]any{"ref": c.ref, "argument": map[string]any{"name": c.arg, "value": ""}}, nil)); err != nil {
			return err
		}
		r.completions = append(r.completions, resCompletion{kind: c.kind, ex: w.last})
	}
	return nil
}

// completionResults returns the completion objects of the scenario's completion results.
func completionResults(r *resWorld) (out []map[string]json.RawMessage, exs []*harness.Exchange) {
	for _, c := range r.completions {
		msg := responseOf(c.ex)
		if msg == nil || msg.Kind != harness.KindResult {
			continue
		}
		var res struct {
			Completion map[string]json.RawMessage `json:"completion"`
		}
		_ = json.Unmarshal(msg.Result, &res)
		out = append(out, res.Completion)
		exs = append(exs, c.ex)
	}
	return out, exs
}

func (w *world) expectCompletionShape(r *resWorld) error {
	comps, exs := completionResults(r)
	if len(comps) == 0 {
		return w.setSkip(reports.Untestable, "no completion request got a result to judge (see CMPL-005)")
	}
	for i, c := range comps {
		ex := exs[i]
		if err := w.validateAt(ex.Response.Raw, "/result", "CompleteResult", exchangeSeqs(ex)); err != nil {
			return err
		}
		var values []any
		if err := json.Unmarshal(c["values"], &values); err != nil || values == nil {
			return &Mismatch{Expected: "completion.values to be an array", Actual: short(c["values"]), Frames: exchangeSeqs(ex)}
		}
		for _, v := range values {
			if _, ok := v.(string); !ok {
				return &Mismatch{Expected: "completion.values to hold strings", Actual: jsonText(v), Frames: exchangeSeqs(ex)}
			}
		}
		if len(values) > 100 {
			return &Mismatch{Expected: "at most 100 completion values", Actual: fmt.Sprintf("%d values", len(values)), Frames: exchangeSeqs(ex)}
		}
		if raw, ok := c["total"]; ok {
			var n json.Number
			if d := json.NewDecoder(strings.NewReader(string(raw))); d.Decode(&n) != nil || strings.ContainsAny(n.String(), ".eE") {
				return &Mismatch{Expected: "completion.total to be an integer", Actual: short(raw), Frames: exchangeSeqs(ex)}
			}
		}
		if raw, ok := c["hasMore"]; ok {
			if s := strings.TrimSpace(string(raw)); s != "true" && s != "false" {
				return &Mismatch{Expected: "completion.hasMore to be a boolean", Actual: short(raw), Frames: exchangeSeqs(ex)}
			}
		}
	}
	return nil
}

func (w *world) expectHasMore(r *resWorld) error {
	comps, exs := completionResults(r)
	if len(comps) == 0 {
		return w.setSkip(reports.Untestable, "no completion request got a result to judge (see CMPL-005)")
	}
	for i, c := range comps {
		var values []json.RawMessage
		var total *int64
		var hasMore bool
		_ = json.Unmarshal(c["values"], &values)
		_ = json.Unmarshal(c["total"], &total)
		_ = json.Unmarshal(c["hasMore"], &hasMore)
		if total == nil {
			continue
		}
		switch {
		case *total < int64(len(values)):
			return &Mismatch{Expected: "completion.total to count at least the values returned", Actual: fmt.Sprintf("total %d with %d values", *total, len(values)), Frames: exchangeSeqs(exs[i])}
		case *total > int64(len(values)) && !hasMore:
			return &Mismatch{Expected: "hasMore: true when total exceeds the values returned", Actual: fmt.Sprintf("total %d, %d values, hasMore %s", *total, len(values), orAbsent(c["hasMore"])), Frames: exchangeSeqs(exs[i])}
		}
	}
	return nil
}

func orAbsent(raw json.RawMessage) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}
