package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// goFile is one .go file of the module.
type goFile struct {
	rel  string // path from the module root, slash-separated, e.g. "steps/world.go"
	pkg  string // its directory from the module root, e.g. "steps" (a directory is a package)
	test bool   // a _test.go file
}

// moduleRoot is the module's root directory, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "module root not found above internal/archtest")
	return root
}

// moduleFiles lists the module's .go files outside fixtures/ (the fixtures are servers for the
// suite's own tests, not product code), testdata/, node_modules/ and hidden directories.
func moduleFiles(t *testing.T, root string) []goFile {
	t.Helper()
	var files []goFile
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel == "fixtures" || name == "testdata" || name == "node_modules" ||
				rel != "." && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		files = append(files, goFile{rel: rel, pkg: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(rel, "_test.go")})
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// productFiles is moduleFiles without the test files.
func productFiles(t *testing.T, root string) []goFile {
	t.Helper()
	var out []goFile
	for _, f := range moduleFiles(t, root) {
		if !f.test {
			out = append(out, f)
		}
	}
	return out
}

// parse parses one file of the module with its comments.
func parse(t *testing.T, fset *token.FileSet, root string, f goFile) *ast.File {
	t.Helper()
	af, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(f.rel)), nil, parser.SkipObjectResolution|parser.ParseComments)
	require.NoError(t, err)
	return af
}

// funcName names fd as Go would in a stack trace: Type.method or function.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch ix := typ.(type) {
	case *ast.IndexExpr:
		typ = ix.X
	case *ast.IndexListExpr:
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
