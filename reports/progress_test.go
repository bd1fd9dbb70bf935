package reports

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestProgressDrawsNothingWhenNotATerminal(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 3, ConsoleOptions{Color: true})
	p.Start("basic-index", "MSG-014")
	p.Done("basic-index", "MSG-014")
	p.SetTotal(5)
	p.Clear()
	require.Empty(t, out.String())
	p.Logf("note: %s", "legacy era")
	require.Equal(t, "note: legacy era\n", out.String(), "diagnostics still go through, plainly")
}

func TestProgressLineOnATerminal(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 78, ConsoleOptions{Terminal: true})
	p.Start("basic-index", "MSG-014")
	require.Equal(t, "\r[0/78] basic-index: MSG-014", out.String())

	out.Reset()
	p.Done("basic-index", "MSG-014")
	require.Equal(t, "\r[1/78] basic-index: MSG-014", out.String())

	out.Reset()
	p.Done("stdio", "STDIO-1")
	require.Equal(t, "\r[2/78] stdio: STDIO-1"+strings.Repeat(" ", 6), out.String(), "spaces cover the longer line before")

	out.Reset()
	p.Logf("note: %s\n", "modern era detected")
	require.Equal(t, "\r"+strings.Repeat(" ", 21)+"\rnote: modern era detected\n\r[2/78] stdio: STDIO-1", out.String(),
		"clear, message on its own line, line drawn again")

	out.Reset()
	p.Clear()
	require.Equal(t, "\r"+strings.Repeat(" ", 21)+"\r", out.String())
	out.Reset()
	p.Clear()
	require.Empty(t, out.String(), "nothing to clear twice")

	p.SetTotal(2)
	require.Contains(t, out.String(), "[2/2]")
}

func TestProgressHoldsNoEscapeEvenWithColour(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 2, ConsoleOptions{Terminal: true, Color: true})
	p.Start("feature \x1b[31mred", "RULE-1")
	p.Done("feature", "RULE-1")
	p.Logf("msg")
	p.Clear()
	require.NotContains(t, out.String(), "\x1b")
	require.Contains(t, out.String(), `feature \x1b[31mred: RULE-1`)
}

func TestProgressCountsBeyondAnUnknownOrSmallTotal(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 0, ConsoleOptions{Terminal: true})
	p.Done("f", "R-1")
	require.Equal(t, "\r[1/?] f: R-1", out.String())
	p.SetTotal(1)
	p.Done("", "R-2")
	require.True(t, strings.HasSuffix(out.String(), "\r[2/2] R-2   "), "%q", out.String())
}

func TestProgressLineFitsEightyColumns(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 100, ConsoleOptions{Terminal: true})
	p.Start(strings.Repeat("ü", 120), "MSG-014")
	line := strings.TrimPrefix(out.String(), "\r")
	require.Equal(t, 79, utf8.RuneCountInString(line))
	require.True(t, strings.HasSuffix(line, "..."))
}

func TestProgressConcurrentDone(t *testing.T) {
	var out bytes.Buffer
	const n = 200
	p := NewProgress(&out, n, ConsoleOptions{Terminal: true})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rule := fmt.Sprintf("R-%d", i)
			p.Start("f", rule)
			p.Done("f", rule)
		}()
	}
	wg.Wait()
	s := out.String()
	last := s[strings.LastIndex(s, "\r")+1:]
	require.True(t, strings.HasPrefix(last, fmt.Sprintf("[%d/%d] f: R-", n, n)), "%q", last)
	for i := 1; i <= n; i++ {
		require.Contains(t, s, fmt.Sprintf("\r[%d/%d] ", i, n), "every count shown once in order")
	}
}

func TestNilProgressIsANoOp(t *testing.T) {
	var p *Progress
	p.Start("f", "R-1")
	p.Done("f", "R-1")
	p.SetTotal(3)
	p.Logf("x")
	p.Clear()
}

// TestProgressSharedByTwoRuns: runs that share one line each add their units to its total.
func TestProgressSharedByTwoRuns(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, 0, ConsoleOptions{Terminal: true})
	p.AddTotal(40)
	p.AddTotal(38)
	out.Reset()
	p.Done("basic-index", "MSG-014")
	require.Equal(t, "\r[1/78] basic-index: MSG-014", out.String())
}

// TestProgressFeatureLinesWithoutTerminal: without a terminal (a CI log) a line per finished
// feature file, with the count of feature files and the seconds since the start; on a terminal
// none of these lines, only the redrawn status line.
func TestProgressFeatureLinesWithoutTerminal(t *testing.T) {
	var out strings.Builder
	p := NewProgress(&out, 0, ConsoleOptions{})
	clock := p.start
	p.now = func() time.Time { return clock }
	p.AddUnits("basic-index", 2)
	p.AddUnits("server-tools", 1)
	p.AddUnits("basic-index", 1) // a second run (another transport) shares the feature
	p.Start("basic-index", "MSG-001")
	p.Done("basic-index", "MSG-001")
	require.Empty(t, out.String(), "no line before a feature file is finished")
	clock = clock.Add(4100 * time.Millisecond)
	p.Done("server-tools", "TOOL-001")
	require.Equal(t, "mcp-conform: 1/2 features, 4.1 s\n", out.String())
	p.Done("basic-index", "MSG-002")
	clock = clock.Add(time.Second)
	p.Done("basic-index", "MSG-001")
	p.Done("basic-index", "MSG-003") // beyond the units given: counted, no second line
	require.Equal(t, "mcp-conform: 1/2 features, 4.1 s\nmcp-conform: 2/2 features, 5.1 s\n", out.String())

	var term strings.Builder
	q := NewProgress(&term, 0, ConsoleOptions{Terminal: true})
	q.AddUnits("server-tools", 1)
	q.Done("server-tools", "TOOL-001")
	require.NotContains(t, term.String(), "features")
	require.Contains(t, term.String(), "[1/1] server-tools: TOOL-001")
}
