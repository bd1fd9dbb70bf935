package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProgressRules: each progress rule fails on its own defect only, on stdio frames.
func TestProgressRules(t *testing.T) {
	const (
		callInt  = `>{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":7},"name":"x"}}`
		callStr  = `>{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"x"}}`
		plain    = `>{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`
		ans1     = `<{"jsonrpc":"2.0","id":1,"result":{}}`
		ans2     = `<{"jsonrpc":"2.0","id":2,"result":{}}`
		ans3     = `<{"jsonrpc":"2.0","id":3,"result":{}}`
		int0     = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0,"total":100}}`
		int50    = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":50.5,"message":"half"}}`
		str7     = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"7","progress":1}}`
		strP     = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`
		unknown  = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"q","progress":1}}`
		badValue = `<{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":"50"}}`
	)
	good := []string{callInt, int0, int50, ans1, callStr, strP, ans2, plain, ans3}
	for _, tc := range []struct {
		name  string
		lines []string
		rule  string // the rule that fails, "" when none does
		bad   int    // seq of the offending notification
	}{
		{"a conformant run", good, "", 0},
		{"a token no request set", []string{plain, unknown, ans3}, "PROG-001", 2},
		{"an integer token echoed as a string", []string{callInt, str7, ans1}, "PROG-002", 2},
		{"progress that does not increase", []string{callInt, int50, int0, ans1}, "PROG-003", 3},
		{"progress equal to the last", []string{callInt, int0, int0, ans1}, "PROG-003", 3},
		{"progress after the response", []string{callInt, ans1, int0}, "PROG-004", 3},
		{"progress that is no number", []string{callInt, int0, badValue, ans1}, "PROG-006", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, rule := range []string{"PROG-001", "PROG-002", "PROG-003", "PROG-004", "PROG-006"} {
				o := judgeRule(t, rule, stdioFrames(tc.lines...))
				if rule != tc.rule {
					assert.Nil(t, o.Mismatch, "%s: %v", rule, o.Mismatch)
					continue
				}
				if assert.NotNil(t, o.Mismatch, rule) {
					assert.Contains(t, o.Mismatch.Frames, tc.bad, o.Mismatch.Actual)
				}
			}
		})
	}
	// Evidence: PROG-001 judges the requests even when no progress came; the others need some.
	o := judgeRule(t, "PROG-001", stdioFrames(plain, ans3))
	assert.Equal(t, 1, o.Judged)
	assert.Zero(t, judgeRule(t, "PROG-003", stdioFrames(plain, ans3)).Judged)
	// Connections are judged apart: a token set on one is unknown on another.
	frames := stdioFrames(callStr, strP)
	frames[1].Conn = 2
	assert.NotNil(t, judgeRule(t, "PROG-001", frames).Mismatch)
}

func TestOtherType(t *testing.T) {
	assert.Equal(t, `"7"`, otherType("7"))
	assert.Equal(t, "7", otherType(`"7"`))
	assert.Equal(t, "", otherType(`"p"`))
	assert.True(t, validToken([]byte("7")))
	assert.False(t, validToken([]byte("7.5")))
	assert.False(t, validToken([]byte("null")))
}
