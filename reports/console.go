package reports

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the human summary of r: one line per result that is not pass or na (or per
// result with all), then the totals by verdict, then where the reports went. It is what
// `--format text` prints on stdout and what the console summary on stderr shows.
func WriteText(w io.Writer, r *Run, all bool) {
	r.Finalize()
	for _, res := range r.Results {
		if !all && (res.Verdict == Pass || res.Verdict == NA) {
			continue
		}
		line := fmt.Sprintf("%-10s %-10s %-10s %-5s %s", strings.ToUpper(string(res.Verdict)), res.Rule, res.Revision, res.Transport, res.Title)
		if res.Reason != "" && res.Verdict != Pass {
			line += " — " + oneLine(res.Reason)
		}
		fmt.Fprintln(w, line)
	}
	if r.Aborted != "" {
		fmt.Fprintf(w, "run not carried out in full: %s\n", r.Aborted)
	}
	var parts []string
	for _, v := range Verdicts {
		parts = append(parts, fmt.Sprintf("%d %s", r.Summary.Count(v), v))
	}
	fmt.Fprintf(w, "%d results: %s\n", len(r.Results), strings.Join(parts, ", "))
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
