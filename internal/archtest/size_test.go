package archtest

import (
	"bytes"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxFuncLines is the longest a function may be, counted from its func keyword to its closing
// brace: a register function reads as a table of step lines, and a handler that outgrows this
// is split.
const maxFuncLines = 150

// TestNoLongFunctions fails naming every function of the module outside fixtures/ (test files
// included) longer than maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	for _, f := range moduleFiles(t, root) {
		for _, d := range parse(t, fset, root, f).Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines long (at most %d)", f.rel, start.Line, funcName(fd), n, maxFuncLines)
			}
		}
	}
}

// maxPackageShare is the largest share of the product lines one package may hold (DESIGN
// "Layout": no package holds more than about a third of the code).
const maxPackageShare = 0.30

// TestNoPackageOverAThird fails naming every package (a directory) whose non-test .go files hold
// more than maxPackageShare of the product lines: the lines of every non-test .go file of the
// module outside fixtures/.
func TestNoPackageOverAThird(t *testing.T) {
	root := moduleRoot(t)
	lines := map[string]int{}
	total := 0
	for _, f := range productFiles(t, root) {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.rel)))
		require.NoError(t, err)
		n := bytes.Count(src, []byte("\n"))
		lines[f.pkg] += n
		total += n
	}
	require.Positive(t, total)
	pkgs := make([]string, 0, len(lines))
	for p := range lines {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		share := float64(lines[p]) / float64(total)
		if share > maxPackageShare {
			t.Errorf("package %s holds %d of %d product lines (%.1f %%, at most %.0f %%)", p, lines[p], total, 100*share, 100*maxPackageShare)
		}
		t.Logf("package %s: %d of %d product lines (%.1f %%)", p, lines[p], total, 100*share)
	}
}
