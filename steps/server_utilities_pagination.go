package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-utilities-pagination", registerServerUtilitiesPaginationSteps) }

// registerServerUtilitiesPaginationSteps binds the steps that only
// features/server-utilities-pagination.feature uses.
func registerServerUtilitiesPaginationSteps(sc *godog.ScenarioContext) {
	// Pagination (PAGE-001..004) and one cacheScope per traversal (CACHE-005).
	step(sc, `^the client pages through every list the server declares, twice$`, pageStep(func(ctx context.Context, w *World, st *pageState) error {
		return w.traverseLists(ctx, st, 2)
	}))
	step(sc, `^every list ended on a page without nextCursor$`, pageStep(func(_ context.Context, _ *World, st *pageState) error {
		return st.listsEnded()
	}))
	step(sc, `^the client asks twice for the second page of the first declared list that has one$`, pageStep(func(ctx context.Context, w *World, st *pageState) error {
		return w.secondPageTwice(ctx, st)
	}))
	step(sc, `^both answers are the same page$`, pageStep(func(_ context.Context, _ *World, st *pageState) error {
		return st.samePage()
	}))
	step(sc, `^the client asks every list the server declares for a page with a cursor it never issued$`, pageStep(func(ctx context.Context, w *World, st *pageState) error {
		return w.invalidCursors(ctx, st)
	}))
	step(sc, `^every such request was answered with error -32602$`, pageStep(func(_ context.Context, w *World, st *pageState) error {
		return st.invalidCursorsRejected(w)
	}))
	step(sc, `^no traversal repeats an item and both traversals list the same items$`, pageStep(func(_ context.Context, _ *World, st *pageState) error {
		return st.noDuplicatesNoHoles()
	}))
}

// listsEnded is PAGE-001: every traversal ended on a page without nextCursor.
func (st *pageState) listsEnded() error {
	if len(st.problems) > 0 {
		return st.problems[0]
	}
	return nil
}

// noDuplicatesNoHoles is PAGE-004: within one traversal no item appears twice, and two
// traversals of the unchanged list give the same items.
func (st *pageState) noDuplicatesNoHoles() error {
	for _, l := range st.lists {
		ts := st.traversals[l.method]
		var sets []map[string]bool
		for _, lt := range ts {
			seen := map[string]bool{}
			page := map[string]int{}
			for i, it := range lt.Items {
				k := itemKey(it, l.key, lt.Raw[i])
				at := 0
				if len(lt.ItemFrames[i]) > 0 {
					at = lt.ItemFrames[i][0]
				}
				// A tool listed twice on one page is TOOL-006's (tool names are unique); only
				// a repeat across pages is the pagination's.
				if seen[k] && !(l.method == "tools/list" && page[k] == at) {
					return &client.Mismatch{Expected: fmt.Sprintf("one traversal of %s (%d pages) to list each item once", l.method, lt.Pages),
						Actual: fmt.Sprintf("%s %s appears twice", l.key, k), Frames: traversalFrames(lt)}
				}
				seen[k], page[k] = true, at
			}
			sets = append(sets, seen)
		}
		if len(sets) == 2 && !reflect.DeepEqual(sets[0], sets[1]) {
			return &client.Mismatch{Expected: fmt.Sprintf("two traversals of the unchanged %s to list the same items", l.method),
				Actual: fmt.Sprintf("first: %s; second: %s", keyList(sets[0]), keyList(sets[1])),
				Frames: append(traversalFrames(ts[0]), traversalFrames(ts[1])...)}
		}
	}
	return nil
}

