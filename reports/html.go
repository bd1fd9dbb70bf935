package reports

import (
	"bufio"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcp-conform/mcp-conform/revisions"
)

//go:embed html/report.html.tmpl html/report.css html/report.js
var htmlAssets embed.FS

// Limits that keep the HTML page usable on large runs (README "results.json" holds them whole).
const (
	// htmlMaxFrameBytes is the longest frame text shown in a card; longer frames are shown
	// clipped, unformatted, with the number of bytes left out.
	htmlMaxFrameBytes = 256 << 10
	// htmlMaxJSONDepth is the deepest nesting that is pretty-printed; deeper frames are shown raw
	// (indentation would grow quadratically).
	htmlMaxJSONDepth = 64
)

// htmlReport holds the parsed template, the inline stylesheet and script, and the
// Content-Security-Policy that admits exactly those two blocks by hash.
type htmlReport struct {
	tmpl *template.Template
	css  template.CSS
	js   template.JS
	csp  string
}

var htmlPage = mustHTMLReport()

func mustHTMLReport() htmlReport {
	read := func(name string) string {
		b, err := htmlAssets.ReadFile("html/" + name)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	css, js := read("report.css"), read("report.js")
	tmpl := template.Must(template.New("report").Parse(read("report.html.tmpl")))
	return htmlReport{
		tmpl: tmpl,
		css:  template.CSS(css),
		js:   template.JS(js),
		csp: "default-src 'none'; style-src " + cspHash(css) + "; script-src " + cspHash(js) +
			"; img-src data:; base-uri 'none'; form-action 'none'",
	}
}

// cspHash is the CSP source expression that admits an inline block whose text is exactly s.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// WriteHTML writes r as one self-contained HTML page (inline stylesheet and script, no remote
// asset, a Content-Security-Policy that admits nothing from elsewhere): first the failing rules
// (MUST rules with a fail card, then SHOULD rules with a warn card; the first htmlFirstFailures
// with their reasons and links to their cards, the rest after the headline), then the run's
// header, the headline rates, a matrix of rules by (revision, transport) grouped by spec page,
// and a card per result with its steps, expected and actual values, schema errors and frames.
// The verdict filter starts with pass and na unchecked (see defaultHidden); the markup itself
// hides nothing, so without JavaScript every card is shown. Every string taken from r is
// escaped by html/template, so a hostile server's output stays text. Like the other writers it
// calls r.Finalize first; the page is rendered from r alone.
//
// Anchors: the first card of a rule can be reached at #rule-<id> (the id of the rule's
// section), and every card at #rule-<id>--<revision>-<transport>; characters other than ASCII
// letters, digits, '.', '_' and '-' are replaced by '_', and a repeated anchor gets a "~N"
// suffix, so every id in the page is unique.
func WriteHTML(w io.Writer, r *Run) error {
	r.Finalize()
	cw := &controlsWriter{w: bufio.NewWriterSize(w, 64<<10)}
	if err := htmlPage.tmpl.Execute(cw, buildPage(r)); err != nil {
		return err
	}
	return cw.Close()
}

// controlsWriter passes the page through to w as it is rendered, writing the invisible
// characters a server may send as visible escapes: bidirectional overrides and isolates (which
// would make text read backwards, U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) as
// \uXXXX, and C0 control characters other than tab, newline and carriage return as \xNN. The
// template itself uses none of them, so only server-supplied text changes. Every other byte,
// invalid UTF-8 included, is written as is; a rune split across two writes is held back until
// it is whole. Streaming keeps a large report from being held in memory several times over.
type controlsWriter struct {
	w    *bufio.Writer
	tail []byte // the start of a rune the last write ended in
	err  error
}

func (c *controlsWriter) Write(p []byte) (int, error) {
	n := len(p)
	if c.err != nil {
		return 0, c.err
	}
	if len(c.tail) > 0 {
		p = append(c.tail, p...)
		c.tail = nil
	}
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 && !utf8.FullRune(p[i:]) {
			c.tail = append([]byte(nil), p[i:]...)
			break
		}
		switch {
		case !hiddenControl(r):
			_, c.err = c.w.Write(p[i : i+size])
		case r < 0x20 || r == 0x7f:
			_, c.err = fmt.Fprintf(c.w, "\\x%02x", r)
		default:
			_, c.err = fmt.Fprintf(c.w, "\\u%04x", r)
		}
		if c.err != nil {
			return 0, c.err
		}
		i += size
	}
	return n, nil
}

