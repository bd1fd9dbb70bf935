package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcp-conform/mcp-conform/catalog"
	"github.com/mcp-conform/mcp-conform/reports"
)

// reportCmd implements `mcp-conform report RESULTS.json [--html F] [--junit F] [--sarif F]
// [--format text|json] [--baseline F] [--strict]`: it re-renders a saved run without rerunning it,
// optionally applying a baseline, and exits as `run` would have for those verdicts.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var o runOptions
	htmlPath := fs.String("html", "", "write the HTML report to this file")
	junitPath := fs.String("junit", "", "write JUnit XML to this file")
	fs.StringVar(&o.sarif, "sarif", "", "write a SARIF 2.1.0 log to this file")
	fs.StringVar(&o.format, "format", "text", "stdout format: text or json")
	fs.StringVar(&o.baseline, "baseline", "", "apply this baseline YAML file of expected failures")
	fs.StringVar(&o.writeBaseline, "write-baseline", "", "write the run's failures as a baseline YAML file")
	fs.BoolVar(&o.strict, "strict", false, "count warn as a failure for the exit code")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour on the console")
	// Flags may come before or after the file name.
	var files []string
	for len(args) > 0 {
		if code := parseFlags(fs, args, reportUsage, stdout, stderr); code >= 0 {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return usageError(stderr, "report takes exactly one results.json file")
	}
	if o.format != "text" && o.format != "json" {
		return usageError(stderr, "--format must be text or json, not %q", o.format)
	}
	doc, err := os.ReadFile(files[0])
	if err != nil {
		return usageError(stderr, "%v", err)
	}
	if err := reports.ValidateDocument(doc); err != nil {
		return usageError(stderr, "%s is not a results.json this build can read: %v", files[0], err)
	}
	run, err := reports.ReadJSON(bytes.NewReader(doc))
	if err != nil {
		return usageError(stderr, "%s: %v", files[0], err)
	}
	catalog, err := catalog.Catalog()
	if err != nil {
		fmt.Fprintf(stderr, "mcp-conform: %v\n", err)
		return reports.ExitError
	}
	if code := checkOutputFiles(stderr, "--html", *htmlPath, "--junit", *junitPath, "--sarif", o.sarif, "--write-baseline", o.writeBaseline); code >= 0 {
		return code
	}
	if code := o.loadBaseline(catalog, stderr); code >= 0 {
		return code
	}
	return finish(run, o, o.outputs(*htmlPath, *junitPath), stdout, stderr)
}
