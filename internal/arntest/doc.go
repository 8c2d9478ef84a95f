// Package arntest makes the typed ARNs tests need: a parsed target group's
// or load balancer's from a string that is known good, and a hand-made one
// that no input accepts. It is for tests only, like net/http/httptest: its
// Must functions panic on a malformed string, a bug of the test.
//
// # Files
//
//   - doc.go: this comment.
//   - arntest.go: [TG], [LB], [TGs], [LBs] and [HandMadeTG].
package arntest
