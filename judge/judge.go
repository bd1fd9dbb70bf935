// Package judge holds the run-wide rules of mcp-conform (DESIGN.md "Architecture", Judge):
// one table (see Rules) that maps a rule id to a check, a fold over the recorded frames of one
// revision. The judge parses every frame once (envelope, members, schema validation), links a
// server frame to the client frame it answers, marks the frames the suite made invalid on
// purpose, and hands each frame to every check of its revision in seq order. After the run,
// Finish turns each check's state into an Outcome: how many frames it judged and, when the rule
// is broken, a Mismatch citing the frames that decide it.
//
// The package knows no godog, no steps, no transport and no report model: its input is
// harness.Frame values, its output its own plain data (Outcome, Status, SchemaError) that the
// runner maps to report verdicts.
package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/mcp-conform/mcp-conform/harness"
	"github.com/mcp-conform/mcp-conform/schemas"
)

// Frame is one recorded frame as the checks see it: the harness frame plus what the judge
// derived from it once, for every check to share. Checks must not modify it.
type Frame struct {
	*harness.Frame

	// Msg is the frame parsed as one JSON-RPC message (harness.ParseMessage); never nil. Its
	// Kind is harness.KindInvalid, with Problem set, for anything that is not a well-formed
	// message.
	Msg *harness.Message
	// NotJSON is set when the bytes are not one JSON object at all (ParseMessage's error).
	NotJSON bool
	// Members are the top-level members of the JSON object, nil when the frame is not one
	// JSON object in valid UTF-8.
	Members map[string]json.RawMessage
	// Request is, for a server frame, the client frame it answers: over HTTP the request
	// whose HTTP response carried it (ReplyTo), on stdio the latest client frame of the
	// connection with the id of this response. Nil for client frames and unattributed frames.
	Request *Frame
	// Excused marks a client frame the suite made invalid on purpose (Intentional) and a
	// server frame answering one (its Request is excused). Only the entries with
	// Entry.Intentional set see excused frames.
	Excused bool
	// Schema are the frame's violations of its revision's JSON Schema (nil when valid, not
	// validated, or not a JSON-RPC message); SchemaErr says why it could not be validated.
	Schema    []SchemaError
	SchemaErr error

	result    map[string]json.RawMessage
	resultOK  bool
	resultSet bool
	decoded   any
	decodeSet bool
	meta      []metaKey
	metaSet   bool
	items     []contItem
	itemsSet  bool
}

// FromServer reports whether the server wrote f.
func (f *Frame) FromServer() bool { return f.Dir == harness.DirServerToClient }

// Object returns the members of a server frame that is one JSON object in valid UTF-8 and was
// not cut at --max-frame; ok is false for client frames and anything else (MSG-002, STDIO-002
// and the HTTP rules judge those).
func (f *Frame) Object() (map[string]json.RawMessage, bool) {
	if !f.FromServer() || f.Truncated || f.Members == nil {
		return nil, false
	}
	return f.Members, true
}

// Result returns the result object of a server response (a JSON object at "result" of a frame
// Object accepts, no method member); ok is false otherwise. It is decoded once per frame.
func (f *Frame) Result() (map[string]json.RawMessage, bool) {
	if !f.resultSet {
		f.resultSet = true
		if m, ok := f.Object(); ok && isResponseObject(m) {
			var res map[string]json.RawMessage
			if json.Unmarshal(m["result"], &res) == nil && res != nil {
				f.result, f.resultOK = res, true
			}
		}
	}
	return f.result, f.resultOK
}

// decodedResult returns the result of a server result message decoded into Go values (numbers
// as json.Number), nil when there is none; decoded once per frame.
func (f *Frame) decodedResult() any {
	if !f.decodeSet {
		f.decodeSet = true
		if f.FromServer() && f.Msg.Kind == harness.KindResult {
			f.decoded = decodeAny(f.Msg.Result)
		}
	}
	return f.decoded
}

