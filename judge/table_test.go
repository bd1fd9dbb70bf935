package judge

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/revisions"
)

// conv builds a conversation; each frame gets the next seq.
type conv struct{ frames []*harness.Frame }

func (c *conv) add(f *harness.Frame) *harness.Frame {
	f.Seq = len(c.frames) + 1
	if f.Conn == 0 {
		f.Conn = 1
	}
	c.frames = append(c.frames, f)
	return f
}

// stdio client (">") and server frames.
func (c *conv) cli(raw string) *harness.Frame {
	return c.add(&harness.Frame{Dir: harness.DirClientToServer, Transport: harness.TransportStdio, Raw: []byte(raw)})
}

func (c *conv) srv(raw, method string) *harness.Frame {
	return c.add(&harness.Frame{Dir: harness.DirServerToClient, Transport: harness.TransportStdio, Raw: []byte(raw), Method: method})
}

// post is a client POST with the headers a conforming modern client sends for method.
func (c *conv) post(raw, method string) *harness.Frame {
	h := http.Header{"Mcp-Method": {method}, "Mcp-Protocol-Version": {testRev}}
	return c.add(&harness.Frame{Dir: harness.DirClientToServer, Transport: harness.TransportHTTP, Raw: []byte(raw), Method: method,
		HTTP: &harness.HTTPMeta{Method: http.MethodPost, Headers: h}})
}

// body is the application/json reply body to req.
func (c *conv) body(req *harness.Frame, status int, ct, raw string) *harness.Frame {
	return c.add(&harness.Frame{Dir: harness.DirServerToClient, Transport: harness.TransportHTTP, Raw: []byte(raw), Method: req.Method, ReplyTo: req.Seq,
		HTTP: &harness.HTTPMeta{Status: status, Headers: http.Header{"Content-Type": {ct}}}})
}

// sse is an SSE event on the reply stream of req.
func (c *conv) sse(req *harness.Frame, raw string) *harness.Frame {
	return c.add(&harness.Frame{Dir: harness.DirServerToClient, Transport: harness.TransportHTTP, Raw: []byte(raw), Method: req.Method, ReplyTo: req.Seq,
		SSE:  &harness.SSEMeta{},
		HTTP: &harness.HTTPMeta{Status: 200, Headers: http.Header{"Content-Type": {"text/event-stream"}, "X-Accel-Buffering": {"no"}}}})
}

const (
	listReq   = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	listOK    = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"public"}}`
	callReq   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p","io.modelcontextprotocol/logLevel":"warning"}}}`
	callOK    = `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}`
	progress  = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
	logWarn   = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"x"}}`
	discoverR = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","capabilities":{"tools":{}},"supportedVersions":["2026-07-28"]}}`
)

// tableCase is a passing and a failing conversation for one rule.
type tableCase struct {
	rule      string
	good, bad func(c *conv)
}

