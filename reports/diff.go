package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// ChangeKind classifies how one (rule, revision, transport) result differs between two runs.
// Every change has exactly one kind; the kinds are listed in report order.
type ChangeKind string

// Change kinds of a RunDiff, in report order. Which transitions are a regression is decided by
// IsRegression.
const (
	// Regression: the result got worse (IsRegression); `mcp-conform diff` exits 1.
	Regression ChangeKind = "regression"
	// Fixed: a result that was fail, warn, error or xfail is pass or info now.
	Fixed ChangeKind = "fixed"
	// Unchecked: a rule that was judged (pass, fail, warn, info, xfail) is no longer judged: na,
	// untestable, or absent from the new run. A regression under --strict.
	Unchecked ChangeKind = "unchecked"
	// Added: a result only the new run has (and that is no regression).
	Added ChangeKind = "added"
	// Removed: a result only the old run had (and that was not judged: info, na, untestable, error).
	Removed ChangeKind = "removed"
	// Changed: any other change of verdict (e.g. pass -> xfail, na -> pass, fail -> error,
	// info -> warn without --strict).
	Changed ChangeKind = "changed"
)

// ChangeKinds lists every change kind in report order.
var ChangeKinds = []ChangeKind{Regression, Fixed, Unchecked, Added, Removed, Changed}

// Change is the difference of one (rule, revision, transport) result between two runs. Old and
// New are the verdicts, "" where that run has no such result. Level, Title, Spec and Reason
// are the new run's (the old run's for a result the new run lacks). Why says in a few words why
// a Regression is one ("" for the other kinds).
type Change struct {
	Kind      ChangeKind `json:"kind"`
	Rule      string     `json:"rule"`
	Revision  string     `json:"revision"`
	Transport string     `json:"transport"`
	Level     string     `json:"level"`
	Title     string     `json:"title"`
	SpecURL   string     `json:"specUrl,omitempty"`
	Old       Verdict    `json:"old,omitempty"`
	New       Verdict    `json:"new,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	Why       string     `json:"why,omitempty"`
}

// DiffSide describes one of the two runs compared: File is the path it was read from (set by
// the caller), Aborted is why it was not carried out in full ("" when it was).
type DiffSide struct {
	File      string    `json:"file,omitempty"`
	Tool      Tool      `json:"tool"`
	Server    *Server   `json:"server,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	Aborted   string    `json:"aborted,omitempty"`
	Summary   Summary   `json:"summary"`
}

// RunDiff is the comparison of two runs (Diff): every result whose verdict differs, keyed by
// (rule, revision, transport), sorted by kind (ChangeKinds order), then rule, revision
// (newest first) and transport. Unchanged counts the results with the same verdict in both.
// Regressions counts the Regression changes, plus one when the new run was not carried out in
// full and the old one was (NewAborted). Strict records the mode it was computed in.
type RunDiff struct {
	Old         DiffSide `json:"old"`
	New         DiffSide `json:"new"`
	Strict      bool     `json:"strict"`
	NewAborted  bool     `json:"newAborted"`
	Regressions int      `json:"regressions"`
	Unchanged   int      `json:"unchanged"`
	Changes     []Change `json:"changes"`
}

// IsRegression reports whether a result going from verdict was to verdict now (either "" for a
// result that run lacks) is a regression. Verdicts are ranked on the scale of what they do to
// a gate: pass, info, na, untestable, xfail and absent (0) < warn (1) < error (2) < fail (3);
// a result is a regression when it moves up that scale, so anything -> fail (xfail -> fail:
// the baseline no longer covers it; a new result that fails), a check that could be judged and
// now errors, and, without strict, -> warn only from pass (a SHOULD that held is broken now).
// With strict a warn counts as a failure, as in `run --strict` (anything better -> warn is a
// regression), and so does a rule that was judged and no longer is (Unchecked).
func IsRegression(was, now Verdict, strict bool) bool {
	if strict && unchecked(was, now) {
		return true
	}
	if gateRank(now) <= gateRank(was) {
		return false
	}
	if now == Warn && !strict {
		return was == Pass
	}
	return true
}

// gateRank places v on the scale of IsRegression.
func gateRank(v Verdict) int {
	switch v {
	case Warn:
		return 1
	case Error:
		return 2
	case Fail:
		return 3
	}
	return 0
}

// unchecked reports whether a judged result (html.go's judged: pass, fail, warn, info, xfail)
// is no longer judged.
func unchecked(was, now Verdict) bool {
	return judged(was) && (now == "" || now == NA || now == Untestable || now == NotRun)
}

