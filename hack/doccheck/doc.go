// Command doccheck fails when an exported identifier of the module has no doc
// comment: functions, methods of exported types, types, constants, variables,
// struct fields and interface methods. Generated files and tests are skipped.
//
// Usage: go run ./hack/doccheck [dir]   (default: the current directory)
package main