var tableCases = []tableCase{
	{"ERR-004", func(c *conv) {
		c.cli(listReq)
		c.srv(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, "tools/list")
	},
		func(c *conv) {
			c.cli(listReq)
			c.srv(`{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"x"}}`, "tools/list")
		}},
	{"ERR-005", func(c *conv) {
		c.cli(listReq)
		c.srv(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`, "tools/list")
	},
		func(c *conv) {
			c.cli(listReq)
			c.srv(`{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"x"}}`, "tools/list")
		}},
	{"ERR-008", func(c *conv) {
		c.cli(callReq)
		c.srv(`{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"x","data":{"requiredCapabilities":{"sampling":{}}}}}`, "tools/call")
	}, func(c *conv) {
		c.cli(callReq)
		c.srv(`{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"x","data":{"requiredCapabilities":{}}}}`, "tools/call")
	}},
	{"CAP-005", func(c *conv) {
		c.cli(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`)
		c.srv(`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{}}}}`, "server/discover")
		c.cli(callReq)
		c.srv(logWarn, "")
	}, func(c *conv) {
		c.cli(callReq)
		c.srv(logWarn, "")
		// The declaration decides, wherever it comes in the run.
		c.cli(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`)
		c.srv(`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"tools":{}}}}`, "server/discover")
	}},
	{"CACHE-001", func(c *conv) { c.cli(listReq); c.srv(listOK, "tools/list") },
		func(c *conv) {
			c.cli(listReq)
			c.srv(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`, "tools/list")
		}},
	{"CACHE-002", func(c *conv) { c.cli(listReq); c.srv(listOK, "tools/list") },
		func(c *conv) {
			c.cli(listReq)
			c.srv(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":1.5,"cacheScope":"public"}}`, "tools/list")
		}},
	{"CACHE-003", func(c *conv) { c.cli(listReq); c.srv(listOK, "tools/list") },
		func(c *conv) {
			c.cli(listReq)
			c.srv(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"ttlMs":0,"cacheScope":"shared"}}`, "tools/list")
		}},
	{"CACHE-004", func(c *conv) {
		c.cli(callReq)
		c.srv(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s"}}`, "tools/call")
	}, func(c *conv) {
		c.cli(callReq)
		c.srv(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s","ttlMs":5}}`, "tools/call")
	}},
	{"HTTP-006", func(c *conv) { r := c.post(callReq, "tools/call"); c.sse(r, callOK) },
		func(c *conv) {
			r := c.post(callReq, "tools/call")
			e := c.sse(r, "not json")
			e.Problem = "not a JSON-RPC message"
		}},
	{"HTTP-007", func(c *conv) { r := c.post(callReq, "tools/call"); c.sse(r, progress); c.sse(r, callOK) },
		func(c *conv) {
			r := c.post(callReq, "tools/call")
			c.sse(r, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"q","progress":1}}`)
		}},
	{"HTTP-008", func(c *conv) { r := c.post(callReq, "tools/call"); c.sse(r, callOK) },
		func(c *conv) {
			r := c.post(callReq, "tools/call")
			c.sse(r, `{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage"}`)
		}},
	{"HTTP-009", func(c *conv) { r := c.post(callReq, "tools/call"); c.sse(r, progress); c.sse(r, callOK) },
		func(c *conv) { r := c.post(callReq, "tools/call"); c.sse(r, callOK); c.sse(r, progress) }},
	{"HTTP-010", func(c *conv) { r := c.post(callReq, "tools/call"); c.sse(r, callOK) },
		func(c *conv) {
			r := c.post(callReq, "tools/call")
			e := c.sse(r, callOK)
			e.HTTP.Headers.Del("X-Accel-Buffering")
		}},
	{"HTTP-012", func(c *conv) {
		r1 := c.post(listReq, "tools/list")
		r2 := c.post(callReq, "tools/call")
		c.body(r1, 200, "application/json", listOK)
		c.body(r2, 200, "application/json", callOK)
	}, func(c *conv) {
		r1 := c.post(listReq, "tools/list")
		r2 := c.post(callReq, "tools/call")
		c.body(r2, 200, "application/json", listOK)
		c.body(r1, 200, "application/json", callOK)
	}},
	{"ERR-010", func(c *conv) {
		r := c.post(`{"jsonrpc":"2.0","id":1,"method":"nope","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "nope")
		c.body(r, 404, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`)
	}, func(c *conv) {
		r := c.post(`{"jsonrpc":"2.0","id":1,"method":"nope","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "nope")
		c.body(r, 404, "text/plain", `not found`)
	}},
	{"STDIO-002", func(c *conv) { c.cli(listReq); c.srv(listOK, "tools/list") },
		func(c *conv) {
			c.cli(listReq)
			f := c.srv("starting server...", "")
			f.Problem = "not a JSON-RPC message"
		}},
	{"LOG-001", func(c *conv) { c.cli(callReq); c.srv(logWarn, ""); c.srv(callOK, "tools/call") },
		func(c *conv) { c.cli(listReq); c.srv(logWarn, ""); c.srv(listOK, "tools/list") }},
	{"LOG-002", func(c *conv) { c.cli(callReq); c.srv(logWarn, ""); c.srv(callOK, "tools/call") },
		func(c *conv) {
			c.cli(callReq)
			c.srv(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"x"}}`, "")
		}},
	{"LOG-003", func(c *conv) { c.cli(callReq); c.srv(logWarn, ""); c.srv(callOK, "tools/call") },
		func(c *conv) { c.cli(callReq); c.srv(callOK, "tools/call"); c.srv(logWarn, "") }},
	{"LOG-005", func(c *conv) { c.cli(callReq); c.srv(logWarn, "") },
		func(c *conv) {
			c.cli(callReq)
			c.srv(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":"x"}}`, "")
		}},
	{"EXT-003", func(c *conv) { c.cli(callReq); c.srv(callOK, "tools/call") },
		func(c *conv) {
			c.cli(callReq)
			c.srv(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"com.example/x"}}`, "tools/call")
		}},
	{"EXT-005", func(c *conv) { c.cli(callReq); c.srv(callOK, "tools/call") },
		func(c *conv) {
			c.cli(callReq)
			c.srv(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"task","task":{}}}`, "tools/call")
		}},
	{"DEP-001", func(c *conv) {
		c.cli(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`)
		c.srv(discoverR, "server/discover")
	},
		func(c *conv) {
			c.cli(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`)
			c.srv(`{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{}}}}`, "server/discover")
		}},
	{"DEP-004", func(c *conv) { c.cli(callReq); c.srv(callOK, "tools/call") },
		func(c *conv) {
			c.cli(callReq)
			c.srv(`{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"e":{"method":"elicitation/create","params":{"mode":"url","elicitationId":"x"}}}}}`, "tools/call")
		}},
}

