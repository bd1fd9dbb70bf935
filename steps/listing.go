package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// maxListPages bounds one list traversal: a server whose nextCursor never repeats and never
// ends is followed this many pages and then left, the list untestable, never failed: the spec
// sets no page limit (server/utilities/pagination), and a loop is caught by a repeated cursor.
const maxListPages = 1000

// listTraversal is one traversal of a paginated list method: every item of every page in
// order (each a JSON object), the cursors sent after the first page, each page's cacheScope
// and the seqs of the frames exchanged.
type listTraversal struct {
	Method  string
	Items   []map[string]any
	Raw     []json.RawMessage
	Pages   int
	Cursors []string
	// Scopes is each page's cacheScope ("" when absent).
	Scopes []string
	// Frames are the seqs of every frame of the traversal.
	Frames []int
	// ItemFrames holds, for each entry of Items, the seqs of the page exchange that carried it.
	ItemFrames [][]int
}

// listRefused is the error of a list traversal whose request got a JSON-RPC error or no
// response: the server does not offer the list (or failed). Rules that need the items turn
// it into untestable or fail as they see fit.
type listRefused struct {
	Method string
	Page   int
	Actual string
	Frames []int
}

func (e *listRefused) Error() string {
	return fmt.Sprintf("%s (page %d) got %s", e.Method, e.Page, e.Actual)
}

// listMalformed is the error of a list traversal with a page that is not a valid page: the
// mismatch, and Rule, the rule that judges that defect: PAGE-001 for the cursors and the
// traversal's end, the list method's own rule (listRules) for its member array.
type listMalformed struct {
	*Mismatch
	Rule string
}

func (e *listMalformed) Unwrap() error { return e.Mismatch }

// listRules are the rules about the member array of each list method's result.
var listRules = map[string]string{"tools/list": "TOOL-001", "prompts/list": "PROMPT-001", "resources/list": "RES-001", "resources/templates/list": "RES-010"}

// listRefusalJudges names the rules that judge a list request answered with an error: a
// declared feature must answer its list (CAP-006), and a server must not need an earlier
// request first (STATE-002).
const listRefusalJudges = "CAP-006 and STATE-002 judge a refused list request"

// pageRule is the rule about cursors and the end of a paginated list.
const pageRule = "PAGE-001"

