// Command tgmigrate is the command-line face of the tgmigrate SDK, built on
// its public packages: read it as an example of embedding them.
//
// # Files
//
//   - doc.go: this comment.
//   - main.go: main, on a context that SIGINT and SIGTERM cancel.
//   - root.go: the root command, its one global flag (--verbose), the
//     checks before any command's body, and the helpers they share.
//   - flags.go: the flag conventions: the flag groups each command adds
//     where they apply (--format with the command's own values, the AWS
//     flags, --no-service-quotas, the cluster flags), their check before
//     the command's body, pflag's errors as one-line usage errors, and the
//     single-dash long flags accepted for compatibility.
//   - failon.go: --fail-on's one severity scale, and helm's grades on it.
//   - exit.go: the exit codes and the errors that carry them, the one parse
//     of a target group ARN and the check of a --target-group flag.
//   - cloud.go: the AWS accounts and the cluster client, from the flags,
//     through the loaders of the AWS configuration and the kubeconfig; the
//     SDK's log lines on the CLI's logger.
//   - cloudfail.go: an AWS failure told as what it is: an endpoint not
//     reached, or credentials rejected.
//   - inputs.go: the checks of the input every command runs before it
//     reads a kubeconfig or credentials, and --target-group's name or ARN
//     (a name resolved through DescribeTargetGroups, the Region taken from
//     an ARN).
//   - diagnose.go: diagnose.
//   - migrate.go: plan, execute and rollback.
//   - console.go: what plan, execute, rollback and the subnets commands
//     say to the operator: the result, the progress on stderr, the
//     confirmation prompt, the command line that resumes or rolls back.
//   - rbac.go: plan --rbac (the plan's Kubernetes rules as YAML to apply)
//     and the hint of a refused permission check.
//   - bind.go: bind.
//   - helm.go: helm check and helm fix.
//   - simulate.go: simulate: its flags and the world of one run.
//   - simulate_story.go: the story simulate tells in text.
//   - simulate_run.go: one strategy's run and what it measures; the
//     side-by-side rows run to one length.
//   - simulate_measure.go: a run's windows, in time order (not
//     simulate_windows.go: Go would build that file on Windows only).
//   - simulate_report.go: the run of simulate, its JSON report and tables.
//   - simulate_envelope.go: simulate --envelope: its runs (the sensitivity
//     per churn shape, then the grid of the knobs that change something,
//     every shape and seed, and phased worse than its plan assumes) and
//     their summaries.
//   - simulate_envelope_text.go: simulate --envelope in text.
//   - simulate_faults.go: simulate --scenario controller-faults.
//   - simulate_move.go: simulate --scenario private-subnets (step 4's move).
//   - simulate_campaign.go: simulate --scenario campaign: the fleet (the
//     test kit's tgmigratetest.Fleet and Apps: two accounts, three
//     clusters, twelve target groups), what it arranges (a namespace
//     without the readiness-gate label, a controller denied
//     RegisterTargets, an ALB near its quota), PlanCampaign, Execute on
//     the fleet's parallel clock (its live view once, through
//     campaign.StepTracker, as campaign run draws it), campaign.NewReport.
//     simulate_campaign_measure.go: its report and measures (windows,
//     the failures under way at each cutover's start, those lost after
//     it to the load balancer's target quota, settles, the settled
//     critical path, calls per account, peaks).
//     simulate_campaign_text.go: the flags it refuses, its text and
//     Markdown, its exit status.
//   - simulate_underway.go: which of phased's failures from Execute's
//     start no call at its start could have saved (failedUnderWayAtStart;
//     sim.World.UnderWayOf, which the campaign's rows count through
//     tgmigratetest's World.FailedUnderWay).
//   - subnets.go: subnets (step 4), its check and plan, and the checks of
//     their flags.
//   - subnets_move.go: subnets execute and subnets rollback: the dry run,
//     the progress, the journal and the resume and rollback command lines.
//   - subnets_env.go: what the subnets commands act through, from the
//     kubeconfig and the AWS flags.
//   - campaign.go: campaign (the parent) and campaign plan: the selection,
//     the clusters and their accounts, the plan options (checked through
//     campaign's own check of them), the plan printed and saved.
//   - campaign_run.go: campaign run: the checks of the plan, the clusters,
//     the accounts and the journal before any call, the dry run, each
//     wave's approval, the progress, the result, the exit code and the
//     command line that resumes; --permissions (what the run needs, as
//     campaign.ExecutePermissions gives it, with no call).
//   - campaign_status.go: campaign status (the progress from the journal
//     alone, or the report in markdown); campaign run's live view (redrawn
//     on the campaign's events and as each cutover step ends, the running
//     target groups' steps through campaign.StepTracker) and its --report
//     and --report-json files.
//   - campaign_env.go: the --cluster values (NAME[=CONTEXT][@ACCOUNT_ID])
//     and the --journal values (file:PATH, configmap:CLUSTER/NAMESPACE/NAME),
//     and the clients the campaign commands act through, per account and
//     per kubeconfig context (a seam the tests replace with a simulated
//     fleet's).
//
// Tests: main_test.go (the command in-process), readme_test.go (the
// README's transcripts), help_test.go (every command's --help against the
// conventions below), badinput_test.go (every bad input refused before
// any credential, kubeconfig or network call), one _test.go per subcommand
// or concern, and helm_cluster_integration_test.go on envtest.
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
//   - subnets check, plan, execute, rollback: step 4, the nodes to private
//     subnets (package subnets). check is read-only and exits 1 while a
//     finding blocks the move (text, json or markdown); plan checks too,
//     then prints the move and saves it with --out; execute and rollback
//     are dry runs unless --yes (or a confirmation on a terminal) that
//     check every object and list the writes; each step is journaled in a
//     ConfigMap (--namespace), so running execute or rollback again
//     resumes, and Ctrl-C prints the command lines that do; rollback may
//     start from the journal alone (--cluster-name).
//   - campaign plan, campaign run: a fleet's migration as one (package
//     campaign). plan is read-only: diagnose per account over the clusters
//     it serves (--cluster NAME[=CONTEXT][@ACCOUNT_ID], once per cluster:
//     one cluster at most may leave its context to --context or the
//     current context; the account is required when several
//     --assume-role are given), each
//     selected target group's cutover plan or why it cannot run yet
//     (--all, --target-group, --tag: one of them is required), the waves (a
//     canary wave first; --canary, --no-canary, --max-per-wave, --order),
//     the limits (--concurrency, --per-account, --per-cluster; campaign's
//     defaults unless given) and the estimate; --out saves it with its
//     digest. run runs that plan only (its digest checked), journaled in
//     --journal (file:PATH, or configmap:CLUSTER/NAMESPACE/NAME in one of
//     the clusters: any machine resumes from it); it is a dry run that
//     builds no client unless --yes; before each wave after the first it
//     asks on a terminal, approves with --approve-waves, and elsewhere
//     refuses the wave (exit 1, the resume line printed); its live view
//     on stderr is, on a terminal, the campaign's progress
//     (campaign.Status: per wave done, running, waiting, blocked, the ETA)
//     redrawn in place after each wave and target group started and
//     ended and each cutover step ended (campaign.StepTracker: the
//     running target groups' steps), elsewhere a line per such event; --report and --report-json
//     write the final report (campaign.NewReport); Ctrl-C
//     prints the command line that resumes (with --holder, so that the
//     resume takes this run's Leases back at once). run exits 0 when every
//     runnable target group is done, 1 when the campaign is not completed
//     (stopped, a wave not approved, blocked or skipped target groups), 3
//     when one failed (rolled back or not) or the error budget stopped it.
//     run --permissions prints, with no call, what the run needs as JSON
//     (campaign.ExecutePermissions: per account its IAM policy, per
//     cluster its RBAC rules, the journal ConfigMap's rules).
//   - campaign status: where a campaign stands from its journal alone, at
//     any time, from any machine (a ConfigMap journal's cluster through
//     its --cluster context; no AWS call): the progress in text or json,
//     or in markdown the report from the journal (campaign.ResultOf).
//   - simulate: the whole story on the embedded simulator (internal/sim),
//     with no AWS account and no cluster, and a side-by-side of the static,
//     naive-tgb and phased strategies, each in a world of its own from the
//     same seed (not the story's world); every plan at the product's
//     default assumptions; --envelope runs every churn shape and several
//     seeds over the AWS timings; --wire sends every ELBv2 call through the
//     real AWS SDK client; --scenario campaign plans and runs a campaign
//     (package campaign) over a fleet of two accounts, three clusters and
//     twelve target groups under churn instead, and reports each target
//     group's outcome and requests in its windows, the wall time against
//     the critical path, the calls per account and each load balancer's
//     peak of targets against its quota (text, json, or markdown: the
//     campaign's own report and the fleet's figures).
//
// # Flags
//
// Flags are written --name, and -x for the few short ones (-o for
// --format, -n for --namespace, -f for helm's --values, -v for --verbose),
// in help, messages and documents alike. Each command has only the flags
// that apply to it:
//
//   - --format: every command but helm (the parent), with the values that
//     command prints and no other: diagnose text, json or markdown; helm
//     check text, json or sarif; plan, execute, rollback, bind, helm fix
//     and simulate text or json (simulate --scenario campaign markdown
//     too). Any other value is a usage error, checked
//     before the command's body runs.
//   - the cluster flags, --kubeconfig and --context (client-go's loading
//     rules): diagnose, plan, execute, rollback, bind, and helm check and
//     helm fix (read only with --cluster).
//   - the AWS flags, --profile, --region (aws-sdk-go-v2/config) and
//     --assume-role (STS, one account each): diagnose, plan, execute,
//     rollback and bind; --no-service-quotas where ELBv2's quotas are
//     read: diagnose, plan, execute and rollback.
//   - simulate has neither: it calls no AWS account and no cluster.
//   - subnets check, plan, execute and rollback: --format (check text,
//     json or markdown; the others text or json), the cluster flags and
//     the AWS flags.
//   - campaign plan and campaign run: --format text or json, the cluster
//     flags (--kubeconfig holds every --cluster's context; --context is
//     the context of the one --cluster given without one), the AWS flags
//     and --no-service-quotas; campaign status: --format text, json or
//     markdown and the cluster flags.
//
// The kubeconfig and its context come through client-go's loading rules;
// AWS through aws-sdk-go-v2/config, its Region from --region, else the
// Region the --target-group ARN or the plan names, else the profile's.
// Every input is checked before either is read. --target-group takes a
// target group's name or its ARN.
//
// A long flag written with one dash, as Go's flag package reads it, is
// still accepted for old scripts, and never shown; a single-dash word that
// names no flag is a usage error naming it (unknown flag "-bogus").
//
// # Severities
//
// Every --fail-on reads one scale, worst first: critical, high, medium,
// low, info, and none (never exit 1). diagnose's findings are graded on it.
// helm check and helm fix grade coarser, as helmgov does: error (critical
// and high on the scale), warning (medium and low), info; so --fail-on
// high and critical stop on a helm error, medium and low on a warning too.
// helmgov's words are accepted by every --fail-on: error as high, warning
// as low (the bottom of its band, so that diagnose --fail-on warning stops
// on every finding a warning would cover).
//
// # Exit codes
//
// Every program in examples/ (tgmigrate, fleetreport, guardedmigration)
// exits with the same codes:
//
//	0  success: nothing at or above --fail-on, the operation completed
//	1  findings at or above --fail-on (or, for guardedmigration, a phase
//	   an operator refused: nothing failed, nothing of it ran)
//	2  a usage, configuration or input error: one line on stderr naming
//	   the flag, no stack trace, nothing changed
//	3  an operation that started and failed (or could not scan, in part)
package main
