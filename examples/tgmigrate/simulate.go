package main

// simulate.go: the simulate subcommand: its flags, strategies, scenarios
// and timing knobs, and the world, pod settings and cutover request of one
// run.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// The strategies of the side-by-side comparison, in the order they print.
const (
	strategyStatic     = "static"
	strategyNaive      = "naive-tgb"
	strategyPhased     = "phased"
	strategyPhasedAsIs = "phased-as-is"
)

var strategies = []string{strategyStatic, strategyNaive, strategyPhased, strategyPhasedAsIs}

// The phased scenarios --scenario selects.
var scenarios = []string{"cutover", "rollback", "crash-resume", "blue-green", scenarioControllerFaults, scenarioPrivateSubnets, scenarioCampaign}

// The limits of --nodes and --pods, and why: ELBv2's default quotas
// (1,000 targets per target group, 1,000 per Application Load Balancer)
// and what the simulator runs in its budget.
const (
	minNodes, maxNodes = 2, 500
	minPods, maxPods   = 1, 1000
	maxNodesWhy        = "the largest world the simulator runs within the two-minute target on two cores (about a minute at 1,000 pods); ELBv2's default quota of 1,000 targets per target group, one target per node, would allow 1,000"
	maxPodsWhy         = "ELBv2's default quota of 1,000 targets per target group: every pod becomes a target of the one target group"
)

// simSchemaVersion is the version of simulate's JSON: versions add keys,
// never change one.
const simSchemaVersion = 1

type simFlags struct {
	seed          uint64
	nodes, pods   int
	rps           int
	churnInterval time.Duration
	churn         string
	duration      time.Duration
	leadIn        time.Duration
	prelude       time.Duration
	scenario      string
	wire          bool
	envelope      bool
	// seeds is how many seeds --envelope runs, from seed.
	seeds int
	// churnSet, seedsSet, nodesSet, podsSet, preludeSet and
	// churnIntervalSet say the flag was given.
	churnSet, seedsSet, nodesSet, podsSet, preludeSet, churnIntervalSet bool
	timings                                                             timingFlags
}

// timingFlags are the knobs of package timing a run may set; each zero
// value means the knob's default.
type timingFlags struct {
	newTargetChecks   string
	registrationDelay time.Duration
	deregistrationLag time.Duration
	connectTimeout    time.Duration
	failOpenInitial   bool
	ipReuse           string
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
table of four strategies, each in a world of its own built from the same seed
and churn (a --lead-in before the migration, not the story's --prelude: the
rows' figures are not the story's):

  static        no migration: ghost targets accumulate and requests fail
  naive-tgb     a default-mode TargetGroupBinding: the LBC deregisters every
                node target before its pod targets are healthy
  phased        this SDK's plan (PlanCutover then Execute, or the --scenario's
                variant), with the pod settings the product recommends
                (preStop 130 s, terminationGracePeriodSeconds 160 s)
  phased-as-is  the same, with the workload's original settings (preStop
                15 s), the plan's pod-settings precondition accepted

Every plan is made at the product's defaults (cutover.Assumptions: one
new-target check, a 10 s registration delay, a deregistration lag up to
120 s, a controller delay up to 10 s), as a user's is: it is not told the
world's timings, and the output shows both side by side.

