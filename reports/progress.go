package reports

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// progressWidth bounds the progress line so that it never wraps on an 80-column terminal: a
// wrapped line cannot be redrawn with a carriage return.
const progressWidth = 79

// Progress draws a single updating status line, "[12/78] basic-index: MSG-014" (units done,
// total, the current feature and rule), on a terminal, and nothing at all otherwise. The unit
// is whatever the caller counts (one per Result is the natural choice) and the caller tells
// the total up front or later with SetTotal. The line is redrawn with a carriage return and
// padded with spaces, so it holds no escape sequence. Without a terminal (a CI log) it writes
// instead one line each time a feature file is finished, "mcp-conform: 12/30 features, 4.1 s"
// (feature files done, their total, seconds since NewProgress), counting the units each
// feature file was given with AddUnits. Progress is safe for concurrent use, and every method
// of a nil *Progress does nothing.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	total   int
	done    int
	feature string
	rule    string
	drawn   int // characters on screen from the last draw, 0 when the line is clear

	start        time.Time
	now          func() time.Time // time.Now; tests replace it
	featureUnits map[string]int   // units still to do per feature file given to AddUnits
	featuresDone int
}

// NewProgress returns a progress line on w for total units. It draws only when opts.Terminal
// is set (see DetectConsole).
func NewProgress(w io.Writer, total int, opts ConsoleOptions) *Progress {
	return &Progress{w: w, on: opts.Terminal, total: total, start: time.Now(), now: time.Now, featureUnits: map[string]int{}}
}

// AddUnits adds n units of feature (a feature file, as Start and Done name it) to the total.
// A feature file counts as done, for the line written without a terminal, when Done was called
// for all the units every AddUnits gave it; several runs sharing one Progress add their own.
func (p *Progress) AddUnits(feature string, n int) {
	if p == nil || n <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += n
	if p.featureUnits == nil {
		p.featureUnits = map[string]int{}
	}
	p.featureUnits[feature] += n
	p.draw()
}

// AddTotal adds n units to the total, for callers that learn it late (after era detection);
// several runs sharing one line each add their own.
func (p *Progress) AddTotal(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total += n
	p.draw()
}

// SetTotal changes the number of units, for callers that learn it late (after era detection).
func (p *Progress) SetTotal(total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = total
	p.draw()
}

// Start shows feature and rule as the one being worked on, without counting a unit.
func (p *Progress) Start(feature, rule string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.feature, p.rule = feature, rule
	p.draw()
}

// Done counts one finished unit of feature and rule and shows them.
func (p *Progress) Done(feature, rule string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.feature, p.rule = feature, rule
	p.draw()
	if left, ok := p.featureUnits[feature]; ok && left > 0 {
		p.featureUnits[feature] = left - 1
		if left == 1 {
			p.featuresDone++
			if !p.on {
				fmt.Fprintf(p.w, "mcp-conform: %d/%d features, %.1f s\n", p.featuresDone, len(p.featureUnits), p.now().Sub(p.start).Seconds())
			}
		}
	}
}

// Logf writes one line of diagnostics to the same writer: on a terminal it clears the progress
// line, writes the message on its own line and redraws the progress line below it; elsewhere
// it just writes the message. Use it for everything written to the progress writer while the
// line is up, or the two garble each other.
func (p *Progress) Logf(format string, args ...any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	if !p.on {
		fmt.Fprintln(p.w, msg)
		return
	}
	p.clear()
	fmt.Fprintln(p.w, msg)
	p.draw()
}

// Clear erases the progress line, leaving the cursor at the start of an empty line; call it
// before writing the final summary. A later Start, Done or SetTotal draws the line again.
func (p *Progress) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// line renders the status line, cut to progressWidth characters.
func (p *Progress) line() string {
	total := "?"
	if p.total > 0 {
		total = fmt.Sprint(max(p.total, p.done))
	}
	s := fmt.Sprintf("[%d/%s]", p.done, total)
	switch {
	case p.feature != "" && p.rule != "":
		s += " " + flatten(p.feature) + ": " + flatten(p.rule)
	case p.feature != "" || p.rule != "":
		s += " " + flatten(p.feature+p.rule)
	}
	if utf8.RuneCountInString(s) > progressWidth {
		s = string([]rune(s)[:progressWidth-3]) + "..."
	}
	return s
}

// draw rewrites the line in place: carriage return, the line, and spaces over whatever was
// left of a longer previous line.
func (p *Progress) draw() {
	if !p.on {
		return
	}
	s := p.line()
	n := utf8.RuneCountInString(s)
	pad := ""
	if p.drawn > n {
		pad = strings.Repeat(" ", p.drawn-n)
	}
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
	p.drawn = n
}

// clear blanks the line and returns the cursor to its start.
func (p *Progress) clear() {
	if !p.on || p.drawn == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.drawn))
	p.drawn = 0
}