// SchemaError is a JSON Schema violation found in a frame: the frame's seq, the schema type it
// was validated as, the JSON Pointer of the offending value in the frame (InstancePath) and of
// the schema keyword (SchemaPath), and on a required or additionalProperties violation the
// members missing or not allowed (sorted). Its fields are those of reports.SchemaError, so the
// runner converts one into the other.
type SchemaError struct {
	Frame        int
	Type         string
	InstancePath string
	SchemaPath   string
	Message      string
	Members      []string
}

// Grade is how a Mismatch is graded: LevelGrade (the zero value) by the rule's RFC 2119 level,
// Warning as a broken SHOULD whatever the rule's level.
type Grade string

// Grades of a Mismatch.
const (
	// LevelGrade grades the mismatch by the rule's level (a MUST fails, a SHOULD warns).
	LevelGrade Grade = ""
	// Warning grades the mismatch as a broken SHOULD, whatever the rule's level.
	Warning Grade = "warn"
)

// Mismatch is a broken rule: Expected and Actual in words, the frames that show it (seqs),
// and Grade, when set, overriding the grade the rule's level gives. SchemaErrors, on
// SCHEMA-001 only, list the violations found.
type Mismatch struct {
	Expected     string
	Actual       string
	Grade        Grade
	Frames       []int
	SchemaErrors []SchemaError
}

// Error returns "expected <Expected>, got <Actual>".
func (m *Mismatch) Error() string { return fmt.Sprintf("expected %s, got %s", m.Expected, m.Actual) }

// Outcome is what a check concluded after the run: Judged is the number of frames it judged
// (its subject frames; 0 means the run gave it nothing to judge) and Mismatch, when not nil,
// the violation. NA, set by the judge from Entry.None when Judged is 0, is the reason the rule
// is not applicable. Note, on a pass, adds what the pass leaves to other rules.
type Outcome struct {
	Judged   int
	Mismatch *Mismatch
	NA       string
	Note     string
}

// Status is what an Outcome concluded, in the judge's own terms; the runner maps it to a
// report verdict (runner/verdict.go).
type Status string

// Statuses of an Outcome.
const (
	// Held: the check judged frames and none broke the rule.
	Held Status = "held"
	// Broken: a frame broke the rule, graded by the rule's level.
	Broken Status = "broken"
	// BrokenWarning: a frame broke the rule, graded Warning whatever the rule's level.
	BrokenWarning Status = "broken-warning"
	// Unjudged: the run gave the check nothing to judge (Outcome.NA says why).
	Unjudged Status = "unjudged"
)

// Status returns what o concluded: Broken or BrokenWarning when it has a Mismatch, Unjudged
// when it judged nothing, else Held.
func (o Outcome) Status() Status {
	switch {
	case o.Mismatch != nil && o.Mismatch.Grade == Warning:
		return BrokenWarning
	case o.Mismatch != nil:
		return Broken
	case o.NA != "" || o.Judged == 0:
		return Unjudged
	}
	return Held
}

// Check is one rule's fold over the frames of one revision: Observe is called once per frame,
// in seq order, both directions, every connection of the revision; the check keeps its own
// state (and only the frames it will cite). Finish returns the outcome of the frames seen so
// far without changing the state: it is called after the last frame, and may be called
// before (see Judge.Judged).
type Check interface {
	Observe(f *Frame)
	Finish() Outcome
}

// Deps are what a check constructor may need: the revision its frames speak.
type Deps struct {
	Revision string
}

// Entry is one row of the table: the rule id (features/*.feature @rule tag), the check's
// constructor, whether the check also sees excused frames (requests the suite made invalid on
// purpose and their replies: set only on rules about such requests), and None, the na reason
// when the check judged no frame ("" keeps the scenario's verdict).
type Entry struct {
	Rule        string
	Intentional bool
	None        string
	New         func(Deps) Check
}