// Close writes what is held back (an incomplete rune at the very end, as is) and flushes.
func (c *controlsWriter) Close() error {
	if c.err != nil {
		return c.err
	}
	if len(c.tail) > 0 {
		if _, err := c.w.Write(c.tail); err != nil {
			return err
		}
		c.tail = nil
	}
	return c.w.Flush()
}

func hiddenControl(c rune) bool {
	switch {
	case c == '\t' || c == '\n' || c == '\r':
		return false
	case c < 0x20 || c == 0x7f:
		return true
	case c >= 0x202a && c <= 0x202e, c >= 0x2066 && c <= 0x2069, c == 0x200e, c == 0x200f, c == 0x061c:
		return true
	}
	return false
}

// verdictMeaning defines each verdict for the legend (README "Verdicts and exit codes").
var verdictMeaning = map[Verdict]string{
	Pass:       "the rule held",
	Fail:       "a MUST or MUST NOT was broken",
	Warn:       "a SHOULD or SHOULD NOT was broken",
	Info:       "an observation (MAY behaviour); never fails a run",
	NA:         "not applicable: another revision or transport, or a capability the server does not declare",
	Untestable: "needs a fixture or a permission the run does not have",
	Error:      "mcp-conform could not carry out the check (not a verdict on the server)",
	XFail:      "a failure covered by the baseline of known failures",
	NotRun:     "not run: the run stopped (interrupt, run timeout) before the rule was judged",
}

// judged reports whether v is a verdict on the server's behaviour (the rule was run).
func judged(v Verdict) bool {
	switch v {
	case Pass, Fail, Warn, Info, XFail:
		return true
	}
	return false
}

// problem reports whether a card of verdict v opens its details by default.
func problem(v Verdict) bool {
	switch v {
	case Fail, Warn, Error, XFail, Untestable, NotRun:
		return true
	}
	return false
}

type pageView struct {
	Title      string
	CSP        string
	CSS        template.CSS
	JS         template.JS
	Tool       Tool
	Target     targetView
	Server     *Server
	Revisions  string
	Transports string
	Pins       []pinView
	Started    string
	Duration   string
	Notes      []string
	Aborted    string
	Failing    failingView
	Stale      []BaselineEntry
	Must       rateView
	Should     rateView
	Coverage   coverageView
	Verdicts   []verdictView
	Areas      []areaView
	Columns    []columnView
	ColSpan    int
	Features   []featureView
	Total      int
	StderrTail string
}

type targetView struct {
	Transport   string
	Command     string
	URL         string
	HeaderNames string
}

type pinView struct {
	Revision, Commit, SHA256 string
}

type rateView struct {
	Num, Den int
	Pct      string
	Value    string
}

type coverageView struct {
	rateView
	Untestable, Error, NA int
	NotRun                int
}

type verdictView struct {
	Verdict Verdict
	Count   int
	Meaning string
	Hidden  bool // unchecked in the filter bar when the page opens
}

type areaView struct {
	Area  string
	Count int
}

type columnView struct {
	Revision, Transport string
}

type featureView struct {
	Name   string
	Anchor string
	Rules  []*ruleView
}

type ruleView struct {
	ID       string
	Anchor   string
	Area     string
	Title    string
	Verdicts string
	Cells    []cellView
	Cards    []cardView
}

type cellView struct {
	Verdict Verdict
	Href    string
	Title   string
}

type cardView struct {
	Anchor       string
	Rule         string
	Area         string
	Verdict      Verdict
	Problem      bool
	Level        string
	Revision     string
	Transport    string
	Title        string
	SpecSection  string
	SpecURL      string
	Reason       string
	Expected     string
	Actual       string
	Duration     string
	Steps        []Step
	StepSummary  string
	SchemaErrors []schemaErrView
	Frames       []frameView
	Missing      string
}

type frameView struct {
	Seq        int
	Anchor     string
	Dir        string
	Arrow      string
	T          string
	Transport  string
	Conn       int
	Method     string
	Size       int
	Truncated  bool
	Problem    string
	HTTPMethod string
	HTTPStatus int
	Headers    []headerView
	SSEEvent   string
	SSEID      string
	Pretty     bool
	Body       []jsonSeg
	Clipped    int
	Base64     string
	Errors     int
	Unplaced   []string
}

