package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/internal/testutil"
	"github.com/mcp-conform/mcp-conform/reports"
)

// sarifLog is the part of a SARIF log these tests read.
type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID      string `json:"id"`
					HelpURI string `json:"helpUri"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Level     string `json:"level"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, path string) sarifLog {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var log sarifLog
	require.NoError(t, json.Unmarshal(data, &log))
	require.Len(t, log.Runs, 1)
	return log
}

// levelsOf maps each rule with a SARIF result to the levels of its results.
func levelsOf(log sarifLog) map[string][]string {
	out := map[string][]string{}
	for _, r := range log.Runs[0].Results {
		out[r.RuleID] = append(out[r.RuleID], r.Level)
	}
	return out
}

// junitFailures reads the failures total of a junit.xml.
func junitFailures(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Failures int `xml:"failures,attr"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	return doc.Failures
}

// TestStrictWarnFailsJUnitAndSARIF: a broken SHOULD rule under --strict exits 1, and junit.xml
// and results.sarif say so (junit.xml showed failures="0"); without --strict it is a passing
// testcase and a SARIF warning. `report --strict` re-renders the same.
func TestStrictWarnFailsJUnitAndSARIF(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	for strict, want := range map[bool]struct {
		code, failures int
		level          string
	}{false: {reports.ExitOK, 0, "warning"}, true: {reports.ExitFail, 1, "error"}} {
		out := t.TempDir()
		args := []string{"run", "--quiet-window", "300ms", "--rule", "LFEAT-005", "--out", out}
		if strict {
			args = append(args, "--strict")
		}
		code, _, stderr := mainOut(append(args, "--", self, referenceServerCmd, "-break", "LFEAT-005")...)
		require.Equal(t, want.code, code, stderr)
		require.Equal(t, want.failures, junitFailures(t, filepath.Join(out, "junit.xml")), "strict=%v", strict)
		require.Equal(t, []string{want.level}, levelsOf(readSARIF(t, filepath.Join(out, "results.sarif")))["LFEAT-005"], "strict=%v", strict)

		junit, sarif := filepath.Join(out, "again.xml"), filepath.Join(out, "again.sarif")
		rargs := []string{"report", filepath.Join(out, "results.json"), "--junit", junit, "--sarif", sarif}
		if strict {
			rargs = append(rargs, "--strict")
		}
		code, _, stderr = mainOut(rargs...)
		require.Equal(t, want.code, code, stderr)
		require.Equal(t, want.failures, junitFailures(t, junit), "report strict=%v", strict)
		require.Equal(t, []string{want.level}, levelsOf(readSARIF(t, sarif))["LFEAT-005"], "report strict=%v", strict)
	}
}

// TestSARIFFromBreakRunValidates: --sarif FILE and DIR/results.sarif of a -break run are the
// same log; it has the broken rule as an error located at its scenario and passes Microsoft's
// SARIF multitool without an error. badge.svg is written beside it.
func TestSARIFFromBreakRunValidates(t *testing.T) {
	t.Parallel() // a whole run or a build: it overlaps the other long tests
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	out := t.TempDir()
	file := filepath.Join(t.TempDir(), "sub", "conform.sarif")
	code, _, stderr := mainOut("run", "--quiet-window", "300ms", "--rule", "TOOL-", "--rule", "META-", "--out", out, "--sarif", file,
		"--", self, referenceServerCmd, "-break", "TOOL-001")
	require.Equal(t, reports.ExitFail, code, stderr)
	a, err := os.ReadFile(file)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(out, "results.sarif"))
	require.NoError(t, err)
	require.Equal(t, string(b), string(a))

	log := readSARIF(t, file)
	require.Equal(t, []string{"error", "error"}, levelsOf(log)["TOOL-001"], "one error per revision")
	rules, err := catalog.Catalog()
	require.NoError(t, err)
	var tool catalog.Rule
	for _, r := range rules {
		if r.ID == "TOOL-001" {
			tool = r
		}
	}
	for _, r := range log.Runs[0].Results {
		if r.RuleID == "TOOL-001" {
			require.Equal(t, "features/"+tool.File, r.Locations[0].PhysicalLocation.ArtifactLocation.URI)
			require.Equal(t, tool.Line, r.Locations[0].PhysicalLocation.Region.StartLine)
			// The scenario starts there: the line after its tags is "Scenario: <title>".
			src, err := os.ReadFile(filepath.Join("..", "..", "features", tool.File))
			require.NoError(t, err)
			line := strings.Split(string(src), "\n")[tool.Line-1]
			require.Contains(t, line, tool.Title)
		}
	}
	for _, d := range log.Runs[0].Tool.Driver.Rules {
		require.True(t, strings.HasPrefix(d.HelpURI, "https://modelcontextprotocol.io/specification/"), d.ID)
	}
	for _, f := range testutil.ValidateSARIF(t, file) {
		require.NotEqual(t, "error", f.Level, "%s %s", f.Rule, f.Message)
	}
	badge, err := os.ReadFile(filepath.Join(out, "badge.svg"))
	require.NoError(t, err)
	require.NoError(t, xml.Unmarshal(badge, new(struct{})))
	require.Regexp(t, regexp.MustCompile(`MCP MUST: [0-9.]+% · 2026-07-28, 2025-11-25`), string(badge))
}

// TestSARIFUnwritableIsUsageError: an --sarif that cannot be written stops before the run.
func TestSARIFUnwritableIsUsageError(t *testing.T) {
	for _, path := range []string{"/proc/nope/x.sarif", t.TempDir()} {
		code, stdout, stderr := mainOut("run", "--sarif", path, "--", "/nonexistent/server")
		require.Equal(t, reports.ExitUsage, code, stderr)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "--sarif")
	}
}

// TestGitHubActionsAnnotationsAndSummary: with GITHUB_ACTIONS=true the failing rule is an
// ::error annotation on stderr (stdout stays one JSON document) and the markdown summary is
// appended to $GITHUB_STEP_SUMMARY; without it, neither.
func TestGitHubActionsAnnotationsAndSummary(t *testing.T) {
	schemasEnv(t)
	self, err := os.Executable()
	require.NoError(t, err)
	summary := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("earlier step\n"), 0o644))
	args := []string{"run", "--format", "json", "--quiet-window", "300ms", "--rule", "META-001", "--", self, referenceServerCmd, "-break", "META-001"}

	t.Setenv(envStepSummary, summary)
	t.Setenv(envGitHubActions, "")
	code, stdout, stderr := mainOut(args...)
	require.Equal(t, reports.ExitFail, code, stderr)
	require.NotContains(t, stderr, "::error")
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	require.Equal(t, "earlier step\n", string(md), "no summary outside GitHub Actions")

	t.Setenv(envGitHubActions, "true")
	code, stdout, stderr = mainOut(args...)
	require.Equal(t, reports.ExitFail, code, stderr)
	require.NotContains(t, stdout, "::")
	require.NoError(t, json.Unmarshal([]byte(stdout), new(reports.Run)), "stdout is still one JSON document")
	require.Regexp(t, regexp.MustCompile(`(?m)^::error title=META-001 MUST%3A [^\n]*::[^\n]+ \[2026-07-28 stdio\] Spec: https://modelcontextprotocol.io/\S+$`), stderr)
	md, err = os.ReadFile(summary)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(md), "earlier step\n### mcp-conform: exit 1\n"), string(md))
	require.Contains(t, string(md), "| META-001 | 2026-07-28 | stdio | fail |")
}

// TestSARIFBaselinePathFromWorkspace: the baseline's location is repository-relative on GitHub
// Actions (GITHUB_WORKSPACE), else relative to the working directory, else its own folder.
func TestSARIFBaselinePathFromWorkspace(t *testing.T) {
	ws := t.TempDir()
	t.Setenv(envWorkspace, ws)
	root, rel := sourcePath(filepath.Join(ws, "ci", "base.yml"))
	require.Equal(t, ws, root)
	require.Equal(t, "ci/base.yml", rel)

	t.Setenv(envWorkspace, "")
	cwd, err := os.Getwd()
	require.NoError(t, err)
	root, rel = sourcePath("testdata/x.yml")
	require.Equal(t, cwd, root)
	require.Equal(t, "testdata/x.yml", rel)

	outside := filepath.Join(t.TempDir(), "b.yml")
	root, rel = sourcePath(outside)
	require.Equal(t, filepath.Dir(outside), root)
	require.Equal(t, "b.yml", rel)
}
