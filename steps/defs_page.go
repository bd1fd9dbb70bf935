package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// registerPageSteps binds the steps of pagination and caching (PAGE, CACHE).
func registerPageSteps(sc *godog.ScenarioContext) {
	// Pagination (PAGE-001..004) and one cacheScope per traversal (CACHE-005).
	step(sc, `^the client pages through every list the server declares$`, pageStep(func(ctx context.Context, w *world, st *pageState) error {
		return w.traverseLists(ctx, st, 1)
	}))
	step(sc, `^the client pages through every list the server declares, twice$`, pageStep(func(ctx context.Context, w *world, st *pageState) error {
		return w.traverseLists(ctx, st, 2)
	}))
	step(sc, `^every list ended on a page without nextCursor$`, pageStep(func(_ context.Context, _ *world, st *pageState) error {
		return st.listsEnded()
	}))
	step(sc, `^the client asks twice for the second page of the first declared list that has one$`, pageStep(func(ctx context.Context, w *world, st *pageState) error {
		return w.secondPageTwice(ctx, st)
	}))
	step(sc, `^both answers are the same page$`, pageStep(func(_ context.Context, _ *world, st *pageState) error {
		return st.samePage()
	}))
	step(sc, `^the client asks every list the server declares for a page with a cursor it never issued$`, pageStep(func(ctx context.Context, w *world, st *pageState) error {
		return w.invalidCursors(ctx, st)
	}))
	step(sc, `^every such request was answered with error -32602$`, pageStep(func(_ context.Context, _ *world, st *pageState) error {
		return st.invalidCursorsRejected()
	}))
	step(sc, `^no traversal repeats an item and both traversals list the same items$`, pageStep(func(_ context.Context, _ *world, st *pageState) error {
		return st.noDuplicatesNoHoles()
	}))
	step(sc, `^all pages of each list carry one cacheScope$`, pageStep(func(_ context.Context, w *world, st *pageState) error {
		return st.oneScopePerTraversal(w)
	}))

	// Caching hints (CACHE-001..004).
	step(sc, `^the client requests every cacheable result the server offers$`, pageStep(func(ctx context.Context, w *world, st *pageState) error {
		return w.requestCacheables(ctx, st)
	}))
	step(sc, `^every complete result of a cacheable method in this run carries ttlMs and cacheScope$`, askJudge("CACHE-001"))
	step(sc, `^every ttlMs the server sent in this run is an integer of at least 0$`, askJudge("CACHE-002"))
	step(sc, `^every cacheScope the server sent in this run is "public" or "private"$`, askJudge("CACHE-003"))
	step(sc, `^the client calls the elicitation fixture tool declaring the elicitation capability$`, pageStep(func(ctx context.Context, w *world, _ *pageState) error {
		return w.callInputRequired(ctx)
	}))
	step(sc, `^no input_required result the server sent in this run carries ttlMs or cacheScope$`, askJudge("CACHE-004"))
}

// pageState is what the pagination and caching steps of one scenario pass from their When
// steps to their Then steps.
type pageState struct {
	// lists are the declared lists, in the order traversed.
	lists []pageList
	// traversals holds, per list method, each completed (or cut short) traversal.
	traversals map[string][]*listTraversal
	// problems are the traversals that did not end properly (PAGE-001).
	problems []*Mismatch
	// refused names the lists whose first page the server refused (not offered).
	refused []string
	// pair is the page asked for twice (PAGE-002), with the list and cursor.
	pair   [2]*harness.Exchange
	member string
	// rejects are the invalid-cursor requests of PAGE-003.
	rejects []*harness.Exchange
}

// pageList is one list method, the array member of its pages and the member that identifies
// an item.
type pageList struct{ method, member, key string }

// declaredLists returns the list methods of the capabilities the server declares.
func (w *world) declaredLists() []pageList {
	var out []pageList
	if w.declares("tools") {
		out = append(out, pageList{"tools/list", "tools", "name"})
	}
	if w.declares("resources") {
		out = append(out, pageList{"resources/list", "resources", "uri"}, pageList{"resources/templates/list", "resourceTemplates", "uriTemplate"})
	}
	if w.declares("prompts") {
		out = append(out, pageList{"prompts/list", "prompts", "name"})
	}
	return out
}

// pageStep binds fn to the scenario's world and its page state.
func pageStep(fn func(context.Context, *world, *pageState) error) func(context.Context) error {
	return func(ctx context.Context) error {
		w := worldOf(ctx)
		return fn(ctx, w, w.page)
	}
}

// noLists is the na of a server that declares none of the paginated lists.
func (w *world) noLists() error {
	return w.setSkip(reports.NA, "the server declares none of the tools, resources and prompts capabilities, so it has no list to page")
}