// Config is what a Judge needs: Schemas, when not nil, validates every frame against the
// schema of its revision (SCHEMA-001 and the schema errors attached to results); Rules keeps
// only the entries whose id starts with one of the prefixes (empty: all).
type Config struct {
	Schemas *schemas.Set
	Rules   []string
}

// Judge is the state of one run's judgement: per revision, the checks of the table and what
// the judge keeps to link frames (the client frames by seq, the latest client frame per
// connection and id). Create one per run with New; it is safe for concurrent use.
type Judge struct {
	mu       sync.Mutex
	cfg      Config
	revs     map[string]*revState
	faults   map[int]string
	errs     map[int][]SchemaError
	notes    []string
	finished bool
}

type revState struct {
	rev      string
	checks   []running
	clients  map[int]*Frame
	batches  map[int]bool // the client frames that are batches (feedBatch), by seq
	lastByID map[int]map[string]*Frame
	outcomes map[string]Outcome
}

type running struct {
	entry Entry
	check Check
}

// New returns a judge with no frames fed yet.
func New(cfg Config) *Judge {
	return &Judge{cfg: cfg, revs: map[string]*revState{}, faults: map[int]string{}, errs: map[int][]SchemaError{}}
}

func selected(id string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if len(id) >= len(p) && id[:len(p)] == p {
			return true
		}
	}
	return false
}

func (j *Judge) revision(rev string) *revState {
	rs, ok := j.revs[rev]
	if !ok {
		rs = &revState{rev: rev, clients: map[int]*Frame{}, batches: map[int]bool{}, lastByID: map[int]map[string]*Frame{}}
		for _, e := range table {
			if selected(e.Rule, j.cfg.Rules) {
				rs.checks = append(rs.checks, running{entry: e, check: e.New(Deps{Revision: rev})})
			}
		}
		j.revs[rev] = rs
	}
	return rs
}

// Feed gives f, a frame of a connection speaking revision rev, to every check of that
// revision. Frames must be fed in seq order; a frame is parsed and validated here, once.
// Feeding after Finish is ignored.
func (j *Judge) Feed(rev string, hf *harness.Frame) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.finished || rev == "" {
		return
	}
	rs := j.revision(rev)
	if members := batchOf(rev, hf); members != nil {
		j.feedBatch(rs, rev, hf, members)
		return
	}
	f := &Frame{Frame: hf}
	msg, members, err := harness.ParseMessageMembers(hf.Body())
	f.Msg, f.Members, f.NotJSON = msg, members, err != nil
	rs.link(f)
	j.validateFrame(rev, f, "")
	rs.observe(f)
}

// validateFrame validates f against the schema of rev (when the judge has schemas), adding the
// violations to those f already carries, with prefix before their instance paths (a batch
// member's position, "/1"), and files them: a server frame's as its schema errors, a client
// frame's as a suite fault unless it was invalid on purpose. j.mu must be held.
func (j *Judge) validateFrame(rev string, f *Frame, prefix string) {
	if j.cfg.Schemas == nil {
		return
	}
	errs, err := validate(j.cfg.Schemas, rev, f)
	for i := range errs {
		errs[i].InstancePath = prefix + errs[i].InstancePath
	}
	f.Schema, f.SchemaErr = append(f.Schema, errs...), err
	switch {
	case f.SchemaErr != nil:
		j.notes = append(j.notes, fmt.Sprintf("frame %d not validated: %v", f.Seq, f.SchemaErr))
	case len(f.Schema) == 0:
	case f.FromServer():
		j.errs[f.Seq] = append(j.errs[f.Seq], f.Schema...)
	case !f.Intentional:
		if _, dup := j.faults[f.Seq]; !dup {
			j.faults[f.Seq] = fmt.Sprintf("mcp-conform sent a frame that violates the %s schema (frame %d, %s: %s)", rev, f.Seq, f.Schema[0].InstancePath, f.Schema[0].Message)
		}
	}
}

