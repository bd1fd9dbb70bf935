package reports

import (
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// ToolURI is mcp-conform's home page, written as the SARIF driver's informationUri.
const ToolURI = "https://github.com/mcp-conform/mcp-conform"

// SARIF uriBaseIds of WriteSARIF (run.originalUriBaseIds).
const (
	// SARIFSuiteBase resolves the feature files of this suite, to ToolURI/blob/<commit>/ (or
	// .../blob/main/ when the build knows no commit).
	SARIFSuiteBase = "MCPCONFORM"
	// SARIFSourceBase resolves the baseline file, to the file: URI of SARIFOptions.SourceRoot.
	SARIFSourceBase = "SRCROOT"
)

// SARIFCatalog is the location WriteSARIF gives a result whose rule SARIFOptions.Feature does
// not know (a results.json from another build): the rule catalogue of the suite.
const SARIFCatalog = "features/catalog.tsv"

// SARIFFingerprint is the partialFingerprints key of every SARIF result: its value names the
// result ("<rule>/<revision>/<transport>", or "stale/<entry>") and stays the same across runs,
// so code scanning tracks one alert per rule and target however the files move.
const SARIFFingerprint = "mcpConformResult/v1"

// SARIFOptions says how WriteSARIF places and grades the results.
type SARIFOptions struct {
	// Strict grades a warn (a SHOULD broken) as a SARIF error, as --strict fails the run on it.
	Strict bool
	// Feature returns the feature file that holds a rule's scenario, slash-separated and
	// relative to the suite's repository ("features/server-tools.feature"), and the scenario's
	// line (0 when unknown); "" when the rule is unknown. Nil: every result is located at
	// SARIFCatalog.
	Feature func(rule string) (file string, line int)
	// BaselineFile, when set, is the --baseline file as a slash-separated path relative to
	// SourceRoot: every result is then located in it (at the line of the entry that covers it,
	// else line 1), with the feature file as a related location, so code scanning shows the
	// alerts on a file of the repository under test.
	BaselineFile string
	// SourceRoot is the absolute directory BaselineFile is relative to (the repository root
	// on GitHub Actions), written as the SARIFSourceBase uriBaseId; "" writes none.
	SourceRoot string
	// Baseline is the parsed baseline (for the lines and reasons of its entries); may be nil.
	Baseline *Baseline
}

// WriteSARIF writes r as a SARIF 2.1.0 log (one run) to w, for GitHub code scanning and other
// SARIF viewers. It calls r.Finalize first. The mapping:
//
//   - tool.driver: mcp-conform with its version and ToolURI, and one reportingDescriptor per
//     rule that has a result in r (id, title as shortDescription, spec link as helpUri, RFC 2119
//     level as a tag, defaultConfiguration.level from the level: MUST error, SHOULD warning
//     (error with Strict), MAY and PROBE note);
//   - a result per fail (level error), warn (warning, error with Strict) and info (note),
//     message the one-line reason and "[revision transport]"; a result per xfail too, graded
//     as the verdict the baseline covered, with an external, accepted suppression whose
//     justification is the entry's reason; and a result (error) per stale baseline entry;
//   - pass and na give no result (code scanning shows every result as an alert; a rule that
//     passes now closes its alert), but their counts are in run.properties.summary;
//     untestable gives a toolConfigurationNotification (note) naming what the run lacks;
//     error (mcp-conform could not carry out the check) a toolExecutionNotification (error),
//     and so does an aborted run; run.invocations[0].executionSuccessful is false for both;
//   - every result has one location: the baseline file when opts.BaselineFile is set, else
//     the feature file of its rule (opts.Feature) under SARIFSuiteBase, and the
//     SARIFFingerprint partial fingerprint.
//
// Text from the server is flattened to one line. The same Run and options give the same bytes.
func WriteSARIF(w io.Writer, r *Run, opts SARIFOptions) error {
	r.Finalize()
	s := sarifWriter{r: r, opts: opts, run: sarif.NewRunWithInformationURI("mcp-conform", ToolURI)}
	s.run.WithColumnKind("unicodeCodePoints")
	s.driver()
	for _, res := range r.Results {
		s.result(res)
	}
	for _, e := range r.StaleBaseline {
		s.stale(e)
	}
	s.invocation()
	s.properties()
	report := sarif.NewReport()
	report.AddRun(s.run)
	if err := report.PrettyWrite(w); err != nil {
		return fmt.Errorf("sarif: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

type sarifWriter struct {
	r    *Run
	opts SARIFOptions
	run  *sarif.Run
	// exec and config are the invocation's tool execution and configuration notifications.
	exec, config []*sarif.Notification
}

// commitLike matches a git commit id, the only tool commit that names a tree on ToolURI.
var commitLike = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

func (s *sarifWriter) driver() {
	d := s.run.Tool.Driver
	d.WithVersion(orText(s.r.Tool.Version, "unknown"))
	ref := "main"
	if commitLike.MatchString(s.r.Tool.Commit) {
		ref = s.r.Tool.Commit
	}
	// (Run.AddOriginalUriBaseId and Result.AddPartialFingerprint of go-sarif v3.3.1 write to a
	// nil map: the maps are built here and set whole.)
	bases := map[string]sarif.ArtifactLocation{SARIFSuiteBase: *sarif.NewArtifactLocation().WithURI(ToolURI + "/blob/" + ref + "/")}
	if s.opts.BaselineFile != "" && s.opts.SourceRoot != "" {
		dir := strings.TrimSuffix(toSlash(s.opts.SourceRoot), "/") + "/"
		if !strings.HasPrefix(dir, "/") { // C:/src/ -> file:///C:/src/
			dir = "/" + dir
		}
		root := (&url.URL{Scheme: "file", Path: dir}).String()
		bases[SARIFSourceBase] = *sarif.NewArtifactLocation().WithURI(root)
	}
	s.run.WithOriginalUriBaseIds(bases)
	for _, res := range s.r.Results {
		s.rule(res.Rule, res)
	}
}

// rule returns the index of id's reportingDescriptor, adding it (from res) when it is new.
func (s *sarifWriter) rule(id string, res Result) int {
	if i := s.run.GetRuleIndex(id); i >= 0 {
		return i
	}
	d := s.run.AddRule(id)
	title := flatten(res.Title)
	if title == "" {
		title = id
	}
	d.WithName(ruleName(id)).WithDescription(title).
		WithFullDescription(sarif.NewMultiformatMessageString().WithText(fullDescription(res)))
	if res.Spec.URL != "" {
		d.WithHelpURI(res.Spec.URL)
		d.WithHelp(sarif.NewMultiformatMessageString().WithText("Specification: " + res.Spec.URL).
			WithMarkdown("[" + mdLinkText(res.Spec.Section, res.Spec.URL) + "](" + res.Spec.URL + ")"))
	}
	d.WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(s.levelOf(res.Level)))
	props := sarif.NewPropertyBag().Add("level", res.Level)
	if res.Level != "" {
		props.AddTag(res.Level)
	}
	if res.Feature != "" {
		props.Add("feature", res.Feature)
	}
	d.WithProperties(props)
	return s.run.GetRuleIndex(id)
}

// ruleName is a rule's SARIF name: its id without punctuation ("TOOL-001" -> "Tool001").
func ruleName(id string) string {
	var b strings.Builder
	upper := true
	for _, c := range id {
		switch {
		case c >= 'A' && c <= 'Z':
			if !upper {
				c += 'a' - 'A'
			}
			b.WriteRune(c)
			upper = false
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			upper = true
		}
	}
	return b.String()
}

func fullDescription(res Result) string {
	s := flatten(res.Title)
	if res.Level != "" {
		s = res.Level + ": " + s
	}
	if res.Spec.Section != "" {
		s += " (spec: " + flatten(res.Spec.Section) + ")"
	}
	return s
}

// mdLinkText escapes the text of a markdown link.
func mdLinkText(text, fallback string) string {
	if text == "" {
		text = fallback
	}
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(flatten(text))
}

// levelOf grades an RFC 2119 level: MUST and MUST NOT error, SHOULD and SHOULD NOT warning
// (error with Strict), anything else (MAY, PROBE) note.
func (s *sarifWriter) levelOf(level string) string {
	switch strings.ToUpper(level) {
	case "MUST", "MUST NOT":
		return sarif.LevelError
	case "SHOULD", "SHOULD NOT":
		if s.opts.Strict {
			return sarif.LevelError
		}
		return sarif.LevelWarning
	}
	return sarif.LevelNote
}

// verdictLevel grades a verdict as a SARIF result level ("" when it gives no result).
func (s *sarifWriter) verdictLevel(v Verdict) string {
	switch v {
	case Fail:
		return sarif.LevelError
	case Warn:
		if s.opts.Strict {
			return sarif.LevelError
		}
		return sarif.LevelWarning
	case Info:
		return sarif.LevelNote
	}
	return ""
}

func (s *sarifWriter) result(res Result) {
	idx := s.rule(res.Rule, res)
	target := "[" + flatten(res.Revision) + " " + flatten(res.Transport) + "]"
	reason := flatten(res.Reason)
	switch res.Verdict {
	case Untestable:
		s.notification(&s.config, sarif.LevelNote, res.Rule, idx, res.Rule+" "+target+" untestable: "+orText(reason, "no reason recorded"))
		return
	case Error:
		s.notification(&s.exec, sarif.LevelError, res.Rule, idx, res.Rule+" "+target+" could not be checked: "+orText(reason, "no reason recorded"))
		return
	case NotRun:
		s.notification(&s.exec, sarif.LevelNote, res.Rule, idx, res.Rule+" "+target+" not run: "+orText(reason, "no reason recorded"))
		return
	}
	level := s.verdictLevel(res.Verdict)
	var entry *BaselineEntry
	if res.Verdict == XFail {
		level = s.verdictLevel(res.BaselineVerdict)
		if level == "" {
			level = s.levelOf(res.Level)
		}
		entry = s.entryFor(res)
		if orig, ok := xfailOriginal(res.Reason); ok {
			reason = orig
		}
	}
	if level == "" {
		return // pass, na
	}
	out := s.run.CreateResultForRule(res.Rule).WithRuleIndex(idx).WithLevel(level).
		WithMessage(sarif.NewTextMessage(orText(reason, flatten(res.Title)) + " " + target)).
		WithPartialFingerprints(map[string]string{SARIFFingerprint: res.Rule + "/" + res.Revision + "/" + res.Transport})
	line := 0
	if res.Verdict == XFail {
		just := xfailJustification(res.Reason)
		if entry != nil {
			line, just = entry.Line, flatten(entry.Reason)
		}
		out.AddSuppression(sarif.NewSuppression().WithKind("external").WithStatus("accepted").
			WithJustification(orText(just, "listed in the baseline")))
	}
	s.locate(out, res.Rule, line)
	props := sarif.NewPropertyBag().
		Add("verdict", string(res.Verdict)).Add("revision", res.Revision).Add("transport", res.Transport)
	for k, v := range map[string]string{"expected": res.Expected, "actual": res.Actual, "specSection": res.Spec.Section, "baselineVerdict": string(res.BaselineVerdict)} {
		if v != "" {
			props.Add(k, flatten(v))
		}
	}
	out.WithProperties(props)
}

// stale adds the result of a stale baseline entry: it fails the run until it is removed.
func (s *sarifWriter) stale(e BaselineEntry) {
	idx := s.rule(e.Rule, Result{Rule: e.Rule, Title: e.Rule})
	msg := fmt.Sprintf("Stale baseline entry %s: the rule passes now; remove the entry from the baseline (its reason: %s)", flatten(e.String()), orText(flatten(e.Reason), "none"))
	out := s.run.CreateResultForRule(e.Rule).WithRuleIndex(idx).WithLevel(sarif.LevelError).
		WithMessage(sarif.NewTextMessage(msg)).
		WithPartialFingerprints(map[string]string{SARIFFingerprint: "stale/" + e.String()})
	s.locate(out, e.Rule, e.Line)
	out.WithProperties(sarif.NewPropertyBag().Add("verdict", "stale-baseline"))
}

// entryFor returns the baseline entry that covers res (nil when there is no baseline).
func (s *sarifWriter) entryFor(res Result) *BaselineEntry {
	if s.opts.Baseline == nil {
		return nil
	}
	for i, e := range s.opts.Baseline.Entries {
		if e.Covers(res) {
			return &s.opts.Baseline.Entries[i]
		}
	}
	return nil
}

// xfailOriginal takes the suite's own reason back out of an xfail's Reason.
func xfailOriginal(reason string) (string, bool) {
	rest, ok := strings.CutPrefix(reason, xfailPrefix)
	if !ok {
		return "", false
	}
	_, orig, ok := strings.Cut(rest, xfailSep)
	return flatten(orig), ok
}

// xfailJustification takes the baseline entry's reason out of an xfail's Reason ("" when the
// Reason is not in that form).
func xfailJustification(reason string) string {
	rest, ok := strings.CutPrefix(reason, xfailPrefix)
	if !ok {
		return ""
	}
	just, _, _ := strings.Cut(rest, xfailSep)
	return flatten(just)
}

// locate gives out its location: the baseline file at line (1 when 0) when one is set, with
// the rule's feature file as a related location; otherwise the feature file.
func (s *sarifWriter) locate(out *sarif.Result, rule string, line int) {
	file, fline := "", 0
	if s.opts.Feature != nil {
		file, fline = s.opts.Feature(rule)
	}
	if file == "" {
		file, fline = SARIFCatalog, 0
	}
	feature := sarifLocation(file, SARIFSuiteBase, fline)
	if s.opts.BaselineFile == "" {
		out.AddLocation(feature)
		return
	}
	base := ""
	if s.opts.SourceRoot != "" {
		base = SARIFSourceBase
	}
	out.AddLocation(sarifLocation(s.opts.BaselineFile, base, max(line, 1)))
	feature.ID = 1
	feature.WithMessage(sarif.NewTextMessage("the scenario of " + rule))
	out.AddRelatedLocation(feature)
}

// sarifLocation is a physical location in file (a slash-separated relative path, written as
// a URI reference) under uriBaseID ("" for none), at line when it is positive.
func sarifLocation(file, uriBaseID string, line int) *sarif.Location {
	al := sarif.NewArtifactLocation().WithURI((&url.URL{Path: path.Clean(toSlash(file))}).String())
	if uriBaseID != "" {
		al.WithURIBaseID(uriBaseID)
	}
	pl := sarif.NewPhysicalLocation().WithArtifactLocation(al)
	if line > 0 {
		pl.WithRegion(sarif.NewRegion().WithStartLine(line))
	}
	return sarif.NewLocationWithPhysicalLocation(pl)
}

func toSlash(p string) string { return strings.ReplaceAll(p, `\`, "/") }

// The notifications gathered for the invocation.
func (s *sarifWriter) notification(list *[]*sarif.Notification, level, rule string, idx int, text string) {
	n := sarif.NewNotification().WithLevel(level).WithMessage(sarif.NewTextMessage(text))
	if rule != "" {
		n.WithAssociatedRule(sarif.NewReportingDescriptorReference().WithID(rule).WithIndex(idx))
	}
	*list = append(*list, n)
}

func (s *sarifWriter) invocation() {
	inv := sarif.NewInvocation()
	ok := s.r.Aborted == "" && s.r.Summary.Error == 0 && s.r.Summary.NotRun == 0
	if s.r.Aborted != "" {
		s.notification(&s.exec, sarif.LevelError, "", -1, "The run was not carried out in full: "+orText(flatten(s.r.Aborted), "no reason recorded"))
	}
	for _, n := range s.r.Notes {
		s.notification(&s.exec, sarif.LevelNote, "", -1, orText(flatten(n), "(empty note)"))
	}
	inv.WithExecutionSuccessful(ok)
	if !s.r.StartedAt.IsZero() {
		inv.WithStartTimeUtc(sarifTime(s.r.StartedAt))
		inv.WithEndTimeUtc(sarifTime(s.r.StartedAt.Add(time.Duration(max(s.r.DurationMs, 0)) * time.Millisecond)))
	}
	if s.exec != nil {
		inv.WithToolExecutionNotifications(s.exec)
	}
	if s.config != nil {
		inv.WithToolConfigurationNotifications(s.config)
	}
	s.run.AddInvocation(inv)
}

func sarifTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// properties records the run's context: target, server, revisions, transports and the counts
// by verdict (pass and na included, which have no result).
func (s *sarifWriter) properties() {
	t := s.r.Target
	target := map[string]any{"transport": t.Transport}
	if len(t.Command) > 0 {
		target["command"] = t.Command
	}
	if t.URL != "" {
		target["url"] = t.URL
	}
	props := sarif.NewPropertyBag().Add("target", target).
		Add("revisions", s.r.Revisions).Add("transports", s.r.Transports).Add("summary", s.r.Summary)
	if s.r.Server != nil {
		props.Add("server", s.r.Server)
	}
	if s.r.Tool.Commit != "" {
		props.Add("toolCommit", s.r.Tool.Commit)
	}
	s.run.WithProperties(props)
}

func orText(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
