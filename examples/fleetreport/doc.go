// Command fleetreport diagnoses the hand-made target groups of several AWS
// accounts, one assumed role per account, and writes one Markdown report:
// a program a platform team adapts into its own scheduled job.
//
// # Files
//
//   - doc.go: this comment.
//   - main.go: main: the flags, the assumed roles' ELBv2 clients and the
//     cluster's client; nothing else.
//   - report.go: run, the work: Diagnose per account, the Markdown, and the
//     exit code by severity.
//
// Tests: report_test.go runs run on tgmigratetest's worlds, one world per
// account, with no fake or clock of its own.
//
// # Running it
//
//	go run ./examples/fleetreport -region eu-west-1 -cluster prod \
//	  -role arn:aws:iam::111111111111:role/tgmigrate-read \
//	  -role arn:aws:iam::222222222222:role/tgmigrate-read > fleet.md
//
// The base credentials (the environment, a profile) must be allowed to
// assume each role; each role needs elasticloadbalancing:Describe*. The
// cluster is the current kubeconfig context's (list access to nodes, pods,
// services, namespaces and targetgroupbindings).
//
// # Exit code
//
//   - 0: no finding worse than info.
//   - 1: a low or medium finding (warnings).
//   - 2: a high or critical finding.
//   - 3: an account could not be scanned, in part or at all (the report
//     says which resource); this wins over 1 and 2.
//   - 64: bad flags.
//
// # What to change
//
//   - the accounts: the -role flags, or replace them with your inventory;
//   - the scope: run's diagnose.Scope{All: true} (by tag, by load balancer);
//   - the output: report.go composes the Markdown from the report; use
//     diagnose.Report.Markdown for the full report of one account;
//   - the severity mapping: exitCode.
package main