// listAll follows nextCursor from the first page of method (tools/list, prompts/list,
// resources/list, resources/templates/list) on the scenario's connection and collects the
// array member of each page (tools, prompts, resources, resourceTemplates). It returns a
// *listMalformed when a page is not a valid page (member missing or not an array of objects,
// nextCursor not a string) or a cursor repeats, one graded untestable when the traversal
// reaches maxListPages without a repeat, and a
// *listRefused when a page gets an error or no response. Every frame is noted in the world.
func (w *session) listAll(ctx context.Context, method, member string) (*listTraversal, error) {
	lt := &listTraversal{Method: method}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		if page > maxListPages {
			return lt, &listMalformed{Rule: pageRule, Mismatch: &Mismatch{Expected: fmt.Sprintf("%s to end within the %d pages the suite follows", method, maxListPages),
				Actual: fmt.Sprintf("page %d still has a new nextCursor; the list could not be read to its end", maxListPages),
				Grade:  reports.Untestable, Frames: w.lastSeqs()}}
		}
		var params map[string]any
		if page > 1 {
			params = map[string]any{"cursor": cursor}
			lt.Cursors = append(lt.Cursors, cursor)
		}
		if err := w.sendParams(ctx, method, params, nil, false); err != nil {
			return lt, err
		}
		lt.Frames = append(lt.Frames, w.lastSeqs()...)
		msg, err := w.responseMessage()
		if err != nil || msg.Kind != harness.KindResult {
			actual := "no response"
			if err == nil {
				actual = describe(msg)
			}
			return lt, &listRefused{Method: method, Page: page, Actual: actual, Frames: w.lastSeqs()}
		}
		lt.Pages++
		var members map[string]json.RawMessage
		if err := json.Unmarshal(msg.Result, &members); err != nil {
			return lt, &listMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: method + " result to be an object", Actual: short(msg.Result), Frames: w.lastSeqs()}}
		}
		var scope string
		_ = json.Unmarshal(members["cacheScope"], &scope) // its shape is the schema's to judge
		lt.Scopes = append(lt.Scopes, scope)
		var items []json.RawMessage
		if err := json.Unmarshal(members[member], &items); err != nil || members[member] == nil {
			return lt, &listMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: fmt.Sprintf("%s page %d to have a %q array", method, page, member),
				Actual: short(msg.Result), Frames: w.lastSeqs()}}
		}
		for i, raw := range items {
			var obj map[string]any
			if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
				return lt, &listMalformed{Rule: listRules[method], Mismatch: &Mismatch{Expected: fmt.Sprintf("every %s entry to be an object", member),
					Actual: fmt.Sprintf("page %d entry %d is %s", page, i, short(raw)), Frames: w.lastSeqs()}}
			}
			lt.Items = append(lt.Items, obj)
			lt.Raw = append(lt.Raw, raw)
			lt.ItemFrames = append(lt.ItemFrames, w.lastSeqs())
		}
		next := members["nextCursor"]
		if next == nil {
			return lt, nil
		}
		if err := json.Unmarshal(next, &cursor); err != nil || !isJSONString(next) { // null is no string
			return lt, &listMalformed{Rule: pageRule, Mismatch: &Mismatch{Expected: "nextCursor to be a string", Actual: "nextCursor " + short(next), Frames: w.lastSeqs()}}
		}
		if seen[cursor] {
			return lt, &listMalformed{Rule: pageRule, Mismatch: &Mismatch{Expected: method + " to end (every nextCursor new)",
				Actual: fmt.Sprintf("page %d repeats cursor %s", page, strconv.Quote(cursor)), Frames: w.lastSeqs()}}
		}
		seen[cursor] = true
	}
}

// listProblem reports whether err is a listing that failed on the server's side (a
// *listRefused, or a *Mismatch over the shape of a page) rather than the suite's or the
// transport's, and says in one line what went wrong. A rule that needed the listing as a
// precondition turns it into untestable; the rules that judge the listing itself (PAGE-001 and
// the list method's own rule) report it.
func listProblem(err error) (string, bool) {
	var refused *listRefused
	var lm *listMalformed
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

// listFailureReason says in one line why a listing failed, naming the rule that judges the
// failure: the listing rule for a malformed page (listMalformed.Rule), the rules of
// listRefusalJudges for a refused page; other errors as they are.
func listFailureReason(err error) string {
	var lm *listMalformed
	var refused *listRefused
	switch {
	case errors.As(err, &lm):
		return lm.Mismatch.Error() + " (" + lm.Rule + " judges that)"
	case errors.As(err, &refused):
		return refused.Error() + " (" + listRefusalJudges + ")"
	}
	return err.Error()
}

// preconditionFailed is the typed error of a precondition the server did not meet (a listing,
// a fixture call): a step returns it, and the runner makes the rule untestable with the reason
// "<What> (<Rule> judges that)", so one server defect fails only the rule that names it (DESIGN
// "Verdict principles").
type preconditionFailed struct {
	// What says what could not be had, in one line ("tools/list page 2 is not an object").
	What string
	// Rule is the id of the rule that judges the precondition (PAGE-001, TOOL-001, ...).
	Rule string
}

func (p *preconditionFailed) Error() string { return p.What + " (" + p.Rule + " judges that)" }

// listPrecondition turns a failed listing of method (see listProblem) into a
// *preconditionFailed naming rule; other errors, and nil, are returned unchanged.
func listPrecondition(err error, rule string) error {
	if what, ok := listProblem(err); ok {
		return &preconditionFailed{What: what, Rule: rule}
	}
	return err
}
