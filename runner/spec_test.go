package runner

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// TestSpecLinksTheResultsRevision: a handshake-era result links the page at its own revision
// when that revision has it (a moved page under its older name), the latest legacy revision's
// when only that has it, and the rule's own page when no handshake revision has it; a modern
// result links the rule's page.
func TestSpecLinksTheResultsRevision(t *testing.T) {
	legacy := revisions.LegacyIDs() // newest first
	older := legacy[1]
	modern := revisions.Modern().ID
	e := &env{legacySpec: map[string]string{}}
	at := func(rev string, r catalog.Rule) string {
		s := &suiteRun{env: e, t: &target{revision: rev, modern: revisions.IsModern(rev)}}
		return s.spec(r).URL
	}
	both := catalog.Rule{ID: "X-001", Section: "basic/index#Messages", SpecRevision: modern}
	assert.Equal(t, revisions.SpecURL(older, "basic/index", "messages"), at(older, both))
	assert.Equal(t, revisions.SpecURL(modern, "basic/index", "messages"), at(modern, both))

	moved := catalog.Rule{ID: "X-002", Section: "basic/patterns/cancellation#Error Handling", SpecRevision: modern}
	assert.Equal(t, revisions.SpecURL(older, "basic/utilities/cancellation", "error-handling"), at(older, moved))

	onlyLatest := catalog.Rule{ID: "X-003", Section: "basic/utilities/tasks#Behavior", SpecRevision: legacy[0]}
	assert.Equal(t, revisions.SpecURL(legacy[0], "basic/utilities/tasks", "behavior"), at(older, onlyLatest))

	modernOnly := catalog.Rule{ID: "X-004", Section: "basic/patterns/mrtr#Flow", SpecRevision: modern}
	assert.Equal(t, revisions.SpecURL(modern, "basic/patterns/mrtr", "flow"), at(older, modernOnly))

	e.legacySpec["X-005"] = "server/index#Capabilities"
	named := catalog.Rule{ID: "X-005", Section: "server/discover#Result", SpecRevision: modern}
	assert.Equal(t, revisions.SpecURL(older, "server/index", "capabilities"), at(older, named))
}
