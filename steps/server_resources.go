package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-resources", registerServerResourcesSteps) }

// registerServerResourcesSteps binds the steps that only features/server-resources.feature uses.
func registerServerResourcesSteps(sc *godog.ScenarioContext) {
	step(sc, `^the client lists every resource$`, listsEveryResource)
	// No feature file uses this step at present; it stays bound, next to its siblings.
	step(sc, `^the client lists every resource template$`, listsEveryResourceTemplate)
	step(sc, `^the client lists every resource and every resource template it can$`, listsEveryResourceEvery)
	step(sc, `^every result in this scenario validates as "([^"]+)"$`, func(ctx context.Context, typ string) error {
		return WorldOf(ctx).eachResultValidates(typ, "")
	})

	// RES-002.
	step(sc, `^the client lists the resources on a fresh connection, reads one, lists again, then lists on another fresh connection$`, listsResourcesFreshConnection)
	step(sc, `^every listing named the same resources$`, everyListingNamedSame)

	// RES-003, RES-012.
	step(sc, `^the client reads the fixture resources, or else the first listed resource$`, readsFixtureResourcesElse)
	step(sc, `^the client reads every listed resource$`, readsEveryListedResource)
	step(sc, `^every read got a result whose contents are text or blob items$`, everyReadGotResult)
	step(sc, `^every read that returned several contents returned valid items$`, everyReadReturnedSeveral)

	// RES-004, RES-005.
	step(sc, `^the client reads resources that do not exist$`, readsResourcesDoNot)
	step(sc, `^each of those reads failed with code (-?\d+)$`, eachThoseReadsFailed)
	step(sc, `^none of those reads returned an empty contents array$`, noneThoseReadsReturned)

	// RES-007.
	step(sc, `^every listed resource URI is an RFC 3986 URI and every template an RFC 6570 template$`, everyListedResourceURI)

	// RES-008.
	step(sc, `^the client reads malformed resource URIs$`, readsMalformedResourceURIs)
	step(sc, `^each of those reads failed with an error$`, wc(eachThoseReadsFailedError))

	// RES-009.
	step(sc, `^the client reads file URIs that climb out of a listed file resource's directory$`, readsFileURIsClimb)
	step(sc, `^each of those reads failed without any contents$`, eachThoseReadsFailedWithout)

	// RES-010.
	step(sc, `^the client lists every resource template the server offers$`, listsEveryResourceTemplateOffers)
}

func listsEveryResource(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	items, err := w.listDeclared(ctx, "resources/list", "resources")
	r.resources = items
	return err
}

func listsEveryResourceTemplate(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	items, err := w.listDeclared(ctx, "resources/templates/list", "resourceTemplates")
	r.templates = items
	return err
}

func listsEveryResourceEvery(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	items, err := w.listDeclared(ctx, "resources/list", "resources")
	if err != nil {
		return err
	}
	r.resources = items
	lt, err := w.ListAll(ctx, "resources/templates/list", "resourceTemplates")
	if _, refused := err.(*client.ListRefused); err != nil && !refused {
		return err
	}
	if lt != nil && err == nil {
		r.templates = lt.Items
	}
	return nil
}

func listsResourcesFreshConnection(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.listAcrossConnections(ctx, resOf(w))
}

func everyListingNamedSame(ctx context.Context) error {
	r := resOf(WorldOf(ctx))
	for _, l := range r.listings[1:] {
		if !reflect.DeepEqual(l.uris, r.listings[0].uris) {
			return &client.Mismatch{Expected: "the same resource set on every connection and after a read (" + r.listings[0].what + ": " + strings.Join(r.listings[0].uris, ", ") + ")",
				Actual: l.what + ": " + strings.Join(l.uris, ", "), Frames: append(append([]int{}, r.listings[0].frames...), l.frames...)}
		}
	}
	return nil
}

func readsFixtureResourcesElse(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.readFixtureResources(ctx, resOf(w))
}

