package examplecopy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExamplesCopy copies every example file of the public packages alone
// into a module of its own and runs it: each must compile and pass there,
// except the files of notYetCopyable, which are printed with their reason.
func TestExamplesCopy(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files, err := exampleFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no example file found under %s", root)
	}
	for rel := range notYetCopyable {
		if !slices.Contains(files, rel) {
			t.Errorf("notYetCopyable names %s, which is not an example file any more: take it off the list", rel)
		}
	}
	d, ok := t.Deadline()
	ctx, cancel := deadline(t.Context(), d, ok)
	defer cancel()
	results, err := run(ctx, root, t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		why, known := notYetCopyable[r.File]
		switch {
		case known && r.Passed:
			t.Errorf("%s compiles and passes alone in a module of its own now: take it off notYetCopyable", r.File)
		case known:
			t.Logf("not yet copyable: %s (%s)", r.File, why)
		case r.Passed:
			t.Logf("copyable: %s", r.File)
		default:
			t.Errorf("%s does not compile or pass alone in a module of its own:\n%s", r.File, firstLines(r.Output, outputLines))
		}
	}
}

// TestHarnessReports runs the harness over a made-up repository: an example
// that stands alone passes, and one that calls a helper of another test file
// of its package, one that reads its package's testdata and one that
// imports an internal package fail, each named with its error.
func TestHarnessReports(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/fakeroot\n\ngo 1.26.0\n")
	write("p/p.go", "package p\n\n// Two returns 2.\nfunc Two() int { return 2 }\n")
	write("p/internal/q/q.go", "package q\n\n// Three returns 3.\nfunc Three() int { return 3 }\n")
	write("p/helper_test.go", "package p_test\n\nfunc helper() int { return 2 }\n")
	write("p/testdata/two.txt", "2\n")
	write("p/example_test.go", `package p_test

import (
	"fmt"

	"example.com/fakeroot/p"
)

func ExampleTwo() {
	fmt.Println(p.Two())
	// Output: 2
}
`)
	write("p/helper_example_test.go", `package p_test

import "fmt"

func Example_helper() {
	fmt.Println(helper())
	// Output: 2
}
`)
	write("p/testdata_example_test.go", `package p_test

import (
	"fmt"
	"os"
)

func Example_testdata() {
	b, err := os.ReadFile("testdata/two.txt")
	fmt.Print(string(b), err)
	// Output: 2
	// <nil>
}
`)
	write("p/more_test.go", `package p_test

import (
	"fmt"

	"example.com/fakeroot/p/internal/q"
)

func Example_internal() {
	fmt.Println(q.Three())
	// Output: 3
}
`)
	write("internal/r/example_test.go", "package r_test\n\nfunc Example() {}\n")
	write("examples/cli/example_test.go", "package cli_test\n\nfunc Example() {}\n")
	write("p/testdata/example_test.go", "package ignored\n")

	files, err := exampleFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p/example_test.go", "p/helper_example_test.go", "p/more_test.go", "p/testdata_example_test.go"}
	if !slices.Equal(files, want) {
		t.Fatalf("example files: got %q, want %q", files, want)
	}
	results, err := run(t.Context(), root, t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	wantOut := map[string]string{ // file -> a piece of its output; "" for a pass
		"p/example_test.go":          "",
		"p/helper_example_test.go":   "undefined: helper",
		"p/more_test.go":             "internal package",
		"p/testdata_example_test.go": "no such file or directory",
	}
	for _, r := range results {
		w := wantOut[r.File]
		switch {
		case w == "" && !r.Passed:
			t.Errorf("%s: failed, want a pass:\n%s", r.File, r.Output)
		case w != "" && r.Passed:
			t.Errorf("%s: passed, want a failure", r.File)
		case w != "" && !strings.Contains(r.Output, w):
			t.Errorf("%s: output does not say %q:\n%s", r.File, w, r.Output)
		}
	}
	if len(results) != len(want) {
		t.Errorf("%d results, want %d", len(results), len(want))
	}
}
