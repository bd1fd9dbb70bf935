package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// BaselineKey is the top-level key of a baseline file; its value is the list of entries.
const BaselineKey = "expected-failures"

// BaselineEntry is one expected failure: the results of Rule (an exact rule id) that fail or
// warn, narrowed to one Revision and one Transport when those are set, become xfail. Reason
// says why the failure is accepted (an issue link, an SDK limitation) and is shown with every
// result the entry covers. Line is where the entry starts in the file it was read from (0 when
// it was not read from a file); it is not part of results.json.
type BaselineEntry struct {
	Rule      string `json:"rule" yaml:"rule"`
	Revision  string `json:"revision,omitempty" yaml:"revision,omitempty"`
	Transport string `json:"transport,omitempty" yaml:"transport,omitempty"`
	Reason    string `json:"reason" yaml:"reason"`
	Line      int    `json:"-" yaml:"-"`
}

// Baseline is a parsed expected-failures file: the failures a project knows about and accepts
// for now. ParseBaseline guarantees that no two entries cover the same result.
type Baseline struct {
	Entries []BaselineEntry
}

// String renders the entry as a reader names it: "MSG-014", "MSG-014 on stdio",
// "META-001 at 2026-07-28 on http".
func (e BaselineEntry) String() string {
	s := e.Rule
	if e.Revision != "" {
		s += " at " + e.Revision
	}
	if e.Transport != "" {
		s += " on " + e.Transport
	}
	return s
}

// Covers reports whether the entry applies to res: same rule id, and same revision and
// transport where the entry sets them. The verdict plays no part.
func (e BaselineEntry) Covers(res Result) bool {
	return e.Rule == res.Rule &&
		(e.Revision == "" || e.Revision == res.Revision) &&
		(e.Transport == "" || e.Transport == res.Transport)
}

// overlaps reports whether some result could be covered by both entries.
func (e BaselineEntry) overlaps(o BaselineEntry) bool {
	same := func(a, b string) bool { return a == "" || b == "" || a == b }
	return e.Rule == o.Rule && same(e.Revision, o.Revision) && same(e.Transport, o.Transport)
}

var (
	baselineRuleID   = regexp.MustCompile(`^[A-Z][A-Z0-9]*-[0-9]+$`)
	baselineRevision = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// baselineFields are the keys an entry may have, in the order WriteBaseline writes them.
var baselineFields = []string{"rule", "revision", "transport", "reason"}

// LoadBaseline reads and parses the baseline file at path. Errors name the file and the line.
func LoadBaseline(path string) (*Baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err // *fs.PathError: "open PATH: ..." names the file already
	}
	return parseBaseline(data, path)
}

// ParseBaseline parses a baseline document: a mapping whose only key is "expected-failures",
// holding a list of entries with the keys rule (required, an exact rule id), revision
// (optional, YYYY-MM-DD), transport (optional, stdio, http or sse) and reason (required). Unknown
// keys, duplicate keys, wrong types, a second YAML document and two entries that could cover
// the same result are errors; every error names its line. An empty document is an empty
// baseline.
func ParseBaseline(data []byte) (*Baseline, error) {
	return parseBaseline(data, "baseline")
}

func parseBaseline(data []byte, name string) (*Baseline, error) {
	p := &baselineParser{}
	b := p.parse(data)
	if len(p.errs) > 0 {
		msgs := make([]error, len(p.errs))
		for i, e := range p.errs {
			msgs[i] = fmt.Errorf("%s: %s", name, e)
		}
		return nil, errors.Join(msgs...)
	}
	return b, nil
}

// baselineParser walks the YAML node tree and collects every problem, each as "line N: ...".
type baselineParser struct {
	errs []string
}

func (p *baselineParser) fail(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, fmt.Sprintf("line %d: ", n.Line)+fmt.Sprintf(format, args...))
}

func (p *baselineParser) parse(data []byte) *Baseline {
	b := &Baseline{Entries: []BaselineEntry{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err != io.EOF {
			p.errs = append(p.errs, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return b
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			p.errs = append(p.errs, strings.TrimPrefix(err.Error(), "yaml: "))
		} else {
			p.fail(&extra, "a second YAML document; a baseline is one document")
		}
		return b
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return b
		}
		root = root.Content[0]
	}
	root = deref(root)
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return b
	}
	if root.Kind != yaml.MappingNode {
		p.fail(root, "a baseline is a mapping with the key %q holding a list of entries", BaselineKey)
		return b
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		switch {
		case k.Value == BaselineKey && list != nil:
			p.fail(k, "key %q appears twice", BaselineKey)
		case k.Value == BaselineKey:
			list = v
		case k.Value == "server" || k.Value == "client":
			p.fail(k, "unknown key %q: this looks like an expected-failures file of the official MCP conformance suite; its scenario names are not mcp-conform rule ids (see docs/baselines.md)", k.Value)
		default:
			p.fail(k, "unknown key %q (the only key is %q)", k.Value, BaselineKey)
		}
	}
	if list == nil {
		if len(p.errs) == 0 {
			p.fail(root, "no %q key", BaselineKey)
		}
		return b
	}
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return b
	}
	if list.Kind != yaml.SequenceNode {
		p.fail(list, "%q holds a list of entries", BaselineKey)
		return b
	}
	for _, item := range list.Content {
		if e, ok := p.entry(deref(item)); ok {
			b.Entries = append(b.Entries, e)
		}
	}
	for i, e := range b.Entries {
		for _, prev := range b.Entries[:i] {
			if e.overlaps(prev) {
				p.errs = append(p.errs, fmt.Sprintf("line %d: entry %s overlaps the entry %s at line %d: a result would be covered by both; keep one", e.Line, e, prev, prev.Line))
				break
			}
		}
	}
	return b
}

