package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcp-conform/mcp-conform/harness"
)

// stdioFrames numbers lines as frames of one stdio connection; a line starting with ">" is
// written by the client, "<" by the server.
func stdioFrames(lines ...string) []*harness.Frame {
	var out []*harness.Frame
	for i, l := range lines {
		dir := harness.DirServerToClient
		if l[0] == '>' {
			dir = harness.DirClientToServer
		}
		out = append(out, &harness.Frame{Seq: i + 1, Dir: dir, Transport: harness.TransportStdio, Conn: 1, Raw: []byte(l[1:])})
	}
	return out
}

func TestStdoutTrafficCheck(t *testing.T) {
	const (
		call      = `>{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"x"}}`
		callAns   = `<{"jsonrpc":"2.0","id":1,"result":{}}`
		progress  = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
		logMsg    = `<{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
		listen    = `>{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{}}}`
		ack       = `<{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"},"notifications":{}}}`
		changed   = `<{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}}`
		bare      = `<{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
		teardown  = `<{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"l"}}`
		listenAns = `<{"jsonrpc":"2.0","id":"l","result":{}}`
	)
	for _, tc := range []struct {
		name  string
		lines []string
		bad   int // seq of the offending frame, 0 when the traffic is fine
	}{
		{"progress and log during a call", []string{call, progress, logMsg, callAns}, 0},
		{"progress after the response is PROG-004's", []string{call, callAns, progress}, 0},
		{"progress with an unknown token is PROG-001's", []string{call, `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"q","progress":1}}`}, 0},
		{"a log with nothing in flight is LOG-003's", []string{call, callAns, logMsg}, 0},
		{"a log while only a listen is open is LOG-003's", []string{listen, ack, logMsg}, 0},
		{"subscription notifications and teardown", []string{listen, ack, changed, bare, teardown, listenAns}, 0},
		{"change after the subscription ended", []string{listen, ack, listenAns, changed}, 4},
		{"change without any subscription", []string{call, bare, callAns}, 2},
		{"change for an unknown subscription", []string{listen, `<{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"m"}}}`}, 2},
		{"cancelled for a plain request", []string{call, `<{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`}, 2},
		{"a server request is MSG-012's", []string{call, `<{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}`}, 0},
		{"a log for a subscription is LOG-003's", []string{listen, ack, `<{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"zz"},"level":"info","data":"x"}}`}, 0},
		{"junk is STDIO-002's", []string{"<not json", `<{"jsonrpc":"2.0","id":5}`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := judgeRule(t, "STDIO-004", stdioFrames(tc.lines...)).Mismatch
			if tc.bad == 0 {
				assert.Nil(t, m)
				return
			}
			if assert.NotNil(t, m) {
				assert.Equal(t, []int{tc.bad}, m.Frames, m.Actual)
			}
		})
	}
	// Connections are judged apart: a subscription of one does not scope a notification of another.
	frames := stdioFrames(listen, changed)
	frames[1].Conn = 2
	assert.NotNil(t, judgeRule(t, "STDIO-004", frames).Mismatch)
}

// STDIO-002: a blank line or CR LF endings put nothing foreign on stdout (a warning), junk is a
// failure, and a warning seen first never hides a later failure.
func TestStdoutPurityGrades(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"result":{}}`
	frame := func(seq int, raw, problem string) *harness.Frame {
		return &harness.Frame{Seq: seq, Dir: harness.DirServerToClient, Transport: harness.TransportStdio, Conn: 1, Raw: []byte(raw), Problem: problem}
	}
	o := judgeRule(t, "STDIO-002", []*harness.Frame{frame(1, ok, "")})
	assert.Nil(t, o.Mismatch)
	assert.Equal(t, 1, o.Judged)

	o = judgeRule(t, "STDIO-002", []*harness.Frame{frame(1, ok+"\r", harness.ProblemCR), frame(2, "", harness.ProblemBlank)})
	if assert.NotNil(t, o.Mismatch) {
		assert.Equal(t, Warning, o.Mismatch.Grade)
		assert.Equal(t, []int{1}, o.Mismatch.Frames)
	}

	o = judgeRule(t, "STDIO-002", []*harness.Frame{frame(1, "", harness.ProblemBlank), frame(2, "server starting", "not a JSON-RPC message: invalid character 's'")})
	if assert.NotNil(t, o.Mismatch) {
		assert.Empty(t, o.Mismatch.Grade, "junk fails at the rule's level")
		assert.Equal(t, []int{2}, o.Mismatch.Frames)
	}
	o = judgeRule(t, "STDIO-002", []*harness.Frame{frame(1, "junk\r", harness.ProblemCR+"; not a JSON-RPC message: invalid character 'j'")})
	if assert.NotNil(t, o.Mismatch) {
		assert.Empty(t, o.Mismatch.Grade)
	}
}

// TestStdoutPurityLeavesEnvelopesToMSG: a stdout line that is one JSON object but no valid
// JSON-RPC message (both result and error, a malformed error object) is MSG-004's or
// MSG-007's defect, not STDIO-002's; a line that is no JSON object at all is STDIO-002's.
func TestStdoutPurityLeavesEnvelopesToMSG(t *testing.T) {
	both := stdioFrames(`>{"jsonrpc":"2.0","id":1,"method":"ping"}`, `<{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`)
	both[1].Problem = "not a JSON-RPC message: both result and error"
	assert.Nil(t, judgeRule(t, "STDIO-002", both).Mismatch)
	assert.NotNil(t, judgeRule(t, "MSG-004", both).Mismatch)

	banner := stdioFrames(`>{"jsonrpc":"2.0","id":1,"method":"ping"}`, `<server ready`)
	banner[1].Problem = "not a JSON-RPC message: not a JSON object"
	assert.NotNil(t, judgeRule(t, "STDIO-002", banner).Mismatch)
}
