package examplecopy

// harness_test.go: the harness: find the example files of the public
// packages, copy each alone into a directory of its own in one temporary
// module that requires the repository, run `go test -json` there, and say
// which files do not compile or pass.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// notYetCopyable lists the example files, by path from the repository
// root, that are known not to be copyable yet, each with the reason. The
// harness still runs them: one that passes fails the test until it is
// taken off this list, so the list cannot outlive its reason.
var notYetCopyable = map[string]string{}

// skippedDirs are the top-level directories whose test files are not godoc
// examples of a public package: internal/ (not importable from another
// module), examples/ (programs, tested in place) and hack/ (commands).
var skippedDirs = []string{"internal", "examples", "hack"}

// tempModulePath is the module path of the temporary module, a stranger to
// tgmigrate, so that an internal package of tgmigrate is out of its reach.
const tempModulePath = "example.com/tgmigrate-examples"

// outputLines is how many lines of a failing file's output the report
// quotes.
const outputLines = 15

// exampleFiles returns the example files under root, slash-separated paths
// from root, sorted: every _test.go file whose name contains "example" or
// which declares an Example function, outside the skipped top-level
// directories, testdata, hidden directories and nested modules (any
// directory with a go.mod of its own).
func exampleFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" ||
				(!strings.Contains(rel, "/") && slices.Contains(skippedDirs, name)) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		ok, err := isExampleFile(p)
		if err != nil {
			return err
		}
		if ok {
			out = append(out, rel)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// isExampleFile reports whether the test file at p is an example file: its
// name contains "example", or it declares a function Example or Example*.
func isExampleFile(p string) (bool, error) {
	if strings.Contains(strings.ToLower(filepath.Base(p)), "example") {
		return true, nil
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
	if err != nil {
		return false, err
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Example") {
			return true, nil
		}
	}
	return false, nil
}

// goModJSON is the part of `go mod edit -json` the harness reads.
type goModJSON struct {
	Module  struct{ Path string }
	Go      string
	Require []struct {
		Path     string
		Version  string
		Indirect bool
	}
	Replace []struct {
		Old struct{ Path, Version string }
		New struct{ Path, Version string }
	}
}

// readGoMod reads root's go.mod with the go command itself.
func readGoMod(ctx context.Context, root string) (*goModJSON, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "edit", "-json", filepath.Join(root, "go.mod"))
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod edit -json: %w", err)
	}
	var m goModJSON
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("go mod edit -json: %w", err)
	}
	return &m, nil
}

// tempGoMod returns the go.mod of the temporary module: it requires the
// repository's module, replaced by root, and every module the repository
// requires at the same version, so that the build list is the
// repository's and the repository's go.sum covers it. A replacement by a
// relative path is made absolute.
func tempGoMod(root string, m *goModJSON) string {
	var b strings.Builder
	fmt.Fprintf(&b, "module %s\n\ngo %s\n\nrequire %s v0.0.0-00010101000000-000000000000\n\nrequire (\n", tempModulePath, m.Go, m.Module.Path)
	for _, r := range m.Require {
		ind := ""
		if r.Indirect {
			ind = " // indirect"
		}
		fmt.Fprintf(&b, "\t%s %s%s\n", r.Path, r.Version, ind)
	}
	fmt.Fprintf(&b, ")\n\nreplace %s => %s\n", m.Module.Path, root)
	for _, r := range m.Replace {
		old := r.Old.Path
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		dst := r.New.Path
		if r.New.Version != "" {
			dst += " " + r.New.Version
		} else if !filepath.IsAbs(dst) {
			dst = filepath.Join(root, dst)
		}
		fmt.Fprintf(&b, "replace %s => %s\n", old, dst)
	}
	return b.String()
}

// dirFor returns the directory, in the temporary module, of the example
// file rel: its path with the slashes turned into underscores, without
// "_test.go" ("diagnose/example_test.go" is "diagnose_example").
func dirFor(rel string) string {
	return strings.ReplaceAll(strings.TrimSuffix(rel, "_test.go"), "/", "_")
}

