// Package reports holds the neutral result model of one mcp-conform run and its writers. The
// model is what results.json serialises; every other output (console summary, JUnit, HTML) is
// rendered from it, so a saved results.json can be re-rendered without rerunning. The package
// depends on nothing else in the project and never on godog types.
package reports

import (
	"sort"
	"time"

	"github.com/mcp-conform/mcp-conform/revisions"
)

// SchemaVersion is the version of the results.json document layout written by this build.
const SchemaVersion = "1"

// Verdict is the outcome of one rule for one (revision, transport), always lowercase in JSON.
type Verdict string

// Verdicts as DESIGN.md defines them.
const (
	// Pass: the rule held.
	Pass Verdict = "pass"
	// Fail: a MUST or MUST NOT was broken.
	Fail Verdict = "fail"
	// Warn: a SHOULD or SHOULD NOT was broken.
	Warn Verdict = "warn"
	// Info: an observation (MAY behaviour, probes); never fails a run.
	Info Verdict = "info"
	// NA: not applicable (capability not declared, other revision or transport).
	NA Verdict = "na"
	// Untestable: needs a fixture or permission the run lacks.
	Untestable Verdict = "untestable"
	// Error: the harness could not carry out the check; never merged with Fail.
	Error Verdict = "error"
	// XFail: a failure covered by the baseline.
	XFail Verdict = "xfail"
	// NotRun: the run stopped (interrupt, run timeout) before the rule was judged. It is no
	// verdict on the server and no fault of the harness; a run holding one was not carried
	// out in full (exit 3 unless a fail).
	NotRun Verdict = "notrun"
)

// Verdicts lists every verdict in report order.
var Verdicts = []Verdict{Pass, Fail, Warn, Info, NA, Untestable, Error, XFail, NotRun}

// Label returns how v is written in prose and counts: "not run" for NotRun, the verdict itself
// otherwise.
func (v Verdict) Label() string {
	if v == NotRun {
		return "not run"
	}
	return string(v)
}

// severity orders verdicts from best to worst for merging the rows of a Scenario Outline:
// the rule's verdict is its worst row's. A failed row outranks a row the harness could not
// carry out (DESIGN "Verdict principles": error never hides fail).
func severity(v Verdict) int {
	switch v {
	case NA:
		return 0
	case Pass:
		return 1
	case Info:
		return 2
	case Untestable:
		return 3
	case NotRun:
		return 3
	case XFail:
		return 4
	case Warn:
		return 5
	case Error:
		return 6
	case Fail:
		return 7
	}
	return -1
}

// Worse returns the worse of two verdicts (fail > error > warn > xfail > untestable, notrun >
// info > pass > na): of an Outline's rows, one the run stopped makes the rule not run unless
// another row broke it or errored.
func Worse(a, b Verdict) Verdict {
	if severity(b) > severity(a) {
		return b
	}
	return a
}

// Run is one whole run: the document written as results.json.
type Run struct {
	SchemaVersion string         `json:"schemaVersion"`
	Tool          Tool           `json:"tool"`
	Target        Target         `json:"target"`
	Server        *Server        `json:"server,omitempty"`
	Revisions     []string       `json:"revisions"`
	Transports    []string       `json:"transports"`
	SchemaPins    map[string]Pin `json:"schemaPins"`
	StartedAt     time.Time      `json:"startedAt"`
	DurationMs    int64          `json:"durationMs"`
	StderrTail    string         `json:"stderrTail"`
	// Notes are run-level diagnostics (era detection outcome, why a revision was not tested).
	Notes []string `json:"notes,omitempty"`
	// StaleBaseline lists the baseline entries whose rule passes now (Baseline.Apply); each one
	// fails the run until it is removed from the baseline. Absent when no baseline was applied
	// or none is stale.
	StaleBaseline []BaselineEntry `json:"staleBaseline,omitempty"`
	// Aborted, when non-empty, says why the run was not carried out in full (server did not
	// start, run timeout, interrupted); such a run exits 3 unless a failure makes it 1.
	Aborted string   `json:"aborted,omitempty"`
	Summary Summary  `json:"summary"`
	Results []Result `json:"results"`
	Frames  []Frame  `json:"frames"`
}

