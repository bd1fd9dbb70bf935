package archtest

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// godogPath is the import path of godog, whose *ScenarioContext a binder takes.
const godogPath = "github.com/cucumber/godog"

// TestAreasRegisterThemselves proves DESIGN "Architecture": an area's bindings and state are
// found without a central list, so adding an area edits neither the world nor the runner.
//
//   - The bindings package is the one that declares bindSteps. Each of its binders (a function
//     taking a *godog.ScenarioContext that calls step with it) is registered by an init of its
//     own file, `func init() { bindSteps("<area>", <binder>) }`, and nothing else in the module
//     names it (no register call in the runner).
//   - Each area's state is a type the area reaches through stateOf (`stateOf(w, func() *T {...})`)
//     from its own file; no field of the world has such a type, and the file declaring the
//     world names none of them.
func TestAreasRegisterThemselves(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	parsed := map[string]*ast.File{}
	var files []goFile
	for _, f := range productFiles(t, root) {
		files = append(files, f)
		parsed[f.rel] = parse(t, fset, root, f)
	}
	bindPkg := declaringPackage(t, files, parsed, "bindSteps")

	binders := map[string]string{} // binder name -> its file
	for _, f := range files {
		if f.pkg != bindPkg {
			continue
		}
		for _, d := range parsed[f.rel].Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && isBinder(fd, importName(parsed[f.rel], godogPath, "godog")) {
				binders[fd.Name.Name] = f.rel
			}
		}
	}
	require.GreaterOrEqual(t, len(binders), 20, "too few binders found in %s: the test no longer sees them", bindPkg)

	var bad []string
	areas := map[string]string{}
	for name, file := range binders {
		area, ok := initBinds(parsed[file], name)
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("%s: binder %s is not registered by an init of its file (func init() { bindSteps(\"<area>\", %s) })", file, name, name))
		case areas[area] != "":
			bad = append(bad, fmt.Sprintf("%s: area %q is registered by %s too", file, area, areas[area]))
		default:
			areas[area] = file
		}
	}
	for _, f := range files {
		for _, d := range parsed[f.rel].Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" && fd.Recv == nil && binders[initBinder(fd)] == f.rel {
				continue // the registration itself
			}
			ast.Inspect(d, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				if file, isBinder := binders[id.Name]; isBinder && !(f.rel == file && isDeclName(d, id)) {
					bad = append(bad, fmt.Sprintf("%s:%d: names the binder %s: a central list of areas (BindAll binds every area)", f.rel, fset.Position(id.Pos()).Line, id.Name))
				}
				return true
			})
		}
	}

	states := stateTypes(files, parsed, bindPkg)
	require.GreaterOrEqual(t, len(states), 8, "too few area states reached through stateOf in %s: the test no longer sees them", bindPkg)
	worldFile, world := worldType(t, files, parsed, bindPkg)
	for _, field := range world.Fields.List {
		if typ := baseTypeName(field.Type); states[typ] != "" {
			bad = append(bad, fmt.Sprintf("%s: the world has a field of area state %s (declared by %s): reach it through stateOf instead", worldFile, typ, states[typ]))
		}
	}
	ast.Inspect(parsed[worldFile], func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && states[id.Name] != "" {
			bad = append(bad, fmt.Sprintf("%s:%d: the world's file names area state %s", worldFile, fset.Position(id.Pos()).Line, id.Name))
		}
		return true
	})
	sort.Strings(bad)
	require.Empty(t, bad, "an area must register its steps and state from its own files")
}

// declaringPackage returns the package (directory) that declares the top-level function name;
// exactly one must.
func declaringPackage(t *testing.T, files []goFile, parsed map[string]*ast.File, name string) string {
	t.Helper()
	var pkgs []string
	for _, f := range files {
		for _, d := range parsed[f.rel].Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				pkgs = append(pkgs, f.pkg)
			}
		}
	}
	require.Len(t, pkgs, 1, "exactly one package declares %s", name)
	return pkgs[0]
}

// isBinder reports whether fd is a function (not a method) with a *godog.ScenarioContext
// parameter that it passes as the first argument of step, the package's binding helper.
func isBinder(fd *ast.FuncDecl, godog string) bool {
	if fd.Recv != nil || fd.Body == nil || godog == "" || fd.Name.Name == "step" {
		return false
	}
	var params []string
	for _, p := range fd.Type.Params.List {
		star, ok := p.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "ScenarioContext" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == godog {
				for _, n := range p.Names {
					params = append(params, n.Name)
				}
			}
		}
	}
	if len(params) == 0 {
		return false
	}
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return !found
		}
		if fn, ok := call.Fun.(*ast.Ident); ok && fn.Name == "step" {
			if arg, ok := call.Args[0].(*ast.Ident); ok {
				for _, p := range params {
					found = found || arg.Name == p
				}
			}
		}
		return !found
	})
	return found
}

// initBinds returns the area an init of f registers binder under (bindSteps("<area>", binder)).
func initBinds(f *ast.File, binder string) (string, bool) {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "init" || fd.Recv != nil || initBinder(fd) != binder {
			continue
		}
		call := bindStepsCall(fd)
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if area, err := strconv.Unquote(lit.Value); err == nil && area != "" {
				return area, true
			}
		}
	}
	return "", false
}

// initBinder returns the binder the init fd registers, or "" when fd is not one statement
// `bindSteps("<area>", <binder>)`.
func initBinder(fd *ast.FuncDecl) string {
	if call := bindStepsCall(fd); call != nil {
		if id, ok := call.Args[1].(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// bindStepsCall returns the call when the body of fd is the one statement bindSteps(x, y).
func bindStepsCall(fd *ast.FuncDecl) *ast.CallExpr {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return nil
	}
	es, ok := fd.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return nil
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 2 {
		return nil
	}
	if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "bindSteps" {
		return nil
	}
	return call
}

// isDeclName reports whether id is the name of the function d declares.
func isDeclName(d ast.Decl, id *ast.Ident) bool {
	fd, ok := d.(*ast.FuncDecl)
	return ok && fd.Name == id
}

// stateTypes returns the area state types of package pkg, each with the file that reaches it:
// the T of every `stateOf(w, func() *T { ... })` call.
func stateTypes(files []goFile, parsed map[string]*ast.File, pkg string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		if f.pkg != pkg {
			continue
		}
		ast.Inspect(parsed[f.rel], func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "stateOf" {
				return true
			}
			if lit, ok := call.Args[1].(*ast.FuncLit); ok && lit.Type.Results != nil && len(lit.Type.Results.List) == 1 {
				if typ := baseTypeName(lit.Type.Results.List[0].Type); typ != "" {
					out[typ] = f.rel
				}
			}
			return true
		})
	}
	return out
}

// worldType returns the file declaring the per-scenario state of package pkg (the struct type
// world or World) and its struct.
func worldType(t *testing.T, files []goFile, parsed map[string]*ast.File, pkg string) (string, *ast.StructType) {
	t.Helper()
	for _, f := range files {
		if f.pkg != pkg {
			continue
		}
		for _, d := range parsed[f.rel].Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				if st, ok := ts.Type.(*ast.StructType); ok && strings.EqualFold(ts.Name.Name, "world") {
					return f.rel, st
				}
			}
		}
	}
	require.FailNow(t, "no world type found", "package %s", pkg)
	return "", nil
}

// baseTypeName returns the name of the named type typ points to or is (pkg.T gives T), or "".
func baseTypeName(typ ast.Expr) string {
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	switch x := typ.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}
