package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/mcp-conform/mcp-conform/checks"
	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

func init() { bindSteps("server-utilities-caching", registerServerUtilitiesCachingSteps) }

// registerServerUtilitiesCachingSteps binds the steps that only
// features/server-utilities-caching.feature uses.
func registerServerUtilitiesCachingSteps(sc *godog.ScenarioContext) {
	// Pagination (PAGE-001..004) and one cacheScope per traversal (CACHE-005).
	step(sc, `^all pages of each list carry one cacheScope$`, pageStep(func(_ context.Context, w *World, st *pageState) error {
		return st.oneScopePerTraversal(w)
	}))

	// Caching hints (CACHE-001..004).
	step(sc, `^the client requests every cacheable result the server offers$`, pageStep(func(ctx context.Context, w *World, st *pageState) error {
		return w.requestCacheables(ctx, st)
	}))
	step(sc, `^every complete result of a cacheable method in this run carries ttlMs and cacheScope$`, AskJudge("CACHE-001"))
	step(sc, `^every ttlMs the server sent in this run is an integer of at least 0$`, AskJudge("CACHE-002"))
	step(sc, `^every cacheScope the server sent in this run is "public" or "private"$`, AskJudge("CACHE-003"))
	step(sc, `^the client calls the elicitation fixture tool declaring the elicitation capability$`, pageStep(func(ctx context.Context, w *World, _ *pageState) error {
		return w.callInputRequired(ctx)
	}))
	step(sc, `^no input_required result the server sent in this run carries ttlMs or cacheScope$`, AskJudge("CACHE-004"))
}

// oneScopePerTraversal is CACHE-005: every page of one traversal carries the same cacheScope.
func (st *pageState) oneScopePerTraversal(w *World) error {
	paged := 0
	for _, l := range st.lists {
		for _, lt := range st.traversals[l.method] {
			if len(lt.Scopes) < 2 {
				continue
			}
			paged++
			for i, s := range lt.Scopes {
				if s != lt.Scopes[0] {
					return &client.Mismatch{Expected: fmt.Sprintf("every page of %s to carry the first page's cacheScope %q", l.method, lt.Scopes[0]),
						Actual: fmt.Sprintf("page %d carries %q", i+1, s), Frames: traversalFrames(lt)}
				}
			}
		}
	}
	if paged == 0 {
		return w.SetSkip(reports.Untestable, "no list the server declares has more than one page, so no traversal could change its cacheScope")
	}
	return nil
}

// requestCacheables sends server/discover, pages every declared list and reads the first
// listed resource, so that the caching sweeps have every cacheable result to judge.
func (w *World) requestCacheables(ctx context.Context, st *pageState) error {
	if err := w.SendParams(ctx, "server/discover", nil, nil, false); err != nil {
		return err
	}
	for _, l := range w.declaredLists() {
		lt, err := w.ListAll(ctx, l.method, l.member)
		var mm *client.Mismatch
		var lr *client.ListRefused
		if err != nil && !errors.As(err, &mm) && !errors.As(err, &lr) {
			return err
		}
		if l.method != "resources/list" || lt == nil {
			continue
		}
		for _, it := range lt.Items {
			if uri, ok := it["uri"].(string); ok {
				if err := w.SendParams(ctx, "resources/read", map[string]any{"uri": uri}, nil, false); err != nil {
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
func (w *World) callInputRequired(ctx context.Context) error {
	name := w.Opts.FixtureName(elicitationFixture)
	lt, err := w.ListAll(ctx, "tools/list", "tools")
	var mm *client.Mismatch
	var lr *client.ListRefused
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
		return w.SetSkip(reports.Untestable, fmt.Sprintf("no tool %q (the fixture that answers input_required), so no interim result could be judged", name))
	}
	args, ok := checks.FixtureArgs(schema)
	if !ok {
		return w.SetSkip(reports.Untestable, fmt.Sprintf("the fixture tool %q has required arguments the suite cannot fill (only strings, numbers and booleans)", name))
	}
	caps := map[string]any{harness.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}}}
	if err := w.Send(ctx, w.Build(w.ToolsCall(name, args, caps))); err != nil {
		return err
	}
	if res := w.LastResult(); res == nil || stringOf(res["resultType"]) != "input_required" {
		return w.SetSkip(reports.Untestable, fmt.Sprintf("the fixture tool %q answered with %s, not an input_required result", name, client.DescribeExchange(w.Last)))
	}
	return nil
}