// classify returns the kind of the change was -> now (was != now) and, for a regression, why.
func classify(was, now Verdict, strict bool) (ChangeKind, string) {
	switch {
	case IsRegression(was, now, strict):
		return Regression, regressionWhy(was, now)
	case (gateRank(was) > 0 || was == XFail) && (now == Pass || now == Info):
		return Fixed, ""
	case unchecked(was, now):
		return Unchecked, ""
	case was == "":
		return Added, ""
	case now == "":
		return Removed, ""
	}
	return Changed, ""
}

func regressionWhy(was, now Verdict) string {
	switch {
	case unchecked(was, now):
		return "no longer checked (--strict)"
	case now == Fail && was == "":
		return "new result that fails"
	case now == Fail && was == XFail:
		return "fails, no longer covered by the baseline"
	case now == Fail:
		return "new failure"
	case now == Error:
		return "the check could not be carried out"
	case now == Warn && was == Pass:
		return "passed, warns now"
	}
	return "new warning (--strict)"
}

type resultKey struct{ rule, revision, transport string }

// indexResults maps each (rule, revision, transport) to its result; a key given twice keeps
// the worse verdict.
func indexResults(rs []Result) map[resultKey]Result {
	m := make(map[resultKey]Result, len(rs))
	for _, r := range rs {
		k := resultKey{r.Rule, r.Revision, r.Transport}
		if prev, ok := m[k]; ok && Worse(prev.Verdict, r.Verdict) == prev.Verdict {
			continue
		}
		m[k] = r
	}
	return m
}

func diffSide(r *Run) DiffSide {
	s := DiffSide{Tool: r.Tool, Server: r.Server, StartedAt: r.StartedAt, Aborted: r.Aborted}
	for _, res := range r.Results {
		s.Summary.Add(res.Verdict)
	}
	return s
}

// Diff compares the results of two runs by (rule, revision, transport). It does not modify
// either run. strict selects the --strict meaning of a regression (IsRegression).
func Diff(oldRun, newRun *Run, strict bool) *RunDiff {
	d := &RunDiff{Old: diffSide(oldRun), New: diffSide(newRun), Strict: strict, Changes: []Change{}}
	before, after := indexResults(oldRun.Results), indexResults(newRun.Results)
	keys := make([]resultKey, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		o, hadOld := before[k]
		n, hasNew := after[k]
		if hadOld && hasNew && o.Verdict == n.Verdict {
			d.Unchanged++
			continue
		}
		c := Change{Rule: k.rule, Revision: k.revision, Transport: k.transport, Old: o.Verdict, New: n.Verdict}
		src := n
		if !hasNew {
			src = o
		}
		c.Level, c.Title, c.SpecURL, c.Reason = src.Level, src.Title, src.Spec.URL, src.Reason
		c.Kind, c.Why = classify(c.Old, c.New, strict)
		if c.Kind == Regression {
			d.Regressions++
		}
		d.Changes = append(d.Changes, c)
	}
	if newRun.Aborted != "" && oldRun.Aborted == "" {
		d.NewAborted = true
		d.Regressions++
	}
	order := map[ChangeKind]int{}
	for i, k := range ChangeKinds {
		order[k] = i
	}
	sort.Slice(d.Changes, func(i, j int) bool {
		a, b := d.Changes[i], d.Changes[j]
		switch {
		case a.Kind != b.Kind:
			return order[a.Kind] < order[b.Kind]
		case a.Rule != b.Rule:
			return ruleLess(a.Rule, b.Rule)
		case a.Revision != b.Revision:
			return revisions.After(a.Revision, b.Revision)
		}
		return a.Transport < b.Transport
	})
	return d
}

// Of returns the changes of kind k, in report order.
func (d *RunDiff) Of(k ChangeKind) []Change {
	var out []Change
	for _, c := range d.Changes {
		if c.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// diffHeadings are the section titles of the text and markdown renderings.
var diffHeadings = map[ChangeKind]string{
	Regression: "Regressions",
	Fixed:      "Fixed",
	Unchecked:  "No longer checked",
	Added:      "Added",
	Removed:    "Removed",
	Changed:    "Other verdict changes",
}

// Headline is the one-line verdict of d: the regressions ("no regression" when none), then the
// count of every other kind that has changes, then the unchanged results, e.g. "1 regression,
// 2 fixed, 1 other verdict changes, 203 unchanged".
func (d *RunDiff) Headline() string {
	parts := []string{"no regression"}
	if d.Regressions > 0 {
		parts[0] = fmt.Sprintf("%d %s", d.Regressions, plural(d.Regressions, "regression", "regressions"))
	}
	for _, k := range ChangeKinds[1:] {
		if n := len(d.Of(k)); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ToLower(diffHeadings[k])))
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("%d unchanged", d.Unchanged)), ", ")
}

