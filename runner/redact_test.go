package runner

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

func TestRedactRemovesEchoedHeaderValues(t *testing.T) {
	const token = "Bearer SUPERSECRET123"
	run := &reports.Run{
		Frames: []reports.Frame{
			{Seq: 1, Raw: `{"result":{"echo":"` + token + `"}}`, HTTP: &reports.HTTP{Headers: map[string][]string{"X-Echo": {token}}}},
			{Seq: 2, Raw: "\xff", RawBase64: base64Std([]byte("\xff" + token))},
		},
		Results:    []reports.Result{{Rule: "X-1", Actual: "saw " + token}},
		Notes:      []string{"server said " + token},
		StderrTail: "auth " + token,
	}
	redact(run, http.Header{"Authorization": {token}, "X-Short": {"ab"}})
	require.NotContains(t, run.Frames[0].Raw, "SUPERSECRET123")
	require.Contains(t, run.Frames[0].Raw, "[redacted]")
	require.Equal(t, []string{"[redacted]"}, run.Frames[0].HTTP.Headers["X-Echo"])
	require.NotContains(t, string(mustDecode(run.Frames[1].RawBase64)), "SUPERSECRET123")
	require.NotContains(t, run.Results[0].Actual, "SUPERSECRET123")
	require.NotContains(t, run.Notes[0], "SUPERSECRET123")
	require.NotContains(t, run.StderrTail, "SUPERSECRET123")
}

// The server's self-reported identity, the steps and a token echoed without its scheme or
// JSON-escaped are redacted too: a server that put the Authorization value into serverInfo.name
// had it written into results.json and report.html.
func TestRedactCoversServerInfoStepsAndTokenParts(t *testing.T) {
	const token = "Bearer TOP\"SECRET42"
	run := &reports.Run{
		Server:  &reports.Server{Name: "echo " + token, Version: `TOP"SECRET42`},
		Frames:  []reports.Frame{{Seq: 1, Raw: `{"result":{"serverInfo":{"name":"echo Bearer TOP\"SECRET42"}}}`}},
		Results: []reports.Result{{Rule: "X-1", Steps: []reports.Step{{Text: "the server says TOP\"SECRET42", Status: "passed"}}}},
	}
	redact(run, http.Header{"Authorization": {token}})
	require.Equal(t, "echo [redacted]", run.Server.Name)
	require.Equal(t, "[redacted]", run.Server.Version)
	require.NotContains(t, run.Frames[0].Raw, "SECRET42")
	require.NotContains(t, run.Results[0].Steps[0].Text, "SECRET42")
}