Each row splits its requests into windows: before the migration (for
phased, until Execute's call), settle (phased: Execute's first step, from
its start until the disruptions under way at its start have run out and the
deregistration lag the plan assumes has passed), the cutover (to the
migration's end), the rollback (--scenario rollback) and after. Phased's
ratio is its cutover's steps against the plan's floor; its whole ratio,
Execute's whole time against the settle plus the floor.

Every figure depends on AWS timings that AWS does not all document (package
timing's table): the run prints the ones it used. The --new-target-checks,
--registration-delay, --deregistration-lag, --connect-timeout,
--fail-open-initial and --ip-reuse flags set them. --envelope runs every churn
shape (or the one --churn names) at --seeds seeds (5) from --seed: first one
knob at a time, every strategy, at the first seed, to see which knobs change
some strategy's result; then the grid of plausible values (new-target checks
1 and HealthyThresholdCount; lag 0, 15 s, 60 s, 120 s; a dead address's 504
after 10 s or 502 at once; IP reuse off and on) over the knobs that did,
phased at every point, every other strategy over the knobs that changed it;
then phased where the world is worse than its plan assumes (a lag of 3
minutes against the assumed 2), reported apart. It prints, per churn shape,
every strategy's spread and phased's worst in every window.

--scenario picks the phased variant: cutover (in-place), rollback (cut over,
then roll back at once), crash-resume (a crash after the binding, then a
resumed Execute), blue-green (an instance-type target
group, moved by weights), controller-faults (phased in-place once per fault
of the AWS Load Balancer Controller: not running, crash-looping, EC2 or
RegisterTargets refused, its webhook down, a restart between its ConfigMap
and RegisterTargets; a row each, with what Execute and the rollback
returned; no story, no other strategy). private-subnets (step 4: the
nodes start in public subnets; phased cuts over, then checks readiness,
plans the move and executes it: Karpenter's EC2NodeClass patched to the
private subnets, the drift-driven replacement watched wave by wave; two
more rows run the move in broken worlds, a load balancer missing a zone
and private subnets without egress, where readiness must refuse before
any write). campaign (a fleet campaign, package campaign: two accounts
and three clusters, prod-a and prod-b sharing account 111111111111's
ELBv2, staging alone in 222222222222, twelve target groups: 5, 4 and 3
applications, each with its own hand-made target group; prod-a's orders
and search behind near-alb, every ALB's target quota just above what one
overlap there needs (2 x --nodes + --pods + 1); prod-b's pay in a
namespace without the readiness-gate label; staging's jobs with its
controller denied RegisterTargets; every cluster under the --churn at a
pace of --churn-interval, 2m when not given; --nodes 4 and --pods 4 per
application when not given. campaign.PlanCampaign makes the plan a user
gets, campaign.Execute runs it on the fleet's clock with an error budget
of 1, after --lead-in and to --duration after it or 2m after the
campaign's end. A row per target group: its outcome, its window (its
entry's start to end), its settle, its floor, its failed requests
before, in and after the window; blocked and failed ones with their
reason and next call; the wall time against the plan's critical path,
also with the settles no plan knows; the API calls per account, the sums
of its clusters' calls; each load balancer's peak of targets against its
quota. --format markdown prints the campaign's own report
(campaign.NewReport) and these figures. No story, no other strategy;
--envelope, --wire and --prelude are refused; simulate exits 3 if a
migrated target group lost a request from its cutover's start on that a
call at that start could have saved or a load balancer went above its
quota; the requests under way at its start, sent within the
deregistration lag of it to targets of nodes Karpenter had begun to
replace before it, are counted apart, row by row, and exit 0). --churn picks
Karpenter's churn: steady (the oldest
node every --churn-interval), wave (half the nodes drifted at once, one
interval into the migration and then every ten intervals, a NodePool budget
of 20%), consolidation (the emptiest node, at
random intervals of mean two intervals), spot (a random node interrupted
with a two-minute notice, at random intervals of mean three intervals).

Limits: --pods goes up to 1,000, ELBv2's default quota of 1,000 targets per
target group: the pods all become targets of the one target group. --nodes
goes up to 500: the legacy target group holds one target per node, which
the same quota would allow up to 1,000, but 500 nodes and 1,000 pods is the
largest world the simulator runs within the two-minute target on two
cores (about a minute, measured by BenchmarkSimulateScale).

