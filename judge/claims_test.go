package judge

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

func TestPointerMatch(t *testing.T) {
	for _, c := range []struct {
		pat, p string
		want   bool
	}{
		{"/$defs/*Result/required", "/$defs/ReadResourceResult/required", true},
		{"/$defs/*Result/required", "/$defs/ReadResourceResult/properties/x", false},
		{"/$defs/Tool/**", "/$defs/Tool", true},
		{"/$defs/Tool/**", "/$defs/Tool/properties/inputSchema/required", true},
		{"/$defs/Tool/**", "/$defs/ToolAnnotations/properties/title", false},
		{"/**/content", "/result/messages/1/content", true},
		{"/**/content", "/result/content/0", false},
		{"/**", "", true},
		{"/result", "", false},
	} {
		assert.Equal(t, c.want, pointerMatch(c.pat, c.p), "%s ~ %s", c.pat, c.p)
	}
}

// TestClaimantsMostSpecific: a member claim beats a whole-type claim, so a read result's
// missing ttlMs is CACHE-001's (and VER-007's) and RES-003, which validates the whole result, skips it;
// a rule with claims reports only its own.
func TestClaimantsMostSpecific(t *testing.T) {
	ttl := SchemaError{InstancePath: "/result", SchemaPath: "/$defs/ReadResourceResult/required", Members: []string{"ttlMs"}}
	assert.Equal(t, []string{"CACHE-001", "VER-007"}, Claimants(ttl), "a legacy-shaped reply lacks it too")
	assert.False(t, Reports("RES-003", ttl))
	assert.True(t, Reports("CACHE-001", ttl))

	text := SchemaError{InstancePath: "/result/contents/0", SchemaPath: "/$defs/TextResourceContents/required", Members: []string{"text"}}
	assert.Equal(t, []string{"RES-003"}, Claimants(text))
	assert.True(t, Reports("RES-003", text))

	ext := SchemaError{InstancePath: "/result/capabilities/extensions/x", SchemaPath: "/$defs/JSONObject/type"}
	assert.Equal(t, []string{"EXT-002"}, Claimants(ext), "the extensions claim is narrower than the capabilities one")

	nullID := SchemaError{InstancePath: "/id", SchemaPath: "/$defs/RequestId/type"}
	assert.Equal(t, []string{"MSG-009"}, Claimants(nullID), "an error with id null is MSG-009's")

	none := SchemaError{InstancePath: "/result/tools/0/annotations/title", SchemaPath: "/$defs/ToolAnnotations/properties/title/type"}
	assert.Empty(t, Claimants(none))
	assert.False(t, Reports("TOOL-001", none), "TOOL-001 reports its own paths; the rest is SCHEMA-001's")
	assert.True(t, Reports("MSG-003", none), "a rule without claims reports what nobody claims")
}

// TestClaimsCoverDraft07Definitions: the schemas of 2025-06-18 and older keep their types
// under /definitions; a claim written for /$defs owns the same violation there.
func TestClaimsCoverDraft07Definitions(t *testing.T) {
	init := SchemaError{InstancePath: "/result", SchemaPath: "/definitions/InitializeResult/required", Members: []string{"serverInfo"}}
	assert.Equal(t, []string{"LEG-001"}, Claimants(init))
	assert.Equal(t, Claimants(SchemaError{InstancePath: "/result", SchemaPath: "/$defs/InitializeResult/required", Members: []string{"serverInfo"}}), Claimants(init))
}

