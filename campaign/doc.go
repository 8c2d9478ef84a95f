// Package campaign plans a fleet's migration as one: the same cutover
// across AWS accounts, clusters and target groups, each target group
// with its own cutover plan (package cutover, its per-target-group
// safety whole), put in waves and run under the limits AWS and
// Kubernetes impose. [PlanCampaign] plans; [Execute] runs a plan, from
// one machine or several.
//
// # Files
//
//   - doc.go: this comment.
//   - input.go: [Input], [Account], [Cluster] and [Selection], and
//     their validation before any call.
//   - options.go: the options ([WithClock], [WithCanaryChooser],
//     [WithCanaries], [WithMaxPerWave], [WithConcurrency],
//     [WithPerAccount], [WithPerCluster], [WithAcceptPreconditions],
//     [WithDiagnoseOptions]), [ValidateOptions], the defaults and where
//     each comes from,
//     [Candidate], [CanaryChooser] and [FewestTargets].
//   - errors.go: [ErrInvalidInput], [InputError], [IsInvalidInput].
//   - plan.go: [PlanCampaign] and the [Plan]: [Entry], [Blocked] and
//     its [BlockReason]s, [Wave], [AccountRef], [ClusterRef].
//   - runs.go: diagnose's runs, one per account over the clusters it
//     serves. entries.go: an entry per selected target group, from its
//     handoff through cutover.PlanCutover, or blocked.
//   - waves.go: the canary wave and the waves after it.
//   - limits.go: [Limits], [LoadBalancerLimit], [LoadBalancerShare],
//     and [Limits.Admit], the one rule that starts an entry.
//     limits_churn.go: [ChurnRoom], the room a load balancer's quota
//     leaves churn after its cutovers, and its warning.
//   - estimate.go: [EstimateOf], the list-scheduling simulation,
//     [Estimate], [WaveEstimate], [Slot].
//   - plan_json.go: the ID, the digest, [Plan.Verify], [Plan.JSON],
//     [ParsePlan]. plan_text.go: [Plan.Text], in [TextColumns].
//   - permissions.go: [PlanIAMActions], [AccountIAMActions],
//     [ActionGetAPIGateway] and [PlanClusterRules].
//   - blast.go: the blast radius: [Exposure], [APIRoute],
//     [APIGatewayState], reading it per account, [WithOrder] and its
//     [Order]s, [LessExposed], the [LeastExposed] canary chooser, and
//     the exposure section of [Plan.Text]. blast_apigw.go:
//     [APIGatewayReadAPI], [KindAPI], [MaxAPIPages],
//     [APIGatewayRateLimit], and the paged, bounded API Gateway v2 reads.
//   - execute.go: [Execute], its options ([ExecuteOption]:
//     [WithErrorBudget], [WithApproval], [WithObserver], [WithWorkers],
//     [WithParallel], [WithPollInterval], [WithCutoverOptions],
//     [WithHook]), [ValidateExecuteOptions], [Observer], [Hook],
//     [StopError] and its [StopReason]s.
//   - env.go: [Env], [AccountEnv], [ClusterEnv], their validation
//     against the plan, and each entry's cutover.Env.
//   - scheduler.go: one runner's workers: the next action from the
//     campaign journal (the waves, their approvals, [Limits.Admit],
//     another runner's entries, the error budget), the journal's writes.
//   - runner.go: one entry's run: its Lease probed on a take-over, its
//     cutover resumed from its own journal, or re-planned (a stale plan)
//     and executed; the outcome by cutover.Classify.
//   - journal.go: the campaign journal: [JournalState], [EntryState]
//     and its [EntryStatus]es, [WaveState], the [Journal] interface,
//     [ConfigMapJournal] and [FileJournal].
//   - result.go: [Result], [EntryResult], [Totals], [Result.Text],
//     [Result.JSON], and [ResultOf], the result from the journal alone.
//   - progress.go: where a campaign stands, from its journal:
//     [Progress], [WaveProgress], [EntryProgress], [ApprovalState],
//     [ProgressOf], [Status], the ETA ([ETABasis], through estimate.go's
//     list scheduling), [Progress.JSON]. progress_text.go:
//     [Progress.Text], the live view, in [TextColumns].
//   - steps.go: [StepTracker] ([NewStepTracker]), each running entry's
//     cutover step ([StepProgress], EntryProgress.Step) from the cutover
//     observer it gives through [WithCutoverOptions] (composed with the
//     caller's own), and the progress naming it ([StepTracker.Progress],
//     [StepTracker.Status]).
//   - report.go: the final report: [Report], [AccountReport],
//     [ClusterReport], [TargetGroupReport], [NextStep], [TrafficCount],
//     [TrafficMeter], [NewReport], [ReportOption], [WithTraffic],
//     [ReportSchema] (the embedded schema/report.v1.json),
//     [Report.JSON]. report_markdown.go: [Report.Markdown].
//   - execute_permissions.go: [ExecutePermissions], [Permissions] (per
//     account an IAM policy, per cluster RBAC) and [JournalClusterRules].
//
// Examples: example_test.go ([PlanCampaign] on the test kit's fleet),
// example_execute_test.go ([Execute] on it) and example_report_test.go
// ([NewReport] after an Execute, with [Status] read as entries end);
// each copies alone into another module (hack/examplecopy).
//
// # Calls, in order
//
//	in := campaign.Input{
//		Accounts:  []campaign.Account{{ID: "111111111111", Region: "eu-west-1", ELBv2: elbA, ServiceQuotas: sqA, APIGateway: apigwA}, ...},
//		Clusters:  []campaign.Cluster{{Name: "prod-a", Reader: kcA, VPCID: vpcA, AccountID: "111111111111"}, ...},
//		Selection: campaign.Selection{All: true},
//	}
//	plan, err := campaign.PlanCampaign(ctx, in, campaign.WithMaxPerWave(10))
//	fmt.Print(plan.Text())        // or plan.JSON(); ParsePlan reads it back, digest checked
//	journal, err := campaign.NewConfigMapJournal(kcA, "tgmigrate", "campaign-"+plan.ID)
//	env := campaign.Env{Journal: journal, Holder: "laptop-1",
//		Accounts: []campaign.AccountEnv{{ID: "111111111111", Region: "eu-west-1", ELBv2: elbRW_A}, ...},
//		Clusters: []campaign.ClusterEnv{{Name: "prod-a", Client: kcA}, ...}}
//	res, err := campaign.Execute(ctx, env, plan, campaign.WithErrorBudget(1), campaign.WithApproval(ask))
//	fmt.Print(res.Text())         // or res.JSON()
//	pr, err := campaign.Status(ctx, plan, journal, time.Now()) // at any time, from any machine
//	fmt.Print(pr.Text())          // or pr.JSON()
//	res, err = campaign.ResultOf(ctx, plan, journal)          // later, elsewhere: no calls
//	rep, err := campaign.NewReport(plan, res, campaign.WithTraffic("cloudwatch", meter))
//	fmt.Print(rep.Markdown())     // or rep.JSON(), valid against campaign.ReportSchema()
//
// # Planning
//
// [PlanCampaign] validates the input and the options before any call:
// an [*InputError] names the field ("Input.Clusters[1].Reader",
// "WithPerAccount"); nil and typed-nil clients are refused. It then runs
// diagnose.Diagnose once per account, over the clusters that account
// serves ([Cluster].AccountID): every account and every cluster is read
// once, and diagnose weighs as the owner of a target group's targets
// only the clusters whose target groups its account holds. (The test
// kit's fleet gives every world one VPC and one address space: a single
// run over all of them would call every target foreign.) The
// selection's ARNs go to their account's run, its names and tags to
// every run; a name found in no account is one of [Plan].Errors.
//
// Each target group diagnose reports becomes an [Entry]. One whose
// finding's next call is cutover.PlanCutover with a handoff is planned:
// cutover.RequestFrom, the cluster's Assumptions, then
// cutover.PlanCutover with a cutover.ReadEnv of the handoff's cluster
// and that cluster's account. Every other one is blocked ([Blocked]),
// with its [BlockReason] and diagnose's next call or PlanCutover's
// error: [ReasonUnread] (diagnose could not read it), [ReasonManual] (a
// manual finding: a quota to raise, a weighted forward),
// [ReasonNoHandoff] (PlanCutover, but diagnose could not infer the
// Service or the port), [ReasonNotCluster] (outside the clusters, or in
// another account than its cluster's), [ReasonNoCutover] (nothing to
// cut over: the controller owns it already), [ReasonPrecondition] (its
// plan has a precondition not accepted with [WithAcceptPreconditions];
// the plan is kept), [ReasonQuota] (PlanCutover's cutover.QuotaError: no
// bound fits), [ReasonPlanError] (any other PlanCutover error). One
// target group that cannot run never fails the plan; only a cancelled
// context, an input error or a diagnose run that fails as a whole does.
// With Selection.All, target groups diagnose finds no cutover for are
// left out.
//
// PlanCampaign is read-only by type: it takes a tgmigrate.ELBv2ReadAPI,
// a client.Reader, a read-only Service Quotas client and a read-only API
// Gateway client, and nothing it calls takes more. What it needs is
// data: [PlanIAMActions] (ELBv2's Describe* and the Service Quotas
// reads; [AccountIAMActions] adds apigateway:GET where API Gateway is
// read) and [PlanClusterRules]
// (diagnose's listings and PlanCutover's Plan.Reads; a test checks every
// call and read of a plan against them). What Execute needs is
// [ExecutePermissions]: each cutover plan's policy and rules, and more.
//
// # Blast radius
//
// Each entry records what reaches its target group ([Entry].Exposure):
// the listener rules that forward to it, weighted forwards included,
// each with its load balancer, listener (protocol and port), priority
// and conditions (host, path...), taken from what diagnose read
// (TargetGroupReport.Routes: no second read of listeners or rules); and,
// in an account given an [Account].APIGateway, the API Gateway HTTP API
// routes that reach one of those listeners: an integration of
// ConnectionType VPC_LINK whose IntegrationUri is the listener's ARN,
// and every route whose target is that integration. A request on such a
// route reaches the listener, whose rules may forward it to any of the
// target groups it names: the route counts for each of them. The reads
// (GetApis, then GetIntegrations of each HTTP API, then GetRoutes of
// those with such an integration) are paged by NextToken, bounded by
// [MaxAPIPages] per listing, paced by [APIGatewayRateLimit] and retried
// on throttling; they are read-only by type ([APIGatewayReadAPI]) and
// need [ActionGetAPIGateway] ([AccountIAMActions]). A refusal (access
// denied, throttling to the end, the bound) is one of Plan.Errors and
// the account's entries' Exposure.APIGateway ([APIGatewayRefused],
// [APIGatewayPartial]); it never fails the plan. Without a client the
// state is empty: routes not read. WebSocket APIs and REST APIs (API
// Gateway v1, whose VPC links reach NLBs by DNS name, not by listener)
// are not read: an NLB behind a REST API's VPC link shows no route.
//
// # Waves
//
// The runnable entries run in [Wave]s: first a canary wave, by default
// each cluster's runnable target group with the fewest targets
// ([FewestTargets]; [WithCanaryChooser] for another rule, [WithCanaries]
// for an explicit list, none for no canary wave), then the rest, longest
// first (or least exposed first with [WithOrder]([LeastExposedFirst]):
// fewest API routes, then fewest listener rules, then fewest targets
// ([LessExposed]); its default canary chooser is then [LeastExposed]),
// in one wave or in waves of at most [WithMaxPerWave]. Between
// two waves is an approval point (Wave.Approval): the scheduler asks
// once the wave before has ended; the plan only records it.
//
// # Limits
//
// [Limits] are data on the plan, each with where it comes from
// (Limits.Sources): at most [DefaultConcurrency] cutovers at once
// ([WithConcurrency]); [DefaultPerAccount] in one account and Region
// ([WithPerAccount]), which share its ELBv2 API rate (a running cutover
// polls once per cutover.DefaultPollInterval; four of them stay at a
// tenth of diagnose.DefaultRateLimit, itself under the Describe* bucket
// AWS documents); [DefaultPerCluster] in one cluster ([WithPerCluster]).
//
// And per load balancer ([LoadBalancerLimit]): while a cutover's node
// and pod targets are both registered, its load balancer counts both
// against its quota on targets, beside its other target groups'. From
// each cutover plan's count (cutover.QuotaPlan.Headroom on that load
// balancer), the limit records the quota, the targets now, what the
// cutovers leave behind once done (Growth), and the room the overlaps
// share (Budget); each target group's share is what its overlap adds
// (Demand). Overlaps may run at once while their demands fit Budget
// together; a plan that bounds its overlap (QuotaPlan.Bounded, it fills
// the whole room) or whose demand alone passes Budget runs alone on the
// load balancer. MaxConcurrent and Reason say the bound in one line.
// [Limits.Admit] is the one rule: it says whether an entry may start
// beside those running, or which limit holds it back.
//
// Once its cutovers are done the load balancer's target groups are the
// controller's, and churn's draining targets count against the same
// quota: every pod Karpenter replaces leaves its target draining for
// its target group's deregistration delay. LoadBalancerLimit.ChurnRoom
// ([ChurnRoom]) records the targets the cutovers leave on it (Now +
// Growth), the room left then (Budget), its pods (each share's Pods,
// the Service's ready endpoints its plan counted) and their delays
// (each share's DeregistrationDelaySeconds). When the room is smaller
// than the pods, one rotation of them within the delay cannot drain
// without ELBv2 refusing the controller's registrations
// (TooManyTargets): ChurnRoom.Short, and a warning under the limit's
// line in [Plan.Text] with the next step (a higher quota, a shorter
// deregistration delay, or a target group on another load balancer).
// It warns and bounds nothing: the cutovers themselves fit. The
// digest covers it; absent (omitted when empty) from a plan sealed
// before it existed, whose digest stays the same.
//
// # Estimate
//
// [EstimateOf] is a pure function (no clock): the waves in sequence,
// each starting when the one before has ended (approvals take no time);
// within a wave, list scheduling in the wave's order under
// [Limits.Admit], each cutover taking its own plan's floor
// (Estimate.FloorSeconds). It gives each entry its expected start and
// end (Entry.StartSeconds, EndSeconds), each wave's, the total (the
// critical path through the waves), the serial sum, and the chain of
// cutovers the total rests on (Estimate.CriticalPath).
//
// # Digest and encoding
//
// A [Plan] has a schema version ([PlanSchemaVersion]), an ID
// deterministic from its accounts, clusters and target groups, and a
// digest over its whole JSON, every cutover plan (with its own digest)
// included: the same input at the same moment gives the same digest,
// and any change another. [Plan.JSON] writes it; [ParsePlan] refuses an
// unknown version or field, a malformed ARN, a cutover plan that is not
// as it was sealed (cutover.ParsePlan), waves that do not fit the
// entries, and a digest that does not match; [Plan.Verify] checks a plan
// in memory the same way, so that a scheduler runs only the plan that
// was approved. [Plan.Text] prints it within [TextColumns].
//
// # Execute
//
// [Execute] runs a plan: it refuses an edited plan ([Plan.Verify]), then
// a bad [Env] or option (an [*InputError] naming the field; nil and
// typed-nil clients refused), before any call. Each runnable entry runs
// through cutover.Execute with cutover's own journal and Lease (a
// ConfigMap and a Lease in the binding's namespace, as cutover keeps
// them); the scheduler starts entries wave by wave, a wave once the one
// before has ended and its approval is given ([WithApproval]; a refusal
// stops with [StopNotApproved], and a later Execute asks again), and in
// a wave each entry in order that [Limits.Admit], the estimate's own
// rule, lets start beside the running ones of every runner. Blocked
// entries are never run, and the result lists them.
//
// The campaign journal ([Journal]: [ConfigMapJournal] in a chosen
// cluster and namespace, or [FileJournal] for one machine) is versioned
// JSON naming the plan's ID and digest ([JournalState]): each entry's
// [EntryStatus] (pending, running with its holder, done, failed with
// cutover.Classify's disposition, rolled back, blocked, skipped), its
// attempts, times on the injected clock, re-plan and cutover summary,
// and each wave's approval. Writes are optimistic (a resourceVersion, a
// revision): a write lost to another runner's is read again and
// retried. Execute resumes from it: done entries are not run again; a
// running one goes on from its cutover journal (cutover.Resume).
//
// Before an entry starts, its cutover plan is made again with its
// request (cutover.PlanCutover). A plan whose run would differ (its
// targets, floor, binding, health check, quota count, blue/green part or
// preconditions) is stale: when the new one keeps the target group, the
// Service and the strategy and has no unaccepted precondition, it is
// recorded (EntryState.Replan) and run; else the entry is blocked with
// the reason. A plan that did not change runs as approved.
//
// A failed cutover is rolled back by cutover itself (its automatic
// rollback follows cutover.ShouldRollback) and the others go on; once
// more entries failed than the error budget allows ([WithErrorBudget],
// [DefaultErrorBudget] 0), no entry starts any more: the running ones
// finish, the pending ones are skipped, and Execute returns a
// [*StopError] of [StopBudget]. A cancelled context stops the scheduling
// and the running cutovers (cutover stops on cancellation, resumable),
// the journal records the stop, and Execute returns a [*StopError] of
// [StopCancelled]; Execute again resumes.
//
// Several runners (Env.Holder: one identity each) may run one plan on
// one ConfigMap journal at once, from several machines. An entry is
// claimed in the journal, then run under its cutover Lease: each runs
// once. A running entry of another runner is left alone for a Lease's
// duration from its claim (cutover.DefaultLeaseDuration), then its
// Lease is asked: held (cutover.LockedError), it is looked at again
// when the Lease would expire; expired (its runner died), it is taken
// over and resumed from its cutover journal. A runner whose own
// identity is on a running entry (a restart) takes it back at once.
//
// [Result] is read from the journal (every runner's entries) with this
// runner's ELBv2 calls per account; [Result.Text] fits [TextColumns],
// [Result.JSON] is versioned ([ResultSchemaVersion]). An [Observer] sees
// each wave and entry start and end, for a live view. [WithParallel]
// runs the workers (a simulated fleet's Fleet.Parallel, so that their
// waits overlap in virtual time and a run repeats exactly); [WithHook] is the crash point of the
// tests. What Execute needs is data: [ExecutePermissions].
//
// # Progress and report
//
// [Status] loads the campaign journal and [ProgressOf] says where the
// campaign stands at a given time (the caller's clock): per wave its
// approval ([ApprovalState]) and its entries counted by status (the
// [Totals] type), the entries running, failed and blocked with their
// holder, since when, reason and next call, and the ETA. The ETA is an
// estimate from the plan's per-entry estimates (each cutover plan's
// floor), not a measurement: the entries not ended, scheduled by the
// list scheduling of [EstimateOf] (the same code), each running one for
// what its estimate leaves after its start. [Progress.Text] is a live
// view in [TextColumns]: a header line, a line per wave, a line per
// running, failed or blocked entry; a CLI redraws it after each
// [Observer] event and `campaign status` prints it once.
//
// [NewReport] makes the final report from the plan and a [Result]
// (Execute's, or [ResultOf]'s from the journal alone, which has no
// calls: the report says they were not recorded): the wall time against
// the plan's critical path, the totals, and per account (with its ELBv2
// calls), cluster and target group the outcome, the cutover's summary,
// the failure, the block reason and next call, the exposure, and, with
// [WithTraffic] (a [TrafficMeter]: one line to adapt a simulator's or
// the user's measure), the requests it served in its cutover window
// [StartedAt, FinishedAt]; "not measured" otherwise. [Report.JSON] is
// valid against [ReportSchema]; [Report.Markdown] is for a ticket.
package campaign
