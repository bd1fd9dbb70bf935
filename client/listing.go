package client

import (
	"encoding/json"
	"errors"
	"fmt"
)

// maxListPages bounds one list traversal: a server whose nextCursor never repeats and never
// ends is followed this many pages and then left, the list untestable, never failed: the spec
// sets no page limit (server/utilities/pagination), and a loop is caught by a repeated cursor.
const maxListPages = 1000

// ListTraversal is one traversal of a paginated list method: every item of every page in
// order (each a JSON object), the cursors sent after the first page, each page's cacheScope
// and the seqs of the frames exchanged.
type ListTraversal struct {
	Method  string            // the list method: tools/list, prompts/list, resources/list, ...
	Items   []map[string]any  // every entry of every page, in order
	Raw     []json.RawMessage // each entry of Items as the server sent it
	Pages   int               // how many pages came back as results
	Cursors []string          // the cursors sent, one per page after the first
	// Scopes is each page's cacheScope ("" when absent).
	Scopes []string
	// Frames are the seqs of every frame of the traversal.
	Frames []int
	// ItemFrames holds, for each entry of Items, the seqs of the page exchange that carried it.
	ItemFrames [][]int
}

// ListRefused is the error of a list traversal whose request got a JSON-RPC error or no
// response: the server does not offer the list (or failed). Rules that need the items turn
// it into untestable or fail as they see fit.
type ListRefused struct {
	Method string // the list method
	Page   int    // the page that was refused, from 1
	Actual string // what came instead: "no response" or Describe of the reply
	Frames []int  // seqs of the refused page's exchange
}

// Error returns "<Method> (page <Page>) got <Actual>".
func (e *ListRefused) Error() string {
	return fmt.Sprintf("%s (page %d) got %s", e.Method, e.Page, e.Actual)
}

// ListMalformed is the error of a list traversal with a page that is not a valid page: the
// mismatch, and Rule, the rule that judges that defect: PAGE-001 for the cursors and the
// traversal's end, the list method's own rule (listRules) for its member array. Its Error is
// the Mismatch's.
type ListMalformed struct {
	*Mismatch
	Rule string // the id of the rule that judges the defect
}

// Unwrap returns the embedded *Mismatch, so errors.As finds it.
func (e *ListMalformed) Unwrap() error { return e.Mismatch }

// listRules are the rules about the member array of each list method's result.
var listRules = map[string]string{"tools/list": "TOOL-001", "prompts/list": "PROMPT-001", "resources/list": "RES-001", "resources/templates/list": "RES-010"}

// ListRefusalJudges names the rules that judge a list request answered with an error: a
// declared feature must answer its list (CAP-006), and a server must not need an earlier
// request first (STATE-002).
const ListRefusalJudges = "CAP-006 and STATE-002 judge a refused list request"

// PageRule is the rule about cursors and the end of a paginated list.
const PageRule = "PAGE-001"

// ListProblem reports whether err is a listing that failed on the server's side (a
// *ListRefused, or a *Mismatch over the shape of a page) rather than the suite's or the
// transport's, and says in one line what went wrong. A rule that needed the listing as a
// precondition turns it into untestable; the rules that judge the listing itself (PAGE-001 and
// the list method's own rule) report it.
func ListProblem(err error) (string, bool) {
	var refused *ListRefused
	var lm *ListMalformed
	var m *Mismatch
	switch {
	case errors.As(err, &refused):
		if refused.Actual == "no response" {
			return refused.Method + " got no response", true
		}
		return refused.Method + " was answered with " + refused.Actual, true
	case errors.As(err, &lm):
		return "the listing is not a valid sequence of pages (" + lm.Mismatch.Error() + "; " + lm.Rule + " judges that)", true
	case errors.As(err, &m):
		return "the listing is not a valid sequence of pages (" + m.Error() + ")", true
	}
	return "", false
}

// ListFailureReason says in one line why a listing failed, naming the rule that judges the
// failure: the listing rule for a malformed page (ListMalformed.Rule), the rules of
// ListRefusalJudges for a refused page; other errors as they are.
func ListFailureReason(err error) string {
	var lm *ListMalformed
	var refused *ListRefused
	switch {
	case errors.As(err, &lm):
		return lm.Mismatch.Error() + " (" + lm.Rule + " judges that)"
	case errors.As(err, &refused):
		return refused.Error() + " (" + ListRefusalJudges + ")"
	}
	return err.Error()
}

// PreconditionFailed is the typed error of a precondition the server did not meet (a listing,
// a fixture call): a step returns it, and the runner makes the rule untestable with the reason
// "<What> (<Rule> judges that)", so one server defect fails only the rule that names it (DESIGN
// "Verdict principles").
type PreconditionFailed struct {
	// What says what could not be had, in one line ("tools/list page 2 is not an object").
	What string
	// Rule is the id of the rule that judges the precondition (PAGE-001, TOOL-001, ...).
	Rule string
}

// Error returns "<What> (<Rule> judges that)".
func (p *PreconditionFailed) Error() string { return p.What + " (" + p.Rule + " judges that)" }

// ListPrecondition turns a failed listing (see ListProblem) into a *PreconditionFailed naming
// rule; other errors, and nil, are returned unchanged.
func ListPrecondition(err error, rule string) error {
	if what, ok := ListProblem(err); ok {
		return &PreconditionFailed{What: what, Rule: rule}
	}
	return err
}