// traverseLists follows every declared list to its end, times times. A list whose first page
// is refused is left out (the capability rules judge that); a next page refused for the
// server's own cursor is a broken traversal.
func (w *world) traverseLists(ctx context.Context, st *pageState, times int) error {
	st.lists = w.declaredLists()
	if len(st.lists) == 0 {
		return w.noLists()
	}
	st.traversals = map[string][]*listTraversal{}
	for _, l := range st.lists {
		for i := 0; i < times; i++ {
			lt, err := w.listAll(ctx, l.method, l.member)
			var mm *Mismatch
			var lr *listRefused
			switch {
			case err == nil:
			case errors.As(err, &mm):
				st.problems = append(st.problems, mm)
			case errors.As(err, &lr) && lr.Page == 1:
				st.refused = append(st.refused, fmt.Sprintf("%s (%s)", l.method, lr.Actual))
			case errors.As(err, &lr):
				st.problems = append(st.problems, &Mismatch{
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
		return w.setSkip(reports.Untestable, "the server refused every list it declares: "+strings.Join(st.refused, ", "))
	}
	return nil
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
			for i, it := range lt.Items {
				k := itemKey(it, l.key, lt.Raw[i])
				if seen[k] {
					return &Mismatch{Expected: fmt.Sprintf("one traversal of %s (%d pages) to list each item once", l.method, lt.Pages),
						Actual: fmt.Sprintf("%s %s appears twice", l.key, k), Frames: traversalFrames(lt)}
				}
				seen[k] = true
			}
			sets = append(sets, seen)
		}
		if len(sets) == 2 && !reflect.DeepEqual(sets[0], sets[1]) {
			return &Mismatch{Expected: fmt.Sprintf("two traversals of the unchanged %s to list the same items", l.method),
				Actual: fmt.Sprintf("first: %s; second: %s", keyList(sets[0]), keyList(sets[1])),
				Frames: append(traversalFrames(ts[0]), traversalFrames(ts[1])...)}
		}
	}
	return nil
}

// oneScopePerTraversal is CACHE-005: every page of one traversal carries the same cacheScope.
func (st *pageState) oneScopePerTraversal(w *world) error {
	paged := 0
	for _, l := range st.lists {
		for _, lt := range st.traversals[l.method] {
			if len(lt.Scopes) < 2 {
				continue
			}
			paged++
			for i, s := range lt.Scopes {
				if s != lt.Scopes[0] {
					return &Mismatch{Expected: fmt.Sprintf("every page of %s to carry the first page's cacheScope %q", l.method, lt.Scopes[0]),
						Actual: fmt.Sprintf("page %d carries %q", i+1, s), Frames: traversalFrames(lt)}
				}
			}
		}
	}
	if paged == 0 {
		return w.setSkip(reports.Untestable, "no list the server declares has more than one page, so no traversal could change its cacheScope")
	}
	return nil
}

// secondPageTwice is PAGE-002's request: the first page of each declared list until one has a
// nextCursor, then the page of that cursor twice.
func (w *world) secondPageTwice(ctx context.Context, st *pageState) error {
	lists := w.declaredLists()
	if len(lists) == 0 {
		return w.noLists()
	}
	for _, l := range lists {
		if err := w.sendParams(ctx, l.method, nil, nil, false); err != nil {
			return err
		}
		res := w.lastResult()
		next, ok := res["nextCursor"]
		if res == nil || !ok || !isJSONString(next) {
			continue
		}
		var cursor string
		_ = json.Unmarshal(next, &cursor)
		for i := range st.pair {
			if err := w.sendParams(ctx, l.method, map[string]any{"cursor": cursor}, nil, false); err != nil {
				return err
			}
			st.pair[i] = w.last
		}
		st.member = l.member
		return nil
	}
	return w.setSkip(reports.Untestable, "no list the server declares returned a nextCursor on its first page (each fits in one page), so no cursor could be presented twice")
}

// samePage is PAGE-002's judgement: both answers to the same cursor are results with equal items.
func (st *pageState) samePage() error {
	var items [2]any
	frames := append(exchangeSeqs(st.pair[0]), exchangeSeqs(st.pair[1])...)
	for i, ex := range st.pair {
		msg := responseOf(ex)
		if msg == nil || msg.Kind != harness.KindResult {
			return &Mismatch{Expected: fmt.Sprintf("request %d of %s with the server's own cursor to get the page", i+1, ex.Sent.Method),
				Actual: describeExchange(ex), Frames: frames}
		}
		var res map[string]json.RawMessage
		_ = json.Unmarshal(msg.Result, &res)
		_ = json.Unmarshal(res[st.member], &items[i])
	}
	if !reflect.DeepEqual(items[0], items[1]) {
		return &Mismatch{Expected: "the same cursor to return the same " + st.member + " while the list is unchanged",
			Actual: fmt.Sprintf("%s, then %s", short(mustMarshal(items[0])), short(mustMarshal(items[1]))), Frames: frames}
	}
	return nil
}

// invalidCursors is PAGE-003's request: for each declared list the server serves, a page
// asked for with a cursor it never issued.
func (w *world) invalidCursors(ctx context.Context, st *pageState) error {
	lists := w.declaredLists()
	if len(lists) == 0 {
		return w.noLists()
	}
	var refused []string
	for _, l := range lists {
		if err := w.sendParams(ctx, l.method, nil, nil, false); err != nil {
			return err
		}
		if w.lastResult() == nil {
			refused = append(refused, l.method)
			continue
		}
		if err := w.sendParams(ctx, l.method, map[string]any{"cursor": invalidCursor}, nil, false); err != nil {
			return err
		}
		st.rejects = append(st.rejects, w.last)
	}
	if len(st.rejects) == 0 {
		return w.setSkip(reports.Untestable, "the server refused every list it declares ("+strings.Join(refused, ", ")+")")
	}
	return nil
}

// invalidCursorsRejected is PAGE-003's judgement.
func (st *pageState) invalidCursorsRejected() error {
	for _, ex := range st.rejects {
		msg := responseOf(ex)
		if msg != nil && msg.Kind == harness.KindError && msg.Error.Code == codeInvalidParamsPage {
			continue
		}
		actual := describeExchange(ex)
		if msg != nil && msg.Kind == harness.KindResult {
			actual = "a result: the server served a page for the cursor " + invalidCursor + ", which it never issued"
		}
		return &Mismatch{Expected: fmt.Sprintf("error -32602 for %s with a cursor the server never issued", ex.Sent.Method),
			Actual: actual, Frames: exchangeSeqs(ex)}
	}
	return nil
}

// codeInvalidParamsPage is the JSON-RPC Invalid params code an invalid cursor gets.
const codeInvalidParamsPage = -32602

// cacheableMethods are the methods whose complete results carry caching hints
// (server/utilities/caching#Cacheable Results).
var cacheableMethods = map[string]bool{
	"server/discover": true, "tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// requestCacheables sends server/discover, pages every declared list and reads the first
// listed resource, so that the caching sweeps have every cacheable result to judge.
func (w *world) requestCacheables(ctx context.Context, st *pageState) error {
	if err := w.sendParams(ctx, "server/discover", nil, nil, false); err != nil {
		return err
	}
	for _, l := range w.declaredLists() {
		lt, err := w.listAll(ctx, l.method, l.member)
		var mm *Mismatch
		var lr *listRefused
		if err != nil && !errors.As(err, &mm) && !errors.As(err, &lr) {
			return err
		}
		if l.method != "resources/list" || lt == nil {
			continue
		}
		for _, it := range lt.Items {
			if uri, ok := it["uri"].(string); ok {
				if err := w.sendParams(ctx, "resources/read", map[string]any{"uri": uri}, nil, false); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// elicitationFixture is the official conformance suite's fixture tool that asks the client
// for input through an elicitation (a multi round-trip request) when the client declares the
// elicitation capability.
const elicitationFixture = "test_elicitation"

// callInputRequired is CACHE-004's request: the elicitation fixture tool, called declaring the
// elicitation capability, which must answer with an input_required result.
func (w *world) callInputRequired(ctx context.Context) error {
	name := w.s.env.fixtureName(elicitationFixture)
	lt, err := w.listAll(ctx, "tools/list", "tools")
	var mm *Mismatch
	var lr *listRefused
	if err != nil && !errors.As(err, &mm) && !errors.As(err, &lr) {
		return err
	}
	var schema json.RawMessage
	found := false
	if lt != nil {
		for i, it := range lt.Items {
			if it["name"] == name {
				var tool map[string]json.RawMessage
				_ = json.Unmarshal(lt.Raw[i], &tool)
				schema, found = tool["inputSchema"], true
				break
			}
		}
	}
	if !found {
		return w.setSkip(reports.Untestable, fmt.Sprintf("no tool %q (the fixture that answers input_required), so no interim result could be judged", name))
	}
	args, ok := fixtureArgs(schema)
	if !ok {
		return w.setSkip(reports.Untestable, fmt.Sprintf("the fixture tool %q has required arguments the suite cannot fill (only strings, numbers and booleans)", name))
	}
	caps := map[string]any{harness.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}}}
	if err := w.send(ctx, w.build(w.toolsCall(name, args, caps))); err != nil {
		return err
	}
	if res := w.lastResult(); res == nil || stringOf(res["resultType"]) != "input_required" {
		return w.setSkip(reports.Untestable, fmt.Sprintf("the fixture tool %q answered with %s, not an input_required result", name, describeExchange(w.last)))
	}
	return nil
}

// itemKey identifies a list item by its key member, or by its JSON when that is not a string.
func itemKey(it map[string]any, key string, raw json.RawMessage) string {
	if s, ok := it[key].(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return short(raw)
}

func keyList(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return short([]byte(strings.Join(keys, ", ")))
}

// traversalFrames returns the seqs of the frames of a traversal.
func traversalFrames(lt *listTraversal) []int { return lt.Frames }

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// isJSONString reports whether raw is a JSON string (not null, not another type).
func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}