// TestReclaim: SCHEMA-001 leaves a violation to its owner when the owner is broken, names the
// owner on its pass, and still fails on the violations no broken rule owns.
func TestReclaim(t *testing.T) {
	set := testutil.Schemas(t)
	frames := stdioFrames(
		`>{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`<{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","cacheScope":"private","contents":[{"uri":"test://x","text":"t"}]}}`,
		`>{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`<{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[{"name":"t","inputSchema":{"type":"object"},"annotations":{"title":7}}]}}`,
	)
	for i, m := range []string{"resources/read", "resources/read", "tools/list", "tools/list"} {
		frames[i].Method = m
	}
	j := New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
	for _, f := range frames {
		j.Feed(testRev, f)
	}
	j.Finish()
	o, ok := j.Outcome(testRev, "SCHEMA-001")
	require.True(t, ok)
	require.NotNil(t, o.Mismatch)
	assert.Equal(t, []int{2, 4}, o.Mismatch.Frames, "Outcome judges every violation")

	broken := func(set ...string) func(string) bool {
		return func(r string) bool { return slices.Contains(set, r) }
	}
	o, ok = j.Reclaim(testRev, broken("CACHE-001"))
	require.True(t, ok)
	require.NotNil(t, o.Mismatch, "the tool annotation's title is nobody else's")
	assert.Equal(t, []int{4}, o.Mismatch.Frames)
	assert.Contains(t, o.Mismatch.Actual, "judged by CACHE-001")

	// A broken LEG-007 (every frame of a legacy session conforms) owns what nobody claims.
	o, _ = j.Reclaim(testRev, broken("CACHE-001", "LEG-007"))
	assert.Nil(t, o.Mismatch)
	assert.Contains(t, o.Note, "LEG-007")

	o, _ = j.Reclaim(testRev, broken())
	require.NotNil(t, o.Mismatch)
	assert.Equal(t, []int{2, 4}, o.Mismatch.Frames, "an owner that passed leaves its violation to SCHEMA-001")

	// Only the read result's violation: reclaimed by a broken CACHE-001, SCHEMA-001 passes.
	j = New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
	for _, f := range frames[:2] {
		j.Feed(testRev, f)
	}
	j.Finish()
	o, _ = j.Reclaim(testRev, broken("CACHE-001"))
	assert.Nil(t, o.Mismatch)
	assert.Equal(t, 1, o.Judged)
	assert.Contains(t, o.Note, "CACHE-001")
}

// TestClaimsNarrowRuleBeatsUnion: a resource_link without name is CONT-007's, although the
// content-block union (CONT-001) claims every required violation of a block.
func TestClaimsNarrowRuleBeatsUnion(t *testing.T) {
	e := SchemaError{InstancePath: "/result/messages/0/content", SchemaPath: "/$defs/ResourceLink/required", Members: []string{"name"}}
	assert.Equal(t, []string{"CONT-007"}, Claimants(e))
	unknown := SchemaError{InstancePath: "/result/content/0", SchemaPath: "/$defs/ImageContent/required", Members: []string{"data"}}
	assert.Equal(t, []string{"CONT-001"}, Claimants(unknown))
}

// TestLegacyReplyToRequestWithoutModernMeta: the reply to a request that named no 2026-07-28
// version may come from the legacy side of a dual-era server, so it is validated against the
// latest legacy schema: a legacy tools/list result is no SCHEMA-001 violation then.
func TestLegacyReplyToRequestWithoutModernMeta(t *testing.T) {
	set := testutil.Schemas(t)
	legacy := `<{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`
	for _, c := range []struct {
		req  string
		want bool
	}{
		{`>{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, false},
		{`>{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}`, false},
		{`>{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, true},
	} {
		frames := stdioFrames(c.req, legacy)
		frames[0].Method, frames[1].Method = "tools/list", "tools/list"
		frames[0].Intentional = true
		j := New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
		for _, f := range frames {
			j.Feed(testRev, f)
		}
		j.Finish()
		o, _ := j.Outcome(testRev, "SCHEMA-001")
		assert.Equal(t, c.want, o.Mismatch != nil, c.req)
	}
}

// TestSchemaLeavesEchoedIntentionalValues: a read result that repeats the invalid URI the suite
// sent on purpose ("test://template/%zz/data", no RFC 3986 URI) is no SCHEMA-001 violation (the
// suite's own; RES-008 judges the acceptance), but the same result to a valid-looking request
// is, and so is another violation in the echoing reply.
func TestSchemaLeavesEchoedIntentionalValues(t *testing.T) {
	set := testutil.Schemas(t)
	read := func(uri string) string {
		return `>{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"` + uri + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	}
	echo := `<{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","contents":[{"uri":"test://template/%zz/data","text":"t"}]}}`
	judgeSchema := func(intentional bool, reply string) Outcome {
		frames := stdioFrames(read("test://template/%zz/data"), reply)
		frames[0].Method, frames[1].Method = "resources/read", "resources/read"
		frames[0].Intentional = intentional
		j := New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
		for _, f := range frames {
			j.Feed(testRev, f)
		}
		j.Finish()
		o, ok := j.Outcome(testRev, "SCHEMA-001")
		require.True(t, ok)
		return o
	}
	o := judgeSchema(true, echo)
	assert.Nil(t, o.Mismatch, "the echoed URI is the suite's own invalid value")
	assert.Equal(t, 1, o.Judged)

	o = judgeSchema(false, echo)
	require.NotNil(t, o.Mismatch, "an invalid URI the suite did not send on purpose is the server's")

	o = judgeSchema(true, strings.Replace(echo, `"text":"t"`, `"text":7`, 1))
	require.NotNil(t, o.Mismatch, "a violation of its own in the echoing reply still counts")
}

// TestSchemaTaskAugmentedReply: the reply to a task-augmented 2025-11-25 tools/call is judged
// as a CreateTaskResult (no content), the same reply to a normal call as a CallToolResult.
func TestSchemaTaskAugmentedReply(t *testing.T) {
	set := testutil.Schemas(t)
	legacy := revisions.LatestLegacy().ID
	created := `<{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}`
	judgeSchema := func(params string) Outcome {
		frames := stdioFrames(`>{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`, created)
		frames[0].Method, frames[1].Method = "tools/call", "tools/call"
		j := New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
		for _, f := range frames {
			j.Feed(legacy, f)
		}
		j.Finish()
		o, ok := j.Outcome(legacy, "SCHEMA-001")
		require.True(t, ok)
		return o
	}
	assert.Nil(t, judgeSchema(`{"name":"x","arguments":{},"task":{"ttl":60000}}`).Mismatch)
	assert.NotNil(t, judgeSchema(`{"name":"x","arguments":{}}`).Mismatch, "a CreateTaskResult is no CallToolResult")
}