// Tool identifies the mcp-conform build that produced the run.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// Target is what was tested: Transport "stdio" with the Command argv, or "http" (Streamable
// HTTP) or "sse" (the HTTP+SSE transport of the oldest revision) with the URL.
// Header names given with --header are listed in HeaderNames; their values are never written.
type Target struct {
	Transport   string   `json:"transport"`
	Command     []string `json:"command,omitempty"`
	URL         string   `json:"url,omitempty"`
	HeaderNames []string `json:"headerNames,omitempty"`
}

// Server is the server's self-reported identity (2026-07-28: `_meta`
// io.modelcontextprotocol/serverInfo; 2025-11-25: InitializeResult.serverInfo).
type Server struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Pin is the upstream commit and sha256 of the schema.json a revision was validated against.
type Pin struct {
	Commit string `json:"commit"`
	SHA256 string `json:"sha256"`
}

// Summary counts results by verdict.
type Summary struct {
	Pass       int `json:"pass"`
	Fail       int `json:"fail"`
	Warn       int `json:"warn"`
	Info       int `json:"info"`
	NA         int `json:"na"`
	Untestable int `json:"untestable"`
	Error      int `json:"error"`
	XFail      int `json:"xfail"`
	// NotRun counts the rules the run stopped before judging (absent when none).
	NotRun int `json:"notrun,omitempty"`
}

// Add counts one result with verdict v.
func (s *Summary) Add(v Verdict) {
	switch v {
	case Pass:
		s.Pass++
	case Fail:
		s.Fail++
	case Warn:
		s.Warn++
	case Info:
		s.Info++
	case NA:
		s.NA++
	case Untestable:
		s.Untestable++
	case Error:
		s.Error++
	case XFail:
		s.XFail++
	case NotRun:
		s.NotRun++
	}
}

// Count returns the number of results with verdict v.
func (s Summary) Count(v Verdict) int {
	switch v {
	case Pass:
		return s.Pass
	case Fail:
		return s.Fail
	case Warn:
		return s.Warn
	case Info:
		return s.Info
	case NA:
		return s.NA
	case Untestable:
		return s.Untestable
	case Error:
		return s.Error
	case XFail:
		return s.XFail
	case NotRun:
		return s.NotRun
	}
	return 0
}

// Spec points at the spec section a rule comes from: Section as "page#Heading" relative to the
// revision's docs (e.g. "basic/transports/stdio#Shutdown") and URL pinned to the revision.
type Spec struct {
	Section string `json:"section"`
	URL     string `json:"url"`
}

// Step is one Gherkin step of the scenario with its status: "passed", "failed", "skipped",
// "undefined" or "pending".
type Step struct {
	Text   string `json:"text"`
	Status string `json:"status"`
}

// SchemaError is a JSON Schema violation found in a frame: the frame's seq, the JSON Pointer of
// the offending value in the frame (InstancePath) and of the schema keyword (SchemaPath), and
// on a required or additionalProperties violation the members missing or not allowed (sorted).
type SchemaError struct {
	Frame        int      `json:"frame"`
	Type         string   `json:"type,omitempty"`
	InstancePath string   `json:"instancePath"`
	SchemaPath   string   `json:"schemaPath"`
	Message      string   `json:"message"`
	Members      []string `json:"members,omitempty"`
}

// Result is the verdict of one rule for one (revision, transport). Level is the RFC 2119 level
// ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"), or "PROBE" for a non-normative probe
// that records behaviour the spec leaves open (always info). Reason is one line; Expected and Actual
// say what the rule wanted and what the server did. Frames lists the seq of the frames the
// check exchanged. Feature names the feature (spec page) the scenario lives in.
type Result struct {
	Rule      string  `json:"rule"`
	Level     string  `json:"level"`
	Revision  string  `json:"revision"`
	Transport string  `json:"transport"`
	Verdict   Verdict `json:"verdict"`
	// BaselineVerdict is, for an xfail, the verdict the baseline entry covered (fail or warn),
	// so that applying another baseline to a saved run starts from the truth.
	BaselineVerdict Verdict       `json:"baselineVerdict,omitempty"`
	Title           string        `json:"title"`
	Feature         string        `json:"feature"`
	Spec            Spec          `json:"spec"`
	Reason          string        `json:"reason,omitempty"`
	Expected        string        `json:"expected,omitempty"`
	Actual          string        `json:"actual,omitempty"`
	Steps           []Step        `json:"steps"`
	SchemaErrors    []SchemaError `json:"schemaErrors,omitempty"`
	Frames          []int         `json:"frames"`
	DurationMs      int64         `json:"durationMs"`
}

