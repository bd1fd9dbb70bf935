// Package catalog is the rule model of mcp-conform: the rules the embedded Gherkin features
// implement (Catalog, one Rule per scenario, from its tags and `Spec:` line), the catalogue of
// every rule implemented or not (KnownRules, features.CatalogTSV), and the --rule and --tags
// selection of a run (Select).
package catalog

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strings"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/mcp-conform/mcp-conform/features"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// SpecBaseURL is the root of the published specification (revisions.BaseURL); a rule's URL
// is SpecBaseURL/<revision>/<page>#<anchor>.
const SpecBaseURL = revisions.BaseURL

// Rule is the metadata of one rule as its scenario's tags and description state it.
//
// Level is "MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY" or "PROBE" (a non-normative
// probe, always info); Since and Until bound the
// revisions it holds in (inclusive, "" = unbounded); Transports lists "stdio"/"http" when the
// rule is transport-bound (empty = every transport); Capability names the server capability the
// rule needs ("" = none). Section is "page#Heading" from the description's `Spec:` line and
// SpecRevision the revision of the page it links to.
type Rule struct {
	ID           string   `json:"id"`                   // the `@rule:` tag's id ("MSG-014")
	Level        string   `json:"level"`                // MUST, ..., MAY or PROBE
	Since        string   `json:"since"`                // first revision it holds in ("" = any)
	Until        string   `json:"until"`                // last revision it holds in ("" = any)
	Transports   []string `json:"transports"`           // "stdio", "http"; empty = every transport
	Capability   string   `json:"capability,omitempty"` // server capability needed ("" = none)
	Title        string   `json:"title"`                // the scenario's name
	Description  string   `json:"-"`                    // the description without its Spec: line
	Section      string   `json:"-"`                    // "page#Heading" of the Spec: line
	SpecRevision string   `json:"-"`                    // the revision of the page Section links to
	Feature      string   `json:"-"`                    // the name of the feature holding the scenario
	File         string   `json:"-"`                    // the feature file's name in features.FS
	// Line is the line of the scenario in File (1-based).
	Line int `json:"-"`
	// Tags are the scenario's tags as written (`@rule:MSG-014`, `@MUST`, ...).
	Tags []string `json:"-"`
	// EarlierLevel is the rule's level at the revisions up to EarlierUntil, when those pages
	// word the same sentence with a weaker keyword (a `@SHOULD-until:2025-03-26` tag: SHOULD
	// where later revisions say MUST); "" when the level is the same at every revision.
	EarlierLevel string `json:"earlierLevel,omitempty"`
	EarlierUntil string `json:"earlierUntil,omitempty"`
}

// LevelAt returns the rule's level at revision rev: EarlierLevel up to and including
// EarlierUntil, Level after it.
func (r Rule) LevelAt(rev string) string {
	if r.EarlierLevel != "" && rev != "" && !revisions.Before(r.EarlierUntil, rev) {
		return r.EarlierLevel
	}
	return r.Level
}

// SpecURL returns the pinned URL of the rule's spec section (revisions.SpecURL of
// SpecRevision), e.g.
// https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes.
func (r Rule) SpecURL() string {
	page, heading, _ := strings.Cut(r.Section, "#")
	return revisions.SpecURL(r.SpecRevision, page, anchor(heading))
}

// AppliesTo reports whether the rule holds at revision rev on transport tr, and if not, why.
func (r Rule) AppliesTo(rev, tr string) (bool, string) {
	if r.Since != "" && revisions.Before(rev, r.Since) {
		return false, fmt.Sprintf("rule holds since %s; the server speaks %s", r.Since, rev)
	}
	if r.Until != "" && revisions.After(rev, r.Until) {
		return false, fmt.Sprintf("rule holds up to %s; the server speaks %s", r.Until, rev)
	}
	if len(r.Transports) > 0 {
		for _, t := range r.Transports {
			if t == tr {
				return true, ""
			}
		}
		return false, fmt.Sprintf("rule applies to %s only", strings.Join(r.Transports, ", "))
	}
	return true, ""
}

func anchor(h string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(h) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		case c == ' ':
			b.WriteByte('-')
		}
	}
	return url.PathEscape(b.String())
}

var levelTags = map[string]string{
	"@MUST": "MUST", "@MUST-NOT": "MUST NOT", "@SHOULD": "SHOULD", "@SHOULD-NOT": "SHOULD NOT", "@MAY": "MAY",
	"@PROBE": ProbeLevel,
}

// earlierLevel returns the level a `@<LEVEL>-until:<revision>` tag names ("" for any other tag).
func earlierLevel(tag string) string {
	level, _, ok := strings.Cut(tag, "-until:")
	if !ok {
		return ""
	}
	return levelTags[level]
}

