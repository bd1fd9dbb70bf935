package integration

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-conform/mcp-conform/reports"
)

// update rewrites the golden verdict files from this run instead of comparing against them:
// `go test ./integration -run TestX -update`. A change to a golden file is reviewed like a
// change to the spec: the commit that makes it names the defect it fixes.
var update = flag.Bool("update", false, "rewrite integration/testdata/golden/*.golden from this run")

// goldenLines renders the verdicts of r that the golden files pin: one line per result whose
// verdict is not na, "RULE REVISION TRANSPORT VERDICT", followed by " | reason" for untestable
// (why a rule could not be judged is part of the claim). Results come in r's deterministic
// order (reports.Run.Finalize).
func goldenLines(r *reports.Run) []string {
	r.Finalize()
	var out []string
	for _, res := range r.Results {
		if res.Verdict == reports.NA {
			continue
		}
		line := fmt.Sprintf("%s %s %s %s", res.Rule, res.Revision, res.Transport, res.Verdict)
		if res.Verdict == reports.Untestable {
			line += " | " + res.Reason
		}
		out = append(out, line)
	}
	return out
}

// checkGolden compares the pinned verdicts of r with testdata/golden/<name>.golden, failing with
// the lines that differ; with -update it writes the file instead.
func checkGolden(t *testing.T, name string, r *reports.Run) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	got := goldenLines(r)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		header := "# mcp-conform verdicts pinned for " + name + " (every result but na; untestable with its reason).\n" +
			"# Regenerate with: go test ./integration -update. A change here names the defect it fixes.\n"
		if err := os.WriteFile(path, []byte(header+strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `go test ./integration -update` to create it", err)
	}
	var want []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if diff := lineDiff(want, got); diff != "" {
		t.Errorf("verdicts differ from %s (- pinned, + this run); if the change fixes a defect, rerun with -update and name it in the commit:\n%s\nthe run's notes:\n%s", path, diff, strings.Join(r.Notes, "\n"))
	}
}

// lineDiff returns the lines only in want (prefixed "- ") and only in got ("+ "), keyed by the
// result's identity (rule, revision, transport) so a changed verdict shows as a -/+ pair.
func lineDiff(want, got []string) string {
	key := func(l string) string {
		f := strings.Fields(l)
		if len(f) < 3 {
			return l
		}
		return strings.Join(f[:3], " ")
	}
	w := map[string]string{}
	for _, l := range want {
		w[key(l)] = l
	}
	g := map[string]string{}
	for _, l := range got {
		g[key(l)] = l
	}
	var b strings.Builder
	for _, l := range want {
		if g[key(l)] != l {
			fmt.Fprintf(&b, "- %s\n", l)
			if gl, ok := g[key(l)]; ok {
				fmt.Fprintf(&b, "+ %s\n", gl)
			}
		}
	}
	for _, l := range got {
		if _, ok := w[key(l)]; !ok {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}
