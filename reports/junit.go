package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// junitSuitesName is the name attribute of the <testsuites> root element.
const junitSuitesName = "mcp-conform"

// junitTimestamp is the layout of the timestamp attributes: ISO 8601 in UTC without a zone
// designator, as the Ant JUnit schema (the one Jenkins and most CI tools accept) requires.
const junitTimestamp = "2006-01-02T15:04:05"

type junitSuites struct {
	XMLName   xml.Name     `xml:"testsuites"`
	Name      string       `xml:"name,attr"`
	Tests     int          `xml:"tests,attr"`
	Failures  int          `xml:"failures,attr"`
	Errors    int          `xml:"errors,attr"`
	Skipped   int          `xml:"skipped,attr"`
	Time      string       `xml:"time,attr"`
	Timestamp string       `xml:"timestamp,attr"`
	Suites    []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Cases     []junitCase `xml:"testcase"`
	ms        int64
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Failure    *junitProblem   `xml:"failure"`
	Error      *junitProblem   `xml:"error"`
	Skipped    *junitSkipped   `xml:"skipped"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes r as JUnit XML to w, the file CI test-report UIs read. Like WriteJSON it
// calls r.Finalize first, so results are in their canonical order and the totals match
// r.Summary. The layout:
//
//   - one <testsuites name="mcp-conform"> with the run totals: tests (every result), failures
//     (fail), errors (error), skipped (na + untestable), time (the run's wall time) and
//     timestamp (Run.StartedAt);
//   - one <testsuite> per feature (Result.Feature, the spec page), in the order of the
//     feature's first result, with the same counts for its results; its time is the sum of
//     its testcases' times;
//   - one <testcase> per result, in Run.Finalize order, classname the feature and name
//     JUnitCaseName: "<rule-id> <title> [<revision> <transport>]". A rule has one result per
//     (revision, transport) and CI tools key test cases by classname and name, so the
//     bracketed suffix keeps names unique while they still start with "<rule-id> <title>";
//   - in each testcase, <properties> rule, revision, transport, level, verdict, spec.section
//     and spec.url; then <failure type="fail"> (fail), <error type="error"> (error) or
//     <skipped> (na, untestable), with the reason as message (the verdict when there is no
//     reason) and, for failure and error, a body listing expected, actual, schema errors,
//     the frames cited and the spec URL. pass, info, warn and xfail are passing testcases
//     (warn is a <failure type="warn">, counted in failures, with JUnitOptions.Strict); their note (verdict: reason, then the same details) is in <system-out>, which a plain
//     pass does not have.
//
// Times come from the model (DurationMs, StartedAt), never from the clock, so the same Run
// always gives the same bytes. Text XML 1.0 cannot carry (control characters a server sent)
// is written as U+FFFD. What fails the gate besides the results gets a testsuite
// "mcp-conform run" of its own: a failing testcase per stale baseline entry and an error
// testcase when the run was not carried out in full.
func WriteJUnit(w io.Writer, r *Run) error {
	return WriteJUnitOptions(w, r, JUnitOptions{})
}

// JUnitOptions changes how WriteJUnitOptions grades results.
type JUnitOptions struct {
	// Strict makes every warn (a SHOULD broken) a <failure type="warn"> counted in the
	// failures totals, as --strict makes it fail the run (exit 1).
	Strict bool
}

// WriteJUnitOptions is WriteJUnit with options: with Strict a warn is a failing testcase.
func WriteJUnitOptions(w io.Writer, r *Run, opts JUnitOptions) error {
	r.Finalize()
	stamp := r.StartedAt.UTC().Format(junitTimestamp)
	failures := r.Summary.Fail
	if opts.Strict {
		failures += r.Summary.Warn
	}
	doc := junitSuites{
		Name:      junitSuitesName,
		Tests:     len(r.Results),
		Failures:  failures,
		Errors:    r.Summary.Error,
		Skipped:   r.Summary.NA + r.Summary.Untestable + r.Summary.NotRun,
		Time:      junitSeconds(r.DurationMs),
		Timestamp: stamp,
	}
	index := map[string]int{}
	for _, res := range r.Results {
		i, ok := index[res.Feature]
		if !ok {
			i = len(doc.Suites)
			index[res.Feature] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: res.Feature, Timestamp: stamp})
		}
		s := &doc.Suites[i]
		s.Tests++
		switch {
		case junitFails(res.Verdict, opts.Strict):
			s.Failures++
		case res.Verdict == Error:
			s.Errors++
		case res.Verdict == NA || res.Verdict == Untestable || res.Verdict == NotRun:
			s.Skipped++
		}
		s.ms += max(res.DurationMs, 0)
		s.Cases = append(s.Cases, junitTestcase(res, opts.Strict))
	}
	// What fails the gate outside the results: stale baseline entries (exit 1) and a run that
	// was not carried out (exit 3). A JUnit view must not show green for them.
	if len(r.StaleBaseline) > 0 || r.Aborted != "" {
		run := junitSuite{Name: junitRunSuite, Timestamp: stamp}
		for _, e := range r.StaleBaseline {
			run.Tests++
			run.Failures++
			run.Cases = append(run.Cases, junitCase{
				Name: "stale baseline entry " + e.String(), Classname: junitRunSuite, Time: junitSeconds(0),
				Properties: []junitProperty{{"rule", e.Rule}, {"verdict", string(Fail)}},
				Failure:    &junitProblem{Message: "the rule passes now: remove the entry from the baseline", Type: "stale-baseline", Body: e.Reason},
			})
		}
		if r.Aborted != "" {
			run.Tests++
			run.Errors++
			run.Cases = append(run.Cases, junitCase{
				Name: "run carried out in full", Classname: junitRunSuite, Time: junitSeconds(0),
				Properties: []junitProperty{{"verdict", string(Error)}},
				Error:      &junitProblem{Message: r.Aborted, Type: "aborted"},
			})
		}
		doc.Tests += run.Tests
		doc.Failures += run.Failures
		doc.Errors += run.Errors
		doc.Suites = append(doc.Suites, run)
	}
	for i := range doc.Suites {
		doc.Suites[i].Time = junitSeconds(doc.Suites[i].ms)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// JUnitCaseName is the testcase name WriteJUnit gives res: "<rule-id> <title> [<revision>
// <transport>]".
func JUnitCaseName(res Result) string {
	return junitCaseName(res)
}

// junitRunSuite names the testsuite of stale baseline entries and of an aborted run.
const junitRunSuite = "mcp-conform run"

func junitCaseName(res Result) string {
	return fmt.Sprintf("%s %s [%s %s]", res.Rule, res.Title, res.Revision, res.Transport)
}

// junitFails reports whether a result of verdict v is a <failure>: fail, and warn when strict.
func junitFails(v Verdict, strict bool) bool {
	return v == Fail || strict && v == Warn
}

func junitTestcase(res Result, strict bool) junitCase {
	c := junitCase{
		Name:      JUnitCaseName(res),
		Classname: res.Feature,
		Time:      junitSeconds(res.DurationMs),
		Properties: []junitProperty{
			{"rule", res.Rule},
			{"revision", res.Revision},
			{"transport", res.Transport},
			{"level", res.Level},
			{"verdict", string(res.Verdict)},
			{"spec.section", res.Spec.Section},
			{"spec.url", res.Spec.URL},
		},
	}
	message := res.Reason
	if message == "" {
		message = string(res.Verdict)
	}
	switch {
	case junitFails(res.Verdict, strict):
		c.Failure = &junitProblem{Message: message, Type: string(res.Verdict), Body: junitDetails(res)}
	case res.Verdict == Error:
		c.Error = &junitProblem{Message: message, Type: string(Error), Body: junitDetails(res)}
	case res.Verdict == NA || res.Verdict == Untestable:
		c.Skipped = &junitSkipped{Message: message}
	case res.Verdict == NotRun:
		c.Skipped = &junitSkipped{Message: "not run: " + message}
	default:
		c.SystemOut = junitNote(res)
	}
	return c
}

// junitDetails is the body of a <failure> or <error>: what the rule expected and what the
// server did, the schema errors, and the frames the check exchanged (seq numbers in
// results.json).
func junitDetails(res Result) string {
	var b strings.Builder
	if res.Expected != "" {
		fmt.Fprintf(&b, "Expected: %s\n", res.Expected)
	}
	if res.Actual != "" {
		fmt.Fprintf(&b, "Actual: %s\n", res.Actual)
	}
	for _, e := range res.SchemaErrors {
		typ := ""
		if e.Type != "" {
			typ = " (" + e.Type + ")"
		}
		inst := e.InstancePath
		if inst == "" {
			inst = "/"
		}
		fmt.Fprintf(&b, "Schema error in frame %d%s at %s: %s [schema %s]\n", e.Frame, typ, inst, e.Message, e.SchemaPath)
	}
	if len(res.Frames) > 0 {
		seqs := make([]string, len(res.Frames))
		for i, f := range res.Frames {
			seqs[i] = strconv.Itoa(f)
		}
		fmt.Fprintf(&b, "Frames: %s\n", strings.Join(seqs, ", "))
	}
	if res.Spec.URL != "" {
		fmt.Fprintf(&b, "Spec: %s\n", res.Spec.URL)
	}
	return b.String()
}

// junitNote is the <system-out> of a passing testcase: empty for a plain pass, otherwise
// the verdict and reason, then the details.
func junitNote(res Result) string {
	if res.Verdict == Pass && res.Reason == "" && res.Expected == "" && res.Actual == "" && len(res.SchemaErrors) == 0 {
		return ""
	}
	head := string(res.Verdict)
	if res.Reason != "" {
		head += ": " + res.Reason
	}
	details := ""
	if res.Verdict != Pass {
		details = junitDetails(res)
	}
	return head + "\n" + details
}

// junitSeconds renders milliseconds as seconds with three decimals, without going through
// floating point.
func junitSeconds(ms int64) string {
	ms = max(ms, 0)
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}
