package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/reports"
)

// The environment of a GitHub Actions step (docs.github.com "Variables"): GITHUB_ACTIONS is
// "true" there, GITHUB_STEP_SUMMARY names the job summary file of the step and
// GITHUB_WORKSPACE the checkout the repository paths are relative to.
const (
	envGitHubActions = "GITHUB_ACTIONS"
	envStepSummary   = "GITHUB_STEP_SUMMARY"
	envWorkspace     = "GITHUB_WORKSPACE"
)

// writeJUnit renders junit.xml; with --strict a warn is a failure there too.
func (o runOptions) writeJUnit(w io.Writer, r *reports.Run) error {
	return reports.WriteJUnitOptions(w, r, reports.JUnitOptions{Strict: o.strict})
}

// writeSARIF renders the SARIF log: results located in their feature files, or in the
// --baseline file when one is given (relative to GITHUB_WORKSPACE on GitHub Actions, else to
// the working directory), graded with --strict.
func (o runOptions) writeSARIF(w io.Writer, r *reports.Run) error {
	opts := reports.SARIFOptions{Strict: o.strict, Baseline: o.loaded, Feature: featureFile}
	if o.baseline != "" {
		opts.SourceRoot, opts.BaselineFile = sourcePath(o.baseline)
	}
	return reports.WriteSARIF(w, r, opts)
}

var (
	catalogOnce  sync.Once
	catalogFiles map[string]catalog.Rule
)

// featureFile returns the feature file of rule's scenario relative to the repository
// ("features/server-tools.feature") and the scenario's line; "" for a rule this build does not
// know.
func featureFile(rule string) (string, int) {
	catalogOnce.Do(func() {
		catalogFiles = map[string]catalog.Rule{}
		rules, err := catalog.Catalog()
		if err != nil {
			return
		}
		for _, r := range rules {
			catalogFiles[r.ID] = r
		}
	})
	r, ok := catalogFiles[rule]
	if !ok || r.File == "" {
		return "", 0
	}
	return "features/" + r.File, r.Line
}

// sourcePath splits the absolute form of file into the root a repository path starts from and
// the slash-separated path below it: GITHUB_WORKSPACE when file is inside it, else the working
// directory when file is inside that, else file's own folder.
func sourcePath(file string) (root, rel string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", filepath.ToSlash(file)
	}
	cwd, _ := os.Getwd()
	for _, root := range []string{os.Getenv(envWorkspace), cwd} {
		if root == "" {
			continue
		}
		if r, err := filepath.Rel(root, abs); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return root, filepath.ToSlash(r)
		}
	}
	return filepath.Dir(abs), filepath.Base(abs)
}

// github writes, on GitHub Actions (GITHUB_ACTIONS=true), the annotations of what fails the
// run to stderr (never stdout, which carries --format) and appends the markdown summary to
// $GITHUB_STEP_SUMMARY. A summary that cannot be written is a warning: the verdicts decide the
// exit code.
func (o runOptions) github(run *reports.Run, code int, stderr io.Writer) {
	if os.Getenv(envGitHubActions) != "true" {
		return
	}
	opts := reports.GitHubOptions{Strict: o.strict, ExitCode: code}
	if o.baseline != "" {
		if root, rel := sourcePath(o.baseline); root != "" && root == os.Getenv(envWorkspace) {
			opts.BaselineFile = rel
		}
	}
	if err := reports.WriteGitHubAnnotations(stderr, run, opts); err != nil {
		return
	}
	path := os.Getenv(envStepSummary)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		err = reports.WriteGitHubSummary(f, run, opts)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: warning: %s: %v\n", envStepSummary, err)
	}
}