// deref follows a YAML alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// entry checks one list item; ok is false when it has a problem (already recorded).
func (p *baselineParser) entry(n *yaml.Node) (BaselineEntry, bool) {
	e := BaselineEntry{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.fail(n, "an entry is a mapping with the keys %s", strings.Join(baselineFields, ", "))
		return e, false
	}
	before := len(p.errs)
	seen := map[string]bool{}
	bad := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		var dst *string
		switch k.Value {
		case "rule":
			dst = &e.Rule
		case "revision":
			dst = &e.Revision
		case "transport":
			dst = &e.Transport
		case "reason":
			dst = &e.Reason
		default:
			p.fail(k, "unknown key %q in an entry (allowed: %s)", k.Value, strings.Join(baselineFields, ", "))
			continue
		}
		if seen[k.Value] {
			p.fail(k, "key %q appears twice in one entry", k.Value)
			continue
		}
		seen[k.Value] = true
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			p.fail(v, "%q takes a single value", k.Value)
			bad[k.Value] = true
			continue
		}
		*dst = strings.TrimSpace(v.Value)
	}
	switch {
	case bad["rule"]:
	case !seen["rule"]:
		p.fail(n, "entry has no rule")
	case !baselineRuleID.MatchString(e.Rule):
		p.fail(n, "rule %q is not a rule id: give one exact id such as MSG-014 (no prefixes or patterns)", e.Rule)
	}
	if e.Revision != "" && !baselineRevision.MatchString(e.Revision) {
		p.fail(n, "revision %q is not a protocol revision such as %s", e.Revision, revisions.LatestLegacy().ID)
	}
	if e.Transport != "" && e.Transport != "stdio" && e.Transport != "http" && e.Transport != "sse" {
		p.fail(n, "transport %q is none of stdio, http and sse", e.Transport)
	}
	if e.Reason == "" && !bad["reason"] {
		p.fail(n, "entry %s has no reason: say why the failure is accepted", e)
	}
	e.Reason = flatten(e.Reason)
	return e, len(p.errs) == before
}

// Unknown returns the entries whose rule isKnown rejects, in file order. Such an entry never
// covers a result and so never becomes stale; the CLI should report it (a typo or a rule
// this build does not have).
func (b *Baseline) Unknown(isKnown func(rule string) bool) []BaselineEntry {
	var out []BaselineEntry
	if b == nil {
		return out
	}
	for _, e := range b.Entries {
		if !isKnown(e.Rule) {
			out = append(out, e)
		}
	}
	return out
}

// xfailPrefix and xfailSep frame the entry's reason in the Reason of an xfail result:
// "baseline: <entry reason> — <original reason>", or "baseline: <reason>" when the entry's
// reason is the result's own (as --write-baseline writes it). The suite's own reasons never
// contain xfailSep, so WriteBaseline can take the entry's reason back out.
const (
	xfailPrefix = "baseline: "
	xfailSep    = " — "
)

