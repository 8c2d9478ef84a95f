package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
)

// The strategies of the side-by-side comparison.
const (
	strategyStatic = "static"
	strategyNaive  = "naive-tgb"
	strategyPhased = "phased"
)

// The phased scenarios -scenario selects.
var scenarios = []string{"cutover", "rollback", "crash-resume", "blue-green"}

type simFlags struct {
	seed          uint64
	nodes, pods   int
	rps           int
	churnInterval time.Duration
	duration      time.Duration
	prelude       time.Duration
	scenario      string
	wire          bool
}

// simReport is the -format json output: one object.
type simReport struct {
	SchemaVersion int          `json:"schemaVersion"`
	Seed          uint64       `json:"seed"`
	Scenario      string       `json:"scenario"`
	Nodes         int          `json:"nodes"`
	Pods          int          `json:"pods"`
	ChurnInterval float64      `json:"churnIntervalSeconds"`
	Duration      float64      `json:"durationSeconds"`
	Wire          bool         `json:"wire"`
	Scenarios     []simOutcome `json:"scenarios"`
}

// simOutcome is one strategy's run, on the same seed and the same churn.
type simOutcome struct {
	Strategy       string         `json:"strategy"`
	Requests       int            `json:"requests"`
	Failed         int            `json:"failed"`
	OutageSeconds  float64        `json:"outageSeconds"`
	CutoverSeconds float64        `json:"cutoverSeconds"`
	FloorSeconds   float64        `json:"floorSeconds"`
	APICalls       map[string]int `json:"apiCalls"`
	// NodesReplaced counts the nodes Karpenter replaced during the run.
	NodesReplaced int `json:"nodesReplaced"`
	// GhostsLeft counts the ghost targets (not draining) left in the
	// legacy target group at the end.
	GhostsLeft int `json:"ghostsLeft"`
	// Note says what happened, in a few words.
	Note string `json:"note,omitempty"`
}

func (a *app) simulateCommand() *cobra.Command {
	f := &simFlags{}
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Run the whole story on the embedded simulator: no AWS account, no cluster",
		Long: `simulate builds a simulated EKS cluster whose nodes Karpenter keeps replacing,
an ALB with a hand-made target group of static nodeIP:NodePort targets, the AWS
Load Balancer Controller, and client traffic, all on a virtual clock. It then
tells the story: traffic drops under churn, diagnose finds the ghost targets,
the plan, the cutover with its progress, the verification, and a side-by-side
table of three strategies on the same seed and the same churn:

  static     no migration: ghost targets accumulate and requests fail
  naive-tgb  a default-mode TargetGroupBinding: the LBC deregisters every node
             target before its pod targets are healthy
  phased     this SDK's plan: PlanCutover then Execute (or the -scenario's variant)

-scenario picks the phased variant: cutover (in-place), rollback (cut over,
then roll back), crash-resume (a crash after the binding, then a resumed
Execute), blue-green (an instance-type target group, moved by weights).`,
		Example: `  tgmigrate simulate
  tgmigrate simulate -format json -seed 7
  tgmigrate simulate -scenario blue-green -nodes 10 -pods 30`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error { return a.runSimulate(cmd.Context(), f) }),
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.seed, "seed", 1, "seed of every random stream: the same seed gives the same run")
	fl.IntVar(&f.nodes, "nodes", sim.DefaultNodes, "nodes at the start")
	fl.IntVar(&f.pods, "pods", sim.DefaultPods, "pods behind the Service")
	fl.IntVar(&f.rps, "rps", sim.DefaultRPS, "client requests per second through the ALB")
	fl.DurationVar(&f.churnInterval, "churn-interval", time.Minute, "Karpenter replaces the oldest node this often")
	fl.DurationVar(&f.duration, "duration", 30*time.Minute, "virtual time each strategy runs, from the start of the migration")
	fl.DurationVar(&f.prelude, "prelude", 10*time.Minute, "virtual time the story's legacy target group suffers churn before diagnose")
	fl.StringVar(&f.scenario, "scenario", "cutover", "phased variant: cutover, rollback, crash-resume or blue-green")
	fl.BoolVar(&f.wire, "wire", false, "route all ELBv2 traffic through the real AWS SDK client and a loopback ELBv2 endpoint")
	return cmd
}

