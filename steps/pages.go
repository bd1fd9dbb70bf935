package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// pageState is what the pagination and caching steps of one scenario pass from their When
// steps to their Then steps.
type pageState struct {
	// lists are the declared lists, in the order traversed.
	lists []pageList
	// traversals holds, per list method, each completed (or cut short) traversal.
	traversals map[string][]*client.ListTraversal
	// problems are the traversals that did not end properly (PAGE-001).
	problems []*client.Mismatch
	// refused names the lists whose first page the server refused (not offered).
	refused []string
	// pair is the page asked for twice (PAGE-002), with the list and cursor.
	pair   [2]*harness.Exchange
	member string
	// rejects are the invalid-cursor requests of PAGE-003.
	rejects []*harness.Exchange
}

// pageOf returns the scenario's state for pagination and caching (PAGE, CACHE), made on first use
// (see stateOf).
func pageOf(w *World) *pageState {
	return stateOf(w, func() *pageState { return &pageState{traversals: map[string][]*client.ListTraversal{}} })
}

// pageList is one list method, the array member of its pages and the member that identifies
// an item.
type pageList struct{ method, member, key string }

// declaredLists returns the list methods of the capabilities the server declares.
func (w *World) declaredLists() []pageList {
	var out []pageList
	if w.Declares("tools") {
		out = append(out, pageList{"tools/list", "tools", "name"})
	}
	if w.Declares("resources") {
		out = append(out, pageList{"resources/list", "resources", "uri"}, pageList{"resources/templates/list", "resourceTemplates", "uriTemplate"})
	}
	if w.Declares("prompts") {
		out = append(out, pageList{"prompts/list", "prompts", "name"})
	}
	return out
}

// pageStep binds fn to the scenario's world and its page state.
func pageStep(fn func(context.Context, *World, *pageState) error) func(context.Context) error {
	return func(ctx context.Context) error {
		w := WorldOf(ctx)
		return fn(ctx, w, pageOf(w))
	}
}

// noLists is the na of a server that declares none of the paginated lists.
func (w *World) noLists() error {
	return w.Undeclared("the server declares none of the tools, resources and prompts capabilities, so it has no list to page")
}

// traverseLists follows every declared list to its end, times times. A list whose first page
// is refused is left out (the capability rules judge that); a next page refused for the
// server's own cursor is a broken traversal.
func (w *World) traverseLists(ctx context.Context, st *pageState, times int) error {
	st.lists = w.declaredLists()
	if len(st.lists) == 0 {
		return w.noLists()
	}
	st.traversals = map[string][]*client.ListTraversal{}
	for _, l := range st.lists {
		for i := 0; i < times; i++ {
			lt, err := w.ListAll(ctx, l.method, l.member)
			var mm *client.Mismatch
			var lm *client.ListMalformed
			var lr *client.ListRefused
			switch {
			case err == nil:
			case errors.As(err, &lm) && lm.Rule != client.PageRule:
				// A page without its member array is the list method's rule's (TOOL-001, ...).
				st.refused = append(st.refused, fmt.Sprintf("%s (%s; %s judges that)", l.method, lm.Mismatch.Error(), lm.Rule))
			case errors.As(err, &mm):
				st.problems = append(st.problems, mm)
			case errors.As(err, &lr) && lr.Page == 1:
				st.refused = append(st.refused, fmt.Sprintf("%s (%s)", l.method, lr.Actual))
			case errors.As(err, &lr):
				st.problems = append(st.problems, &client.Mismatch{
					Expected: fmt.Sprintf("page %d of %s for the nextCursor the server issued", lr.Page, l.method),
					Actual:   lr.Actual, Frames: lr.Frames,
				})
			default:
				return err
			}
			if err != nil {
				break // the second traversal of a broken or refused list shows nothing new
			}
			st.traversals[l.method] = append(st.traversals[l.method], lt)
		}
	}
	if len(st.refused) == len(st.lists) {
		return w.SetSkip(reports.Untestable, "no list the server declares could be read: "+strings.Join(st.refused, ", "))
	}
	return nil
}

// cacheableMethods are the methods whose complete results carry caching hints
// (server/utilities/caching#Cacheable Results).
var cacheableMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// traversalFrames returns the seqs of the frames of a traversal.
func traversalFrames(lt *client.ListTraversal) []int { return lt.Frames }