// Catalog parses every embedded feature and returns its rules sorted by id. It returns an
// error naming the file and scenario when a scenario lacks exactly one `@rule:` tag, exactly
// one level tag, or a `Spec:` line, or when two scenarios share a rule id.
func Catalog() ([]Rule, error) { return catalogFS(features.FS) }

func catalogFS(fsys fs.FS) ([]Rule, error) {
	files, err := fs.Glob(fsys, "*.feature")
	if err != nil {
		return nil, err
	}
	seen := map[string]string{}
	var rules []Rule
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		n := 0
		doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), func() string { n++; return fmt.Sprint(n) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if doc.Feature == nil {
			continue
		}
		for _, child := range doc.Feature.Children {
			if child.Scenario == nil {
				continue
			}
			r, err := ruleOf(doc.Feature, child.Scenario, name)
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[r.ID]; dup {
				return nil, fmt.Errorf("%s: rule %s already defined in %s", name, r.ID, prev)
			}
			seen[r.ID] = name
			rules = append(rules, r)
		}
	}
	sort.Slice(rules, func(i, j int) bool { return RuleLess(rules[i].ID, rules[j].ID) })
	return rules, nil
}

func ruleOf(f *messages.Feature, sc *messages.Scenario, file string) (Rule, error) {
	r := Rule{Title: sc.Name, Feature: f.Name, File: file, SpecRevision: revisions.Modern().ID}
	if sc.Location != nil {
		r.Line = int(sc.Location.Line)
	}
	var ids, levels int
	for _, t := range append(append([]*messages.Tag{}, f.Tags...), sc.Tags...) {
		name := t.Name
		r.Tags = append(r.Tags, name)
		switch {
		case strings.HasPrefix(name, "@rule:"):
			r.ID, ids = strings.TrimPrefix(name, "@rule:"), ids+1
		case levelTags[name] != "":
			r.Level, levels = levelTags[name], levels+1
		case earlierLevel(name) != "":
			level, rev, _ := strings.Cut(strings.TrimPrefix(name, "@"), "-until:")
			r.EarlierLevel, r.EarlierUntil = levelTags["@"+level], rev
		case strings.HasPrefix(name, "@since:"):
			r.Since = strings.TrimPrefix(name, "@since:")
		case strings.HasPrefix(name, "@until:"):
			r.Until = strings.TrimPrefix(name, "@until:")
		case strings.HasPrefix(name, "@transport:"):
			r.Transports = append(r.Transports, strings.TrimPrefix(name, "@transport:"))
		case strings.HasPrefix(name, "@capability:"):
			r.Capability = strings.TrimPrefix(name, "@capability:")
		}
	}
	where := fmt.Sprintf("%s: scenario %q", file, sc.Name)
	if ids != 1 || r.ID == "" {
		return r, fmt.Errorf("%s: needs exactly one @rule: tag", where)
	}
	if levels != 1 {
		return r, fmt.Errorf("%s: needs exactly one of @MUST @MUST-NOT @SHOULD @SHOULD-NOT @MAY @PROBE", where)
	}
	var desc []string
	for _, line := range strings.Split(sc.Description, "\n") {
		line = strings.TrimSpace(line)
		if s, ok := strings.CutPrefix(line, "Spec:"); ok && r.Section == "" {
			r.Section = strings.TrimSpace(s)
			continue
		}
		if line != "" {
			desc = append(desc, line)
		}
	}
	if r.Section == "" {
		return r, fmt.Errorf("%s: description needs a `Spec: page#Heading` line", where)
	}
	if r.EarlierLevel != "" {
		if _, ok := revisions.Lookup(r.EarlierUntil); !ok || revisions.IsModern(r.EarlierUntil) {
			return r, fmt.Errorf("%s: %s-until: names %q, not a handshake-era revision", where, r.EarlierLevel, r.EarlierUntil)
		}
	}
	r.Description = strings.Join(desc, " ")
	if r.Until != "" && revisions.Before(r.Until, revisions.Modern().ID) {
		r.SpecRevision = r.Until
	}
	if r.Transports == nil {
		r.Transports = []string{}
	}
	return r, nil
}

// RuleLess orders rule ids by area then number ("MSG-9" < "MSG-10").
func RuleLess(a, b string) bool {
	ai, bi := strings.LastIndexByte(a, '-'), strings.LastIndexByte(b, '-')
	if ai < 0 || bi < 0 || a[:ai] != b[:bi] {
		return a < b
	}
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// ProbeLevel is the level of the non-normative probes (RULES.md "PROBE"): behaviour the spec
// leaves open, recorded as an info result that never fails a run.
const ProbeLevel = "PROBE"
