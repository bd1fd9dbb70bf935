package reports

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// GitHubOptions says how the GitHub Actions outputs are written.
type GitHubOptions struct {
	// Strict makes a warn an ::error annotation, as --strict fails the run on it.
	Strict bool
	// ExitCode is the run's exit code, shown in the step summary's heading.
	ExitCode int
	// BaselineFile is the --baseline file relative to the repository root (GITHUB_WORKSPACE),
	// slash-separated: a stale entry's annotation points at its line there. "" for none.
	BaselineFile string
}

// githubSummaryRows bounds the table of failing results in the step summary.
const githubSummaryRows = 50

// GitHubEscapeData escapes the message of a GitHub Actions workflow command ("::error::DATA"):
// %, CR and LF become %25, %0D and %0A, so the text can neither end the command nor start
// another one.
func GitHubEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// GitHubEscapeProperty escapes a property value of a workflow command ("::error title=V::"):
// as GitHubEscapeData, and also : and , (%3A, %2C), which end a property.
func GitHubEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// githubCommand renders one workflow command line: ::name k=v,...::message.
func githubCommand(name string, props [][2]string, message string) string {
	var parts []string
	for _, p := range props {
		if p[1] != "" {
			parts = append(parts, p[0]+"="+GitHubEscapeProperty(p[1]))
		}
	}
	head := "::" + name
	if len(parts) > 0 {
		head += " " + strings.Join(parts, ",")
	}
	return head + "::" + GitHubEscapeData(message) + "\n"
}

// githubGroup is the results of one rule that share an annotation: same rule, same command.
type githubGroup struct {
	command string
	rule    string
	verdict Verdict
	results []Result
}

// WriteGitHubAnnotations writes GitHub Actions annotations for what fails r to w (stderr:
// stdout carries --format): one ::error per rule that fails (its results at every revision and
// transport in one annotation) or that could not be checked (error), one ::warning per rule that
// warns (::error with opts.Strict), one ::error per stale baseline entry (at its line of
// opts.BaselineFile) and one when the run was not carried out in full. Titles name the rule, its
// level and title; messages give the one-line reason, the targets and the spec link. Text is
// flattened and escaped (GitHubEscapeData, GitHubEscapeProperty). Nothing is written for a run
// without failures.
func WriteGitHubAnnotations(w io.Writer, r *Run, opts GitHubOptions) error {
	r.Finalize()
	var groups []*githubGroup
	index := map[string]*githubGroup{}
	for _, res := range r.Results {
		cmd := ""
		switch res.Verdict {
		case Fail, Error:
			cmd = "error"
		case Warn:
			cmd = "warning"
			if opts.Strict {
				cmd = "error"
			}
		default:
			continue
		}
		key := res.Rule + "\x00" + string(res.Verdict)
		g := index[key]
		if g == nil {
			g = &githubGroup{command: cmd, rule: res.Rule, verdict: res.Verdict}
			index[key] = g
			groups = append(groups, g)
		}
		g.results = append(g.results, res)
	}
	ew := &errWriter{w: w}
	for _, g := range groups {
		first := g.results[0]
		title := flatten(g.rule + " " + first.Level + ": " + first.Title)
		if g.verdict == Error {
			title = flatten(g.rule + " could not be checked: " + first.Title)
		}
		targets := make([]string, len(g.results))
		for i, res := range g.results {
			targets[i] = flatten(res.Revision + " " + res.Transport)
		}
		msg := orText(flatten(first.Reason), flatten(first.Title))
		msg += " [" + strings.Join(targets, ", ") + "]"
		if first.Spec.URL != "" {
			msg += " Spec: " + first.Spec.URL
		}
		ew.printf("%s", githubCommand(g.command, [][2]string{{"title", title}}, msg))
	}
	for _, e := range r.StaleBaseline {
		props := [][2]string{{"title", "Stale baseline entry " + flatten(e.String())}}
		if opts.BaselineFile != "" {
			props = append([][2]string{{"file", opts.BaselineFile}, {"line", lineOf(e.Line)}}, props...)
		}
		ew.printf("%s", githubCommand("error", props, "The rule passes now: remove the entry from the baseline (its reason: "+orText(flatten(e.Reason), "none")+")"))
	}
	if r.Aborted != "" {
		ew.printf("%s", githubCommand("error", [][2]string{{"title", "mcp-conform: run not carried out in full"}}, flatten(r.Aborted)))
	}
	return ew.err
}

