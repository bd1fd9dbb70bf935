package runner

import (
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/catalog"
)

// NothingAppliesError is Run's error when no selected rule (--rule, --tags) holds at the
// revisions era detection found on the configured transport: such a run would test nothing and
// pass. Rules that are na only because the server did not declare a capability still apply.
// Reason names the revisions, the transport and why one selected rule does not apply.
type NothingAppliesError struct {
	Reason string // the revisions, the transport and one selected rule's reason, in one line
}

// Error returns Reason.
func (e *NothingAppliesError) Error() string { return e.Reason }

// nothingApplies returns why none of selected applies to any of targets on transport, or ""
// when one does.
func nothingApplies(selected []catalog.Rule, targets []*target, transport string) string {
	if len(targets) == 0 {
		return ""
	}
	var revs []string
	for _, t := range targets {
		revs = append(revs, t.revision)
	}
	example := ""
	for _, r := range selected {
		for _, t := range targets {
			ok, why := r.AppliesTo(t.revision, transport)
			if ok {
				return ""
			}
			if example == "" {
				example = r.ID + ": " + why
			}
		}
	}
	noun := "rules"
	if len(selected) == 1 {
		noun = "rule"
	}
	revNoun := "revision"
	if len(revs) > 1 {
		revNoun = "revisions"
	}
	msg := fmt.Sprintf("none of the %d selected %s applies to this server (%s %s over %s), so the run would test nothing", len(selected), noun, revNoun, strings.Join(revs, ", "), transport)
	if example != "" {
		msg += "; e.g. " + example
	}
	return msg
}
