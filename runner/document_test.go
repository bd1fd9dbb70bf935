package runner_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/reports"
)

// TestRealResultsValidateAgainstResultsSchema: the results.json of real runs against the
// reference fixture, over both transports and with breaks that produce failures, schema
// errors and framing problems, matches reports/results.schema.json, and its JUnit rendering
// counts the same results.
func TestRealResultsValidateAgainstResultsSchema(t *testing.T) {
	for _, tc := range []struct {
		transport string
		breaks    []string
	}{
		{"stdio", []string{"SCHEMA-001", "STDIO-002"}},
		{"http", []string{"SCHEMA-001", "HDR-003"}},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			t.Parallel()
			run := runReference(t, tc.transport, "", tc.breaks...)
			var doc bytes.Buffer
			require.NoError(t, reports.WriteJSON(&doc, run))
			require.NoError(t, reports.ValidateDocument(doc.Bytes()))

			// The run exercised the optional parts of the schema, not just the happy path.
			var parsed struct {
				Results []struct {
					Verdict      string            `json:"verdict"`
					SchemaErrors []json.RawMessage `json:"schemaErrors"`
				} `json:"results"`
				Frames []struct {
					Transport string          `json:"transport"`
					HTTP      json.RawMessage `json:"http"`
					SSE       json.RawMessage `json:"sse"`
				} `json:"frames"`
			}
			require.NoError(t, json.Unmarshal(doc.Bytes(), &parsed))
			var fails, schemaErrs, httpFrames int
			for _, r := range parsed.Results {
				if r.Verdict == "fail" {
					fails++
				}
				schemaErrs += len(r.SchemaErrors)
			}
			for _, f := range parsed.Frames {
				require.Equal(t, tc.transport, f.Transport)
				// The first frame of a reply carries the HTTP envelope; later SSE events of the
				// same stream carry their SSE fields instead.
				if f.HTTP != nil || f.SSE != nil {
					httpFrames++
				}
			}
			require.GreaterOrEqual(t, fails, len(tc.breaks), "each break fails its rule:\n%s", describeRun(run))
			require.NotZero(t, schemaErrs, "the SCHEMA-001 break records schema errors")
			if tc.transport == "http" {
				require.Equal(t, len(parsed.Frames), httpFrames, "every HTTP frame carries its envelope (or, after the first event of a stream, its SSE fields)")
			}

			var junit bytes.Buffer
			require.NoError(t, reports.WriteJUnit(&junit, run))
			var suites struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Suites   []struct {
					Cases []struct{} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			require.NoError(t, xml.Unmarshal(junit.Bytes(), &suites))
			cases := 0
			for _, s := range suites.Suites {
				cases += len(s.Cases)
			}
			require.Equal(t, len(run.Results), suites.Tests)
			require.Equal(t, len(run.Results), cases)
			require.Equal(t, run.Summary.Fail, suites.Failures)
		})
	}
}