// HTTP is the HTTP envelope of a frame (see harness.HTTPMeta).
type HTTP struct {
	Method  string              `json:"method,omitempty"`
	Status  int                 `json:"status,omitempty"`
	Headers map[string][]string `json:"headers,omitempty"`
}

// SSE is the Server-Sent Events envelope of a frame (see harness.SSEMeta).
type SSE struct {
	Event string `json:"event,omitempty"`
	ID    string `json:"id,omitempty"`
}

// Frame is one recorded frame. T is the offset from the run start in milliseconds. Raw is the
// text of the frame; when the bytes are not valid UTF-8, Raw holds them with invalid sequences
// replaced and RawBase64 holds the exact bytes. Size is the frame's length on the wire in bytes
// (larger than len(Raw) when Truncated). Conn numbers the connection (stdio process or HTTP
// client) the frame travelled on. Problem is a framing violation the transport saw. Sampled marks
// a frame kept past the recorder's limits as one of a flood's sample (harness.Recorder.Admit).
type Frame struct {
	Seq       int     `json:"seq"`
	Dir       string  `json:"dir"`
	T         float64 `json:"t"`
	Transport string  `json:"transport"`
	Conn      int     `json:"conn"`
	Raw       string  `json:"raw"`
	RawBase64 string  `json:"rawBase64,omitempty"`
	Size      int     `json:"size"`
	Truncated bool    `json:"truncated"`
	Sampled   bool    `json:"sampled,omitempty"`
	SHA256    string  `json:"sha256,omitempty"`
	Method    string  `json:"method,omitempty"`
	Problem   string  `json:"problem,omitempty"`
	HTTP      *HTTP   `json:"http,omitempty"`
	SSE       *SSE    `json:"sse,omitempty"`
}

// Finalize sorts the results deterministically (rule, revision, transport), recomputes the
// summary and sorts frames by seq. Writers call it before output.
func (r *Run) Finalize() {
	sort.SliceStable(r.Results, func(i, j int) bool {
		a, b := r.Results[i], r.Results[j]
		if a.Rule != b.Rule {
			return ruleLess(a.Rule, b.Rule)
		}
		if a.Revision != b.Revision {
			return revisions.After(a.Revision, b.Revision)
		}
		return a.Transport < b.Transport
	})
	sort.Slice(r.Frames, func(i, j int) bool { return r.Frames[i].Seq < r.Frames[j].Seq })
	// Lists are written as [] rather than null, so readers need no special case.
	if r.Revisions == nil {
		r.Revisions = []string{}
	}
	if r.Transports == nil {
		r.Transports = []string{}
	}
	if r.SchemaPins == nil {
		r.SchemaPins = map[string]Pin{}
	}
	if r.Results == nil {
		r.Results = []Result{}
	}
	if r.Frames == nil {
		r.Frames = []Frame{}
	}
	for i := range r.Results {
		if r.Results[i].Steps == nil {
			r.Results[i].Steps = []Step{}
		}
		if r.Results[i].Frames == nil {
			r.Results[i].Frames = []int{}
		}
	}
	r.Summary = Summary{}
	for _, res := range r.Results {
		r.Summary.Add(res.Verdict)
	}
}

// ruleLess orders rule ids by area then number ("MSG-9" < "MSG-10").
func ruleLess(a, b string) bool {
	aa, an := splitRule(a)
	ba, bn := splitRule(b)
	if aa != ba {
		return aa < ba
	}
	if an != bn {
		return an < bn
	}
	return a < b
}

func splitRule(id string) (string, int) {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '-' {
			n := 0
			for _, c := range id[i+1:] {
				if c < '0' || c > '9' {
					return id, 0
				}
				n = n*10 + int(c-'0')
			}
			return id[:i], n
		}
	}
	return id, 0
}