// observe hands f to every check of rs that sees it. j.mu must be held.
func (rs *revState) observe(f *Frame) {
	for _, r := range rs.checks {
		if f.Excused && !r.entry.Intentional {
			continue
		}
		r.check.Observe(f)
	}
}

// link sets f.Request and f.Excused and remembers client frames for the replies to come.
func (rs *revState) link(f *Frame) {
	if !f.FromServer() {
		f.Excused = f.Intentional
		rs.clients[f.Seq] = f
		if id, ok := f.Members["id"]; ok {
			if rs.lastByID[f.Conn] == nil {
				rs.lastByID[f.Conn] = map[string]*Frame{}
			}
			rs.lastByID[f.Conn][harness.IDKey(id)] = f
		}
		return
	}
	switch {
	case f.ReplyTo != 0 && !rs.batches[f.ReplyTo]:
		f.Request = rs.clients[f.ReplyTo]
	case f.Members != nil:
		if id, ok := f.Members["id"]; ok && isResponseObject(f.Members) {
			if key := harness.IDKey(id); key != "null" {
				f.Request = rs.lastByID[f.Conn][key]
			}
		}
	}
	if f.Request == nil && f.ReplyTo != 0 {
		// A reply to a batch POST that names no request of it (batches: judge/batch.go).
		f.Request = rs.clients[f.ReplyTo]
	}
	f.Excused = f.Request != nil && f.Request.Intentional
}

// Finish ends the feeding and computes every check's Outcome. It is idempotent.
func (j *Judge) Finish() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.finished {
		return
	}
	j.finished = true
	for _, rs := range j.revs {
		rs.outcomes = map[string]Outcome{}
		for _, r := range rs.checks {
			o := r.check.Finish()
			if o.Judged == 0 && o.Mismatch == nil {
				// No pass without evidence: a check that judged no frame is na.
				o.NA = r.entry.None
				if o.NA == "" {
					o.NA = noSubject
				}
			}
			if o.Mismatch != nil {
				o.Mismatch.Frames = sortedUnique(o.Mismatch.Frames)
			}
			rs.outcomes[r.entry.Rule] = o
		}
	}
}

// Outcome returns the outcome of rule at revision rev after Finish; ok is false when the rule
// is not in the table (or not selected) or no frame of rev was fed.
func (j *Judge) Outcome(rev, rule string) (Outcome, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	rs, ok := j.revs[rev]
	if !ok || rs.outcomes == nil {
		return Outcome{}, false
	}
	o, ok := rs.outcomes[rule]
	return o, ok
}

// Reclaim returns SCHEMA-001's outcome at revision rev over the violations that no broken
// rule claims: broken reports whether a rule's own verdict at rev is fail or warn (see Claim).
// ok is false before Finish, or when SCHEMA-001 is not selected or no frame of rev was fed.
func (j *Judge) Reclaim(rev string, broken func(rule string) bool) (Outcome, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	rs, ok := j.revs[rev]
	if !ok || rs.outcomes == nil {
		return Outcome{}, false
	}
	for _, r := range rs.checks {
		if c, ok := r.check.(*schemaConformance); ok {
			o := c.reclaimed(broken)
			if o.Mismatch != nil {
				o.Mismatch.Frames = sortedUnique(o.Mismatch.Frames)
			}
			return o, true
		}
	}
	return Outcome{}, false
}

// Judged returns how many frames the check of rule at revision rev has judged so far (before
// or after Finish); 0 when the rule is not selected or no frame of rev was fed.
func (j *Judge) Judged(rev, rule string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	rs, ok := j.revs[rev]
	if !ok {
		return 0
	}
	if rs.outcomes != nil {
		return rs.outcomes[rule].Judged
	}
	for _, r := range rs.checks {
		if r.entry.Rule == rule {
			return r.check.Finish().Judged
		}
	}
	return 0
}

