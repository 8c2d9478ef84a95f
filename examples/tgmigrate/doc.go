// Command tgmigrate is the command-line face of the tgmigrate SDK, built on
// its public packages: read it as an example of embedding them.
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
//     journal and prints how to resume or roll back.
//   - bind: a TargetGroupBinding's manifest, or its server-side apply
//     (package tgbind).
//   - helm check, helm fix: chart governance (package helmgov); with
//     --cluster, the kinds the cluster serves come from discovery (rule
//     TGM-H012); without it they touch no cluster. helm fix writes into
//     the -f values file first, then the chart's values.yaml, then its
//     templates (--into changes the order), drops a fix that does not hold
//     and writes the others (--atomic: all or nothing).
//   - simulate: the whole story on the embedded simulator (internal/sim),
//     with no AWS account and no cluster, and a side-by-side of the static,
//     naive-tgb and phased strategies on the same seed; -wire sends every
//     ELBv2 call through the real AWS SDK client.
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