func TestTableRulesOnFrames(t *testing.T) {
	for _, tc := range tableCases {
		t.Run(tc.rule, func(t *testing.T) {
			var good, bad conv
			tc.good(&good)
			tc.bad(&bad)
			o := judgeRule(t, tc.rule, good.frames)
			assert.Nil(t, o.Mismatch, "good frames")
			assert.NotZero(t, o.Judged, "good frames are judged")
			o = judgeRule(t, tc.rule, bad.frames)
			require.NotNil(t, o.Mismatch, "bad frames")
			assert.NotEmpty(t, o.Mismatch.Frames)
		})
	}
}

// TestEveryRuleHasCases: each rule of the table is unit-tested here on a passing and a
// failing conversation (this file, msg_test.go, cont_test.go, stdio_test.go, schema_test.go,
// progress_test.go, input_test.go's TestRequestSchema for LEG-010, which needs the schemas).
func TestEveryRuleHasCases(t *testing.T) {
	covered := map[string]bool{"SCHEMA-001": true, "LEG-010": true, "STDIO-004": true, "CONT-001": true, "CONT-002": true, "CONT-003": true,
		"CONT-004": true, "CONT-005": true, "CONT-006": true, "CONT-007": true, "PROMPT-006": true,
		// progress_test.go
		"PROG-001": true, "PROG-002": true, "PROG-003": true, "PROG-004": true, "PROG-006": true}
	for _, tc := range tableCases {
		covered[tc.rule] = true
	}
	for _, id := range msgCaseRules {
		covered[id] = true
	}
	for _, id := range Rules() {
		assert.True(t, covered[id], "rule %s has no unit test", id)
	}
}

