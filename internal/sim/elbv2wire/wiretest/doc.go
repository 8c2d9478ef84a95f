// Package wiretest runs a package's gomock suites a second time through the
// real AWS SDK client: each mock goes behind an [elbv2wire] endpoint on
// loopback, the code under test gets a real *elasticloadbalancingv2.Client
// of it, and [Check] then holds the calls the code made against the
// requests the endpoint served.
//
// # Files
//
//   - doc.go: this comment.
//   - wiretest.go: [Wired], [Wire] (one backend behind an endpoint) and
//     [Check].
//   - through.go: [Via], [Direct], [Through], [Suite] and [Run]: a test
//     package's mocks handed out through the wire.
//
// # Use
//
// diagnose, tgbind and cutover use it from their TestWire*Suites tests: each
// hands the code under test the ELBv2 client of its mock through a package
// variable of type [Via] ([Direct], the mock itself, by default); [Through]
// swaps in the wire for one test, and [Run] runs a table of [Suite]s that
// way and checks each. [Wire] puts one backend of any kind (a mock, the
// simulator) behind an endpoint.
package wiretest