// secondPageTwice is PAGE-002's request: the first page of each declared list until one has a
// nextCursor, then the page of that cursor twice.
func (w *World) secondPageTwice(ctx context.Context, st *pageState) error {
	lists := w.declaredLists()
	if len(lists) == 0 {
		return w.noLists()
	}
	for _, l := range lists {
		if err := w.SendParams(ctx, l.method, nil, nil, false); err != nil {
			return err
		}
		res := w.LastResult()
		next, ok := res["nextCursor"]
		if res == nil || !ok || !client.IsJSONString(next) {
			continue
		}
		var cursor string
		_ = json.Unmarshal(next, &cursor)
		for i := range st.pair {
			if err := w.SendParams(ctx, l.method, map[string]any{"cursor": cursor}, nil, false); err != nil {
				return err
			}
			st.pair[i] = w.Last
		}
		st.member = l.member
		return nil
	}
	return w.SetSkip(reports.Untestable, "no list the server declares returned a nextCursor on its first page (each fits in one page), so no cursor could be presented twice")
}

// samePage is PAGE-002's judgement: both answers to the same cursor are results with equal items.
func (st *pageState) samePage() error {
	var items [2]any
	frames := append(checks.ExchangeSeqs(st.pair[0]), checks.ExchangeSeqs(st.pair[1])...)
	for i, ex := range st.pair {
		msg := client.ResponseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &client.Mismatch{Expected: fmt.Sprintf("request %d of %s with the server's own cursor to get the page", i+1, client.SentMethod(ex)),
				Actual: client.DescribeExchange(ex), Frames: frames}
		}
		var res map[string]json.RawMessage
		_ = json.Unmarshal(msg.Result, &res)
		_ = json.Unmarshal(res[st.member], &items[i])
	}
	if !reflect.DeepEqual(items[0], items[1]) {
		return &client.Mismatch{Expected: "the same cursor to return the same " + st.member + " while the list is unchanged",
			Actual: fmt.Sprintf("%s, then %s", client.Short(mustMarshal(items[0])), client.Short(mustMarshal(items[1]))), Frames: frames}
	}
	return nil
}

// invalidCursors is PAGE-003's request: for each declared list the server serves, a page
// asked for with a cursor it never issued.
func (w *World) invalidCursors(ctx context.Context, st *pageState) error {
	lists := w.declaredLists()
	if len(lists) == 0 {
		return w.noLists()
	}
	var refused []string
	for _, l := range lists {
		if err := w.SendParams(ctx, l.method, nil, nil, false); err != nil {
			return err
		}
		if w.LastResult() == nil {
			refused = append(refused, l.method)
			continue
		}
		if err := w.SendParams(ctx, l.method, map[string]any{"cursor": invalidCursor}, nil, false); err != nil {
			return err
		}
		st.rejects = append(st.rejects, w.Last)
	}
	if len(st.rejects) == 0 {
		return w.SetSkip(reports.Untestable, "the server refused every list it declares ("+strings.Join(refused, ", ")+")")
	}
	return nil
}

// invalidCursorsRejected is PAGE-003's judgement.
func (st *pageState) invalidCursorsRejected(w *World) error {
	for _, ex := range st.rejects {
		msg := client.ResponseOf(ex)
		if msg != nil && msg.Kind == harness.KindError && msg.Error.Code == codeInvalidParamsPage {
			continue
		}
		if err := w.codeDefect(msg, codeInvalidParamsPage, "error -32602"); err != nil {
			return err
		}
		actual := client.DescribeExchange(ex)
		if msg != nil && msg.Kind == harness.KindResult {
			actual = "a result: the server served a page for the cursor " + invalidCursor + ", which it never issued"
		}
		return &client.Mismatch{Expected: fmt.Sprintf("error -32602 for %s with a cursor the server never issued", client.SentMethod(ex)),
			Actual: actual, Frames: checks.ExchangeSeqs(ex)}
	}
	return nil
}

// codeInvalidParamsPage is the JSON-RPC Invalid params code an invalid cursor gets.
const codeInvalidParamsPage = -32602

// itemKey identifies a list item by its key member, or by its JSON when that is not a string.
func itemKey(it map[string]any, key string, raw json.RawMessage) string {
	if s, ok := it[key].(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return client.Short(raw)
}

func keyList(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return client.Short([]byte(strings.Join(keys, ", ")))
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