// goEnv is the environment of every go command the harness runs: offline
// (GOPROXY=off), on the local toolchain, outside any workspace, free to
// complete the temporary go.mod from the module cache (-mod=mod).
func goEnv() []string {
	flags := strings.TrimSpace(os.Getenv("GOFLAGS") + " -mod=mod")
	return append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS="+flags)
}

// result is the outcome of one example file in the temporary module.
type result struct {
	File   string // path from the repository root
	Passed bool
	Output string // what go test said about its package, build errors first
}

// run copies each file of files (paths from root) alone into a directory of
// its own in a new module under work, runs `go test -json -count=1 ./...`
// there and returns one result per file, in the order of files. An error is
// the harness's own: the module could not be made, or go test could not
// run or did not finish in time. A file go test says nothing of (the go
// command refused the whole module) fails, with go test's stderr.
func run(ctx context.Context, root, work string, files []string) ([]result, error) {
	m, err := readGoMod(ctx, root)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(tempGoMod(root, m)), 0o644); err != nil {
		return nil, err
	}
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(work, "go.sum"), sum, 0o644); err != nil {
			return nil, err
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	byPkg := map[string]string{} // import path in the temporary module -> file
	for _, rel := range files {
		dir := dirFor(rel)
		if _, dup := byPkg[tempModulePath+"/"+dir]; dup {
			return nil, fmt.Errorf("%s: its directory %s is taken by %s", rel, dir, byPkg[tempModulePath+"/"+dir])
		}
		byPkg[tempModulePath+"/"+dir] = rel
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Join(work, dir), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(work, dir, path.Base(rel)), src, 0o644); err != nil {
			return nil, err
		}
	}

	cmd := exec.CommandContext(ctx, "go", "test", "-json", "-count=1", "./...")
	cmd.Dir = work
	cmd.Env = goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("go test: %w", context.Cause(ctx))
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("go test: %w", err)
	}
	return collect(stdout, stderr.String(), byPkg, files)
}

// event is the part of a test2json event (and of a build event, which has
// ImportPath instead of Package) that the harness reads.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// collect turns go test's JSON stream into one result per file. A package
// whose build failed gets its build output; one that go test never
// mentions gets stderr, which holds the go command's own refusals (a
// missing module, an internal import).
func collect(stdout []byte, stderr string, byPkg map[string]string, files []string) ([]result, error) {
	build := map[string]*strings.Builder{} // ImportPath -> build output
	out := map[string]*strings.Builder{}   // package -> test output
	done := map[string]event{}             // package -> its pass/fail/skip event
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // not an event: the go command's own text
		}
		switch {
		case e.Action == "build-output":
			if build[e.ImportPath] == nil {
				build[e.ImportPath] = &strings.Builder{}
			}
			build[e.ImportPath].WriteString(e.Output)
		case e.Action == "output" && e.Package != "":
			if out[e.Package] == nil {
				out[e.Package] = &strings.Builder{}
			}
			out[e.Package].WriteString(e.Output)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			done[e.Package] = e
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("go test -json: %w", err)
	}
	pkgOf := map[string]string{}
	for pkg, rel := range byPkg {
		pkgOf[rel] = pkg
	}
	var res []result
	for _, rel := range files {
		pkg := pkgOf[rel]
		e, ok := done[pkg]
		r := result{File: rel, Passed: ok && e.Action != "fail"}
		var text strings.Builder
		if b := build[e.FailedBuild]; e.FailedBuild != "" && b != nil {
			text.WriteString(b.String())
		}
		if o := out[pkg]; o != nil {
			text.WriteString(o.String())
		}
		if !ok {
			text.WriteString(stderr)
		}
		r.Output = text.String()
		res = append(res, r)
	}
	return res, nil
}

// firstLines returns the first n lines of s, and a line saying how many
// more there were.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines)", len(lines)-n)
}

// deadline returns a context that ends a minute before the test's own
// deadline, so that the harness reports instead of being killed.
func deadline(ctx context.Context, d time.Time, ok bool) (context.Context, context.CancelFunc) {
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, d.Add(-time.Minute))
}
