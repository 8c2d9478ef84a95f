package tgmigrate_test

// publicapi_test.go: TestNoInternalInPublicAPI, which reads the exported
// declarations of every public package as go doc shows them and fails on
// any name of an internal package among them.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// publicPackages are the module's public packages, by directory from the
// module root: every one a user imports.
var publicPackages = []string{".", "cutover", "cutover/journal", "diagnose", "helmgov", "subnets", "tgbind", "tgbind/v1beta1", "tgmigratetest"}

// TestNoInternalInPublicAPI: no exported declaration of a public package
// names an internal package, as go doc -all would print it: an alias's
// right-hand side, a function's or method's parameters and results, an
// exported field's type, an interface's methods, a variable's or
// constant's type and value. A user reads every one of them in go doc,
// where an internal package shows a name they cannot import or read.
func TestNoInternalInPublicAPI(t *testing.T) {
	var all []string
	for _, dir := range publicPackages {
		found, err := internalNames(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range found {
			all = append(all, dir+": "+f)
		}
	}
	if len(all) != 0 {
		t.Errorf("%d exported declarations name an internal package:\n\t%s", len(all), strings.Join(all, "\n\t"))
	}
}

// TestInternalNamesFindsEachKind: the checker finds an internal name in
// each place go doc shows one, and none in a body or an unexported
// declaration.
func TestInternalNamesFindsEachKind(t *testing.T) {
	dir := t.TempDir()
	src := `package p

import (
	"example.com/m/internal/in"
	ok "example.com/m/pub"
)

type Alias = in.T
type Struct struct {
	Field  in.T
	hidden in.T
	ok.Fine
}
type Iface interface{ M() in.T }
func F(x []in.T) error { var y in.T; _ = y; return nil }
func (Struct) M() (map[string]*in.T, error) { return nil, nil }
func (hidden) M() in.T { var z in.T; return z }
type hidden struct{}
var V = in.V
const C = in.C
var unexported = in.V
func G(ok.Fine) {}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := internalNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Alias", "C", "F", "Iface", "Struct.Field", "Struct.M", "V"}
	var names []string
	for _, g := range got {
		names = append(names, strings.SplitN(strings.Fields(g)[0], ":", 2)[0])
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("found %q, want %v", got, want)
	}
}

// internalNames returns, for the package in dir (test files aside), every
// exported declaration that names an internal package, as "Name: pkg.Sel
// (file)", sorted.
func internalNames(dir string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pkg := range pkgs {
		for path, f := range pkg.Files {
			internal := map[string]string{} // local name -> import path
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if !strings.Contains("/"+p+"/", "/internal/") {
					continue
				}
				name := p[strings.LastIndex(p, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				internal[name] = p
			}
			if len(internal) == 0 {
				continue
			}
			report := func(decl string, n ast.Node) {
				for _, sel := range selectors(n, internal) {
					out = append(out, fmt.Sprintf("%s: %s (%s)", decl, sel, filepath.Base(path)))
				}
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					name := d.Name.Name
					if d.Recv != nil {
						recv := receiverName(d.Recv.List[0].Type)
						if !ast.IsExported(recv) {
							continue
						}
						name = recv + "." + name
					}
					report(name, d.Type)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								typeSpec(s, report)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if !n.IsExported() {
									continue
								}
								if s.Type != nil {
									report(n.Name, s.Type)
								}
								for _, v := range s.Values {
									report(n.Name, v)
								}
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// typeSpec reports the parts of an exported type that go doc shows: an
// alias's or a defined type's right-hand side, but of a struct only its
// exported fields (embedded ones by their type's name).
func typeSpec(s *ast.TypeSpec, report func(string, ast.Node)) {
	st, ok := s.Type.(*ast.StructType)
	if !ok || s.Assign != 0 {
		report(s.Name.Name, s.Type)
		return
	}
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 {
			if ast.IsExported(receiverName(f.Type)) {
				report(s.Name.Name+"."+receiverName(f.Type), f.Type)
			}
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				report(s.Name.Name+"."+n.Name, f.Type)
			}
		}
	}
}

// receiverName is the type name of a receiver or an embedded field: T,
// *T, T[P], pkg.T.
func receiverName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// selectors returns the pkg.Sel expressions in n whose pkg is an internal
// import, as "import/path.Sel".
func selectors(n ast.Node, internal map[string]string) []string {
	var out []string
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if p, ok := internal[id.Name]; ok {
					out = append(out, p+"."+sel.Sel.Name)
				}
			}
		}
		// A function literal's body is not in go doc.
		if fl, ok := n.(*ast.FuncLit); ok {
			out = append(out, selectors(fl.Type, internal)...)
			return false
		}
		return true
	})
	return out
}
