// Command guardedmigration migrates one hand-made target group to the AWS
// Load Balancer Controller with a human in the loop: PlanCutover, the plan
// shown, an operator's approval before each phase (cutover's approval
// callback), Execute, and Rollback when Execute fails. A platform team
// adapts it into its own change tooling.
//
// # Files
//
//   - doc.go: this comment.
//   - main.go: main and cli: the flags and their checks, the real clients
//     and the terminal prompt; nothing else.
//   - migrate.go: run, the work: plan, approve, execute, roll back.
//
// Tests: migrate_test.go runs run on a tgmigratetest world under
// Karpenter churn (approved, refused, a fault that rolls back), with no
// fake or clock of its own; flags_test.go the command line (--help, usage
// errors).
//
// # Running it
//
//	go run ./examples/guardedmigration --cluster prod --namespace shop --service web --port http \
//	  --target-group arn:aws:elasticloadbalancing:eu-west-1:111111111111:targetgroup/legacy-web/0123456789abcdef
//
// Flags are written --name, as tgmigrate's (its doc.go, # Flags); a long
// flag written with one dash is a usage error that says so.
//
// It asks on the terminal before each phase; anything but "y" refuses it.
// The AWS credentials are the environment's (profile, role); the cluster
// is the current kubeconfig context's.
//
// # Exit code
//
// The examples' one table (tgmigrate's doc.go, # Exit codes):
//
//   - 0: the cutover completed.
//   - 1: an operator refused a phase: Execute stopped before it, nothing of
//     it ran; run the program again to resume from the journal.
//   - 2: a usage or configuration error (bad flags, no AWS configuration,
//     no kubeconfig): one line on stderr, nothing planned.
//   - 3: no plan (the plan's error says why), or Execute failed: when
//     cutover.ShouldRollback says the failure calls for a rollback, the
//     output's last line says whether Rollback restored the node targets
//     ("rolled back: ...") or did not complete (run it again: it resumes
//     from the journal); otherwise (refused before any change,
//     interrupted, another holder of the lock) it names
//     cutover.Classify's disposition and nothing is rolled back.
//
// # What to change
//
//   - the approval: main's prompt (a ticket, a chat message, a policy);
//   - the strategy and floor: the cutover.Request run plans;
//   - the journal and lock: pass cutover.WithJournal and WithLock through
//     run's options (the default journal is a ConfigMap in the cluster).
package main
