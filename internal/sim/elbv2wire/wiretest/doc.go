// Package wiretest runs a package's gomock suites a second time through the
// real AWS SDK client: each mock goes behind an [elbv2wire] endpoint on
// loopback, the code under test gets a real *elasticloadbalancingv2.Client
// of it, and [Check] then holds the calls the code made against the
// requests the endpoint served.
//
// # Files
//
//   - doc.go: this comment.
//   - wiretest.go: Wired, Wire and Check.
//
// diagnose, tgbind and cutover use it from their TestWire*Suites tests,
// through a package variable that hands out the ELBv2 client of a mock.
package wiretest