// schemaErrView is a schema error with a link to the frame it was found in (empty when the
// frame is not shown in the card).
type schemaErrView struct {
	SchemaError
	Href string
}

type headerView struct {
	Name, Value string
}

// jsonSeg is a piece of a frame's body: text, or the opening (with the schema errors as its
// title) or closing of a highlight around the value at a schema error's instance path.
type jsonSeg struct {
	Kind  int
	Text  string
	Title string
}

const (
	segText = iota
	segOpen
	segClose
)

func buildPage(r *Run) *pageView {
	p := &pageView{
		CSP:        htmlPage.csp,
		CSS:        htmlPage.css,
		JS:         htmlPage.js,
		Tool:       r.Tool,
		Server:     r.Server,
		Revisions:  strings.Join(r.Revisions, ", "),
		Transports: strings.Join(r.Transports, ", "),
		Notes:      r.Notes,
		Aborted:    r.Aborted,
		Stale:      r.StaleBaseline,
		StderrTail: r.StderrTail,
		Total:      len(r.Results),
	}
	p.Title = "mcp-conform report"
	if r.Server != nil && r.Server.Name != "" {
		p.Title += ": " + r.Server.Name
		if r.Server.Version != "" {
			p.Title += " " + r.Server.Version
		}
	}
	p.Target = targetView{Transport: r.Target.Transport, Command: shellJoin(r.Target.Command), URL: r.Target.URL,
		HeaderNames: strings.Join(r.Target.HeaderNames, ", ")}
	revs := make([]string, 0, len(r.SchemaPins))
	for rev := range r.SchemaPins {
		revs = append(revs, rev)
	}
	sort.Slice(revs, func(i, j int) bool { return revisions.After(revs[i], revs[j]) })
	for _, rev := range revs {
		pin := r.SchemaPins[rev]
		p.Pins = append(p.Pins, pinView{Revision: rev, Commit: pin.Commit, SHA256: pin.SHA256})
	}
	if !r.StartedAt.IsZero() {
		p.Started = r.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	p.Duration = formatMs(r.DurationMs)

	p.Must, p.Should, p.Coverage = headline(r.Results)
	p.Verdicts = verdictCounts(r)
	p.Areas = areaCounts(r.Results)
	p.Columns = columns(r)
	p.ColSpan = len(p.Columns) + 1
	p.Features = features(r, p.Columns)
	p.Failing = failingRules(p.Features)
	return p
}

// headline computes the three headline figures (see the legend in the template):
// MUST pass rate = pass / judged over MUST and MUST NOT results, SHOULD pass rate likewise over
// SHOULD and SHOULD NOT, where judged = pass + fail + warn + info + xfail (na, untestable and
// error are not verdicts on the server); coverage = judged / applicable over all results,
// applicable = every result but na.
func headline(results []Result) (must, should rateView, cov coverageView) {
	for _, res := range results {
		var rate *rateView
		switch strings.ToUpper(res.Level) {
		case "MUST", "MUST NOT":
			rate = &must
		case "SHOULD", "SHOULD NOT":
			rate = &should
		}
		if rate != nil && judged(res.Verdict) {
			rate.Den++
			if res.Verdict == Pass {
				rate.Num++
			}
		}
		switch {
		case res.Verdict == NA:
			cov.NA++
			continue
		case res.Verdict == Untestable:
			cov.Untestable++
		case res.Verdict == Error:
			cov.Error++
		case res.Verdict == NotRun:
			cov.NotRun++
		case judged(res.Verdict):
			cov.Num++
		}
		cov.Den++
	}
	must.finish()
	should.finish()
	cov.finish()
	return must, should, cov
}

func (v *rateView) finish() {
	if v.Den == 0 {
		v.Pct, v.Value = "–", "0"
		return
	}
	f := float64(v.Num) / float64(v.Den)
	v.Pct = strconv.FormatFloat(100*f, 'f', 1, 64) + "%"
	if v.Num == v.Den {
		v.Pct = "100%"
	}
	v.Value = strconv.FormatFloat(f, 'f', 4, 64)
}

func verdictCounts(r *Run) []verdictView {
	var out []verdictView
	known := map[Verdict]bool{}
	for _, v := range Verdicts {
		known[v] = true
		if v == NotRun && r.Summary.NotRun == 0 {
			continue // only an interrupted run has rules not run
		}
		out = append(out, verdictView{Verdict: v, Count: r.Summary.Count(v), Meaning: verdictMeaning[v],
			Hidden: defaultHidden(v, len(r.Results), r.Summary)})
	}
	other := map[Verdict]int{}
	for _, res := range r.Results {
		if !known[res.Verdict] {
			other[res.Verdict]++
		}
	}
	var names []string
	for v := range other {
		names = append(names, string(v))
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, verdictView{Verdict: Verdict(n), Count: other[Verdict(n)], Meaning: "unknown verdict"})
	}
	return out
}

