// Package nilcheck is the typed-nil check of the clients the packages are
// handed, once: diagnose and subnets call it.
//
// # Files
//
//   - doc.go: this comment.
//   - nilcheck.go: [IsNil] and [Reason].
package nilcheck