func lineOf(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// WriteGitHubSummary writes the markdown job summary of r (appended to $GITHUB_STEP_SUMMARY):
// a heading with the exit code, the server, revisions and transports, the MUST and SHOULD pass
// rates, the counts by verdict, a table of the results that fail, error or warn (the first
// githubSummaryRows of them), the stale baseline entries and why the run was not carried out in
// full. Text from the server is flattened, cut to 200 characters and escaped for markdown and
// HTML.
func WriteGitHubSummary(w io.Writer, r *Run, opts GitHubOptions) error {
	r.Finalize()
	ew := &errWriter{w: w}
	ew.printf("### mcp-conform: exit %d\n\n", opts.ExitCode)
	if r.Server != nil {
		ew.printf("Server: %s %s  \n", mdCell(r.Server.Name), mdCell(r.Server.Version))
	}
	revs := strings.Join(r.Revisions, ", ")
	if revs == "" {
		revs = "none detected"
	}
	ew.printf("Revisions: %s; transports: %s  \n", mdCell(revs), mdCell(strings.Join(r.Transports, ", ")))
	must, should, _ := headline(r.Results)
	ew.printf("MUST pass rate: %s (%d/%d); SHOULD pass rate: %s (%d/%d)\n", must.Pct, must.Num, must.Den, should.Pct, should.Num, should.Den)
	if r.Aborted != "" {
		ew.printf("\n**Aborted:** %s\n", mdCell(r.Aborted))
	}
	shown := Verdicts
	if r.Summary.NotRun == 0 {
		shown = Verdicts[:len(Verdicts)-1] // only an interrupted run has rules not run
	}
	ew.printf("\n|")
	for _, v := range shown {
		ew.printf(" %s |", v.Label())
	}
	ew.printf("\n|%s\n|", strings.Repeat(" ---: |", len(shown)))
	for _, v := range shown {
		ew.printf(" %d |", r.Summary.Count(v))
	}
	ew.printf("\n")
	var bad []Result
	for _, v := range []Verdict{Fail, Error, Warn} {
		for _, res := range r.Results {
			if res.Verdict == v {
				bad = append(bad, res)
			}
		}
	}
	if len(bad) > 0 {
		ew.printf("\n| rule | revision | transport | verdict | reason |\n| --- | --- | --- | --- | --- |\n")
		for _, res := range bad[:min(len(bad), githubSummaryRows)] {
			verdict := string(res.Verdict)
			if res.Verdict == Warn && opts.Strict {
				verdict += " (strict: fails)"
			}
			ew.printf("| %s | %s | %s | %s | %s |\n", mdCell(res.Rule), mdCell(res.Revision), mdCell(res.Transport), verdict, mdCell(orText(res.Reason, res.Title)))
		}
		if n := len(bad) - githubSummaryRows; n > 0 {
			ew.printf("\n… and %d more: see report.html in the artifact.\n", n)
		}
	}
	if len(r.StaleBaseline) > 0 {
		ew.printf("\nStale baseline entries (they pass now; remove them from the baseline):\n\n")
		for _, e := range r.StaleBaseline {
			ew.printf("- %s: %s\n", mdCell(e.String()), mdCell(e.Reason))
		}
	}
	ew.printf("\n")
	return ew.err
}

// mdCell makes text safe in a markdown table cell and paragraph: one line of at most 200
// characters, HTML metacharacters as entities, and the markdown characters that could start a
// link, emphasis, code or a new cell backslash-escaped.
func mdCell(s string) string {
	s = flatten(s)
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:199]) + "…"
	}
	return strings.NewReplacer(
		"&", "&amp;", "<", "&lt;", ">", "&gt;",
		`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	).Replace(s)
}
