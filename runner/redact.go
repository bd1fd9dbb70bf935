package runner

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/reports"
)

// redact replaces every value the user passed with --header (tokens, keys) wherever it shows
// up in the run: a server that echoes it back must not get it written into the reports. Values
// shorter than 4 bytes are left alone (they would match everywhere).
func redact(run *reports.Run, header http.Header) {
	secrets := headerSecrets(header)
	if len(secrets) == 0 {
		return
	}
	clean := func(s string) string {
		for _, v := range secrets {
			s = strings.ReplaceAll(s, v, harness.Redacted)
		}
		return s
	}
	if run.Server != nil {
		run.Server.Name, run.Server.Version = clean(run.Server.Name), clean(run.Server.Version)
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
			r.SchemaErrors[j].InstancePath = clean(r.SchemaErrors[j].InstancePath)
		}
		for j := range r.Steps {
			r.Steps[j].Text = clean(r.Steps[j].Text)
		}
	}
	for i := range run.Notes {
		run.Notes[i] = clean(run.Notes[i])
	}
	run.StderrTail, run.Aborted = clean(run.StderrTail), clean(run.Aborted)
}

// headerSecrets returns the strings redact removes for the --header values: each value of 4
// bytes or more, the credential after an authentication scheme ("Bearer <token>": the token,
// which a server may echo alone), and the JSON-escaped spelling of each (a server echoing the
// value inside a JSON string escapes quotes, backslashes and non-ASCII), longest first so a
// value is replaced whole before any part of it.
func headerSecrets(header http.Header) []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		if len(v) < 4 || seen[v] {
			return
		}
		seen[v] = true
		out = append(out, v)
		if b, err := json.Marshal(v); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != v && !seen[esc] {
				seen[esc] = true
				out = append(out, esc)
			}
		}
	}
	for _, vals := range header {
		for _, v := range vals {
			add(v)
			if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				add(strings.TrimSpace(cred))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func mustDecode(s string) []byte {
	b, _ := base64.StdEncoding.DecodeString(s)
	return b
}