// SchemaErrors returns the schema violations of server frame seq (nil when none).
func (j *Judge) SchemaErrors(seq int) []SchemaError {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.errs[seq]
}

// SuiteFault returns why client frame seq is a bug of the suite (it violates the schema and
// was not made invalid on purpose); ok is false when it is not.
func (j *Judge) SuiteFault(seq int) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	why, ok := j.faults[seq]
	return why, ok
}

// Notes returns the frames the judge could not validate, one line each, in feed order.
func (j *Judge) Notes() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.notes...)
}

// Rules returns the ids of the table's rules, sorted.
func Rules() []string {
	out := make([]string, 0, len(table))
	for _, e := range table {
		out = append(out, e.Rule)
	}
	sort.Strings(out)
	return out
}

// Has reports whether rule is judged by the table.
func Has(rule string) bool {
	_, ok := entry(rule)
	return ok
}

// None returns the na reason of rule when the run gives it nothing to judge ("" when the rule
// keeps its scenario's verdict then, or is not in the table).
func None(rule string) string {
	e, _ := entry(rule)
	return e.None
}

func entry(rule string) (Entry, bool) {
	for _, e := range table {
		if e.Rule == rule {
			return e, true
		}
	}
	return Entry{}, false
}

func sortedUnique(a []int) []int {
	seen := map[int]bool{}
	out := []int{}
	for _, x := range a {
		if x != 0 && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}

// ---------------------------------------------------------------------------------------------
// Generic checks.

// perFrame is a check that judges each frame on its own: judge says whether f is a subject of
// the rule and, when f breaks it, the mismatch; the first mismatch is kept.
type perFrame struct {
	judge func(f *Frame) (bool, *Mismatch)
	n     int
	m     *Mismatch
}

func (c *perFrame) Observe(f *Frame) {
	subject, m := c.judge(f)
	if subject {
		c.n++
	}
	// The first mismatch is kept, unless a softer one (a Grade below the rule's level) came
	// first: then the first one at the rule's level replaces it, so a warning never hides a
	// failure.
	if m != nil && (c.m == nil || c.m.Grade != "" && m.Grade == "") {
		c.m = m
	}
}

func (c *perFrame) Finish() Outcome { return Outcome{Judged: c.n, Mismatch: c.m} }

// each makes a constructor of a perFrame check.
func each(judge func(f *Frame) (bool, *Mismatch)) func(Deps) Check {
	return func(Deps) Check { return &perFrame{judge: judge} }
}

// first makes a constructor of a perFrame check whose mismatch cites the offending frame
// alone: judge returns whether f is a subject and what is wrong with it ("" when nothing).
func first(expected string, judge func(f *Frame) (bool, string)) func(Deps) Check {
	return each(func(f *Frame) (bool, *Mismatch) {
		subject, actual := judge(f)
		if actual == "" {
			return subject, nil
		}
		return true, &Mismatch{Expected: expected, Actual: fmt.Sprintf("frame %d: %s", f.Seq, actual), Frames: []int{f.Seq}}
	})
}

// ---------------------------------------------------------------------------------------------
// Shared helpers.

// isResponseObject reports whether members form a response: no method, a result or an error.
func isResponseObject(m map[string]json.RawMessage) bool {
	_, method := m["method"]
	_, res := m["result"]
	_, er := m["error"]
	return !method && (res || er)
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

func stringOf(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func short(b []byte) string {
	s := string(bytes.TrimSpace(b))
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return short(b)
}

func decodeAny(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// requestMeta returns params._meta of a request as raw members (empty when absent).
func requestMeta(params json.RawMessage) map[string]json.RawMessage {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	if p.Meta == nil {
		return map[string]json.RawMessage{}
	}
	return p.Meta
}

func methodName(m string) string {
	if m == "" {
		return "an unknown request"
	}
	return m
}