func readsEveryListedResource(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	if len(r.resources) == 0 {
		return w.SetSkip(reports.Untestable, "the server lists no resources to read")
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
}

func everyReadGotResult(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectReadContents(resOf(w))
}

func everyReadReturnedSeveral(ctx context.Context) error {
	w := WorldOf(ctx)
	return w.expectSeveralContents(resOf(w))
}

func readsResourcesDoNot(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
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
}

func eachThoseReadsFailed(ctx context.Context, code int64) error {
	w := WorldOf(ctx)
	return w.expectReadErrors(resOf(w), code)
}

// emptyContents reports whether msg is a resources/read result with an empty contents array.
func emptyContents(msg *harness.Message) bool {
	if msg == nil || msg.Kind != harness.KindResult {
		return false
	}
	var res struct {
		Contents []json.RawMessage `json:"contents"`
	}
	return json.Unmarshal(msg.Result, &res) == nil && res.Contents != nil && len(res.Contents) == 0
}

func noneThoseReadsReturned(ctx context.Context) error {
	for _, ex := range resOf(WorldOf(ctx)).reads {
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			continue
		}
		var res struct {
			Contents []json.RawMessage `json:"contents"`
		}
		if json.Unmarshal(msg.Result, &res) == nil && res.Contents != nil && len(res.Contents) == 0 {
			return &client.Mismatch{Expected: "an error for " + readURI(ex) + " (it does not exist)", Actual: "a result with contents: []", Frames: checks.ExchangeSeqs(ex)}
		}
	}
	return nil
}

func everyListedResourceURI(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	for _, res := range r.resources {
		u, _ := res["uri"].(string)
		if err := checks.CheckURI(u); err != nil {
			return &client.Mismatch{Expected: "resource URIs that conform to RFC 3986", Actual: fmt.Sprintf("%q: %v", u, err), Frames: w.framesOf("resources/list")}
		}
	}
	for _, t := range r.templates {
		u, _ := t["uriTemplate"].(string)
		if err := checks.CheckURITemplate(u); err != nil {
			return &client.Mismatch{Expected: "URI templates that conform to RFC 6570", Actual: fmt.Sprintf("%q: %v", u, err), Frames: w.framesOf("resources/templates/list")}
		}
	}
	if len(r.resources)+len(r.templates) == 0 {
		return w.SetSkip(reports.Untestable, "the server lists no resources and no resource templates")
	}
	return nil
}

func readsMalformedResourceURIs(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
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
}

// eachThoseReadsFailedError is RES-008: server/resources#Security Considerations, "Servers
// MUST validate all resource URIs", a resource being identified by an RFC 3986 URI. No probe is
// an RFC 3986 URI, and a result to one fails, with one exception: a probe whose only defect is
// characters RFC 3986 does not allow (the template filled with "a b"), served under that URI
// with those characters percent-encoded ("a%20b", as WHATWG URL parsers repair it), shows a
// server that validated the URI by repairing it; the spec does not say whether validation
// refuses or repairs, so that is info. A malformed percent-escape ("%zz") or a missing scheme
// has no such repair.
func eachThoseReadsFailedError(ctx context.Context, w *World) error {
	var repaired *client.Mismatch
	for _, ex := range resOf(w).reads {
		msg := client.ResponseOf(ex)
		if msg != nil && msg.Kind == harness.KindError {
			continue
		}
		m := &client.Mismatch{Expected: "a JSON-RPC error for the malformed URI " + readURI(ex), Actual: client.DescribeExchange(ex), Frames: checks.ExchangeSeqs(ex)}
		if uri := repairedURI(ex, msg); uri != "" {
			if repaired == nil {
				m.Grade = reports.Info
				m.Actual += fmt.Sprintf("; its contents name %q, the URI percent-encoded: the server repaired the URI it was sent", uri)
				repaired = m
			}
			continue
		}
		return m
	}
	if repaired != nil {
		return repaired
	}
	return nil
}

