package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/internal/testutil"
)

// sarifDoc is the part of a SARIF log the tests read, decoded independently of go-sarif.
type sarifDoc struct {
	Version string `json:"version"`
	Runs    []struct {
		OriginalURIBaseIDs map[string]struct {
			URI string `json:"uri"`
		} `json:"originalUriBaseIds"`
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID                   string `json:"id"`
					HelpURI              string `json:"helpUri"`
					DefaultConfiguration struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
					Properties struct {
						Level string `json:"level"`
					} `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool          `json:"executionSuccessful"`
			Exec                []sarifNotice `json:"toolExecutionNotifications"`
			Config              []sarifNotice `json:"toolConfigurationNotifications"`
		} `json:"invocations"`
		Results []sarifResult `json:"results"`
	} `json:"runs"`
}

type sarifNotice struct {
	Level   string `json:"level"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
	AssociatedRule *struct {
		ID    string `json:"id"`
		Index int    `json:"index"`
	} `json:"associatedRule"`
}

type sarifLoc struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

type sarifResult struct {
	RuleID    string `json:"ruleId"`
	RuleIndex int    `json:"ruleIndex"`
	Level     string `json:"level"`
	Kind      string `json:"kind"`
	Message   struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations           []sarifLoc        `json:"locations"`
	RelatedLocations    []sarifLoc        `json:"relatedLocations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []struct {
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Justification string `json:"justification"`
	} `json:"suppressions"`
	Properties map[string]any `json:"properties"`
}

// sarifOf writes r with opts and decodes it; it also checks the log against the SARIF 2.1.0
// JSON schema go-sarif carries.
func sarifOf(t *testing.T, r *Run, opts SARIFOptions) (sarifDoc, []byte) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WriteSARIF(&buf, r, opts))
	rep, err := sarif.FromBytes(buf.Bytes())
	require.NoError(t, err)
	require.NoError(t, rep.Validate(), "schema-invalid SARIF:\n%s", buf.String())
	var doc sarifDoc
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	require.Equal(t, "2.1.0", doc.Version)
	require.Len(t, doc.Runs, 1)
	return doc, buf.Bytes()
}

// testFeatures stands in for the catalogue: every rule lives in features/<area>.feature at
// line 10 but CAP-006, which this build does not know.
func testFeatures(rule string) (string, int) {
	if rule == "CAP-006" {
		return "", 0
	}
	area, _, _ := strings.Cut(rule, "-")
	return "features/" + strings.ToLower(area) + ".feature", 10
}

func resultsOf(doc sarifDoc, rule string) []sarifResult {
	var out []sarifResult
	for _, r := range doc.Runs[0].Results {
		if r.RuleID == rule {
			out = append(out, r)
		}
	}
	return out
}

// TestSARIFMapsEveryVerdict: each verdict of a realistic run lands where WriteSARIF says:
// fail/warn/info/xfail as results with their levels, pass and na nowhere, untestable and error
// as notifications; one descriptor per rule with its level and spec link; every result located
// in its feature file.
func TestSARIFMapsEveryVerdict(t *testing.T) {
	r := sampleRun()
	r.Finalize()
	doc, _ := sarifOf(t, r, SARIFOptions{Feature: testFeatures})
	run := doc.Runs[0]
	require.Equal(t, "mcp-conform", run.Tool.Driver.Name)
	require.Equal(t, "v0.3.0", run.Tool.Driver.Version)
	require.Equal(t, ToolURI+"/blob/0123456789abcdef0123456789abcdef01234567/", run.OriginalURIBaseIDs[SARIFSuiteBase].URI)

	rules := map[string]bool{}
	for _, res := range r.Results {
		rules[res.Rule] = true
	}
	require.Len(t, run.Tool.Driver.Rules, len(rules), "one reportingDescriptor per rule")
	wantDefault := map[string]string{"MUST": "error", "MUST NOT": "error", "SHOULD": "warning", "MAY": "note"}
	for _, d := range run.Tool.Driver.Rules {
		require.True(t, rules[d.ID], d.ID)
		require.Equal(t, wantDefault[d.Properties.Level], d.DefaultConfiguration.Level, d.ID)
		require.True(t, strings.HasPrefix(d.HelpURI, "https://modelcontextprotocol.io/specification/"), d.ID)
	}

	byRule := func(rule string) sarifResult {
		got := resultsOf(doc, rule)
		require.Len(t, got, 1, rule)
		return got[0]
	}
	require.Equal(t, "error", byRule("STDIO-002").Level)
	require.Equal(t, "error", byRule("SCHEMA-001").Level)
	require.Equal(t, "warning", byRule("MSG-9").Level)
	require.Equal(t, "note", byRule("MSG-10").Level)
	xf := byRule("MSG-014") // two passes and one xfail: only the xfail is a result
	require.Len(t, xf.Suppressions, 1)
	require.Equal(t, "external", xf.Suppressions[0].Kind)
	require.Equal(t, "accepted", xf.Suppressions[0].Status)
	require.Empty(t, resultsOf(doc, "HDR-003"), "na and error give no result")
	require.Empty(t, resultsOf(doc, "CAP-006"), "untestable gives no result")
	require.Len(t, run.Results, 5)

	stdio := byRule("STDIO-002")
	require.Contains(t, stdio.Message.Text, "line 3 of stdout is not JSON")
	require.True(t, strings.HasSuffix(stdio.Message.Text, "[2026-07-28 stdio]"), stdio.Message.Text)
	require.NotContains(t, stdio.Message.Text, "\x1b", "server text is flattened")
	require.Equal(t, "STDIO-002/2026-07-28/stdio", stdio.PartialFingerprints[SARIFFingerprint])
	for _, res := range run.Results {
		require.Len(t, res.Locations, 1, res.RuleID)
		loc := res.Locations[0].PhysicalLocation
		require.Equal(t, SARIFSuiteBase, loc.ArtifactLocation.URIBaseID)
		file, line := testFeatures(res.RuleID)
		require.Equal(t, file, loc.ArtifactLocation.URI, res.RuleID)
		require.Equal(t, line, loc.Region.StartLine)
		require.Equal(t, res.RuleID, run.Tool.Driver.Rules[res.RuleIndex].ID, "ruleIndex points at the rule")
		require.Equal(t, "fail", res.Kind)
	}

	require.Len(t, run.Invocations, 1)
	inv := run.Invocations[0]
	require.False(t, inv.ExecutionSuccessful, "a result is error: the run did not check everything")
	var execErrs []string
	for _, n := range inv.Exec {
		if n.Level == "error" {
			execErrs = append(execErrs, n.Message.Text)
			require.Equal(t, "HDR-003", n.AssociatedRule.ID)
			require.Equal(t, "HDR-003", run.Tool.Driver.Rules[n.AssociatedRule.Index].ID)
		}
	}
	require.Len(t, execErrs, 1)
	require.Contains(t, execErrs[0], "request timed out after 10s")
	require.Len(t, inv.Config, 1)
	require.Equal(t, "note", inv.Config[0].Level)
	require.Contains(t, inv.Config[0].Message.Text, "CAP-006 [2026-07-28 http] untestable: needs the fixture tool test_simple_text")
}

// TestSARIFStrict: --strict grades a warn, and the SHOULD rules' default level, as error.
func TestSARIFStrict(t *testing.T) {
	for strict, want := range map[bool]string{false: "warning", true: "error"} {
		doc, _ := sarifOf(t, sampleRun(), SARIFOptions{Strict: strict, Feature: testFeatures})
		res := resultsOf(doc, "MSG-9")
		require.Len(t, res, 1)
		require.Equal(t, want, res[0].Level, "strict=%v", strict)
		require.Equal(t, want, doc.Runs[0].Tool.Driver.Rules[res[0].RuleIndex].DefaultConfiguration.Level, "strict=%v", strict)
	}
}

// TestSARIFBaselineLocations: with a baseline, results sit in the baseline file (the covering
// entry's line, else line 1) with the feature file as related location, an xfail carries the
// entry's reason as justification and a stale entry is an error result at its line.
func TestSARIFBaselineLocations(t *testing.T) {
	r := sampleRun()
	for i := range r.Results {
		if r.Results[i].Verdict == XFail { // as a run would have it before the baseline
			r.Results[i].Verdict, r.Results[i].Reason = Fail, "expected id 1004, got \"1004\""
		}
	}
	r.Results = append(r.Results, Result{Rule: "META-001", Level: "MUST", Revision: "2026-07-28", Transport: "stdio", Verdict: Pass,
		Title: "_meta keys are well formed", Feature: "Base protocol (basic/index)", Spec: Spec{Section: "basic/index#_meta", URL: "https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta"}})
	b, err := ParseBaseline([]byte("expected-failures:\n  - rule: META-001\n    reason: fixed upstream\n  - rule: MSG-014\n    transport: http\n    reason: ids are strings, issue 42\n"))
	require.NoError(t, err)
	require.Len(t, b.Apply(r), 1)
	root := t.TempDir()
	doc, _ := sarifOf(t, r, SARIFOptions{Feature: testFeatures, BaselineFile: "ci/baseline.yml", SourceRoot: root, Baseline: b})
	run := doc.Runs[0]
	require.Equal(t, "file://"+filepath.ToSlash(root)+"/", run.OriginalURIBaseIDs[SARIFSourceBase].URI)
	for _, res := range run.Results {
		loc := res.Locations[0].PhysicalLocation
		require.Equal(t, "ci/baseline.yml", loc.ArtifactLocation.URI, res.RuleID)
		require.Equal(t, SARIFSourceBase, loc.ArtifactLocation.URIBaseID)
		require.Len(t, res.RelatedLocations, 1)
		file, _ := testFeatures(res.RuleID)
		require.Equal(t, file, res.RelatedLocations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	xf := resultsOf(doc, "MSG-014")
	require.Len(t, xf, 1)
	require.Equal(t, 4, xf[0].Locations[0].PhysicalLocation.Region.StartLine, "the entry's line")
	require.Equal(t, "ids are strings, issue 42", xf[0].Suppressions[0].Justification)
	require.Equal(t, "error", xf[0].Level, "graded as the fail it covers")
	require.True(t, strings.HasPrefix(xf[0].Message.Text, "expected id 1004"), "the suite's own reason: %s", xf[0].Message.Text)
	stale := resultsOf(doc, "META-001")
	require.Len(t, stale, 1)
	require.Equal(t, "error", stale[0].Level)
	require.Equal(t, 2, stale[0].Locations[0].PhysicalLocation.Region.StartLine)
	require.Contains(t, stale[0].Message.Text, "Stale baseline entry META-001")
	require.Equal(t, 1, resultsOf(doc, "STDIO-002")[0].Locations[0].PhysicalLocation.Region.StartLine, "not in the baseline: line 1")
}

// TestSARIFAbortedRun: a run not carried out in full is an error notification and not a
// successful execution, even with no result at all.
func TestSARIFAbortedRun(t *testing.T) {
	r := &Run{Tool: Tool{Name: "mcp-conform", Version: "(devel)", Commit: "unknown"}, Aborted: "server did not start: exec: \"nope\": not found"}
	doc, _ := sarifOf(t, r, SARIFOptions{})
	run := doc.Runs[0]
	require.NotNil(t, run.Results, "results is [] (GitHub requires it)")
	require.Empty(t, run.Results)
	require.Equal(t, ToolURI+"/blob/main/", run.OriginalURIBaseIDs[SARIFSuiteBase].URI)
	require.False(t, run.Invocations[0].ExecutionSuccessful)
	require.Len(t, run.Invocations[0].Exec, 1)
	require.Equal(t, "error", run.Invocations[0].Exec[0].Level)
	require.Contains(t, run.Invocations[0].Exec[0].Message.Text, "server did not start")
}

// TestSARIFValidatesWithMultitool: the SARIF of a realistic run (every verdict, a baseline,
// a stale entry) has no error under Microsoft's SARIF multitool.
func TestSARIFValidatesWithMultitool(t *testing.T) {
	r := sampleRun()
	b, err := ParseBaseline([]byte("expected-failures:\n  - rule: MSG-014\n    transport: http\n    reason: ids are strings\n  - rule: MSG-014\n    transport: stdio\n    reason: passes now\n"))
	require.NoError(t, err)
	require.Len(t, b.Apply(r), 1, "the stdio entry is stale")
	dir := t.TempDir()
	for name, opts := range map[string]SARIFOptions{
		"features": {Feature: testFeatures},
		"baseline": {Feature: testFeatures, Strict: true, BaselineFile: "baseline file.yml", SourceRoot: dir, Baseline: b},
	} {
		var buf bytes.Buffer
		require.NoError(t, WriteSARIF(&buf, r, opts))
		file := filepath.Join(dir, name+".sarif")
		require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
		for _, f := range testutil.ValidateSARIF(t, file) {
			require.NotEqual(t, "error", f.Level, "%s: %s %s", name, f.Rule, f.Message)
		}
	}
}

// TestSARIFMultitoolCatchesInvalid: the validation above can fail: a result without a message
// breaks the schema (JSON1002), and a URI with a space breaks SARIF1002 (the multitool runs its
// SARIF rules only on a log that is valid against the schema, hence two logs).
func TestSARIFMultitoolCatchesInvalid(t *testing.T) {
	const head = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x","version":"1","informationUri":"https://example.com/"}},"results":[`
	for rule, result := range map[string]string{
		"JSON1002":  `{"ruleId":"A-1","locations":[{"physicalLocation":{"artifactLocation":{"uri":"a.feature"}}}]}`,
		"SARIF1002": `{"ruleId":"A-1","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a b.feature"}}}]}`,
	} {
		file := filepath.Join(t.TempDir(), "broken.sarif")
		require.NoError(t, os.WriteFile(file, []byte(head+result+"]}]}"), 0o644))
		var errs []string
		for _, f := range testutil.ValidateSARIF(t, file) {
			if f.Level == "error" {
				errs = append(errs, f.Rule)
			}
		}
		require.Contains(t, errs, rule)
	}
}