// area is a rule id's prefix before its first dash ("MSG" for "MSG-014").
func area(rule string) string {
	if i := strings.IndexByte(rule, '-'); i > 0 {
		return rule[:i]
	}
	return rule
}

func areaCounts(results []Result) []areaView {
	counts := map[string]int{}
	for _, res := range results {
		counts[area(res.Rule)]++
	}
	out := make([]areaView, 0, len(counts))
	for a, n := range counts {
		out = append(out, areaView{Area: a, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Area < out[j].Area })
	return out
}

// columns lists the (revision, transport) pairs present in the results: newest revision first,
// transports in the order of Run.Transports, then alphabetically.
func columns(r *Run) []columnView {
	trOrder := map[string]int{}
	for i, t := range r.Transports {
		if _, ok := trOrder[t]; !ok {
			trOrder[t] = i
		}
	}
	seen := map[columnView]bool{}
	var out []columnView
	for _, res := range r.Results {
		c := columnView{Revision: res.Revision, Transport: res.Transport}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	rank := func(t string) int {
		if i, ok := trOrder[t]; ok {
			return i
		}
		return len(trOrder)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Revision != b.Revision {
			return revisions.After(a.Revision, b.Revision)
		}
		if rank(a.Transport) != rank(b.Transport) {
			return rank(a.Transport) < rank(b.Transport)
		}
		return a.Transport < b.Transport
	})
	return out
}

// specPageOrder is the order of the spec's pages (its table of contents: base protocol, then
// server features, then client features, then the schema); features on pages not listed here
// follow the listed pages of their section, and legacy features come last.
var specPageOrder = []string{
	"basic/index",
	"basic/versioning",
	"basic/lifecycle",
	"basic/transports",
	"basic/transports/stdio",
	"basic/transports/streamable-http",
	"basic/authorization",
	"basic/security_best_practices",
	"basic/utilities/cancellation",
	"basic/utilities/ping",
	"basic/utilities/progress",
	"basic/utilities/tasks",
	"server/index",
	"server/discover",
	"server/tools",
	"server/resources",
	"server/prompts",
	"server/utilities/completion",
	"server/utilities/logging",
	"server/utilities/pagination",
	"server/subscriptions",
	"client/roots",
	"client/sampling",
	"client/elicitation",
	"schema",
}

// featureKey is the sort key of a feature name such as "stdio transport
// (basic/transports/stdio)" or "Legacy lifecycle (2025-11-25 basic/lifecycle)": legacy features
// last; then by section (basic, server, client, other); then listed pages in specPageOrder's
// order before unlisted ones; then by name.
type featureKey struct {
	legacy  bool
	section int
	page    int
	name    string
}

func featureRank(name string) featureKey {
	k := featureKey{name: name, page: len(specPageOrder)}
	path := name
	if i, j := strings.LastIndexByte(name, '('), strings.LastIndexByte(name, ')'); i >= 0 && j > i {
		path = name[i+1 : j]
	}
	path = strings.TrimSpace(path)
	if f := strings.Fields(path); len(f) == 2 && revisions.IsID(f[0]) {
		k.legacy, path = true, f[1]
	}
	if strings.HasPrefix(strings.ToLower(name), "legacy") {
		k.legacy = true
	}
	for i, pg := range specPageOrder {
		if pg == path {
			k.page = i
		}
	}
	switch {
	case strings.HasPrefix(path, "basic/"):
		k.section = 0
	case strings.HasPrefix(path, "server/"):
		k.section = 1
	case strings.HasPrefix(path, "client/"):
		k.section = 2
	default:
		k.section = 3
	}
	return k
}

func featureLess(a, b string) bool {
	x, y := featureRank(a), featureRank(b)
	switch {
	case x.legacy != y.legacy:
		return !x.legacy
	case x.section != y.section:
		return x.section < y.section
	case x.page != y.page:
		return x.page < y.page
	}
	return x.name < y.name
}

// anchorSafe keeps ASCII letters, digits, '.', '_' and '-', replacing anything else by '_', so
// an id and the href that points at it read the same.
func anchorSafe(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// anchors hands out unique ids: the sanitised name, or the name with a "~N" suffix (N from 2)
// when it is taken; '~' never survives anchorSafe, so a suffixed id cannot be taken already.
type anchors map[string]bool

func (a anchors) id(s string) string {
	s = anchorSafe(s)
	if !a[s] {
		a[s] = true
		return s
	}
	for n := 2; ; n++ {
		id := s + "~" + strconv.Itoa(n)
		if !a[id] {
			a[id] = true
			return id
		}
	}
}

// pageIDs are the ids the template itself uses.
var pageIDs = []string{"run", "failures", "failures-h", "failures-more", "failures-more-h", "headline", "headline-h", "legend", "filters", "shown", "matrix", "matrix-h", "results", "results-h", "stderr", "stderr-h"}

func features(r *Run, cols []columnView) []featureView {
	ids := anchors{}
	for _, id := range pageIDs {
		ids[id] = true
	}
	frames := make(map[int]*Frame, len(r.Frames))
	for i := range r.Frames {
		frames[r.Frames[i].Seq] = &r.Frames[i]
	}
	colIndex := map[columnView]int{}
	for i, c := range cols {
		colIndex[c] = i
	}
	byFeature := map[string]*featureView{}
	var order []string
	rules := map[string]*ruleView{}
	var ruleOrder []*ruleView
	for _, res := range r.Results {
		rv := rules[res.Rule]
		if rv == nil {
			fv := byFeature[res.Feature]
			if fv == nil {
				fv = &featureView{Name: res.Feature}
				if fv.Name == "" {
					fv.Name = "(no feature)"
				}
				byFeature[res.Feature] = fv
				order = append(order, res.Feature)
			}
			rv = &ruleView{ID: res.Rule, Area: area(res.Rule), Title: res.Title, Anchor: ids.id("rule-" + res.Rule),
				Cells: make([]cellView, len(cols))}
			rules[res.Rule] = rv
			ruleOrder = append(ruleOrder, rv)
			fv.Rules = append(fv.Rules, rv)
		}
		card := buildCard(res, frames, ids)
		rv.Cards = append(rv.Cards, card)
		ci := colIndex[columnView{Revision: res.Revision, Transport: res.Transport}]
		if rv.Cells[ci].Href == "" {
			rv.Cells[ci] = cellView{Verdict: res.Verdict, Href: "#" + card.Anchor,
				Title: fmt.Sprintf("%s %s %s: %s", res.Rule, res.Revision, res.Transport, res.Verdict)}
		}
	}
	for _, rv := range ruleOrder {
		// A rule's cards follow the matrix columns.
		sort.SliceStable(rv.Cards, func(i, j int) bool {
			return colIndex[columnView{rv.Cards[i].Revision, rv.Cards[i].Transport}] < colIndex[columnView{rv.Cards[j].Revision, rv.Cards[j].Transport}]
		})
		seen := map[Verdict]bool{}
		var vs []string
		for _, c := range rv.Cards {
			if !seen[c.Verdict] {
				seen[c.Verdict] = true
				vs = append(vs, string(c.Verdict))
			}
		}
		rv.Verdicts = strings.Join(vs, " ")
	}
	sort.SliceStable(order, func(i, j int) bool { return featureLess(order[i], order[j]) })
	out := make([]featureView, 0, len(order))
	for _, name := range order {
		fv := byFeature[name]
		fv.Anchor = ids.id("feature-" + fv.Name)
		out = append(out, *fv)
	}
	return out
}

func buildCard(res Result, frames map[int]*Frame, ids anchors) cardView {
	c := cardView{
		Anchor:      ids.id("rule-" + res.Rule + "--" + res.Revision + "-" + res.Transport),
		Rule:        res.Rule,
		Area:        area(res.Rule),
		Verdict:     res.Verdict,
		Problem:     problem(res.Verdict),
		Level:       res.Level,
		Revision:    res.Revision,
		Transport:   res.Transport,
		Title:       res.Title,
		SpecSection: res.Spec.Section,
		SpecURL:     res.Spec.URL,
		Reason:      res.Reason,
		Expected:    res.Expected,
		Actual:      res.Actual,
		Duration:    formatMs(res.DurationMs),
		Steps:       res.Steps,
	}
	counts := map[string]int{}
	var statuses []string
	for _, s := range res.Steps {
		if counts[s.Status] == 0 {
			statuses = append(statuses, s.Status)
		}
		counts[s.Status]++
	}
	var parts []string
	for _, s := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	c.StepSummary = strings.Join(parts, ", ")
	errsByFrame := map[int][]SchemaError{}
	for _, e := range res.SchemaErrors {
		errsByFrame[e.Frame] = append(errsByFrame[e.Frame], e)
	}
	var missing []string
	for _, seq := range res.Frames {
		f := frames[seq]
		if f == nil {
			missing = append(missing, strconv.Itoa(seq))
			continue
		}
		c.Frames = append(c.Frames, buildFrame(f, errsByFrame[seq], ids.id(c.Anchor+"--f"+strconv.Itoa(seq))))
	}
	href := map[int]string{}
	for _, fv := range c.Frames {
		if _, ok := href[fv.Seq]; !ok {
			href[fv.Seq] = "#" + fv.Anchor
		}
	}
	for _, e := range res.SchemaErrors {
		c.SchemaErrors = append(c.SchemaErrors, schemaErrView{SchemaError: e, Href: href[e.Frame]})
	}
	if len(missing) > 0 {
		c.Missing = strings.Join(missing, ", ")
	}
	return c
}

func buildFrame(f *Frame, errs []SchemaError, anchor string) frameView {
	v := frameView{
		Seq:       f.Seq,
		Anchor:    anchor,
		Dir:       f.Dir,
		T:         formatOffset(f.T),
		Transport: f.Transport,
		Conn:      f.Conn,
		Method:    f.Method,
		Size:      f.Size,
		Truncated: f.Truncated,
		Problem:   f.Problem,
		Base64:    f.RawBase64,
		Errors:    len(errs),
	}
	switch f.Dir {
	case "c2s":
		v.Arrow = "client → server"
	case "s2c":
		v.Arrow = "server → client"
	default:
		v.Arrow = f.Dir
	}
	if f.HTTP != nil {
		v.HTTPMethod, v.HTTPStatus = f.HTTP.Method, f.HTTP.Status
		names := make([]string, 0, len(f.HTTP.Headers))
		for n := range f.HTTP.Headers {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			for _, val := range f.HTTP.Headers[n] {
				v.Headers = append(v.Headers, headerView{Name: n, Value: val})
			}
		}
	}
	if f.SSE != nil {
		v.SSEEvent, v.SSEID = f.SSE.Event, f.SSE.ID
	}
	marks := map[string]string{}
	var ptrs []string
	for _, e := range errs {
		if _, ok := marks[e.InstancePath]; !ok {
			ptrs = append(ptrs, e.InstancePath)
		} else {
			marks[e.InstancePath] += "\n"
		}
		marks[e.InstancePath] += e.Message + " [" + e.SchemaPath + "]"
	}
	raw := f.Raw
	if len(raw) > htmlMaxFrameBytes {
		cut := htmlMaxFrameBytes
		for cut > 0 && !utf8Start(raw[cut]) {
			cut--
		}
		v.Clipped = len(raw) - cut
		v.Body = []jsonSeg{{Text: raw[:cut]}}
		v.Unplaced = ptrs
		return v
	}
	if segs, hit, ok := prettyJSON(raw, marks); ok {
		v.Pretty, v.Body = true, segs
		for _, p := range ptrs {
			if !hit[p] {
				v.Unplaced = append(v.Unplaced, p)
			}
		}
		return v
	}
	v.Body = []jsonSeg{{Text: raw}}
	v.Unplaced = ptrs
	return v
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// prettyJSON indents raw by two spaces per level, keeping every string and number literal as
// written, and wraps the value at each JSON Pointer of marks in a highlight titled with its
// value. ok is false when raw is not one valid JSON value or nests deeper than htmlMaxJSONDepth;
// hit reports the pointers found.
func prettyJSON(raw string, marks map[string]string) (segs []jsonSeg, hit map[string]bool, ok bool) {
	if !json.Valid([]byte(raw)) || jsonDepth(raw) > htmlMaxJSONDepth {
		return nil, nil, false
	}
	p := &jsonPrinter{s: raw, marks: marks, hit: map[string]bool{}}
	p.value("", 0)
	p.flush()
	return p.out, p.hit, true
}

// jsonDepth is the deepest nesting of arrays and objects in the valid JSON text s.
func jsonDepth(s string) int {
	depth, most, inStr := 0, 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

type jsonPrinter struct {
	s     string
	i     int
	buf   strings.Builder
	out   []jsonSeg
	marks map[string]string
	hit   map[string]bool
}

func (p *jsonPrinter) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonPrinter) flush() {
	if p.buf.Len() > 0 {
		p.out = append(p.out, jsonSeg{Text: p.buf.String()})
		p.buf.Reset()
	}
}

func (p *jsonPrinter) newline(depth int) {
	p.buf.WriteByte('\n')
	for range depth {
		p.buf.WriteString("  ")
	}
}

// str advances over the string literal at p.i and returns it as written.
func (p *jsonPrinter) str() string {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == '\\' {
			p.i++
		} else if c == '"' {
			break
		}
	}
	return p.s[start:p.i]
}

func (p *jsonPrinter) value(ptr string, depth int) {
	p.ws()
	title, mark := p.marks[ptr]
	if mark {
		p.hit[ptr] = true
		p.flush()
		p.out = append(p.out, jsonSeg{Kind: segOpen, Title: title})
	}
	switch p.s[p.i] {
	case '{':
		p.i++
		p.ws()
		if p.s[p.i] == '}' {
			p.i++
			p.buf.WriteString("{}")
			break
		}
		p.buf.WriteByte('{')
		for first := true; ; first = false {
			p.ws()
			if !first {
				p.buf.WriteByte(',')
			}
			p.newline(depth + 1)
			lit := p.str()
			var key string
			_ = json.Unmarshal([]byte(lit), &key) // valid JSON: cannot fail
			p.buf.WriteString(lit)
			p.ws()
			p.i++ // ':'
			p.buf.WriteString(": ")
			p.value(ptr+"/"+pointerToken(key), depth+1)
			p.ws()
			c := p.s[p.i]
			p.i++
			if c == '}' {
				break
			}
		}
		p.newline(depth)
		p.buf.WriteByte('}')
	case '[':
		p.i++
		p.ws()
		if p.s[p.i] == ']' {
			p.i++
			p.buf.WriteString("[]")
			break
		}
		p.buf.WriteByte('[')
		for n := 0; ; n++ {
			if n > 0 {
				p.buf.WriteByte(',')
			}
			p.newline(depth + 1)
			p.value(ptr+"/"+strconv.Itoa(n), depth+1)
			p.ws()
			c := p.s[p.i]
			p.i++
			if c == ']' {
				break
			}
		}
		p.newline(depth)
		p.buf.WriteByte(']')
	case '"':
		p.buf.WriteString(p.str())
	default: // number, true, false, null
		start := p.i
		for p.i < len(p.s) && !strings.ContainsRune(",]} \t\n\r", rune(p.s[p.i])) {
			p.i++
		}
		p.buf.WriteString(p.s[start:p.i])
	}
	if mark {
		p.flush()
		p.out = append(p.out, jsonSeg{Kind: segClose})
	}
}

// pointerToken escapes a member name as a JSON Pointer reference token (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// formatMs renders a duration given in whole milliseconds: "0 ms", "850 ms", "6.92 s",
// "2 min 5 s".
func formatMs(ms int64) string {
	switch {
	case ms < 0:
		return "-" + formatMs(-ms)
	case ms < 1000:
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 60000:
		return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) + " s"
	}
	return fmt.Sprintf("%d min %d s", ms/60000, ms/1000%60)
}

// formatOffset renders a frame's offset from the run start, given in milliseconds, as seconds
// to the millisecond: "+0.013 s", "+125.400 s".
func formatOffset(ms float64) string {
	return "+" + strconv.FormatFloat(ms/1000, 'f', 3, 64) + " s"
}

// shellJoin renders an argv as a POSIX shell would read it back, quoting where needed.
func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		safe := a != ""
		for _, c := range a {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-", c)) {
				safe = false
				break
			}
		}
		if safe {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
