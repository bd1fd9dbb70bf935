package checks

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-conform/mcp-conform/client"
	"github.com/mcp-conform/mcp-conform/harness"
)

// Checks of the handshake-era features (LFEAT): the log level a session sets, resource
// subscriptions and list-change notifications, URL elicitation.

// Notice is one notification the server sent, as the LFEAT checks read it: the seq of its
// frame, its method and its params (nil when it has none).
type Notice struct {
	Seq    int
	Method string
	Params map[string]json.RawMessage
}

// NoticesAfter returns the server-to-client notifications among frames whose seq is greater
// than after, in order; frames that are not a well-formed notification are skipped (their
// shape is other rules' to judge).
func NoticesAfter(frames []*harness.Frame, after int) []Notice {
	var out []Notice
	for _, f := range frames {
		if f == nil || f.Dir != harness.DirServerToClient || f.Seq <= after {
			continue
		}
		msg, err := harness.ParseMessage(f.Body())
		if err != nil || msg.Kind != harness.KindNotification {
			continue
		}
		n := Notice{Seq: f.Seq, Method: msg.Method}
		_ = json.Unmarshal(msg.Params, &n.Params)
		out = append(out, n)
	}
	return out
}

// logRank ranks the LoggingLevel values (RFC 5424 severities, least severe first).
var logRank = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// LogLevelKept grades LFEAT-004 (2024-11-05..2025-11-25 server/utilities/logging#Setting Log
// Level): once a session set the minimum level with logging/setLevel, the server sends that
// session only notifications/message at or above it. level is the level set (a LoggingLevel);
// notes are the session's notifications after the setLevel reply. A message whose level is
// not a LoggingLevel is LOG-005's and is skipped. It returns a Mismatch citing the first
// message below level.
func LogLevelKept(level string, notes []Notice) *client.Mismatch {
	min, ok := logRank[level]
	if !ok {
		return nil
	}
	for _, n := range notes {
		if n.Method != "notifications/message" {
			continue
		}
		var got string
		if json.Unmarshal(n.Params["level"], &got) != nil {
			continue
		}
		if r, known := logRank[got]; known && r < min {
			return &client.Mismatch{
				Expected: fmt.Sprintf("log messages at %q or above after logging/setLevel %q", level, level),
				Actual:   fmt.Sprintf("a notifications/message at %q (frame %d)", got, n.Seq),
				Frames:   []int{n.Seq},
			}
		}
	}
	return nil
}