func verdictOrAbsent(v Verdict) string {
	if v == "" {
		return "(absent)"
	}
	return string(v)
}

func sideLabel(s DiffSide) string {
	label := s.File
	if label == "" {
		label = "run"
	}
	return fmt.Sprintf("%s (mcp-conform %s, %s)", label, s.Tool.Version, s.StartedAt.UTC().Format(time.RFC3339))
}

// WriteDiffText writes d for a console: the two runs, a section per change kind that has
// changes (one line each: rule, revision, transport, old -> new, reason), the new run's abort
// when it is a regression, and the Headline last. Server-supplied text is flattened to one
// line with control characters escaped (ConsoleText).
func WriteDiffText(w io.Writer, d *RunDiff) error {
	ew := &errWriter{w: w}
	ew.printf("old: %s\nnew: %s\n", flatten(sideLabel(d.Old)), flatten(sideLabel(d.New)))
	if d.NewAborted {
		ew.printf("\nRegression: the new run was not carried out in full: %s\n", oneLine(d.New.Aborted))
	}
	for _, k := range ChangeKinds {
		cs := d.Of(k)
		if len(cs) == 0 {
			continue
		}
		ew.printf("\n%s (%d):\n", diffHeadings[k], len(cs))
		for _, c := range cs {
			line := fmt.Sprintf("  %-10s %-10s %-5s %-10s -> %-10s", flatten(c.Rule), flatten(c.Revision), flatten(c.Transport), verdictOrAbsent(c.Old), verdictOrAbsent(c.New))
			if c.Why != "" {
				line += " [" + c.Why + "]"
			}
			text := c.Reason
			if text == "" || c.New == Pass {
				text = c.Title
			}
			if t := oneLine(text); t != "" {
				line += " " + t
			}
			ew.printf("%s\n", strings.TrimRight(line, " "))
		}
	}
	ew.printf("\n%s\n", d.Headline())
	return ew.err
}

// WriteDiffJSON writes d as one indented JSON document (the RunDiff fields).
func WriteDiffJSON(w io.Writer, d *RunDiff) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(d)
}

// WriteDiffMarkdown writes d as GitHub-flavoured markdown for a pull-request comment or a job
// summary: a heading with the Headline, the two runs, and a table per change kind that has
// changes (rule linked to its spec section, revision, transport, was, now, reason). Text is
// escaped (MarkdownText), so a server-supplied string can neither break the table, add markup
// nor mention anyone.
func WriteDiffMarkdown(w io.Writer, d *RunDiff) error {
	ew := &errWriter{w: w}
	mark := "✅"
	if d.Regressions > 0 {
		mark = "❌"
	}
	ew.printf("### %s mcp-conform diff: %s\n\n", mark, MarkdownText(d.Headline()))
	ew.printf("- old: %s\n- new: %s\n", MarkdownText(sideLabel(d.Old)), MarkdownText(sideLabel(d.New)))
	if d.NewAborted {
		ew.printf("\n**Regression:** the new run was not carried out in full: %s\n", MarkdownText(oneLine(d.New.Aborted)))
	}
	for _, k := range ChangeKinds {
		cs := d.Of(k)
		if len(cs) == 0 {
			continue
		}
		ew.printf("\n#### %s (%d)\n\n| Rule | Revision | Transport | Was | Now | Reason |\n| --- | --- | --- | --- | --- | --- |\n", diffHeadings[k], len(cs))
		for _, c := range cs {
			rule := MarkdownText(c.Rule)
			if strings.HasPrefix(c.SpecURL, "https://") {
				rule = "[" + rule + "](" + strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(c.SpecURL) + ")"
			}
			text := c.Reason
			if text == "" || c.New == Pass {
				text = c.Title
			}
			if c.Why != "" {
				text = c.Why + ": " + text
			}
			ew.printf("| %s | %s | %s | %s | %s | %s |\n", rule, MarkdownText(c.Revision), MarkdownText(c.Transport),
				verdictOrAbsent(c.Old), verdictOrAbsent(c.New), MarkdownText(oneLine(text)))
		}
	}
	return ew.err
}

// MarkdownText makes s safe as inline text in GitHub-flavoured markdown, table cells included:
// it is flattened to one line (ConsoleText), HTML's &, < and > become entities, and the
// characters that start markup inside a line (\ ` * _ { } [ ] # ! | ~; a "(" starts a link only
// after "]") or a mention (@) are backslash-escaped.
func MarkdownText(s string) string {
	s = flatten(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case strings.ContainsRune("\\`*_{}[]#!|~@", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