A run that fails (a strategy, a scenario's variant, a point of --envelope, a
controller fault's run) is a row with its error, in text (the line under
the table) and in JSON (the row's "error"), and every other row is still run
and printed. When the story's own steps fail, the story prints the error in
its section, skips the sections left, and the comparison follows. Once
everything is printed, simulate exits 3 if a run of phased (the product)
failed: its row, the hardest corner, a point of --envelope, a controller
fault's run, or the story; a failure of another strategy leaves the exit
status 0.`,
		Example: `  tgmigrate simulate
  tgmigrate simulate --format json --seed 7
  tgmigrate simulate --format json --envelope --seed 7 --scenario rollback
  tgmigrate simulate --format json --seed 7 --scenario controller-faults
  tgmigrate simulate --scenario campaign --seed 3 --format markdown
  tgmigrate simulate --churn spot --deregistration-lag 2m --new-target-checks threshold`,
		Args: cobra.NoArgs,
		RunE: wrapRun(func(cmd *cobra.Command, _ []string) error {
			fl := cmd.Flags()
			f.churnSet, f.seedsSet, f.nodesSet, f.podsSet = fl.Changed("churn"), fl.Changed("seeds"), fl.Changed("nodes"), fl.Changed("pods")
			f.preludeSet, f.churnIntervalSet = fl.Changed("prelude"), fl.Changed("churn-interval")
			return a.runSimulate(cmd.Context(), f)
		}),
	}
	fl := cmd.Flags()
	fl.Uint64Var(&f.seed, "seed", 1, "seed of every random stream, a whole number 0 or more: the same seed gives the same run")
	fl.IntVar(&f.nodes, "nodes", sim.DefaultNodes, fmt.Sprintf("nodes at the start: %d to %d, %s", minNodes, maxNodes, maxNodesWhy))
	fl.IntVar(&f.pods, "pods", sim.DefaultPods, fmt.Sprintf("pods behind the Service: %d to %d, %s", minPods, maxPods, maxPodsWhy))
	fl.IntVar(&f.rps, "rps", sim.DefaultRPS, "client requests per second through the ALB")
	fl.DurationVar(&f.churnInterval, "churn-interval", time.Minute, "the churn's pace: see --churn")
	fl.StringVar(&f.churn, "churn", string(karpenter.ShapeSteady), "Karpenter's churn: steady, wave, consolidation, expiry or spot")
	fl.DurationVar(&f.duration, "duration", 30*time.Minute, "virtual time each strategy runs, from the start of the migration")
	fl.DurationVar(&f.leadIn, "lead-in", 2*time.Minute, "virtual time each strategy's world runs under churn before the migration starts (its window \"before\")")
	fl.DurationVar(&f.prelude, "prelude", 10*time.Minute, "virtual time the story's legacy target group suffers churn before diagnose")
	fl.StringVar(&f.scenario, "scenario", "cutover", "phased variant: cutover, rollback, crash-resume, blue-green, controller-faults (phased once per fault of the AWS Load Balancer Controller), private-subnets (step 4 after the cutover), or campaign (a fleet campaign: two accounts, three clusters, twelve target groups)")
	fl.BoolVar(&f.wire, "wire", false, "route all ELBv2 traffic through the real AWS SDK client and a loopback ELBv2 endpoint")
	fl.BoolVar(&f.envelope, "envelope", false, "run every strategy for every churn shape (or the one --churn names) and --seeds seeds: one knob at a time, then over the grid of plausible AWS timings, and phased where the world is worse than its plan assumes; no story")
	fl.IntVar(&f.seeds, "seeds", 5, fmt.Sprintf("seeds --envelope runs, from --seed: %d to %d", minSeeds, maxSeeds))
	tf := &f.timings
	fl.StringVar(&tf.newTargetChecks, "new-target-checks", "", "passing checks a new target needs: a whole number from 1 to 10, or threshold (the target group's HealthyThresholdCount) (default 1, the ALB user guide's)")
	fl.DurationVar(&tf.registrationDelay, "registration-delay", 0, "time a new target waits before its first check; negative: none (default 10s)")
	fl.DurationVar(&tf.deregistrationLag, "deregistration-lag", 0, "time the load balancer keeps sending new requests to a deregistered target; negative: none (default 15s)")
	fl.DurationVar(&tf.connectTimeout, "connect-timeout", 0, "time before a request to a dead address gets 504; negative: 502 at once (default 10s)")
	fl.BoolVar(&tf.failOpenInitial, "fail-open-initial", false, "fail open to targets still initial too, when none is healthy")
	fl.StringVar(&tf.ipReuse, "ip-reuse", "off", "hand freed addresses out again after 30 s: off, any, node or pod")
	a.addFormatFlag(cmd, "text", "json", "markdown")
	return cmd
}

func (f *simFlags) validate() error {
	switch {
	case !contains(scenarios, f.scenario):
		return usagef("--scenario %q: want one of %s", f.scenario, strings.Join(scenarios, ", "))
	case !contains(shapeNames(), f.churn):
		return usagef("--churn %q: want one of %s", f.churn, strings.Join(shapeNames(), ", "))
	case f.nodes < minNodes || f.nodes > maxNodes:
		return usagef("--nodes %d: want %d to %d, %s", f.nodes, minNodes, maxNodes, maxNodesWhy)
	case f.pods < minPods || f.pods > maxPods:
		return usagef("--pods %d: want %d to %d, %s", f.pods, minPods, maxPods, maxPodsWhy)
	case f.rps < 1 || f.rps > 1000:
		return usagef("--rps %d: want 1 to 1000", f.rps)
	case f.churnInterval < 10*time.Second:
		return usagef("--churn-interval %v: want at least 10s", f.churnInterval)
	case f.duration < 5*time.Minute || f.duration > 24*time.Hour:
		return usagef("--duration %v: want 5m to 24h", f.duration)
	case f.leadIn < 0 || f.leadIn > time.Hour:
		return usagef("--lead-in %v: want 0 to 1h", f.leadIn)
	case f.prelude < 0 || f.prelude > 24*time.Hour:
		return usagef("--prelude %v: want 0 to 24h", f.prelude)
	case f.seeds < minSeeds || f.seeds > maxSeeds:
		return usagef("--seeds %d: want %d to %d", f.seeds, minSeeds, maxSeeds)
	case f.seedsSet && !f.envelope:
		return usagef("--seeds %d: only --envelope runs several seeds (--seed picks the one a run uses)", f.seeds)
	}
	if f.scenario == scenarioCampaign {
		if err := f.validateCampaign(); err != nil {
			return err
		}
	}
	if _, err := f.timings.parse(); err != nil {
		return err
	}
	return nil
}

func shapeNames() []string {
	var out []string
	for _, s := range karpenter.Shapes {
		out = append(out, string(s))
	}
	return out
}

// parse turns the flags into the run's timings, validated.
func (tf timingFlags) parse() (timing.Timings, error) {
	t := timing.Timings{
		RegistrationDelay: tf.registrationDelay, DeregistrationLag: tf.deregistrationLag,
		ConnectTimeout: tf.connectTimeout, FailOpenInitial: tf.failOpenInitial,
	}
	switch c := tf.newTargetChecks; c {
	case "":
	case "threshold", "HealthyThresholdCount":
		t.NewTargetChecks = timing.HealthyThreshold
	default:
		// 0 and HealthyThreshold (-1) are the knob's encodings of the
		// default and of threshold: as numbers they are out of range.
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 || n > 10 {
			return timing.Timings{}, badFlag("--new-target-checks", c, "a whole number from 1 to 10, or threshold (the target group's HealthyThresholdCount)")
		}
		t.NewTargetChecks = n
	}
	switch r := tf.ipReuse; r {
	case "", "off":
	case string(timing.HolderAny), string(timing.HolderNode), string(timing.HolderPod):
		t.IPReuse = timing.IPReuse{Enabled: true, To: timing.Holder(r)}
	default:
		return timing.Timings{}, usagef("--ip-reuse %q: want off, any, node or pod", r)
	}
	if err := t.Validate(); err != nil {
		return timing.Timings{}, usagef("%s", flagOfKnob(err))
	}
	return t.WithDefaults(), nil
}

// flagOfKnob rewrites a timing error to name the flag that set the knob.
func flagOfKnob(err error) string {
	msg := err.Error()
	for knob, flag := range map[string]string{
		"NewTargetChecks": "--new-target-checks", "RegistrationDelay": "--registration-delay",
		"DeregistrationLag": "--deregistration-lag", "ConnectTimeout": "--connect-timeout",
	} {
		msg = strings.Replace(msg, "timing: "+knob, flag, 1)
	}
	return msg
}

// podSettings are the workload's shutdown settings a strategy runs with.
type podSettings struct {
	PreStopSeconds                float64 `json:"preStopSeconds"`
	TerminationGracePeriodSeconds float64 `json:"terminationGracePeriodSeconds"`
}

// settingsOf returns the pod settings of a strategy: the product's
// recommendation (package envelope's, at the worst deregistration lag) for
// phased, the seed's original app's for every other one.
func settingsOf(strategy string) sim.PodSettings {
	if strategy == strategyPhased {
		var d cutover.Assumptions // the defaults: the envelope's worst lag
		return sim.PodSettings{PreStop: d.SafePreStop(), TerminationGracePeriod: d.SafeTerminationGracePeriod()}
	}
	return sim.PodSettings{PreStop: sim.LegacyPreStop, TerminationGracePeriod: 30 * time.Second}
}

// config is the world of one run: the seed's case under the flags' churn,
// with the strategy's pod settings and the given timings.
func (f *simFlags) config(strategy string, tm timing.Timings) sim.Config {
	ps := settingsOf(strategy)
	cfg := sim.Config{
		Seed: f.seed, Nodes: f.nodes, Pods: f.pods, RPS: f.rps,
		ChurnInterval:          f.churnInterval,
		ChurnShape:             karpenter.Shape(f.churn),
		ReadinessGateInjection: true,
		Timings:                tm,
		// Readiness gates hold a new pod un-Ready until its target is
		// healthy; a budget of one pod would let Karpenter drain a node only
		// every few minutes.
		Workload: sim.Workload{MaxUnavailable: "20%", PreStop: ps.PreStop, TerminationGracePeriod: ps.TerminationGracePeriod},
		// tgbind applies server-side.
		ServerSideApply: true,
	}
	switch karpenter.Shape(f.churn) {
	case karpenter.ShapeWave:
		// The first wave one interval into the migration, then one every
		// ten intervals.
		cfg.ChurnInterval, cfg.ChurnDelay = 10*f.churnInterval, f.leadIn+f.churnInterval
		cfg.NodePool.Budgets = []karpenter.Budget{{Nodes: "20%"}}
	case karpenter.ShapeConsolidation:
		cfg.ChurnInterval = 2 * f.churnInterval
	case karpenter.ShapeExpiry:
		// One node's NodeClaim expires every three intervals, oldest first
		// (the NodePool's expireAfter is the nodes times that).
		cfg.ChurnInterval = 3 * f.churnInterval
	case karpenter.ShapeSpot:
		cfg.ChurnInterval = 3 * f.churnInterval
		cfg.NodePool.CapacityType = "spot"
	}
	if tm.IPReuse.Enabled {
		// Another application, whose pods can take the addresses freed.
		cfg.Neighbours = max(f.pods/3, 3)
	}
	if f.scenario == "blue-green" {
		cfg.Legacy.TargetType = "instance"
	}
	if f.scenario == scenarioPrivateSubnets {
		// Step 4's world: the nodes in public subnets, Karpenter's
		// EC2NodeClass selecting them, the VPC's subnets in EC2.
		cfg.PublicSubnets, cfg.Move = true, sim.MoveWorld{Enabled: true}
	}
	if f.wire {
		cfg.Wire = &sim.WireOptions{}
	}
	return cfg
}

func newEnv(w *sim.World) cutover.Env {
	return cutover.Env{
		ELBv2: w.AWS(), EC2: w.EC2(), Client: w.Client(), Clock: w.Clock(), ClusterName: sim.ClusterName,
		ClusterVPCID: w.Legacy().VPCID, Holder: "tgmigrate-simulate",
	}
}

// request is the cutover request of the seed's case, as a user makes it:
// its Assumptions are left at their zero value, the product's defaults
// (cutover.Assumptions: one new-target check, a 10 s registration delay,
// a deregistration lag up to 120 s, a controller delay up to 10 s). The
// plan is not told the world's timings, which differ (planAssumptions
// and timings in the report).
func request(w *sim.World) (cutover.Request, error) {
	l := w.Legacy()
	tg, err := parseTargetGroup(l.TargetGroupARN)
	return cutover.Request{TargetGroupARN: tg, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName)}, err
}

// planAssumptions are the assumptions every plan of simulate is made
// under: the product's defaults (see request).
func planAssumptions() cutover.Assumptions { return cutover.Assumptions{}.WithDefaults() }

// newWorld builds the world of a run and shows it to a.onWorld under name
// ("story", or a strategy).
func (a *app) newWorld(ctx context.Context, cfg sim.Config, name string) (*sim.World, error) {
	w, err := sim.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if a.onWorld != nil {
		a.onWorld(name, w)
	}
	return w, nil
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