func (f *simFlags) validate() error {
	switch {
	case !contains(scenarios, f.scenario):
		return usagef("-scenario %q: want one of %s", f.scenario, strings.Join(scenarios, ", "))
	case f.nodes < 2 || f.nodes > 500:
		return usagef("-nodes %d: want 2 to 500", f.nodes)
	case f.pods < 1 || f.pods > 2000:
		return usagef("-pods %d: want 1 to 2000", f.pods)
	case f.rps < 1 || f.rps > 1000:
		return usagef("-rps %d: want 1 to 1000", f.rps)
	case f.churnInterval < 10*time.Second:
		return usagef("-churn-interval %v: want at least 10s", f.churnInterval)
	case f.duration < 5*time.Minute || f.duration > 24*time.Hour:
		return usagef("-duration %v: want 5m to 24h", f.duration)
	case f.prelude < 0 || f.prelude > 24*time.Hour:
		return usagef("-prelude %v: want 0 to 24h", f.prelude)
	}
	return nil
}

func (a *app) runSimulate(ctx context.Context, f *simFlags) error {
	if a.format != "text" && a.format != "json" {
		return usagef("--format %s: simulate prints text or json", a.format)
	}
	if err := f.validate(); err != nil {
		return err
	}
	if a.format == "text" {
		if err := a.simulateStory(ctx, f); err != nil {
			return err
		}
	}
	rep := simReport{
		SchemaVersion: 1, Seed: f.seed, Scenario: f.scenario, Nodes: f.nodes, Pods: f.pods,
		ChurnInterval: f.churnInterval.Seconds(), Duration: f.duration.Seconds(), Wire: f.wire,
	}
	for _, strategy := range []string{strategyStatic, strategyNaive, strategyPhased} {
		if a.format == "text" {
			fmt.Fprintf(a.stderr, "simulating %s (%v of virtual time)...\n", strategy, f.duration)
		}
		out, err := a.runStrategy(ctx, f, strategy)
		if err != nil {
			return fmt.Errorf("simulate %s: %w", strategy, err)
		}
		rep.Scenarios = append(rep.Scenarios, *out)
	}
	if a.format == "json" {
		enc := json.NewEncoder(a.stdout)
		return enc.Encode(rep)
	}
	heading(a.stdout, "6. Side by side: the same seed, the same churn")
	writeComparison(a.stdout, rep)
	return nil
}

// config is the world of every run: the seed's case under steady churn.
func (f *simFlags) config() sim.Config {
	cfg := sim.Config{
		Seed: f.seed, Nodes: f.nodes, Pods: f.pods, RPS: f.rps,
		ChurnInterval:          f.churnInterval,
		ReadinessGateInjection: true,
		// Readiness gates hold a new pod un-Ready until its target is
		// healthy (registration and five health checks); a budget of one
		// pod would let Karpenter drain a node only every few minutes. A
		// grace period of 45 s covers the preStop the plan asks for under
		// the world's timings (worldAssumptions: 2 s) and the 30 s it
		// leaves the app to stop; the pods' 15 s preStop ends the
		// termination well before it either way.
		Workload:        sim.Workload{MaxUnavailable: "20%", TerminationGracePeriod: 45 * time.Second},
		ServerSideApply: true, // tgbind applies server-side
	}
	if f.scenario == "blue-green" {
		cfg.Legacy.TargetType = "instance"
	}
	if f.wire {
		cfg.Wire = &sim.WireOptions{}
	}
	return cfg
}

