package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	var missing, broken []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "vendor" || name == "hack") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		broken = append(broken, house(fset, filepath.ToSlash(path), f, src)...)
		if f.Name.Name == "main" {
			return nil
		}
		missing = append(missing, check(fset, f)...)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(2)
	}
	sort.Strings(missing)
	for _, m := range missing {
		fmt.Println(m)
	}
	sort.Strings(broken)
	for _, b := range broken {
		fmt.Println(b)
	}
	if len(missing) > 0 || len(broken) > 0 {
		fmt.Fprintf(os.Stderr, "doccheck: %d exported identifiers without a doc comment, %d breaks of the house rules (ARCHITECTURE.md)\n", len(missing), len(broken))
		os.Exit(1)
	}
	fmt.Println("doccheck: every exported identifier has a doc comment; every file keeps the house rules")
}

func check(fset *token.FileSet, f *ast.File) []string {
	var out []string
	report := func(pos token.Pos, what string) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(pos), what))
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
				continue
			}
			if d.Doc == nil {
				report(d.Pos(), "func "+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if s.Doc == nil && d.Doc == nil {
						report(s.Pos(), "type "+s.Name.Name)
					}
					out = append(out, members(fset, s)...)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
							report(n.Pos(), n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func members(fset *token.FileSet, s *ast.TypeSpec) []string {
	var out []string
	var fields *ast.FieldList
	kind := "field"
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields, kind = t.Methods, "method"
	default:
		return nil
	}
	grouped := false // the previous field is documented, or grouped under a comment
	prevEnd := 0
	for _, fl := range fields.List {
		line := fset.Position(fl.Pos()).Line
		// A field on the line right after a documented one shares its
		// comment ("// Namespace and Name identify the binding.").
		if fl.Doc != nil || fl.Comment != nil || (grouped && line == prevEnd+1) {
			grouped = true
			prevEnd = fset.Position(fl.End()).Line
			continue
		}
		grouped = false
		prevEnd = fset.Position(fl.End()).Line
		for _, n := range fl.Names {
			if n.IsExported() {
				out = append(out, fmt.Sprintf("%s: %s %s.%s", fset.Position(n.Pos()), kind, s.Name.Name, n.Name))
			}
		}
	}
	return out
}

func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	t := recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
