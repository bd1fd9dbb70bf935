package reports

import (
	"fmt"
	"golang.org/x/term"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteText writes the human summary of r: one line per result that is not pass or na (or per
// result with all), long reasons wrapped (see wrapReason); the rules an interruption left
// unrun (NotRunReason) as one line with their count instead of one line each; then the totals
// by verdict. It is what `--format text` prints on stdout.
func WriteText(w io.Writer, r *Run, all bool) {
	r.Finalize()
	for _, res := range r.Results {
		if !all && (res.Verdict == Pass || res.Verdict == NA) || isNotRun(res) {
			continue
		}
		line := fmt.Sprintf("%-10s %-10s %-10s %-5s %s", strings.ToUpper(string(res.Verdict)), flatten(res.Rule), flatten(res.Revision), flatten(res.Transport), flatten(res.Title))
		if res.Reason != "" && res.Verdict != Pass {
			line += " — "
			line += wrapReason(res.Reason, utf8.RuneCountInString(line), 11)
		}
		fmt.Fprintln(w, line)
	}
	if line := abortLine(r); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, countsLine(r, ConsoleOptions{}))
}

// notRunSuffix ends the reason of a rule that an interruption or the run timeout kept from
// running (NotRunReason).
const notRunSuffix = " before this rule ran"

// NotRunReason is the reason of a NotRun result for a rule the run never started because it
// was stopped first; why says how ("the run was interrupted"). The console counts such
// results in one line instead of listing each.
func NotRunReason(why string) string { return why + notRunSuffix }

// isNotRun reports whether res is a rule the run stopped before judging (NotRun).
func isNotRun(res Result) bool { return res.Verdict == NotRun }

// abortLine is "run not carried out in full: WHY" with the count of rules not run (when an
// interruption left some), wrapped; "" when the run was carried out in full.
func abortLine(r *Run) string {
	notRun := 0
	for _, res := range r.Results {
		if isNotRun(res) {
			notRun++
		}
	}
	why := r.Aborted
	if notRun > 0 {
		if why == "" {
			why = "stopped early"
		}
		why += fmt.Sprintf("; %d %s not run", notRun, plural(notRun, "rule", "rules"))
	}
	if why == "" {
		return ""
	}
	const head = "run not carried out in full: "
	return head + wrapReason(why, len(head), 2)
}

// countsLine is "N results: 2 pass, 1 fail, ...", each non-zero count coloured per opts.
func countsLine(r *Run, opts ConsoleOptions) string {
	var parts []string
	for _, v := range Verdicts {
		n := r.Summary.Count(v)
		if v == NotRun && n == 0 {
			continue // only an interrupted run has rules not run
		}
		part := fmt.Sprintf("%d %s", n, v.Label())
		if n > 0 {
			part = opts.paint(verdictColor(v), part)
		}
		parts = append(parts, part)
	}
	return fmt.Sprintf("%d %s: %s", len(r.Results), plural(len(r.Results), "result", "results"), strings.Join(parts, ", "))
}

// consoleWidth is the column long reasons are wrapped at on the console.
const consoleWidth = 120

// maxConsoleReason bounds a reason on the console, in characters: a server can put megabytes
// in an error message. The whole reason is in results.json.
const maxConsoleReason = 4000

// wrapReason makes s (flattened, see flatten) fit the console without losing any of it: a
// first line that starts at column start and continuation lines indented by indent spaces,
// none passing consoleWidth (at least 40 characters of text a line); words longer than a line
// are split. Only a reason longer than maxConsoleReason is shortened, with a note saying how
// much is left out.
func wrapReason(s string, start, indent int) string {
	s = oneLine(s)
	var b strings.Builder
	width := max(consoleWidth-start, 40)
	col := 0
	for _, word := range strings.Split(s, " ") {
		runes := []rune(word)
		for len(runes) > 0 {
			n := len(runes)
			if col > 0 && col+1+n > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				width, col = max(consoleWidth-indent, 40), 0
			}
			if col > 0 {
				b.WriteByte(' ')
				col++
			}
			take := min(n, width-col)
			chunk := string(runes[:take])
			if col == 0 && strings.HasPrefix(chunk, "::") {
				// A CI runner reads a line whose text starts with "::" as a workflow command
				// (GitHub trims the indentation first): server text must not start one.
				chunk = `\x3a` + chunk[1:]
			}
			b.WriteString(chunk)
			col += take
			runes = runes[take:]
		}
	}
	return b.String()
}

// ConsoleText makes text (much of it supplied by the server under test) safe to print on a
// console or CI log: white space runs become one space and control characters are written as
// \xNN, so it can neither break a line (no injected "::error::" workflow commands) nor drive
// the terminal.
func ConsoleText(s string) string { return flatten(s) }

// flatten turns every run of white space (newlines included) into one space, trims both ends,
// and writes other control characters (ESC, BEL, C1) as \xNN, so text a server supplied can
// neither break a line nor drive the terminal; the second '#' of "##[" and "##vso[" (legacy CI
// runner commands, matched anywhere in a line) is written as \x23.
func flatten(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if unicode.IsControl(r) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	// "##[" anywhere in a line is a legacy runner command (##[error], ##vso[...] on Azure):
	// written with its second '#' escaped, it is text.
	out := b.String()
	out = strings.ReplaceAll(out, "##[", `#\x23[`)
	return strings.ReplaceAll(out, "##vso[", `#\x23vso[`)
}

