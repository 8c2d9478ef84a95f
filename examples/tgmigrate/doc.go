// Command tgmigrate is the command-line face of the tgmigrate SDK, built on
// its public packages: read it as an example of embedding them.
//
// # Files
//
//   - doc.go: this comment.
//   - main.go: main, on a context that SIGINT and SIGTERM cancel.
//   - root.go: the root command, its global flags and the helpers they share.
//   - exit.go: the exit codes and the errors that carry them, the one parse
//     of a target group ARN and the check of a --target-group flag.
//   - cloud.go: the AWS accounts and the cluster client, from the flags.
//   - diagnose.go: diagnose.
//   - migrate.go: plan, execute and rollback.
//   - rbac.go: plan --rbac (the plan's Kubernetes rules as YAML to apply)
//     and the hint of a refused permission check.
//   - bind.go: bind.
//   - helm.go: helm check and helm fix.
//   - simulate.go: simulate: its flags and the world of one run.
//   - simulate_story.go: the story simulate tells in text.
//   - simulate_run.go: one strategy's run and what it measures.
//   - simulate_report.go: the run of simulate, its JSON report and tables.
//   - simulate_envelope.go: simulate -envelope: its runs (the sensitivity
//     per churn shape, then the grid of the knobs that change something,
//     every shape and seed, and phased worse than its plan assumes) and
//     their summaries.
//   - simulate_envelope_text.go: simulate -envelope in text.
//   - simulate_faults.go: simulate -scenario controller-faults.
//   - simulate_move.go: simulate -scenario private-subnets (step 4's move).
//   - simulate_underway.go: which of phased's failures from Execute's
//     start no call at its start could have saved (failedUnderWayAtStart).
//
// Tests: main_test.go (the command in-process), readme_test.go (the
// README's transcripts), one _test.go per subcommand or concern, and
// helm_cluster_integration_test.go on envtest.
//
// # Subcommands
//
//   - diagnose: read-only; ghost targets, static node targets, owners and
//     mismatches (package diagnose).
//   - plan, execute, rollback: the cutover (package cutover). plan is
//     read-only and saves the plan as JSON; it prints the plan's
//     preconditions (the pod settings the cutover's safety rests on that
//     the Service's pods lack), which execute refuses until
//     --accept-preconditions names them; execute and rollback are dry runs
//     unless --yes (or a confirmation on a terminal); Ctrl-C leaves a
//     journal and prints how to resume or roll back. execute's
//     verification stops (exit 3, nothing rolled back) on targets that are
//     not the Service's pods unless --allow-non-pod-targets; rollback says
//     as it starts how long it expects to take (cutover.EstimateRollback)
//     and that an interrupt is safe, and of a plan that never ran that
//     there is nothing to roll back (exit 0). plan --iam-policy prints the IAM
//     policy execute and rollback need, plan --rbac their Kubernetes Role
//     and ClusterRole (--rbac-subject adds the bindings); execute and
//     rollback check those rules first and exit 2, changing nothing, when
//     one is missing.
//   - bind: a TargetGroupBinding's manifest, or its server-side apply
//     (package tgbind).
//   - helm check, helm fix: chart governance (package helmgov); with
//     --cluster, the kinds the cluster serves come from discovery (rule
//     TGM-H012); without it they touch no cluster. helm fix writes into
//     the -f values file first, then the chart's values.yaml, then its
//     templates (--into changes the order), drops a fix that does not hold
//     and writes the others (--atomic: all or nothing); its report counts
//     fixed, not fixable and dropped, says why each finding was not fixed,
//     and it exits 1 while a finding at or above --fail-on remains.
//   - simulate: the whole story on the embedded simulator (internal/sim),
//     with no AWS account and no cluster, and a side-by-side of the static,
//     naive-tgb and phased strategies, each in a world of its own from the
//     same seed (not the story's world); every plan at the product's
//     default assumptions; -envelope runs every churn shape and several
//     seeds over the AWS timings; -wire sends every ELBv2 call through the
//     real AWS SDK client.
//
// # Configuration
//
// The kubeconfig and its context come through client-go's loading rules
// (--kubeconfig, --context); AWS through aws-sdk-go-v2/config (--profile,
// --region) with STS assume-role per account (--assume-role). Go-style
// single-dash long flags work too (-seed 7, -format json).
//
// # Exit codes
//
// 0 success; 1 findings at or above --fail-on; 2 a usage, configuration or
// input error (one line on stderr, no stack trace); 3 an operation that
// started and failed.
package main