// repairedURI returns the URI read by ex with the characters RFC 3986 does not allow
// percent-encoded, when that is a valid URI and every content of msg, a result, names it; ""
// otherwise (no result, no contents, a content under another URI, no valid repair).
func repairedURI(ex *harness.Exchange, msg *harness.Message) string {
	var req struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if ex.Sent == nil || json.Unmarshal(ex.Sent.Raw, &req) != nil || msg == nil || msg.Kind != harness.KindResult {
		return ""
	}
	var b strings.Builder
	for _, c := range []byte(req.Params.URI) {
		if c <= 0x20 || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	uri := b.String()
	if uri == req.Params.URI || checks.CheckURI(uri) != nil {
		return ""
	}
	var res struct {
		Contents []struct {
			URI *string `json:"uri"`
		} `json:"contents"`
	}
	if json.Unmarshal(msg.Result, &res) != nil || len(res.Contents) == 0 {
		return ""
	}
	for _, c := range res.Contents {
		if c.URI == nil || *c.URI != uri {
			return ""
		}
	}
	return uri
}

func readsFileURIsClimb(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	var base *url.URL
	for _, res := range r.resources {
		u, _ := res["uri"].(string)
		if p, err := url.Parse(u); err == nil && strings.EqualFold(p.Scheme, "file") {
			base = p
			break
		}
	}
	if base == nil {
		return w.SetSkip(reports.NA, "the server lists no file:// resources")
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
}

func eachThoseReadsFailedWithout(ctx context.Context) error {
	w := WorldOf(ctx)
	for _, ex := range resOf(w).reads {
		msg := client.ResponseOf(ex)
		if emptyContents(msg) {
			// Nothing outside the directory was served; the empty result is RES-005's defect.
			return w.SetSkip(reports.Untestable, fmt.Sprintf("%s got a result with contents: [], which RES-005 judges", readURI(ex)))
		}
		if msg == nil || msg.Kind != harness.KindError {
			return &client.Mismatch{Expected: "an error for " + readURI(ex) + ", which lies outside the served directory", Actual: client.DescribeExchange(ex), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	return nil
}

func listsEveryResourceTemplateOffers(ctx context.Context) error {
	w := WorldOf(ctx)
	r := resOf(w)
	lt, err := w.ListAll(ctx, "resources/templates/list", "resourceTemplates")
	if lr, ok := err.(*client.ListRefused); ok {
		if msg := client.ResponseOf(w.Last); msg != nil && msg.Kind == harness.KindError && msg.Error.Code == -32601 {
			return w.SetSkip(reports.NA, "the server does not offer resource templates (resources/templates/list is -32601)")
		}
		if w.Last != nil {
			for _, f := range w.Last.Frames {
				if harness.IsBatchReply(f.Raw) {
					return w.SetSkip(reports.Untestable, "the application/json reply to resources/templates/list is a JSON array, not one response object, which HTTP-005 judges")
				}
			}
		}
		return &client.Mismatch{Expected: "a resources/templates/list result (or -32601 when templates are not offered)", Actual: lr.Actual, Frames: lr.Frames}
	}
	if lt != nil {
		r.templates = lt.Items
	}
	return err
}

// maxResourceReads bounds how many listed resources one scenario reads (RES-012).
const maxResourceReads = 20

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
func (w *World) listDeclared(ctx context.Context, method, member string) ([]map[string]any, error) {
	lt, err := w.ListAll(ctx, method, member)
	if lr, ok := err.(*client.ListRefused); ok {
		return nil, &client.Mismatch{Expected: "a " + method + " result (the resources capability is declared)", Actual: lr.Actual, Frames: lr.Frames}
	}
	if err != nil {
		return nil, err
	}
	return lt.Items, nil
}

// eachResultValidates validates the result of every exchange of the scenario (whose method is
// method, when set) against typ.
func (w *World) eachResultValidates(typ, method string) error {
	n := 0
	for _, ex := range w.Exchanges {
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult || (method != "" && ex.Sent.Method != method) {
			continue
		}
		n++
		if err := w.validateAt(msg.Raw, "/result", typ, checks.ExchangeSeqs(ex)); err != nil {
			if m, ok := err.(*client.Mismatch); ok {
				m.Actual = "response to " + client.SentMethod(ex) + ": " + m.Actual
			}
			return err
		}
	}
	if n == 0 {
		return &client.Mismatch{Expected: "at least one result", Actual: "no result in this scenario", Frames: w.LastSeqs()}
	}
	return nil
}

// framesOf returns the frames of the scenario's exchanges of method.
func (w *World) framesOf(method string) []int {
	var out []int
	for _, ex := range w.Exchanges {
		if ex.Sent != nil && ex.Sent.Method == method {
			out = append(out, checks.ExchangeSeqs(ex)...)
		}
	}
	return out
}

func (w *World) readResource(ctx context.Context, r *resWorld, uri string) error {
	req := w.StateRequest("resources/read", map[string]any{"uri": uri}, nil)
	// Malformed URIs (RES-008) are invalid by the schema's uri format on purpose.
	req.Intentional = checks.CheckURI(uri) != nil
	if err := w.Send(ctx, req); err != nil {
		return err
	}
	r.reads = append(r.reads, w.Last)
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

func (w *World) listAcrossConnections(ctx context.Context, r *resWorld) error {
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
		r.listings = append(r.listings, resListing{what: what, uris: uris, frames: w.LastSeqs()})
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

func (w *World) readFixtureResources(ctx context.Context, r *resWorld) error {
	listed := map[string]bool{}
	for _, res := range r.resources {
		if u, _ := res["uri"].(string); u != "" {
			listed[u] = true
		}
	}
	var uris []string
	for _, f := range []string{"test://static-text", "test://static-binary"} {
		if u := w.Opts.FixtureName(f); listed[u] {
			uris = append(uris, u)
		}
	}
	if len(uris) == 0 {
		if len(r.resources) == 0 {
			return w.SetSkip(reports.Untestable, `the server lists no resources (fixtures "test://static-text", "test://static-binary")`)
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

func (w *World) expectReadContents(r *resWorld) error {
	for _, ex := range r.reads {
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &client.Mismatch{Expected: "a resources/read result for the listed resource " + readURI(ex), Actual: client.DescribeExchange(ex), Frames: checks.ExchangeSeqs(ex)}
		}
		if err := w.validateAt(msg.Raw, "/result", "ReadResourceResult", checks.ExchangeSeqs(ex)); err != nil {
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
func (w *World) validateContents(msg *harness.Message, ex *harness.Exchange) error {
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
			return &client.Mismatch{Expected: "each contents item to be text or blob", Actual: fmt.Sprintf("item %d of %s has both", i, readURI(ex)), Frames: checks.ExchangeSeqs(ex)}
		case blob:
			typ = "BlobResourceContents"
		}
		if err := w.validateAt(msg.Raw, fmt.Sprintf("/result/contents/%d", i), typ, checks.ExchangeSeqs(ex)); err != nil {
			return err
		}
		var uri string
		_ = json.Unmarshal(c["uri"], &uri)
		if err := checks.CheckURI(uri); err != nil {
			return &client.Mismatch{Expected: "each contents item's uri to be a URI", Actual: fmt.Sprintf("item %d: %q: %v", i, uri, err), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	return nil
}

func (w *World) expectSeveralContents(r *resWorld) error {
	for _, ex := range r.reads {
		msg := client.ResponseOf(ex)
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

func (w *World) expectReadErrors(r *resWorld, code int64) error {
	for _, ex := range r.reads {
		msg := client.ResponseOf(ex)
		want := fmt.Sprintf("error %d for %s (no such resource)", code, readURI(ex))
		if msg == nil || msg.Kind != harness.KindError || msg.Error.Code != code {
			if err := w.codeDefect(msg, code, want); err != nil {
				return err
			}
			if emptyContents(msg) && w.Target.Modern {
				return w.SetSkip(reports.Untestable, fmt.Sprintf("%s got a result with contents: [], which RES-005 judges", readURI(ex)))
			}
			return &client.Mismatch{Expected: want, Actual: client.DescribeExchange(ex), Frames: checks.ExchangeSeqs(ex)}
		}
	}
	return nil
}