func newEnv(w *sim.World) cutover.Env {
	return cutover.Env{
		ELBv2: w.AWS(), Client: w.Client(), Clock: w.Clock(), ClusterName: sim.ClusterName,
		ClusterVPCID: w.Legacy().VPCID, Holder: "tgmigrate-simulate",
	}
}

func request(w *sim.World) cutover.Request {
	l := w.Legacy()
	return cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
		Assumptions: worldAssumptions()}
}

// worldAssumptions are the timing assumptions that match the simulated
// world of every run, so that the plan's floor and its pod preconditions
// are the world's: its target groups turn a new target healthy after
// HealthyThresholdCount passing checks, 10 s after its registration; a
// deregistered target takes no new request; the LBC deregisters a
// terminating pod's target within the EndpointSlice controller's lag and
// its own reaction (1 s each).
func worldAssumptions() cutover.Assumptions {
	return cutover.Assumptions{NewTargetChecks: cutover.HealthyThreshold, RegistrationDelay: 10 * time.Second,
		DeregistrationLag: -1, ControllerDelay: 2 * time.Second}
}

// runStrategy runs one strategy in a world of its own for f.duration of
// virtual time from the start, and measures it.
func (a *app) runStrategy(ctx context.Context, f *simFlags, strategy string) (*simOutcome, error) {
	w, err := a.newWorld(ctx, f, strategy)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	start := w.Clock().Now()
	nodesBefore := nodeNames(w)

	// Every strategy's floor comes from the same read-only plan.
	env := newEnv(w)
	plan, err := cutover.PlanCutover(ctx, env, request(w))
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	before := w.AWSCounts()
	out := &simOutcome{Strategy: strategy, FloorSeconds: float64(plan.Estimate.FloorSeconds)}

	switch strategy {
	case strategyStatic:
		out.Note = "nothing maintains the node targets"
	case strategyNaive:
		if err := w.Client().Create(ctx, w.NewBinding("naive", false)); err != nil {
			return nil, fmt.Errorf("create default-mode binding: %w", err)
		}
		out.CutoverSeconds = waitPodsOnly(w, plan.Floor, start.Add(f.duration)).Seconds()
		out.Note = "default mode: node targets deregistered before the pods were healthy"
	case strategyPhased:
		res, note, err := runPhased(ctx, w, env, plan, f.scenario, nil)
		if err != nil {
			return nil, err
		}
		out.CutoverSeconds = res.CutoverSeconds
		out.Note = note
	}
	w.RunUntil(start.Add(f.duration))
	w.StopTraffic()

	st := w.Traffic()
	out.Requests, out.Failed = st.Total, st.Failed
	for _, win := range st.Outages {
		out.OutageSeconds += win.Duration().Seconds()
	}
	out.APICalls = diffCounts(w.AWSCounts(), before)
	out.NodesReplaced = countReplaced(nodesBefore, nodeNames(w))
	serving := w.Legacy().TargetGroupARN
	if strategy == strategyPhased && plan.BlueGreen != nil {
		if serving, err = targetGroupARN(w, plan.BlueGreen.NewTargetGroup.Name); err != nil {
			return nil, err
		}
	}
	out.GhostsLeft = liveGhosts(w, serving)
	return out, nil
}

// newWorld builds the world of f's config for the run name ("story" or a
// strategy) and shows it to a.onWorld.
func (a *app) newWorld(ctx context.Context, f *simFlags, name string) (*sim.World, error) {
	w, err := sim.New(ctx, f.config())
	if err != nil {
		return nil, err
	}
	if a.onWorld != nil {
		a.onWorld(name, w)
	}
	return w, nil
}

