package runner

import (
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// exportFrames converts recorded frames to the result model.
func exportFrames(frames []*harness.Frame) []reports.Frame {
	out := make([]reports.Frame, 0, len(frames))
	for _, f := range frames {
		rf := reports.Frame{
			Seq: f.Seq, Dir: string(f.Dir), T: float64(f.T.Microseconds()) / 1000, Transport: f.Transport, Conn: f.Conn,
			Size: f.Size, Truncated: f.Truncated, Sampled: f.Sampled, SHA256: f.SHA256, Method: f.Method, Problem: f.Problem,
		}
		rf.Raw = strings.ToValidUTF8(string(f.Raw), "\uFFFD")
		if rf.Raw != string(f.Raw) {
			rf.RawBase64 = base64Std(f.Raw)
		}
		if f.HTTP != nil {
			rf.HTTP = &reports.HTTP{Method: f.HTTP.Method, Status: f.HTTP.Status, Headers: f.HTTP.Headers}
		}
		if f.SSE != nil {
			rf.SSE = &reports.SSE{Event: f.SSE.Event, ID: f.SSE.ID}
		}
		out = append(out, rf)
	}
	return out
}
