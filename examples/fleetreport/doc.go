// Command fleetreport diagnoses the hand-made target groups of several AWS
// accounts, one assumed role per account, and writes one Markdown report:
// a program a platform team adapts into its own scheduled job.
//
// # Files
//
//   - doc.go: this comment.
//   - main.go: main and cli: the flags and their checks, the assumed
//     roles' ELBv2 clients and the cluster's client; nothing else.
//   - report.go: run, the work: Diagnose per account, the Markdown, and the
//     exit code by --fail-on.
//
// Tests: report_test.go runs run on tgmigratetest's worlds, one world per
// account, with no fake or clock of its own; flags_test.go the command
// line (--help, usage errors).
//
// # Running it
//
//	go run ./examples/fleetreport --region eu-west-1 --cluster prod \
//	  --role arn:aws:iam::111111111111:role/tgmigrate-read \
//	  --role arn:aws:iam::222222222222:role/tgmigrate-read > fleet.md
//
// Flags are written --name, as tgmigrate's (its doc.go, # Flags); a long
// flag written with one dash is a usage error that says so.
//
// The base credentials (the environment, a profile) must be allowed to
// assume each role; each role needs elasticloadbalancing:Describe*. The
// cluster is the current kubeconfig context's (list access to nodes, pods,
// services, namespaces and targetgroupbindings).
//
// # Exit code
//
// The examples' one table (tgmigrate's doc.go, # Exit codes):
//
//   - 0: no finding at or above --fail-on (default high).
//   - 1: a finding at or above --fail-on, on tgmigrate's one severity
//     scale: critical, high, medium, low, info or none (helm's error and
//     warning are accepted as high and low); --fail-on low exits 1 on
//     warnings too.
//   - 2: a usage or configuration error (bad flags, no AWS configuration,
//     no kubeconfig): one line on stderr, nothing scanned.
//   - 3: an account could not be scanned, in part or at all (the report
//     says which resource); this wins over 1.
//
// # What to change
//
//   - the accounts: the --role flags, or replace them with your inventory;
//   - the scope: run's diagnose.Scope{All: true} (by tag, by load balancer);
//   - the output: report.go composes the Markdown from the report; use
//     diagnose.Report.Markdown for the full report of one account;
//   - the severity threshold: --fail-on, read by exitCode.
package main