// Apply folds the baseline into r. Every result with verdict fail or warn that an entry covers
// becomes xfail, its Reason prefixed with the entry's reason. An entry is stale when it
// covers at least one result that passes and none that fails, warns or is already xfail; an
// entry covering no result (its rule was not run: --rule, --tags, another transport) or only
// results that prove nothing (na, untestable, info, error) is not stale. error results are
// never turned into xfail: they are the suite's trouble, not the server's. Apply sets
// r.StaleBaseline to the stale entries (file order), recomputes the summary (Finalize) and
// returns them. Applying the same baseline twice changes nothing more. A nil baseline leaves
// r as it is.
func (b *Baseline) Apply(r *Run) (stale []BaselineEntry) {
	if b == nil {
		return r.StaleBaseline
	}
	// Undo an earlier baseline (a saved run given to `report --baseline`): its xfails are judged
	// afresh by this one.
	for i := range r.Results {
		res := &r.Results[i]
		if res.Verdict == XFail && res.BaselineVerdict != "" {
			res.Verdict, res.BaselineVerdict = res.BaselineVerdict, ""
			if rest, ok := strings.CutPrefix(res.Reason, xfailPrefix); ok {
				if k := strings.Index(rest, xfailSep); k >= 0 {
					res.Reason = rest[k+len(xfailSep):]
				} else {
					res.Reason = rest // the entry's reason was the result's own (see below)
				}
			}
		}
	}
	failed := make([]bool, len(b.Entries))
	passed := make([]bool, len(b.Entries))
	for i := range r.Results {
		res := &r.Results[i]
		for j, e := range b.Entries {
			if !e.Covers(*res) {
				continue
			}
			switch res.Verdict {
			case Fail, Warn:
				orig := res.Reason
				if orig == "" {
					orig = "no reason recorded"
				}
				res.BaselineVerdict = res.Verdict
				res.Verdict = XFail
				res.Reason = xfailPrefix + flatten(e.Reason) + xfailSep + flatten(orig)
				if sameButNumbers(flatten(e.Reason), flatten(orig)) {
					// An entry --write-baseline wrote keeps the failure's reason, whose frame
					// numbers and ids change from run to run: say it once, as it is now.
					res.Reason = xfailPrefix + flatten(orig)
				}
				failed[j] = true
			case XFail:
				failed[j] = true
			case Pass:
				passed[j] = true
			}
			break // entries of a parsed baseline never overlap: the first that covers is the only one
		}
	}
	for j, e := range b.Entries {
		if passed[j] && !failed[j] {
			stale = append(stale, e)
		}
	}
	r.StaleBaseline = stale
	r.Finalize()
	return stale
}

// Uncovered returns the entries of b that cover no result of r at all (their rule was not run:
// --rule, --tags, another transport or revision). WriteBaseline keeps them, so refreshing a
// baseline from a filtered run loses nothing. A nil baseline has none.
func (b *Baseline) Uncovered(r *Run) []BaselineEntry {
	if b == nil {
		return nil
	}
	var out []BaselineEntry
	for _, e := range b.Entries {
		covered := false
		for _, res := range r.Results {
			if e.Covers(res) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, e)
		}
	}
	return out
}

// WriteBaseline writes a baseline that accepts every current failure of r: one entry per
// result that is fail, warn or xfail, with its rule, revision and transport, and as reason the
// result's one-line reason (for xfail, the reason of the entry that covered it), in results
// order, then the keep entries (see Baseline.Uncovered), under a header comment. Replace the
// reasons with why each failure is accepted.
func WriteBaseline(w io.Writer, r *Run, keep ...BaselineEntry) error {
	r.Finalize()
	entries := []BaselineEntry{}
	for _, res := range r.Results {
		switch res.Verdict {
		case Fail, Warn, XFail:
		default:
			continue
		}
		reason := flatten(res.Reason)
		if res.Verdict == XFail && strings.HasPrefix(reason, xfailPrefix) {
			reason = strings.TrimPrefix(reason, xfailPrefix)
			if i := strings.LastIndex(reason, xfailSep); i >= 0 {
				reason = reason[:i]
			}
		}
		if strings.TrimSpace(reason) == "" {
			reason = res.Title
		}
		entries = append(entries, BaselineEntry{Rule: res.Rule, Revision: res.Revision, Transport: res.Transport, Reason: reason})
	}
	for _, e := range keep {
		e.Line = 0
		entries = append(entries, e)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# mcp-conform baseline: the failures accepted for now (docs/baselines.md).\n")
	tool := r.Tool.Name
	if tool == "" {
		tool = "mcp-conform"
	}
	about := "# Written from a run of " + tool
	if r.Tool.Version != "" {
		about += " " + r.Tool.Version
	}
	if r.Server != nil && r.Server.Name != "" {
		about += " against " + strings.TrimSpace(r.Server.Name+" "+r.Server.Version)
	}
	fmt.Fprintf(&buf, "%s: %d %s.\n", flatten(about), len(entries), plural(len(entries), "entry", "entries"))
	fmt.Fprintf(&buf, "# Each entry turns that rule's fail or warn into xfail; an entry whose rule passes is stale\n")
	fmt.Fprintf(&buf, "# and fails the run. Replace every reason with why the failure is accepted (an issue link).\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(map[string][]BaselineEntry{BaselineKey: entries}); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// sameButNumbers reports whether a and b are the same text once every run of digits is taken
// as one token: "got frame 457: …" and "got frame 450: …" are the same reason.
func sameButNumbers(a, b string) bool {
	return digitRuns.ReplaceAllString(a, "0") == digitRuns.ReplaceAllString(b, "0")
}

var digitRuns = regexp.MustCompile(`[0-9]+`)
