package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/features"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// Known is a rule of the catalogue (features.CatalogTSV), implemented or not. Level is one
// of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY (an "(impl)" qualifier of the catalogue is
// dropped); Since and Until bound the revisions; Transports is empty for every transport;
// Section is the first "page#Heading" of its source; Check is the catalogue's S, S+B, B or
// "N/T (why)".
type Known struct {
	ID           string   // the rule id ("MSG-014")
	Level        string   // MUST, MUST NOT, SHOULD, SHOULD NOT or MAY
	Since, Until string   // the first and last revisions the rule holds in ("" = unbounded)
	Transports   []string // "stdio" or "http"; empty = every transport
	Section      string   // "page#Heading" of the first spec page its source names
	SpecRevision string   // the revision of the page Section links to
	// LegacySection is the page and heading in revisions.LatestLegacy of a rule that holds in both eras
	// ("" when the catalogue names none): legacy results link there.
	LegacySection string
	Check         string // how the rule is checked: S, S+B, B or "N/T (why)"
	Title         string // the rule in one sentence
	// Deferred says why a testable rule has no scenario yet (features/deferred.tsv), "" when
	// no reason is recorded.
	Deferred string
}

// Testable reports whether a black-box client can check the rule at all.
func (k Known) Testable() bool { return !strings.HasPrefix(k.Check, "N/T") }

// SpecURL returns the pinned URL of the rule's spec section (see Rule.SpecURL).
func (k Known) SpecURL() string {
	return Rule{Section: k.Section, SpecRevision: k.SpecRevision}.SpecURL()
}

// KnownRules parses the embedded rule catalogue. It returns an error naming the line when a
// line does not have the seven columns or a known level, revision or transport.
func KnownRules() ([]Known, error) {
	var out []Known
	lines := strings.Split(strings.TrimRight(features.CatalogTSV, "\n"), "\n")
	for i, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("catalog.tsv line %d: %d columns, want 7", i+2, len(f))
		}
		k := Known{ID: f[0], Check: f[5], Title: f[6]}
		k.Level = strings.TrimSpace(strings.Split(f[1], "(")[0])
		if _, ok := ruleLevels[k.Level]; !ok {
			return nil, fmt.Errorf("catalog.tsv line %d: unknown level %q", i+2, f[1])
		}
		switch rev, ok := revisions.ByCatalogCode(f[2]); {
		case ok && rev.Modern():
			k.Since, k.SpecRevision = rev.ID, rev.ID
		case ok && rev.ID == revisions.LatestLegacy().ID:
			// The newest handshake revision's code stands for the handshake era.
			k.Since, k.Until, k.SpecRevision = revisions.Oldest().ID, rev.ID, rev.ID
		case ok:
			// An older revision's code (catalog/extra-rules.md) stands for that revision alone.
			k.Since, k.Until, k.SpecRevision = rev.ID, rev.ID, rev.ID
		case f[2] == "both":
			k.Since, k.SpecRevision = revisions.Oldest().ID, revisions.Modern().ID
		default:
			return nil, fmt.Errorf("catalog.tsv line %d: unknown revision column %q", i+2, f[2])
		}
		switch f[3] {
		case "any":
			k.Transports = []string{}
		case "stdio", "http", "sse":
			k.Transports = []string{f[3]}
		default:
			return nil, fmt.Errorf("catalog.tsv line %d: unknown transport %q", i+2, f[3])
		}
		k.Section = section(f[4])
		for _, part := range strings.Split(f[4], ";") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(part), revisions.LatestLegacy().CatalogCode+":"); ok {
				k.LegacySection = pageSection(rest)
				break
			}
		}
		out = append(out, k)
	}
	deferred, err := deferredReasons()
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Deferred = deferred[out[i].ID]
		delete(deferred, out[i].ID)
	}
	if len(deferred) > 0 {
		ids := slices.Sorted(maps.Keys(deferred))
		return nil, fmt.Errorf("deferred.tsv names %s, which catalog.tsv does not list", strings.Join(ids, ", "))
	}
	return out, nil
}

// deferredReasons parses features.DeferredTSV into id -> reason.
func deferredReasons() (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(strings.TrimRight(features.DeferredTSV, "\n"), "\n")
	for i, line := range lines[1:] {
		id, reason, ok := strings.Cut(line, "\t")
		if !ok || id == "" || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("deferred.tsv line %d: want \"id<TAB>reason\"", i+2)
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("deferred.tsv line %d: %s listed twice", i+2, id)
		}
		out[id] = reason
	}
	return out, nil
}

// ruleLevels lists the RFC 2119 levels a rule can have.
var ruleLevels = map[string]bool{"MUST": true, "MUST NOT": true, "SHOULD": true, "SHOULD NOT": true, "MAY": true}

// section turns the catalogue's source ("26:basic/index.mdx#Error Codes; S26 ...") into
// "basic/index#Error Codes", the first spec page it names under a revision's CatalogCode; a schema-only source becomes
// "schema#<Type>".
func section(source string) string {
	for _, part := range strings.Split(source, ";") {
		code, rest, ok := strings.Cut(strings.TrimSpace(part), ":")
		if _, known := revisions.ByCatalogCode(code); ok && known {
			return pageSection(rest)
		}
	}
	first := strings.Fields(source)
	if len(first) >= 2 && strings.HasPrefix(first[0], "S2") {
		return "schema#" + strings.Trim(first[1], ",")
	}
	return "index#"
}

func pageSection(s string) string {
	page, heading, _ := strings.Cut(s, "#")
	page = strings.TrimSuffix(strings.Fields(page + " ")[0], ".mdx")
	return page + "#" + strings.TrimSpace(heading)
}