// TestExcusedFrames: a request marked intentional and its reply are hidden from the rules that
// are not about such requests, and shown to the ones that are.
func TestExcusedFrames(t *testing.T) {
	var c conv
	r := c.cli(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`)
	r.Intentional = true
	c.srv(`{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete"}}`, "tools/call")
	c.srv(`{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"x"}}`, "tools/call")
	// MSG-013 (not about them) sees neither the request nor its two replies.
	o := judgeRule(t, "MSG-013", c.frames)
	assert.Nil(t, o.Mismatch)
	assert.Zero(t, o.Judged)
	// ERR-004 (about error codes, which such requests provoke) sees the reply.
	o = judgeRule(t, "ERR-004", c.frames)
	assert.NotNil(t, o.Mismatch)
	// Without the mark, MSG-013 sees the second reply to one request.
	r.Intentional = false
	assert.NotNil(t, judgeRule(t, "MSG-013", c.frames).Mismatch)
}

// TestNoneMeansNA: an entry with a None reason is na when it judged nothing.
func TestNoneMeansNA(t *testing.T) {
	var c conv
	r := c.post(listReq, "tools/list")
	c.body(r, 200, "application/json", listOK)
	o := judgeRule(t, "HTTP-008", c.frames)
	assert.Equal(t, noSSE, o.NA)
	assert.Zero(t, o.Judged)
}

func TestSchemaConformance(t *testing.T) {
	set := testutil.Schemas(t)
	feed := func(frames []*harness.Frame) *Judge {
		j := New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
		for _, f := range frames {
			j.Feed(testRev, f)
		}
		j.Finish()
		return j
	}
	good := stdioFrames(`>{"jsonrpc":"2.0","id":1,"method":"ping"}`, `<{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
	good[0].Method, good[1].Method = "ping", "ping"
	j := feed(good)
	o, ok := j.Outcome(testRev, "SCHEMA-001")
	require.True(t, ok)
	assert.Nil(t, o.Mismatch)
	assert.Equal(t, 1, o.Judged)

	bad := stdioFrames(`>{"jsonrpc":"2.0","id":1,"method":"ping"}`, `<{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":1}}`)
	bad[0].Method, bad[1].Method = "ping", "ping"
	j = feed(bad)
	o, _ = j.Outcome(testRev, "SCHEMA-001")
	require.NotNil(t, o.Mismatch)
	assert.Equal(t, []int{2}, o.Mismatch.Frames)
	assert.NotEmpty(t, o.Mismatch.SchemaErrors)
	assert.NotEmpty(t, j.SchemaErrors(2))

	// A client frame that violates the schema is the suite's fault, unless made so on purpose.
	cl := stdioFrames(`>{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":7}}`)
	cl[0].Method = "tools/call"
	j = feed(cl)
	_, fault := j.SuiteFault(1)
	assert.True(t, fault)
	cl[0].Intentional = true
	j = feed(cl)
	_, fault = j.SuiteFault(1)
	assert.False(t, fault)

	// A parse error may carry "id": null (JSON-RPC 2.0) without failing SCHEMA-001.
	pe := stdioFrames(`>{not json`, `<{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	j = feed(pe)
	o, _ = j.Outcome(testRev, "SCHEMA-001")
	assert.Nil(t, o.Mismatch)

	// At a revision whose schema requires the error's id (2025-06-18 and older), a parse error
	// that omits it, as 2025-11-25 prescribes, is no violation either: no id would validate.
	// An error to a request whose id was readable still must carry it.
	older := revisions.Legacy()[1].ID // the legacy revision before the latest
	feedAt := func(rev string, frames []*harness.Frame) *Judge {
		j := New(Config{Schemas: set, Rules: []string{"SCHEMA-001"}})
		for _, f := range frames {
			j.Feed(rev, f)
		}
		j.Finish()
		return j
	}
	omitted := stdioFrames(`>{not json`, `<{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
	o, _ = feedAt(older, omitted).Outcome(older, "SCHEMA-001")
	assert.Nil(t, o.Mismatch, "%+v", o.Mismatch)
	for _, line := range []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","id":true,"method":"ping"}`} {
		refusal := stdioFrames(`>`+line, `<{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`)
		o, _ = feedAt(older, refusal).Outcome(older, "SCHEMA-001")
		assert.Nil(t, o.Mismatch, "%s: %+v", line, o.Mismatch)
	}
	// Over HTTP the suite knows the request: an error to a readable id must carry it.
	c := &conv{}
	req := c.post(`{"jsonrpc":"2.0","id":5,"method":"ping"}`, "ping")
	c.body(req, 200, "application/json", `{"jsonrpc":"2.0","error":{"code":-32603,"message":"boom"}}`)
	o, _ = feedAt(older, c.frames).Outcome(older, "SCHEMA-001")
	require.NotNil(t, o.Mismatch, "an error to a readable id must carry it")
}

// TestErrorBodiesLeaveLastEventIDToHTTP017: a plain-text 400 refusing a modern POST that carries
// Last-Event-ID (go-sdk: "can't send Last-Event-ID for POST request") is HTTP-017's, which
// grades that refusal; ERR-010 still judges the other refusals of the run.
func TestErrorBodiesLeaveLastEventIDToHTTP017(t *testing.T) {
	const discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	c := &conv{}
	r := c.post(discover, "server/discover")
	r.HTTP.Headers.Set("Last-Event-ID", "1")
	c.body(r, 400, "text/plain; charset=utf-8", "can't send Last-Event-ID for POST request")
	o := judgeRule(t, "ERR-010", c.frames)
	assert.Nil(t, o.Mismatch)
	assert.Zero(t, o.Judged, "no refusal ERR-010 owns: na, not a pass")

	r = c.post(discover, "server/discover")
	c.body(r, 400, "text/plain", "bad request")
	o = judgeRule(t, "ERR-010", c.frames)
	require.NotNil(t, o.Mismatch)
	assert.Equal(t, []int{3, 4}, o.Mismatch.Frames)
}
