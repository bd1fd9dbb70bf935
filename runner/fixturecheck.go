package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// fixtureList is a list request whose items may hold a fixture: the capability that gates it,
// the method, the result member holding the items and the item field naming one.
type fixtureList struct {
	capability, method, member, field, noun string
}

// fixtureLists returns the lists a server's name for fixture (FixtureTools, FixturePrompts,
// FixtureResources) would appear in.
func fixtureLists(fixture string) []fixtureList {
	switch {
	case slices.Contains(client.FixtureTools, fixture):
		return []fixtureList{{"tools", "tools/list", "tools", "name", "tool"}}
	case slices.Contains(client.FixturePrompts, fixture):
		return []fixtureList{{"prompts", "prompts/list", "prompts", "name", "prompt"}}
	}
	return []fixtureList{
		{"resources", "resources/list", "resources", "uri", "resource"},
		{"resources", "resources/templates/list", "resourceTemplates", "uriTemplate", "resource template"},
	}
}

// maxFixturePages bounds the pages checkFixtureMap reads of one list.
const maxFixturePages = 50

// checkFixtureMap lists, on t's shared connection, what the --fixture-map entries name and
// returns a warning for each alias the server does not list (or whose capability it does not
// declare). A list that cannot be read gives no warning: the rules that read it judge it.
func (e *env) checkFixtureMap(ctx context.Context, t *target) []string {
	names := map[string][]string{} // method -> listed names
	read := map[string]bool{}
	var warnings []string
	for _, fixture := range slices.Sorted(maps.Keys(e.cfg.FixtureMap)) {
		alias := e.cfg.FixtureMap[fixture]
		lists := fixtureLists(fixture)
		if _, ok := t.caps[lists[0].capability]; !ok && t.capsUnknown == "" {
			warnings = append(warnings, fmt.Sprintf("--fixture-map %s=%s: the server declares no %s capability, so it has no %s %q", fixture, alias, lists[0].capability, lists[0].noun, alias))
			continue
		}
		found, known := false, false
		var asked []string
		for _, l := range lists {
			if !read[l.method] {
				read[l.method] = true
				if got, ok := e.listNames(ctx, t, l); ok {
					names[l.method] = got
				}
			}
			got, ok := names[l.method]
			known = known || ok
			found = found || slices.Contains(got, alias)
			asked = append(asked, l.method)
		}
		// A tool that asks the client may be listed only to a client that declares the
		// capability, which the shared connection does not: its absence there proves nothing
		// (server-everything lists its trigger-sampling-request that way).
		if _, asks := client.FixtureAsks[fixture]; known && !found && !asks {
			warnings = append(warnings, fmt.Sprintf("--fixture-map %s=%s: the server lists no %s %q in %s; the rules that use %s will not find it", fixture, alias, lists[0].noun, alias, strings.Join(asked, " or "), fixture))
		}
	}
	return warnings
}

// listNames reads every page of list l on t's shared connection and returns the names its
// items give; ok is false when a page could not be read.
func (e *env) listNames(ctx context.Context, t *target, l fixtureList) (names []string, ok bool) {
	cursor := ""
	for range maxFixturePages {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		id := e.ids.Next()
		raw := harness.BuildRequest(id, l.method, params)
		if t.modern {
			raw = harness.ModernRequest(id, l.method, t.revision, params)
		}
		rctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
		ex, _ := harness.SendFor(rctx, t.shared, raw, id, l.method, t.modern, t.revision)
		cancel()
		if ex == nil || ex.Response == nil {
			return nil, false
		}
		msg, _ := harness.ParseMessage(ex.Response.Body())
		var page map[string]json.RawMessage
		if msg.Kind != harness.KindResult || json.Unmarshal(msg.Result, &page) != nil {
			return nil, false
		}
		var items []map[string]any
		_ = json.Unmarshal(page[l.member], &items)
		for _, it := range items {
			if s, _ := it[l.field].(string); s != "" {
				names = append(names, s)
			}
		}
		if json.Unmarshal(page["nextCursor"], &cursor) != nil || cursor == "" {
			return names, true
		}
	}
	return names, true
}
