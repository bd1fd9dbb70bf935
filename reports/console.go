package reports

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
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
		line := fmt.Sprintf("%-10s %-10s %-10s %-5s %s", strings.ToUpper(string(res.Verdict)), flatten(res.Rule), flatten(res.Revision), flatten(res.Transport), flatten(res.Title))
		if res.Reason != "" && res.Verdict != Pass {
			line += " — " + oneLine(res.Reason)
		}
		fmt.Fprintln(w, line)
	}
	if r.Aborted != "" {
		fmt.Fprintf(w, "run not carried out in full: %s\n", flatten(r.Aborted))
	}
	var parts []string
	for _, v := range Verdicts {
		parts = append(parts, fmt.Sprintf("%d %s", r.Summary.Count(v), v))
	}
	fmt.Fprintf(w, "%d results: %s\n", len(r.Results), strings.Join(parts, ", "))
}

// oneLine makes s fit one console line: flatten, then cut to 200 characters.
func oneLine(s string) string {
	s = flatten(s)
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:197]) + "..."
	}
	return s
}

// ConsoleText makes text (much of it supplied by the server under test) safe to print on a
// console or CI log: white space runs become one space and control characters are written as
// \xNN, so it can neither break a line (no injected "::error::" workflow commands) nor drive
// the terminal.
func ConsoleText(s string) string { return flatten(s) }

// flatten turns every run of white space (newlines included) into one space, trims both ends,
// and writes other control characters (ESC, BEL, C1) as \xNN, so text a server supplied can
// neither break a line nor drive the terminal.
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
	return b.String()
}

// ConsoleOptions says how the console (stderr) output may look. Terminal means the writer is
// an interactive terminal: only then is the progress line drawn. Color enables ANSI colours.
// DetectConsole fills both; tests set them directly.
type ConsoleOptions struct {
	Color    bool
	Terminal bool
}

// DetectConsole returns the options for writing to w: Terminal when w is a terminal
// (IsTerminal), and Color when it is a terminal, noColor (--no-color) is false and the
// NO_COLOR environment variable is unset or empty (https://no-color.org).
func DetectConsole(w io.Writer, noColor bool) ConsoleOptions {
	return consoleOptions(IsTerminal(w), noColor, os.Getenv("NO_COLOR"))
}

func consoleOptions(terminal, noColor bool, noColorEnv string) ConsoleOptions {
	if os.Getenv("TERM") == "dumb" { // no cursor control, no colour
		return ConsoleOptions{}
	}
	return ConsoleOptions{Terminal: terminal, Color: terminal && !noColor && noColorEnv == ""}
}

// IsTerminal reports whether w is an *os.File open on a character device, which is how a
// terminal looks without platform-specific calls. /dev/null is a character device too; writing
// progress there is harmless.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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

// WriteSummary writes the end-of-run summary for the console (stderr): one line per result
// that is fail, error, warn or xfail (in that order, then by rule) with its one-line reason
// (its title when it has none); the stale baseline entries; why the run was not carried out in
// full, if it was not; the counts by verdict; and the reportPaths, if any, the reports were
// written to. Verdicts are coloured when opts.Color is set; otherwise the output holds no
// escape sequence. Control characters in server-supplied text are written as \xNN. It
// returns the first write error.
func WriteSummary(w io.Writer, r *Run, opts ConsoleOptions, reportPaths ...string) error {
	r.Finalize()
	ew := &errWriter{w: w}
	for _, v := range summaryOrder {
		for _, res := range r.Results {
			if res.Verdict != v {
				continue
			}
			reason := oneLine(res.Reason)
			if reason == "" {
				reason = oneLine(res.Title)
			}
			label := fmt.Sprintf("%-5s", strings.ToUpper(string(v)))
			ew.printf("%s %-10s %-10s %-5s %s\n", opts.paint(verdictColor(v), label), res.Rule, res.Revision, res.Transport, reason)
		}
	}
	if n := len(r.StaleBaseline); n > 0 {
		head := fmt.Sprintf("%d stale baseline %s (the rule passes now; remove it from the baseline):", n, plural(n, "entry", "entries"))
		ew.printf("%s\n", opts.paint(ansiBold+ansiRed, head))
		for _, e := range r.StaleBaseline {
			ew.printf("  %s: %s\n", flatten(e.String()), oneLine(e.Reason))
		}
	}
	if r.Aborted != "" {
		ew.printf("%s %s\n", opts.paint(ansiBold+ansiMagenta, "run not carried out in full:"), oneLine(r.Aborted))
	}
	var parts []string
	for _, v := range Verdicts {
		n := r.Summary.Count(v)
		part := fmt.Sprintf("%d %s", n, v)
		if n > 0 {
			part = opts.paint(verdictColor(v), part)
		}
		parts = append(parts, part)
	}
	ew.printf("%d results: %s\n", len(r.Results), strings.Join(parts, ", "))
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
