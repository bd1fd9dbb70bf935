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

// harnessPath is the import path of the package that holds the concrete transports.
const harnessPath = "github.com/mcp-conform/mcp-conform/harness"

// transportPackages may name the concrete transports: the client (the one place that dials and
// wraps them), the harness that implements them, the judge (frame data carries the transport
// name), the CLI (which sets the configured transport) and the runner (which dials each
// target's transport and waits on its handshake).
var transportPackages = map[string]bool{"client": true, "harness": true, "judge": true, "internal/cli": true, "runner": true}

// concreteTransport names the harness identifiers that say which transport a value is.
var concreteTransport = map[string]bool{"Stdio": true, "HTTP": true, "TransportStdio": true, "TransportHTTP": true}

// TestConcreteTransportsOnlyInClient enforces DESIGN "Connections": no code outside the client
// knows the concrete transport. In every product file outside transportPackages it looks for
// harness.Stdio, harness.HTTP, harness.TransportStdio and harness.TransportHTTP (in a type
// assertion, a type switch, a signature or a comparison alike), and for a type assertion to an
// interface literal that asks a transport for a method harness.Transport does not have (the
// duck-typed form of the same question, e.g. `t.(interface{ Shared() bool })`).
func TestConcreteTransportsOnlyInClient(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	concreteMethods := transportOnlyMethods(t, fset, root)
	var bad []string
	for _, f := range productFiles(t, root) {
		if transportPackages[f.pkg] {
			continue
		}
		af := parse(t, fset, root, f)
		harness := importName(af, harnessPath, "harness")
		for _, d := range af.Decls {
			name := "(package level)"
			if fd, ok := d.(*ast.FuncDecl); ok {
				name = funcName(fd)
			}
			for _, site := range transportSites(d, harness, concreteMethods) {
				bad = append(bad, fmt.Sprintf("%s:%d: %s names %s", f.rel, fset.Position(site.pos).Line, name, site.what))
			}
		}
	}
	require.Empty(t, bad, "concrete transports named outside %v: ask a client.Conn (Process, Endpoint) or the client instead", keys(transportPackages))
}

// site is one place that names a concrete transport.
type site struct {
	pos  token.Pos
	what string
}

// transportSites returns the places in decl that name a concrete transport: a selector
// harness.X with X in concreteTransport, or a type assertion (or type switch case) to an
// interface literal with a method in concreteMethods.
func transportSites(decl ast.Decl, harness string, concreteMethods map[string]bool) []site {
	var out []site
	ast.Inspect(decl, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && harness != "" && id.Name == harness && concreteTransport[n.Sel.Name] {
				out = append(out, site{n.Pos(), "harness." + n.Sel.Name})
			}
		case *ast.TypeAssertExpr:
			if m := duckMethod(n.Type, concreteMethods); m != "" {
				out = append(out, site{n.Pos(), "a transport method (" + m + ") by type assertion"})
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, typ := range c.(*ast.CaseClause).List {
					if m := duckMethod(typ, concreteMethods); m != "" {
						out = append(out, site{typ.Pos(), "a transport method (" + m + ") by type switch"})
					}
				}
			}
		}
		return true
	})
	return out
}

// duckMethod returns the first method of the interface literal typ that is in concreteMethods,
// or "" when typ is no interface literal or asks for none of them.
func duckMethod(typ ast.Expr, concreteMethods map[string]bool) string {
	it, ok := typ.(*ast.InterfaceType)
	if !ok || it.Methods == nil {
		return ""
	}
	for _, m := range it.Methods.List {
		for _, n := range m.Names {
			if concreteMethods[n.Name] {
				return n.Name
			}
		}
	}
	return ""
}

// transportOnlyMethods returns the exported methods of harness.Stdio and harness.HTTP that the
// harness.Transport interface does not declare: asking a value for one of them is asking which
// concrete transport it is.
func transportOnlyMethods(t *testing.T, fset *token.FileSet, root string) map[string]bool {
	t.Helper()
	methods := map[string]bool{}
	iface := map[string]bool{}
	for _, f := range productFiles(t, root) {
		if f.pkg != "harness" {
			continue
		}
		for _, d := range parse(t, fset, root, f).Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if recv, _, ok := strings.Cut(funcName(d), "."); ok && (recv == "Stdio" || recv == "HTTP") && d.Name.IsExported() {
					methods[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "Transport" {
						continue
					}
					if it, ok := ts.Type.(*ast.InterfaceType); ok {
						for _, m := range it.Methods.List {
							for _, n := range m.Names {
								iface[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	require.NotEmpty(t, methods, "no methods of harness.Stdio or harness.HTTP found")
	require.NotEmpty(t, iface, "harness.Transport not found")
	for m := range iface {
		delete(methods, m)
	}
	return methods
}

// importName returns the name file f uses for the package at path (its alias, or def), or ""
// when f does not import it.
func importName(f *ast.File, path, def string) string {
	for _, s := range f.Imports {
		if p, err := strconv.Unquote(s.Path.Value); err == nil && p == path {
			if s.Name != nil {
				return s.Name.Name
			}
			return def
		}
	}
	return ""
}

// keys returns the keys of m, sorted.
func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