// runPhased carries the plan out as the scenario says. obs, when set,
// reports progress.
func runPhased(ctx context.Context, w *sim.World, env cutover.Env, plan *cutover.Plan, scenario string, obs cutover.Observer) (*cutover.Result, string, error) {
	var opts []cutover.Option
	if obs != nil {
		opts = append(opts, cutover.WithObserver(obs))
	}
	switch scenario {
	case "rollback":
		failedBefore := w.Traffic().Failed
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, "", fmt.Errorf("execute: %w", err)
		}
		w.Run(2 * time.Minute)
		rb, err := cutover.Rollback(ctx, env, plan, opts...)
		if err != nil {
			return nil, "", fmt.Errorf("rollback: %w", err)
		}
		return res, fmt.Sprintf("cut over, rolled back in %.0f s with %d failed requests; from then on the static target group fails under churn again",
			rb.Seconds, w.Traffic().Failed-failedBefore), nil
	case "crash-resume":
		crash := errors.New("simulated crash")
		crashed := false
		hook := cutover.WithHook(func(_ context.Context, e cutover.Event) error {
			if !crashed && e.Kind == cutover.EventStep && e.Step == plan.StepIDs()[1] {
				crashed = true
				return crash
			}
			return nil
		})
		_, err := cutover.Execute(ctx, env, plan, append(opts, hook, cutover.WithAutoRollback(false))...)
		if !errors.Is(err, crash) {
			return nil, "", fmt.Errorf("execute before the crash: want the crash, got %v", err)
		}
		w.Run(5 * time.Second) // the operator restarts the process; the world goes on
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, "", fmt.Errorf("resume: %w", err)
		}
		return res, fmt.Sprintf("crashed after %s, resumed from the journal", plan.StepIDs()[1]), nil
	case "blue-green":
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, "", fmt.Errorf("execute: %w", err)
		}
		steps := make([]string, len(plan.BlueGreen.WeightSteps))
		for i, s := range plan.BlueGreen.WeightSteps {
			steps[i] = fmt.Sprint(s)
		}
		return res, fmt.Sprintf("blue-green to %s, weights %s, old target group detached", plan.BlueGreen.NewTargetGroup.Name, strings.Join(steps, "->")), nil
	default: // cutover
		res, err := cutover.Execute(ctx, env, plan, opts...)
		if err != nil {
			return nil, "", fmt.Errorf("execute: %w", err)
		}
		return res, fmt.Sprintf("%s, %d targets deregistered in %d batches", res.Strategy, res.Deregistered, res.Batches), nil
	}
}

// waitPodsOnly runs the world until the legacy target group has no node or
// ghost target left that is not draining and at least floor healthy pod
// targets (the end state the phased cutover's gate and drain reach), or
// until deadline, and returns the time it took.
func waitPodsOnly(w *sim.World, floor int, deadline time.Time) time.Duration {
	start := w.Clock().Now()
	for w.Clock().Now().Before(deadline) {
		w.Run(5 * time.Second)
		healthyPods, others := 0, 0
		for _, t := range w.Targets(w.Legacy().TargetGroupARN) {
			switch {
			case t.State == "draining":
			case strings.HasPrefix(t.Owner, "pod/"):
				if t.State == "healthy" {
					healthyPods++
				}
			default:
				others++
			}
		}
		if others == 0 && healthyPods >= floor {
			break
		}
	}
	return w.Clock().Since(start)
}

// liveGhosts counts the targets, not draining, whose address nothing holds.
func liveGhosts(w *sim.World, arn string) int {
	n := 0
	for _, t := range w.Targets(arn) {
		if t.State != "draining" && t.Owner == "" {
			n++
		}
	}
	return n
}

func nodeNames(w *sim.World) map[string]bool {
	out := map[string]bool{}
	for _, n := range w.Cluster().Nodes() {
		out[n.Name] = true
	}
	return out
}

func countReplaced(before, after map[string]bool) int {
	n := 0
	for name := range before {
		if !after[name] {
			n++
		}
	}
	return n
}

func diffCounts(after, before map[string]int) map[string]int {
	out := map[string]int{}
	for op, n := range after {
		if d := n - before[op]; d > 0 {
			out[op] = d
		}
	}
	return out
}

