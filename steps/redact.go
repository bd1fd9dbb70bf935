package steps

import (
	"net/http"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// redact replaces every value the user passed with --header (tokens, keys) wherever it shows
// up in the run: a server that echoes it back must not get it written into the reports. Values
// shorter than 4 bytes are left alone (they would match everywhere).
func redact(run *reports.Run, header http.Header) {
	var secrets []string
	for _, vals := range header {
		for _, v := range vals {
			if len(v) >= 4 {
				secrets = append(secrets, v)
			}
		}
	}
	if len(secrets) == 0 {
		return
	}
	clean := func(s string) string {
		for _, v := range secrets {
			s = strings.ReplaceAll(s, v, harness.Redacted)
		}
		return s
	}
	for i := range run.Frames {
		f := &run.Frames[i]
		f.Raw = clean(f.Raw)
		if f.RawBase64 != "" {
			if b := mustDecode(f.RawBase64); clean(string(b)) != string(b) {
				f.RawBase64 = base64Std([]byte(clean(string(b))))
			}
		}
		if f.HTTP != nil {
			for k, vals := range f.HTTP.Headers {
				for j := range vals {
					vals[j] = clean(vals[j])
				}
				f.HTTP.Headers[k] = vals
			}
		}
	}
	for i := range run.Results {
		r := &run.Results[i]
		r.Reason, r.Expected, r.Actual = clean(r.Reason), clean(r.Expected), clean(r.Actual)
		for j := range r.SchemaErrors {
			r.SchemaErrors[j].Message = clean(r.SchemaErrors[j].Message)
		}
	}
	for i := range run.Notes {
		run.Notes[i] = clean(run.Notes[i])
	}
	run.StderrTail, run.Aborted = clean(run.StderrTail), clean(run.Aborted)
}
