package tgmigratetest_test

import (
	"os"
	"strings"
	"testing"
)

// readmeSnippetSource is the Markdown file whose block between the
// snippet's markers must be readme_test.go: the README's kit snippet.
const readmeSnippetSource = "../README.md"

// The markers around the snippet's fenced Go block.
const (
	snippetBegin = "<!-- tgmigratetest/readme_test.go: begin -->\n```go\n"
	snippetEnd   = "```\n<!-- tgmigratetest/readme_test.go: end -->"
)

// TestREADMESnippet: the README's kit snippet is readme_test.go, package
// clause aside, byte for byte, so that the test that runs is the code a
// newcomer copies, and the two cannot drift.
func TestREADMESnippet(t *testing.T) {
	doc, err := os.ReadFile(readmeSnippetSource)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), snippetBegin)
	block, _, closed := strings.Cut(rest, snippetEnd)
	if !ok || !closed {
		t.Fatalf("%s has no block between %q and %q: paste readme_test.go's (after its package clause) there", readmeSnippetSource, snippetBegin, snippetEnd)
	}
	want, ok := strings.CutPrefix(string(src), "package tgmigratetest_test\n\n")
	if !ok {
		t.Fatal("readme_test.go does not open with its package clause and a blank line")
	}
	if block != want {
		t.Errorf("%s's snippet is not readme_test.go: copy the test's imports and function into it.\n--- snippet\n%s--- readme_test.go\n%s", readmeSnippetSource, block, want)
	}
}