func heading(w io.Writer, title string) {
	fmt.Fprintf(w, "\n== %s\n\n", title)
}

func writeComparison(w io.Writer, rep simReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\trequests\tfailed\toutage s\tcutover s\tfloor s\tnodes replaced\tghosts left\t  API calls (the tool's own)")
	for _, s := range rep.Scenarios {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%d\t%d\t  %s\n", s.Strategy, s.Requests, s.Failed,
			s.OutageSeconds, s.CutoverSeconds, s.FloorSeconds, s.NodesReplaced, s.GhostsLeft, callSummary(s.APICalls))
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	for _, s := range rep.Scenarios {
		fmt.Fprintf(w, "  %-9s  %s\n", s.Strategy, s.Note)
	}
}

// callSummary prints the calls by operation, most frequent first.
func callSummary(calls map[string]int) string {
	if len(calls) == 0 {
		return "0"
	}
	type kv struct {
		op string
		n  int
	}
	var list []kv
	total := 0
	for op, n := range calls {
		list = append(list, kv{op, n})
		total += n
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return list[i].op < list[j].op
	})
	var parts []string
	for _, e := range list {
		if len(parts) == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(e.op, "Describe"), e.n))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

// simulateStory tells steps 1 to 5 in one world.
func (a *app) simulateStory(ctx context.Context, f *simFlags) error {
	out := a.stdout
	w, err := a.newWorld(ctx, f, "story")
	if err != nil {
		return err
	}
	defer w.Close()
	l := w.Legacy()
	start := w.Clock().Now()
	stamp := func() string {
		d := w.Clock().Since(start).Round(time.Second)
		return fmt.Sprintf("[%02d:%02d:%02d]", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}

	heading(out, fmt.Sprintf("1. The legacy target group under Karpenter churn (seed %d)", f.seed))
	fmt.Fprintf(out, "ALB listener -> hand-made %s target group %s: %d nodeIP:%d targets; Service %s/%s, %d pods.\n",
		targetType(f), l.TargetGroupName, f.nodes, l.NodePort, l.Namespace, l.Service, f.pods)
	fmt.Fprintf(out, "Karpenter replaces the oldest node every %v; %d requests/s through the ALB.\n\n", f.churnInterval, f.rps)
	for step := time.Duration(0); step < f.prelude; {
		d := min(f.prelude/2, f.prelude-step)
		if d <= 0 {
			break
		}
		w.Run(d)
		step += d
		st := w.Traffic()
		fmt.Fprintf(out, "%s %6d requests, %5d failed, %2d ghost targets in %s\n", stamp(), st.Total, st.Failed, len(w.Ghosts()), l.TargetGroupName)
	}

	heading(out, "2. diagnose (read-only)")
	report, err := diagnose.Diagnose(ctx, w.DiagnoseSources(), diagnose.Scope{TargetGroupARNs: []string{l.TargetGroupARN}},
		diagnose.WithClock(w.Clock()), diagnose.WithConcurrency(1))
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	fmt.Fprint(out, report.Text())

	heading(out, "3. plan (read-only)")
	env := newEnv(w)
	env.Logger = a.log
	plan, err := cutover.PlanCutover(ctx, env, request(w))
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	fmt.Fprint(out, plan.Text())

	heading(out, "4. execute"+map[bool]string{true: " (" + f.scenario + ")", false: ""}[f.scenario != "cutover"])
	trafficBefore := w.Traffic()
	var lastStep string
	var lastAt time.Time
	obs := cutover.ObserverFuncs{
		OnStepStarted: func(e cutover.StepEvent) {
			fmt.Fprintf(out, "%s %-22s %s\n", stamp(), e.Step.ID, e.Step.Title)
		},
		OnStepFinished: func(e cutover.StepEvent) {
			status := "done"
			switch {
			case e.Err != nil:
				status = "failed: " + e.Err.Error()
			case e.Skipped:
				status = "already done"
			}
			fmt.Fprintf(out, "%s %-22s %s\n", stamp(), e.Step.ID, status)
		},
		OnTargets: func(p cutover.Progress) {
			// One line per step change or per 30 s of virtual time.
			if p.Step == lastStep && p.At.Sub(lastAt) < 30*time.Second {
				return
			}
			lastStep, lastAt = p.Step, p.At
			fmt.Fprintf(out, "%s %-22s   %s\n", stamp(), p.Step, p.Summary)
		},
		OnWaiting: func(wt cutover.Wait) {
			until := ""
			if !wt.Until.IsZero() {
				until = fmt.Sprintf(" (about %v)", wt.Until.Sub(w.Clock().Now()).Round(time.Second))
			}
			fmt.Fprintf(out, "%s %-22s   waiting: %s%s\n", stamp(), wt.Step, wt.What, until)
		},
	}
	res, note, err := runPhased(ctx, w, env, plan, f.scenario, obs)
	if err != nil {
		return err
	}
	during := w.Traffic()
	fmt.Fprintf(out, "\n%s: cutover %.0f s against a floor of %.0f s (ratio %.2f); %d mutating calls.\n",
		note, res.CutoverSeconds, res.FloorSeconds, res.Ratio, res.MutatingCalls)
	fmt.Fprintf(out, "Requests while migrating: %d, failed %d.\n", during.Total-trafficBefore.Total, during.Failed-trafficBefore.Failed)

	heading(out, "5. verify")
	w.Run(5 * time.Minute)
	pods, nodes, ghosts, draining, healthy := 0, 0, 0, 0, 0
	arn, name := l.TargetGroupARN, l.TargetGroupName
	if plan.BlueGreen != nil {
		name = plan.BlueGreen.NewTargetGroup.Name
		if arn, err = targetGroupARN(w, name); err != nil {
			return err
		}
	}
	for _, t := range w.Targets(arn) {
		switch {
		case t.State == "draining":
			draining++
		case strings.HasPrefix(t.Owner, "pod/"):
			pods++
		case strings.HasPrefix(t.Owner, "node/"):
			nodes++
		default:
			ghosts++
		}
		if t.State == "healthy" && strings.HasPrefix(t.Owner, "pod/") {
			healthy++
		}
	}
	fmt.Fprintf(out, "%s: %d pod targets (%d healthy), %d node targets, %d ghosts; %d draining (pods that moved).\n", name, pods, healthy, nodes, ghosts, draining)
	after, err := diagnose.Diagnose(ctx, w.DiagnoseSources(), diagnose.Scope{TargetGroupARNs: []string{arn}},
		diagnose.WithClock(w.Clock()), diagnose.WithConcurrency(1))
	if err != nil {
		return fmt.Errorf("diagnose after: %w", err)
	}
	findings := after.AllFindings()
	fmt.Fprintf(out, "diagnose %s now: %d findings\n", name, len(findings))
	for _, fd := range findings {
		fmt.Fprintf(out, "  %s %s: %s\n    next: %s\n", fd.Severity, fd.Code, fd.Message, fd.Remediation)
	}
	st := w.Traffic()
	fmt.Fprintf(out, "Traffic since the migration began: %d requests, %d failed.\n", st.Total-trafficBefore.Total, st.Failed-trafficBefore.Failed)
	return nil
}

// targetGroupARN finds a target group of the world by name.
func targetGroupARN(w *sim.World, name string) (string, error) {
	out, err := w.Model().DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{Names: []string{name}})
	if err != nil {
		return "", fmt.Errorf("find target group %s: %w", name, err)
	}
	if len(out.TargetGroups) != 1 {
		return "", fmt.Errorf("find target group %s: %d found", name, len(out.TargetGroups))
	}
	return aws.ToString(out.TargetGroups[0].TargetGroupArn), nil
}

func targetType(f *simFlags) string {
	if f.scenario == "blue-green" {
		return "instance"
	}
	return "ip"
}
