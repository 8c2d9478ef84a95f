// Command guardedmigration migrates one hand-made target group to the AWS
// Load Balancer Controller with a human in the loop: PlanCutover, the plan
// shown, an operator's approval before each phase (cutover's approval
// callback), Execute, and Rollback when Execute fails. A platform team
// adapts it into its own change tooling.
//
// # Files
//
//   - doc.go: this comment.
//   - main.go: main: the flags, the real clients and the terminal prompt;
//     nothing else.
//   - migrate.go: run, the work: plan, approve, execute, roll back.
//
// Tests: migrate_test.go runs run on a tgmigratetest world under
// Karpenter churn (approved, refused, a fault that rolls back), with no
// fake or clock of its own.
//
// # Running it
//
//	go run ./examples/guardedmigration -cluster prod -namespace shop -service web -port http \
//	  -target-group arn:aws:elasticloadbalancing:eu-west-1:111111111111:targetgroup/legacy-web/0123456789abcdef
//
// It asks on the terminal before each phase; anything but "y" refuses it.
// The AWS credentials are the environment's (profile, role); the cluster
// is the current kubeconfig context's.
//
// # Exit code
//
//   - 0: the cutover completed.
//   - 1: an operator refused a phase: Execute stopped before it, nothing of
//     it ran; run the program again to resume from the journal.
//   - 2: Execute failed and Rollback restored the node targets.
//   - 3: no plan (the plan's error says why), a failure that calls for
//     no rollback (cutover.ShouldRollback: refused before any change,
//     interrupted, another holder of the lock; the line names
//     cutover.Classify's disposition), or the rollback did not complete
//     (run it again: it resumes from the journal).
//   - 64: bad flags or clients.
//
// # What to change
//
//   - the approval: main's prompt (a ticket, a chat message, a policy);
//   - the strategy and floor: the cutover.Request run plans;
//   - the journal and lock: pass cutover.WithJournal and WithLock through
//     run's options (the default journal is a ConfigMap in the cluster).
package main
