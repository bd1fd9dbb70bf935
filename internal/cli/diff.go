package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcp-conform/mcp-conform/reports"
)

// diffCmd implements `mcp-conform diff OLD.json NEW.json [--format text|json|markdown]
// [--strict]`: it compares two saved runs by (rule, revision, transport) (reports.Diff) and
// exits 1 when the new run has a regression (reports.IsRegression), 0 when it has none, and 2
// when a file cannot be read or is not a results.json of a schemaVersion this build reads.
// diffUsage is what diff --help prints before the flags.
const diffUsage = "Usage: mcp-conform diff [--format text|json|markdown] [--strict] OLD.json NEW.json\n\n" +
	"Compares two results.json files by (rule, revision, transport): regressions, fixed rules,\n" +
	"rules no longer checked, results added or removed, other verdict changes.\n" +
	"Exit 1 on a regression, 0 otherwise, 2 on a bad file.\n\n"

func diffCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	format := fs.String("format", "text", "stdout format: text, json or markdown (for a pull-request comment or $GITHUB_STEP_SUMMARY)")
	strict := fs.Bool("strict", false, "a new warn is a regression, and so is a rule that was judged and no longer is (na, untestable, absent)")
	// Flags may come before, between or after the file names.
	var files []string
	for len(args) > 0 {
		if code := parseFlags(fs, args, diffUsage, stdout, stderr); code >= 0 {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 2 {
		return usageError(stderr, "diff takes two results.json files, OLD and NEW (got %d)", len(files))
	}
	render := map[string]func(io.Writer, *reports.RunDiff) error{
		"text": reports.WriteDiffText, "json": reports.WriteDiffJSON, "markdown": reports.WriteDiffMarkdown,
	}[*format]
	if render == nil {
		return usageError(stderr, "--format must be text, json or markdown, not %q", *format)
	}
	runs := make([]*reports.Run, 2)
	for i, f := range files {
		run, err := loadResults(f)
		if err != nil {
			return usageError(stderr, "diff: %v", err)
		}
		runs[i] = run
	}
	d := reports.Diff(runs[0], runs[1], *strict)
	d.Old.File, d.New.File = files[0], files[1]
	if err := render(stdout, d); err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return reports.ExitError
	}
	if d.Regressions > 0 {
		return reports.ExitFail
	}
	return reports.ExitOK
}

// loadResults reads a results.json file: its schemaVersion must be reports.SchemaVersion and
// the document must match results.schema.json. The error names the file and what is wrong.
func loadResults(path string) (*reports.Run, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion *string `json:"schemaVersion"`
	}
	switch err := json.Unmarshal(doc, &head); {
	case err != nil:
		return nil, fmt.Errorf("%s is not a results.json: not a JSON object: %v", path, err)
	case head.SchemaVersion == nil:
		return nil, fmt.Errorf("%s is not a results.json: it has no schemaVersion", path)
	case *head.SchemaVersion != reports.SchemaVersion:
		return nil, fmt.Errorf("%s has schemaVersion %q; this build reads schemaVersion %q (use the mcp-conform that wrote it)", path, *head.SchemaVersion, reports.SchemaVersion)
	}
	if err := reports.ValidateDocument(doc); err != nil {
		return nil, fmt.Errorf("%s is not a results.json this build can read: %v", path, err)
	}
	run, err := reports.ReadJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return run, nil
}
