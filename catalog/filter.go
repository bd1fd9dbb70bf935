package catalog

import (
	"fmt"
	"regexp"
	"strings"
)

// tagTerm is one operand of a tag expression: an optional `~` (not), an optional `@`, and a
// tag name without spaces, commas, ampersands or parentheses.
var tagTerm = regexp.MustCompile(`^~?@?[^\s,&~@()]+$`)

// ValidateTags checks a --tags expression against godog's tag-filter grammar: alternatives
// separated by `,` (or), each a conjunction of terms separated by `&&` (and), each term a tag
// optionally negated with `~`, e.g. `@MUST && ~@transport:http, @rule:MSG-014`. godog itself
// panics on some malformed expressions, so they are refused before the run with a usage error.
func ValidateTags(expr string) error {
	if strings.TrimSpace(expr) == "" {
		return nil
	}
	for _, alt := range strings.Split(expr, ",") {
		for _, term := range strings.Split(alt, "&&") {
			term = strings.TrimSpace(term)
			if !tagTerm.MatchString(term) {
				return fmt.Errorf("--tags %q: %q is not a tag; write tags like @MUST or @rule:MSG-014, joined with && (and) and , (or), negated with ~", expr, term)
			}
		}
	}
	return nil
}

// MatchTags reports whether a scenario with the given tags (each with its leading `@`) is
// selected by the tag expression, with godog's semantics (see ValidateTags). An empty
// expression selects everything.
func MatchTags(expr string, tags []string) bool {
	if strings.TrimSpace(expr) == "" {
		return true
	}
	has := func(name string) bool {
		for _, t := range tags {
			if strings.ReplaceAll(t, "@", "") == name {
				return true
			}
		}
		return false
	}
	for _, alt := range strings.Split(expr, ",") {
		ok := true
		for _, term := range strings.Split(alt, "&&") {
			term = strings.ReplaceAll(strings.TrimSpace(term), "@", "")
			if neg, found := strings.CutPrefix(term, "~"); found {
				ok = ok && !has(neg)
			} else {
				ok = ok && has(term)
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// Select returns the rules that a run with these --rule prefixes and --tags expression would
// run, so that a filter selecting nothing can be refused before the run.
func Select(rules []Rule, prefixes []string, tags string) []Rule {
	var out []Rule
	for _, r := range rules {
		if Selected(r.ID, prefixes) && MatchTags(tags, r.Tags) {
			out = append(out, r)
		}
	}
	return out
}

// Selected reports whether rule id starts with one of the --rule prefixes; no prefixes select
// every rule.
func Selected(id string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}