// ConsoleOptions says how the console (stderr) output may look. Terminal means the writer is
// an interactive terminal: only then is the progress line drawn (elsewhere Progress writes a
// line per finished feature file). Color enables ANSI colours. DetectConsole fills both; tests
// set them directly. CountsOnly, set by the caller when the result lines already went to a
// terminal on stdout, makes WriteSummary leave them out, so each is printed once.
type ConsoleOptions struct {
	Color      bool
	Terminal   bool
	CountsOnly bool
}

// DetectConsole returns the options for writing to w: Terminal when w is a terminal
// (IsTerminal), and Color when it is a terminal, noColor (--no-color) is false and the
// NO_COLOR environment variable is unset or empty (https://no-color.org).
func DetectConsole(w io.Writer, noColor bool) ConsoleOptions {
	return NewConsoleOptions(IsTerminal(w), noColor)
}

// NewConsoleOptions is DetectConsole for a writer whose terminal-ness the caller already knows
// (or fakes, in tests).
func NewConsoleOptions(terminal, noColor bool) ConsoleOptions {
	return consoleOptions(terminal, noColor, os.Getenv("NO_COLOR"))
}

func consoleOptions(terminal, noColor bool, noColorEnv string) ConsoleOptions {
	if os.Getenv("TERM") == "dumb" { // no cursor control, no colour
		return ConsoleOptions{}
	}
	return ConsoleOptions{Terminal: terminal, Color: terminal && !noColor && noColorEnv == ""}
}

// IsTerminal reports whether w is an *os.File open on a terminal (golang.org/x/term). stdout
// sent to /dev/null or a file is not one, so the stderr summary then lists the failing rules.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	// A character device is not enough: /dev/null is one too (stdout discarded is not a
	// reader at a terminal), so ask the terminal driver.
	return term.IsTerminal(int(f.Fd()))
}

// ANSI SGR sequences used by the console output.
const (
	ansiReset   = "\x1b[0m"
	ansiBold    = "\x1b[1m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiMagenta = "\x1b[35m"
	ansiCyan    = "\x1b[36m"
)

// verdictColor is the colour of a verdict in the console, "" for none.
func verdictColor(v Verdict) string {
	switch v {
	case Pass:
		return ansiGreen
	case Fail:
		return ansiBold + ansiRed
	case Warn:
		return ansiYellow
	case Error:
		return ansiBold + ansiMagenta
	case XFail:
		return ansiCyan
	case NotRun:
		return ansiMagenta
	}
	return ""
}

// paint wraps s in the colour c when colours are on.
func (o ConsoleOptions) paint(c, s string) string {
	if !o.Color || c == "" {
		return s
	}
	return c + s + ansiReset
}

// summaryOrder is the order of the per-result lines of WriteSummary: what breaks the run
// first, then what does not.
var summaryOrder = []Verdict{Fail, Error, Warn, XFail}

// WriteSummary writes the end-of-run summary for the console (stderr). Unless opts.CountsOnly
// is set (the result lines are on the terminal already, from stdout): one line per result that
// is fail, error, warn or xfail (in that order, then by rule) with its reason (its title when
// it has none), wrapped, not cut; the rules an interruption left unrun counted in one line
// with why the run was not carried out in full. Always: the stale baseline entries; the counts
// by verdict; and the reportPaths, if any, the reports were written to. Verdicts are coloured
// when opts.Color is set; otherwise the output holds no escape sequence. Control characters
// in server-supplied text are written as \xNN. It returns the first write error.
func WriteSummary(w io.Writer, r *Run, opts ConsoleOptions, reportPaths ...string) error {
	r.Finalize()
	ew := &errWriter{w: w}
	for _, v := range summaryOrder {
		for _, res := range r.Results {
			if opts.CountsOnly || res.Verdict != v || isNotRun(res) {
				continue
			}
			reason := res.Reason
			if flatten(reason) == "" {
				reason = res.Title
			}
			label := fmt.Sprintf("%-5s", strings.ToUpper(string(v)))
			head := fmt.Sprintf("%s %-10s %-10s %-5s ", label, flatten(res.Rule), flatten(res.Revision), flatten(res.Transport))
			ew.printf("%s%s%s\n", opts.paint(verdictColor(v), label), head[len(label):], wrapReason(reason, utf8.RuneCountInString(head), 6))
		}
	}
	if n := len(r.StaleBaseline); n > 0 {
		head := fmt.Sprintf("%d stale baseline %s (the rule passes now; remove it from the baseline):", n, plural(n, "entry", "entries"))
		ew.printf("%s\n", opts.paint(ansiBold+ansiRed, head))
		for _, e := range r.StaleBaseline {
			name := flatten(e.String())
			ew.printf("  %s: %s\n", name, wrapReason(e.Reason, utf8.RuneCountInString(name)+4, 4))
		}
	}
	if line := abortLine(r); line != "" && !opts.CountsOnly {
		head, rest, _ := strings.Cut(line, ": ")
		ew.printf("%s %s\n", opts.paint(ansiBold+ansiMagenta, head+":"), rest)
	}
	ew.printf("%s\n", countsLine(r, opts))
	if len(reportPaths) > 0 {
		ew.printf("reports: %s\n", flatten(strings.Join(reportPaths, ", ")))
	}
	return ew.err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// errWriter keeps the first write error and skips every write after it.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// oneLine flattens s (see flatten) to one line, shortened only past maxConsoleReason
// characters, with a note of how much is left out: a diff line, a table cell, the text that
// wrapReason wraps.
func oneLine(s string) string {
	s = flatten(s)
	if n := utf8.RuneCountInString(s); n > maxConsoleReason {
		s = string([]rune(s)[:maxConsoleReason]) + fmt.Sprintf(" … (%d more characters in results.json)", n-maxConsoleReason)
	}
	return s
}
