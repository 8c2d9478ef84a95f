package main

// migrate.go: the plan, execute and rollback subcommands: their flags, the
// cutover.Env and the preconditions (console.go prints their progress and
// result).

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/textcell"
)

type planFlags struct {
	targetGroup, namespace, service, port string
	strategy                              string
	minHealthy                            int
	expectAccount, expectRegion           string
	force                                 []string
	clusterName, clusterVPC               string
	out                                   string
	iamPolicy, controllerPolicy           bool
	leaveSecurityGroups                   bool
	rbac                                  bool
	rbacSubjects                          []string
}

func (a *app) planCommand() *cobra.Command {
	f := &planFlags{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Read-only: plan the cutover of a target group to LBC-managed pod targets",
		Long: `plan inspects the target group and the cluster and prints the cutover plan:
the strategy (in-place for ip target groups, blue/green for instance ones),
the guards, the targets it will deregister, every step with its preconditions,
effect, rollback and API calls, and the estimated duration. It changes
nothing. Save it with --out and carry it out with "tgmigrate execute".`,
		Example: `  tgmigrate plan --target-group arn:aws:elasticloadbalancing:...:targetgroup/legacy-web/0123456789abcdef \
      -n shop --service web --port http --out plan.json
  tgmigrate plan ... --iam-policy > policy.json
  tgmigrate plan ... --rbac --rbac-subject serviceaccount:ops/tgmigrate | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runPlan(cmd.Context(), f) }),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.targetGroup, "target-group", "", "the target group: its name or its ARN, whose Region is then the default of --region (required)")
	fl.StringVarP(&f.namespace, "namespace", "n", "", "the Service's namespace (required)")
	fl.StringVar(&f.service, "service", "", "the Service whose pods take over (required)")
	fl.StringVar(&f.port, "port", "", "the Service port, by name or number (default: its only port)")
	fl.StringVar(&f.strategy, "strategy", "", "force a strategy: in-place or blue-green (default: from the target type)")
	fl.IntVar(&f.minHealthy, "min-healthy", 0, "the floor of healthy targets during the cutover: 0 or more (default 0: the healthy node targets, capped by the ready endpoints)")
	fl.StringVar(&f.expectAccount, "expect-account", "", "refuse a target group in another account (12 digits)")
	fl.StringVar(&f.expectRegion, "expect-region", "", "refuse a target group in another region")
	fl.StringSliceVar(&f.force, "force", nil, "override guards: foreign-owner, vpc-mismatch, account-mismatch")
	fl.StringVar(&f.clusterName, "cluster-name", "", "the cluster's name as the LBC tags it (elbv2.k8s.aws/cluster)")
	fl.StringVar(&f.clusterVPC, "cluster-vpc", "", "the cluster's VPC ID, for the VPC guard")
	fl.StringVar(&f.out, "out", "", "also write the plan as JSON to this file")
	fl.BoolVar(&f.iamPolicy, "iam-policy", false, "print the least-privilege IAM policy for the plan instead of the plan")
	fl.BoolVar(&f.controllerPolicy, "controller-policy", false, "print what the AWS Load Balancer Controller's IAM role needs for the plan's binding instead of the plan (ec2:DescribeVpcs and DescribeSecurityGroups, which it reads before it registers)")
	fl.BoolVar(&f.rbac, "rbac", false, "print the Kubernetes Role and ClusterRole execute and rollback of the plan need, as YAML to apply (with --format json: the rules and their reasons), instead of the plan")
	fl.StringSliceVar(&f.rbacSubjects, "rbac-subject", nil, "with --rbac, also print the RoleBinding and ClusterRoleBinding for this subject: serviceaccount:NAMESPACE/NAME, user:NAME or group:NAME (repeatable)")
	fl.BoolVar(&f.leaveSecurityGroups, "leave-security-groups", false, "when the load balancer's security groups cannot reach the pods' port, record a precondition naming the missing rule instead of having the controller open it (spec.networking)")
	a.addCutoverFlags(cmd)
	return cmd
}

// request is plan's check of its input, before any kubeconfig or
// credentials are looked for: every flag's shape and range, and the
// --target-group, a name or an ARN (whose Region becomes cloud's when
// --region is absent). The request's TargetGroupARN is the zero ARN when
// the returned reference is a name, which runPlan resolves.
func (f *planFlags) request(cloud *cloudFlags) (cutover.Request, tgRef, error) {
	switch {
	case f.targetGroup == "":
		return cutover.Request{}, tgRef{}, usagef("--target-group is required")
	case f.namespace == "" || f.service == "":
		return cutover.Request{}, tgRef{}, usagef("--namespace and --service are required")
	case f.iamPolicy && f.controllerPolicy, f.rbac && (f.iamPolicy || f.controllerPolicy):
		return cutover.Request{}, tgRef{}, usagef("--iam-policy, --controller-policy and --rbac: give one")
	case len(f.rbacSubjects) > 0 && !f.rbac:
		return cutover.Request{}, tgRef{}, usagef("--rbac-subject goes with --rbac")
	}
	ref, err := parseTargetGroupRef("--target-group", f.targetGroup)
	if err != nil {
		return cutover.Request{}, tgRef{}, err
	}
	for _, err := range []error{
		checkNamespace(f.namespace), checkService(f.service), checkPort(f.port),
		checkVPC(f.clusterVPC), cloud.takeRegion("--target-group", ref.ARN),
	} {
		if err != nil {
			return cutover.Request{}, tgRef{}, err
		}
	}
	req, err := f.requestOf(ref.ARN)
	if err != nil {
		return req, ref, err
	}
	return req, ref, f.checkRequest(req, ref)
}

// requestOf is the cutover request of the flags, for the target group tg.
func (f *planFlags) requestOf(tg tgmigrate.ARN) (cutover.Request, error) {
	req := cutover.Request{
		TargetGroupARN: tg, Namespace: f.namespace, Service: f.service,
		Strategy: cutover.Strategy(f.strategy), MinHealthy: f.minHealthy,
		AccountID: f.expectAccount, Region: f.expectRegion, LeaveSecurityGroups: f.leaveSecurityGroups,
	}
	switch req.Strategy {
	case cutover.StrategyAuto, cutover.StrategyInPlace, cutover.StrategyBlueGreen:
	default:
		return req, usagef("--strategy %q: want in-place or blue-green", f.strategy)
	}
	if f.port != "" {
		req.Port = intstr.Parse(f.port)
	}
	for _, force := range f.force {
		switch fc := cutover.Force(force); fc {
		case cutover.ForceForeignOwner, cutover.ForceVPCMismatch, cutover.ForceAccountMismatch:
			req.Force = append(req.Force, fc)
		default:
			return req, usagef("--force %q: want foreign-owner, vpc-mismatch or account-mismatch", force)
		}
	}
	return req, nil
}

// cutoverEnv builds the environment of plan, execute and rollback.
func (a *app) cutoverEnv(ctx context.Context, clusterName, clusterVPC string) (cutover.Env, error) {
	if a.newCutoverEnv != nil {
		return a.newCutoverEnv(ctx, clusterName, clusterVPC)
	}
	kc, err := a.cluster()
	if err != nil {
		return cutover.Env{}, err
	}
	accounts, err := a.accounts(ctx)
	if err != nil {
		return cutover.Env{}, err
	}
	if len(accounts) != 1 {
		return cutover.Env{}, usagef("a cutover works in one account: pass at most one --assume-role")
	}
	env := cutover.Env{
		ELBv2: elbv2.NewFromConfig(accounts[0].Config), EC2: ec2.NewFromConfig(accounts[0].Config), Client: kc.Client, Discovery: kc.Discovery,
		Logger: a.log, ClusterName: clusterName, ClusterVPCID: clusterVPC,
	}
	if !a.noServiceQuotas {
		env.ServiceQuotas = servicequotas.NewFromConfig(accounts[0].Config)
	}
	return env, nil
}

func (a *app) runPlan(ctx context.Context, f *planFlags) error {
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: plan prints text or json", a.format)
	}
	req, ref, err := f.request(&a.cloud)
	if err != nil {
		return err
	}
	subjects, err := parseSubjects(f.rbacSubjects)
	if err != nil {
		return err
	}
	env, err := a.cutoverEnv(ctx, f.clusterName, f.clusterVPC)
	if err != nil {
		return err
	}
	if req.TargetGroupARN, err = ref.resolve(ctx, env.ELBv2, "--target-group", "the AWS configuration's account and Region"); err != nil {
		return err
	}
	plan, err := cutover.PlanCutover(ctx, env, req)
	if err != nil {
		if cutover.IsInvalidInput(err) || cutover.IsGuard(err) || cutover.IsStrategy(err) {
			return asUsage(err)
		}
		return err
	}
	if f.out != "" {
		data, err := plan.JSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.out, append(data, '\n'), 0o600); err != nil {
			return usagef("--out: %v", err)
		}
	}
	if f.rbac {
		return a.printRBAC(plan, subjects)
	}
	if f.iamPolicy || f.controllerPolicy {
		policy := plan.IAMPolicy
		if f.controllerPolicy {
			policy = plan.ControllerPolicy
		}
		p, err := policy()
		if err != nil {
			return err
		}
		data, err := p.JSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(a.stdout, string(data))
		return err
	}
	if a.format == "json" {
		data, err := plan.JSON()
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(a.stdout, string(data))
		return err
	}
	a.preconditionHint(plan)
	_, err = fmt.Fprint(a.stdout, plan.Text())
	return err
}

type runFlags struct {
	plan                    string
	yes                     bool
	stopAfter               string
	allowNonPod             bool
	accept                  []string
	replaceFirst            bool
	journalFile             string
	clusterName, clusterVPC string
	// rollback from the journal alone
	targetGroup, namespace string
}

// addCutoverFlags adds to plan, execute and rollback the flags of the
// cutover's environment: --format (text or json), the cluster's, AWS's and
// --no-service-quotas.
func (a *app) addCutoverFlags(cmd *cobra.Command) {
	a.addFormatFlag(cmd, "text", "json")
	a.addClusterFlags(cmd)
	a.addAWSFlags(cmd)
	a.addServiceQuotasFlag(cmd)
}

func (f *runFlags) common(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.plan, "plan", "", "the plan file written by \"tgmigrate plan --out\"")
	fl.BoolVar(&f.yes, "yes", false, "really do it (default: print what would happen; on a terminal, ask)")
	fl.StringVar(&f.journalFile, "journal-file", "", "keep the journal in this file (default: a ConfigMap in the binding's namespace)")
	fl.StringVar(&f.clusterName, "cluster-name", "", "the cluster's name as the LBC tags it (elbv2.k8s.aws/cluster)")
	fl.StringVar(&f.clusterVPC, "cluster-vpc", "", "the cluster's VPC ID, for the VPC guard")
}

func (a *app) executeCommand() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "execute",
		Short: "Carry out a saved plan (a dry run unless --yes or confirmed); resumes from its journal",
		Long: `execute carries out a plan saved by "tgmigrate plan --out": it checks the
invariants before every destructive call, saves its journal after every step
and batch, holds a Lease on the target group, and rolls back by itself when an
invariant breaks. Without --yes it prints the plan and changes nothing (on a
terminal it asks first). Run it again after an interruption to resume.`,
		Example: `  tgmigrate execute --plan plan.json          # dry run
  tgmigrate execute --plan plan.json --yes`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runExecute(cmd, f) }),
	}
	f.common(cmd)
	a.addCutoverFlags(cmd)
	cmd.Flags().StringVar(&f.stopAfter, "stop-after", "", "pause after this step (resume with another execute)")
	cmd.Flags().BoolVar(&f.allowNonPod, "allow-non-pod-targets", false, "let the verification pass, with a warning, when the target group holds targets that are not the Service's pods (they are never removed)")
	cmd.Flags().StringSliceVar(&f.accept, "accept-preconditions", nil, "carry out a plan whose preconditions of these kinds do not hold (pod-settings: the Service's pods lack a safe preStop, grace period, readiness gate or PodDisruptionBudget; security-group: the load balancer cannot reach the pods' port and the plan was made with --leave-security-groups; forceful-disruption: nodes of the target group's node targets expire during the run, and Karpenter disrupts them whatever the hold); the plan names them")
	cmd.Flags().BoolVar(&f.replaceFirst, "replace-first", false, "accept a forceful-disruption precondition by replacing those nodes before the cutover: their targets are deregistered, the deregistration lag waited out, then their NodeClaims deleted so that Karpenter replaces them (needs delete on nodeclaims.karpenter.sh)")
	return cmd
}

// preconditionKinds turns --accept-preconditions into the kinds it names.
func preconditionKinds(names []string) ([]cutover.PreconditionKind, error) {
	var out []cutover.PreconditionKind
	for _, n := range names {
		switch k := cutover.PreconditionKind(n); k {
		case cutover.PreconditionPodSettings, cutover.PreconditionSecurityGroup, cutover.PreconditionForcefulDisruption:
			out = append(out, k)
		default:
			return nil, usagef("--accept-preconditions %q: want %s, %s or %s", n, cutover.PreconditionPodSettings, cutover.PreconditionSecurityGroup, cutover.PreconditionForcefulDisruption)
		}
	}
	return out, nil
}

// preconditionHint tells the operator, on stderr, what a plan's
// preconditions mean for execute.
func (a *app) preconditionHint(plan *cutover.Plan) {
	for _, pc := range plan.Preconditions {
		var settings []string
		for _, c := range pc.Settings {
			settings = append(settings, string(c.Setting))
		}
		if pc.Rule != nil {
			settings = append(settings, "missing "+pc.Rule.String())
		}
		for _, n := range pc.Nodes {
			settings = append(settings, fmt.Sprintf("node %s expires at %s", n.Node, n.At.UTC().Format(time.RFC3339)))
		}
		if pc.Kind == cutover.PreconditionForcefulDisruption {
			fmt.Fprintf(a.stderr, "precondition %s (%s): execute refuses this plan unless --replace-first (they are replaced before the cutover) or --accept-preconditions %s\n",
				pc.Kind, strings.Join(settings, ", "), pc.Kind)
			continue
		}
		fmt.Fprintf(a.stderr, "precondition %s (%s): execute refuses this plan unless --accept-preconditions %s; better, fix it and plan again\n",
			pc.Kind, strings.Join(settings, ", "), pc.Kind)
	}
}

func (a *app) rollbackCommand() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "rollback",
		Short: "Return a target group to working node targets, from any point of a cutover",
		Long: `rollback registers the nodes alive now on their NodePort, waits until they are
healthy, deletes the binding (in multi-cluster mode the LBC then removes only
its pod targets) and restores the health check; for blue/green the weights go
back to the old target group first. It starts from a plan file, or, when the
plan is gone, from the journal ConfigMap (--target-group and --namespace).`,
		Example: `  tgmigrate rollback --plan plan.json --yes
  tgmigrate rollback --target-group arn:aws:...:targetgroup/legacy-web/0123456789abcdef -n shop --yes`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runRollback(cmd, f) }),
	}
	f.common(cmd)
	a.addCutoverFlags(cmd)
	cmd.Flags().StringVar(&f.targetGroup, "target-group", "", "without --plan: the target group whose journal to roll back, by name or ARN")
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "without --plan: the binding's namespace, where the journal is")
	return cmd
}

func readPlan(path string) (*cutover.Plan, error) {
	if path == "" {
		return nil, usagef("--plan is required")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--plan: %v", err)
	}
	plan, err := cutover.ParsePlan(data)
	if err != nil {
		return nil, usagef("--plan %s: %v", path, err)
	}
	return plan, nil
}

func (a *app) runExecute(cmd *cobra.Command, f *runFlags) error {
	ctx := cmd.Context()
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: execute prints text or json", a.format)
	}
	plan, err := readPlan(f.plan)
	if err != nil {
		return err
	}
	if f.stopAfter != "" && plan.Step(f.stopAfter) == nil {
		return usagef("--stop-after %q: the plan's steps are %s", f.stopAfter, strings.Join(plan.StepIDs(), ", "))
	}
	accepted, err := preconditionKinds(f.accept)
	if err != nil {
		return err
	}
	if err := f.check(&a.cloud, plan); err != nil {
		return err
	}
	journal, err := fileJournal(f.journalFile)
	if err != nil {
		return err
	}
	if !f.yes {
		fmt.Fprint(a.stdout, plan.Text())
		ok, err := a.confirm(plan.TargetGroup.Name)
		if err != nil || !ok {
			fmt.Fprintln(a.stderr, "dry run: nothing was changed; pass --yes to execute")
			return err
		}
	}
	env, err := a.cutoverEnv(ctx, f.clusterName, f.clusterVPC)
	if err != nil {
		return err
	}
	opts := []cutover.Option{cutover.WithObserver(a.progress())}
	if f.stopAfter != "" {
		opts = append(opts, cutover.WithStopAfter(f.stopAfter))
	}
	if f.allowNonPod {
		opts = append(opts, cutover.WithAllowNonPodTargets(true))
	}
	if len(accepted) > 0 {
		opts = append(opts, cutover.WithAcceptPreconditions(accepted...))
	}
	if f.replaceFirst {
		opts = append(opts, cutover.WithReplaceFirst())
	}
	if journal != nil {
		opts = append(opts, cutover.WithJournal(journal))
	}
	res, err := cutover.Execute(ctx, env, plan, opts...)
	if err != nil {
		if ctx.Err() != nil || cutover.IsInterrupted(err) {
			fmt.Fprintf(a.stderr, "\ninterrupted; the journal holds the progress.\n  resume:    %s\n  roll back: %s\n",
				rerunCommand(cmd, "execute", "stop-after"), rerunCommand(cmd, "rollback"))
		}
		if cutover.IsNonPodTargets(err) {
			fmt.Fprintf(a.stderr, "\nthe target group holds targets that are not the Service's pods; they were left in place and nothing was rolled back.\n  remove them, then: tgmigrate execute --plan %s --yes\n  or keep them:      tgmigrate execute --plan %s --yes --allow-non-pod-targets\n", f.plan, f.plan)
		}
		if res != nil {
			_ = a.printResult(res)
		}
		if cutover.IsPrecondition(err) {
			a.preconditionHint(plan)
		}
		if cutover.IsPermission(err) {
			a.permissionHint(plan)
		}
		if cutover.IsPlanMismatch(err) || cutover.IsLocked(err) || cutover.IsInvalidInput(err) || cutover.IsPrecondition(err) || cutover.IsPermission(err) {
			return asUsage(err)
		}
		return err
	}
	return a.printResult(res)
}

func (a *app) runRollback(cmd *cobra.Command, f *runFlags) error {
	ctx := cmd.Context()
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: rollback prints text or json", a.format)
	}
	var src cutover.Source
	var plan *cutover.Plan
	var ref tgRef
	var err error
	switch {
	case f.plan != "":
		if plan, err = readPlan(f.plan); err != nil {
			return err
		}
		src = plan
	case f.targetGroup != "" && f.namespace != "":
		if ref, err = parseTargetGroupRef("--target-group", f.targetGroup); err != nil {
			return err
		}
		if err := checkNamespace(f.namespace); err != nil {
			return err
		}
	default:
		return usagef("give --plan, or --target-group and --namespace to roll back from the journal")
	}
	if err := f.check(&a.cloud, plan); err != nil {
		return err
	}
	if err := a.cloud.takeRegion("--target-group", ref.ARN); err != nil {
		return err
	}
	journal, err := fileJournal(f.journalFile)
	if err != nil {
		return err
	}
	if !f.yes {
		what := f.targetGroup
		if plan != nil {
			what = plan.TargetGroup.Name
		}
		ok, err := a.confirm(what)
		if err != nil || !ok {
			fmt.Fprintln(a.stderr, "dry run: nothing was changed; pass --yes to roll back")
			return err
		}
	}
	env, err := a.cutoverEnv(ctx, f.clusterName, f.clusterVPC)
	if err != nil {
		return err
	}
	opts := []cutover.Option{cutover.WithObserver(a.progress()), cutover.WithReason("operator: tgmigrate rollback")}
	// inspect reads the journal the rollback will resume from.
	var inspect func(context.Context) (*cutover.State, error)
	switch {
	case journal != nil:
		opts = append(opts, cutover.WithJournal(journal))
		inspect = journal.Inspect
		if src == nil {
			st, err := journal.Inspect(ctx)
			if err != nil {
				return asUsage(err)
			}
			src = st
		}
	case src == nil:
		tg, err := ref.resolve(ctx, env.ELBv2, "--target-group", "the AWS configuration's account and Region")
		if err != nil {
			return err
		}
		j, err := cutover.NewConfigMapJournal(env.Client, cutover.ConfigMapJournalOptions{Namespace: f.namespace, TargetGroupARN: tg})
		if err != nil {
			return asUsage(err)
		}
		st, err := j.Inspect(ctx)
		if err != nil {
			if cutover.IsNoJournal(err) {
				return usagef("no journal for %s in namespace %s: nothing to roll back from", f.targetGroup, f.namespace)
			}
			return err
		}
		src = st
	default:
		j, err := cutover.NewConfigMapJournal(env.Client, cutover.ConfigMapJournalOptions{Namespace: plan.Binding.Namespace, TargetGroupARN: plan.TargetGroup.ARN})
		if err != nil {
			return asUsage(err)
		}
		inspect = j.Inspect
	}
	a.announceRollback(ctx, src, inspect)
	res, err := cutover.Rollback(ctx, env, src, opts...)
	if cutover.IsNotStarted(err) {
		// Nothing ran, so nothing is undone: the target group is as the
		// plan found it. Said plainly, and a success.
		if a.format == "json" {
			return printJSON(a.stdout, &cutover.RollbackResult{PlanID: plan.ID, NothingToDo: true,
				Reason: "the plan never ran (no journal): nothing to roll back", Calls: map[string]int{}})
		}
		fmt.Fprintf(a.stdout, "rollback %s: nothing to roll back: the plan never ran (no journal); nothing was changed\n", plan.ID)
		return nil
	}
	if err != nil && (ctx.Err() != nil || cutover.IsInterrupted(err)) {
		fmt.Fprintf(a.stderr, "\ninterrupted; the journal holds the rollback's progress.\n  resume: %s\n", rerunCommand(cmd, "rollback", "target-group", "namespace"))
	}
	if cutover.IsPermission(err) {
		a.permissionHint(plan)
		err = asUsage(err)
	}
	if res != nil && a.format == "json" {
		_ = printJSON(a.stdout, res)
	} else if res != nil {
		fmt.Fprintf(a.stdout, "rollback %s: completed %v in %.0fs (floor %.0fs); %s registered; %s\n",
			res.PlanID, res.Completed, res.Seconds, res.FloorSeconds, textcell.Plural(len(res.Registered), "node target", "node targets"),
			textcell.Plural(res.MutatingCalls, "mutating call", "mutating calls"))
		for _, w := range res.Warnings {
			fmt.Fprintln(a.stdout, "  warning: "+w)
		}
	}
	return err
}

// announceRollback prints on stderr, as a rollback starts, how long it
// expects to take and what that rests on (cutover.EstimateRollback, from
// the journal's state when it holds this plan's: a resumed rollback waits
// only for what is left), and that an interrupt is safe. A plan with no
// journal gets neither: it never ran, and Rollback says there is nothing
// to do. A source it cannot estimate gets the second line only: Rollback
// itself says what is wrong with it.
func (a *app) announceRollback(ctx context.Context, src cutover.Source, inspect func(context.Context) (*cutover.State, error)) {
	if plan, ok := src.(*cutover.Plan); ok && inspect != nil {
		st, err := inspect(ctx)
		if cutover.IsNoJournal(err) {
			return
		}
		if err == nil && st.Plan == plan.Ref() {
			src = st
		}
	}
	if est, err := cutover.EstimateRollback(src); err == nil {
		fmt.Fprintf(a.stderr, "rollback: %s, expected to take %s\n", textcell.Plural(len(est.Actions), "action", "actions"), est)
	}
	fmt.Fprintln(a.stderr, "rollback: an interrupt (Ctrl-C) is safe: each action is journaled as it ends, and running rollback again resumes from the journal")
}
