// Package examplecopy proves that every godoc example of a public package
// can be copied into another module: each example file, alone, compiles and
// passes in a fresh module that requires github.com/qstools/tgmigrate (issue
// 18). The package holds no code; its test is the proof, and `make test`
// runs it in the unit tier (`make examples-copy` runs it alone).
//
// # Files
//
//   - doc.go: this comment.
//
// Tests: examplecopy_test.go (TestExamplesCopy, the proof over the
// repository; TestHarnessReports, the harness over a made-up repository
// with one good and one broken example); harness_test.go (the harness: the
// discovery of example files, the module of one directory per file, the
// run and its report; the list of files not yet copyable).
//
// # What counts as an example file
//
// Every _test.go file outside internal/, examples/, hack/, testdata and
// nested modules whose name contains "example" or which declares an Example
// function, found at run time. Each is copied alone, under its own name,
// into a directory of its own in one temporary module: no other test file of
// its package (so no helper), no testdata. The module requires tgmigrate at
// the versions of the repository's go.mod (its go.sum is copied too) and
// replaces it by the repository root, so it builds offline from the module
// cache: the go command runs with GOPROXY=off, GOFLAGS=-mod=mod, GOWORK=off
// and GOTOOLCHAIN=local.
//
// A file that does not compile or pass fails the test, named, with the first
// lines of its output. The only exceptions are in notYetCopyable, each with
// its reason, printed as "not yet copyable: FILE (why)"; such a file is
// still tried, and one that passes fails the test until it leaves the list.
// The list is empty: every public example is copyable.
package examplecopy
