package diagnose_test

// Scenario tests: Diagnose on the Karpenter churn simulator (internal/sim),
// on the world's virtual clock, compared with the simulator's ground truth
// (which targets no node or pod holds, which nodes are live) and with the
// calls its ELBv2 service counted. Each runs twice, once per transport:
// Diagnose calls the simulator's Go facade, then the real aws-sdk-go-v2
// client through the ELBv2 Query-protocol endpoint (sim Config.Wire), with
// the call counts read at the endpoint.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
)

// transport is how Diagnose reaches the simulated ELBv2 service.
type transport struct {
	name string
	// wire: the real *elasticloadbalancingv2.Client through the world's
	// endpoint (sim Config.Wire, with the SDK's standard retryer), the
	// LBC stand-in's calls through an endpoint of their own too; otherwise
	// the Go facade.
	wire bool
}

var (
	onFacade = transport{name: "facade"}
	onWire   = transport{name: "wire", wire: true}
)

// forEachTransport runs test as one subtest per transport, the facade
// first. With -short (make test-short) the wire's repetition is skipped;
// make test runs both.
func forEachTransport(t *testing.T, test func(t *testing.T, via transport)) {
	t.Helper()
	for _, via := range []transport{onFacade, onWire} {
		t.Run(via.name, func(t *testing.T) {
			if via.wire && testing.Short() {
				t.Skip("a repetition through the wire: make test runs it, make test-short (-short) does not")
			}
			test(t, via)
		})
	}
}

// newSimWorld builds a world on via, failing the test on error, and
// closes its endpoints when the test ends. Unless cfg says otherwise, its
// API calls take no virtual time: a scan must not move the world, or the
// ground truth read after it would not be the one it read (and Diagnose's
// concurrent reads would wait on the clock together).
func newSimWorld(t testing.TB, via transport, cfg sim.Config) *sim.World {
	t.Helper()
	if via.wire && cfg.Wire == nil {
		cfg.Wire = &sim.WireOptions{}
	}
	if cfg.Timings.ELBv2Latency == 0 {
		cfg.Timings.ELBv2Latency = -1
	}
	if cfg.Timings.KubeLatency == 0 {
		cfg.Timings.KubeLatency = -1
	}
	w, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// resetCounts starts a new measurement of the system under test's calls,
// at the facade and at the endpoint.
func resetCounts(w *sim.World) {
	w.ELBv2().ResetCounts()
	if ep := w.Wire(); ep != nil {
		ep.ResetCounts()
	}
}

// checkTransport proves which way the calls since resetCounts went.
// Through the wire: some requests reached the endpoint, and the facade
// behind it served exactly the requests the endpoint counted (one call
// each, none answered by the endpoint alone). On the facade: no endpoint.
func checkTransport(t testing.TB, via transport, w *sim.World) {
	t.Helper()
	ep := w.Wire()
	if !via.wire {
		if ep != nil {
			t.Fatalf("a world on the facade has an endpoint at %s", ep.URL)
		}
		return
	}
	if ep == nil {
		t.Fatal("a world on the wire has no endpoint")
	}
	endpoint := ep.Counts()
	if len(endpoint) == 0 {
		t.Fatal("no request reached the endpoint")
	}
	if d := cmp.Diff(w.ELBv2().Counts(), endpoint); d != "" {
		t.Errorf("calls (-facade behind the endpoint +requests at the endpoint):\n%s", d)
	}
}

// diagnoseWorld runs Diagnose on the world's sources and clock.
func diagnoseWorld(t testing.TB, w *sim.World, scope diagnose.Scope, opts ...diagnose.Option) *diagnose.Report {
	t.Helper()
	return diagnoseSources(t, w, worldSources(w), scope, opts...)
}

// diagnoseSources runs Diagnose on src and the world's clock.
func diagnoseSources(t testing.TB, w *sim.World, src diagnose.Sources, scope diagnose.Scope, opts ...diagnose.Option) *diagnose.Report {
	t.Helper()
	rep, err := diagnose.Diagnose(t.Context(), src, scope, append([]diagnose.Option{diagnose.WithClock(w.Clock())}, opts...)...)
	if err != nil {
		t.Fatalf("Diagnose() = %v", err)
	}
	if len(rep.Errors) != 0 {
		t.Fatalf("report errors: %+v", rep.Errors)
	}
	return rep
}

// createTargetGroup creates an HTTP target group in the world's VPC,
// directly on the model (setup: not counted as a call of the system under
// test), registers targets, and tags it.
func createTargetGroup(t testing.TB, w *sim.World, name string, tt elbv2types.TargetTypeEnum, targets []elbv2types.TargetDescription, tags map[string]string) string {
	t.Helper()
	m := w.Model()
	out, err := m.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(w.Legacy().NodePort),
		VpcId: aws.String(w.Legacy().VPCID), TargetType: tt,
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	if len(targets) > 0 {
		if _, err := m.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: targets}); err != nil {
			t.Fatal(err)
		}
	}
	if len(tags) > 0 {
		in := &elbv2.AddTagsInput{ResourceArns: []string{arn}}
		for _, k := range slices.Sorted(maps.Keys(tags)) {
			in.Tags = append(in.Tags, elbv2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
		}
		if _, err := m.AddTags(in); err != nil {
			t.Fatal(err)
		}
	}
	return arn
}

// nodeTargets returns every live node's nodeIP:NodePort.
func nodeTargets(w *sim.World) []elbv2types.TargetDescription {
	var out []elbv2types.TargetDescription
	for _, n := range w.Cluster().Nodes() {
		out = append(out, elbv2types.TargetDescription{Id: aws.String(n.InternalIP), Port: aws.Int32(w.Legacy().NodePort)})
	}
	return out
}

// truth is the simulator's ground truth for one target group: its targets
// by IP:port, and the ghosts and live node targets among them.
type truth struct {
	ghosts, draining, nodeTargets, nodes []string
}

func groundTruth(w *sim.World, arn string) truth {
	var tr truth
	nodes := map[string]bool{}
	for _, t := range w.Targets(arn) {
		key := fmt.Sprintf("%s:%d", t.IP, t.Port)
		if t.State == elbv2types.TargetHealthStateEnumDraining {
			tr.draining = append(tr.draining, key)
		}
		switch {
		case t.Owner == "":
			tr.ghosts = append(tr.ghosts, key)
		case strings.HasPrefix(t.Owner, "node/"):
			tr.nodeTargets = append(tr.nodeTargets, key)
			nodes[strings.TrimPrefix(t.Owner, "node/")] = true
		}
	}
	slices.Sort(tr.ghosts)
	slices.Sort(tr.draining)
	slices.Sort(tr.nodeTargets)
	tr.nodes = slices.Sorted(maps.Keys(nodes))
	return tr
}

func reportTG(rep *diagnose.Report, arn string) *diagnose.TargetGroupReport {
	for i := range rep.TargetGroups {
		if rep.TargetGroups[i].ARN == arn {
			return &rep.TargetGroups[i]
		}
	}
	return nil
}

func findingOf(tg *diagnose.TargetGroupReport, code diagnose.Code) *diagnose.Finding {
	for i := range tg.Findings {
		if tg.Findings[i].Code == code {
			return &tg.Findings[i]
		}
	}
	return nil
}

// classKeys returns the IP:port of the report's targets of one class, sorted.
func classKeys(tg *diagnose.TargetGroupReport, c diagnose.Class) []string {
	var out []string
	for _, t := range tg.Targets {
		if t.Class == c {
			out = append(out, t.Key())
		}
	}
	slices.Sort(out)
	return out
}

// targetKeys keeps the IP:port names of a finding's evidence.
func targetKeys(names []string) []string {
	var out []string
	for _, n := range names {
		if _, err := netip.ParseAddrPort(n); err == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// TestScenarioChurnGhosts: after 30 minutes of Karpenter churn on the
// seed's static target group, Diagnose reports exactly the ghost IP:port
// set the simulator knows is dead, and the live node targets as
// StaticNodeTarget and KarpenterDisruptionRisk, at the API cost its
// contract sets: one DescribeTargetHealth per target group in scope,
// DescribeTargetGroups pages of 400, DescribeTags batches of 20, nothing
// for the target groups outside the scope. Through the wire, the calls are
// counted at the endpoint.
func TestScenarioChurnGhosts(t *testing.T) {
	forEachTransport(t, testScenarioChurnGhosts)
}

func testScenarioChurnGhosts(t *testing.T, via transport) {
	w := newSimWorld(t, via, sim.Config{Seed: 7, ChurnInterval: 3 * time.Minute})
	legacy := w.Legacy()
	team := map[string]string{"team": "shop"}
	if _, err := w.Model().AddTags(&elbv2.AddTagsInput{ResourceArns: []string{legacy.TargetGroupARN},
		Tags: []elbv2types.Tag{{Key: aws.String("team"), Value: aws.String("shop")}}}); err != nil {
		t.Fatal(err)
	}
	// The out-of-scope target group pins the same nodes: it collects
	// ghosts of its own, which no scope below may touch.
	other := createTargetGroup(t, w, "other-web", elbv2types.TargetTypeEnumIp, nodeTargets(w), nil)
	// 800 target groups in all: 2 pages of 400, 40 tag batches of 20 (399
	// or 21 would cost 3 pages or 39 batches). Two empty ones carry the
	// team tag.
	inTags := map[string]bool{legacy.TargetGroupARN: true}
	for i := range 798 {
		var tags map[string]string
		if i%400 == 7 {
			tags = team
		}
		arn := createTargetGroup(t, w, fmt.Sprintf("filler-%03d", i), elbv2types.TargetTypeEnumIp, nil, tags)
		if tags != nil {
			inTags[arn] = true
		}
	}
	w.Run(30 * time.Minute)

	legacyOnly := map[string]bool{legacy.TargetGroupARN: true}
	perTG := map[string]int{"DescribeTargetGroups": 1, "DescribeTags": 1, "DescribeTargetHealth": 1, "DescribeListeners": 1, "DescribeRules": 1}
	// By ARN or name, the quota check reads the target groups of the
	// legacy ALB once more: the cutover would add web's pods, and the
	// scope did not list the ALB's target groups (the legacy one only).
	perTGQuota := maps.Clone(perTG)
	perTGQuota["DescribeTargetGroups"] = 2
	tests := []struct {
		name    string
		scope   diagnose.Scope
		opts    []diagnose.Option
		inScope map[string]bool
		counts  map[string]int
		// listsAll: the scope lists every target group and reads all their
		// tags (DescribeTargetGroups and DescribeTags name out-of-scope ones).
		listsAll bool
	}{
		{name: "by ARN", scope: diagnose.Scope{TargetGroupARNs: arntest.TGs(legacy.TargetGroupARN)}, inScope: legacyOnly, counts: perTGQuota},
		{name: "by name", scope: diagnose.Scope{TargetGroupNames: []string{legacy.TargetGroupName}}, inScope: legacyOnly, counts: perTGQuota},
		{name: "by load balancer", scope: diagnose.Scope{LoadBalancerARNs: arntest.LBs(legacy.LoadBalancerARN)}, inScope: legacyOnly, counts: perTG},
		// The tag scope makes 47 calls: unpaced, so that the scan takes no
		// virtual time and the ground truth is the scan's instant.
		{name: "by tag", scope: diagnose.Scope{Tags: team}, opts: []diagnose.Option{diagnose.WithRateLimit(rate.Inf, 0)}, inScope: inTags, listsAll: true,
			counts: map[string]int{"DescribeTargetGroups": 2, "DescribeTags": 40, "DescribeTargetHealth": 3, "DescribeListeners": 1, "DescribeRules": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resetCounts(w)
			before := w.Clock().Now()
			rep := diagnoseWorld(t, w, tt.scope, tt.opts...)
			if !w.Clock().Now().Equal(before) {
				t.Fatalf("the scan moved the world from %v to %v: the ground truth would not be the scan's", before, w.Clock().Now())
			}

			// API economy, as the simulated service counted it: at the
			// endpoint through the wire, where each of the SDK's retries
			// would count too.
			checkTransport(t, via, w)
			if d := cmp.Diff(tt.counts, w.AWSCounts()); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.counts, rep.Accounts[0].APICalls); d != "" {
				t.Errorf("calls the report counts (-want +got):\n%s", d)
			}
			// The facade's call log (behind the endpoint through the wire)
			// names each call's resources.
			health := map[string]int{}
			for _, c := range w.ELBv2().Calls() {
				if c.Op == elbv2sim.OpDescribeTargetHealth {
					health[strings.Join(c.Resources, ",")]++
				}
				for _, r := range c.Resources {
					outside := strings.Contains(r, ":targetgroup/") && !tt.inScope[r]
					if outside && !(tt.listsAll && c.Op == elbv2sim.OpDescribeTags) {
						t.Errorf("%s names %s, outside the scope", c.Op, r)
					}
				}
			}
			wantHealth := map[string]int{}
			for arn := range tt.inScope {
				wantHealth[arn] = 1
			}
			if d := cmp.Diff(wantHealth, health); d != "" {
				t.Errorf("DescribeTargetHealth calls by target group (-want +got):\n%s", d)
			}
			var got []string
			for _, tg := range rep.TargetGroups {
				got = append(got, tg.ARN)
			}
			if d := cmp.Diff(slices.Sorted(maps.Keys(tt.inScope)), slices.Sorted(slices.Values(got))); d != "" {
				t.Errorf("target groups in the report (-want +got):\n%s", d)
			}

			// Ghosts and live node targets, against the ground truth.
			tr := groundTruth(w, legacy.TargetGroupARN)
			if len(tr.ghosts) == 0 || len(tr.nodeTargets) == 0 || len(tr.draining) != 0 {
				t.Fatalf("ground truth %+v: want ghosts and live node targets, none draining", tr)
			}
			tg := reportTG(rep, legacy.TargetGroupARN)
			if d := cmp.Diff(tr.ghosts, classKeys(tg, diagnose.ClassGhost)); d != "" {
				t.Errorf("ghost targets (-simulator +diagnose):\n%s", d)
			}
			if d := cmp.Diff(tr.nodeTargets, classKeys(tg, diagnose.ClassNode)); d != "" {
				t.Errorf("node targets (-simulator +diagnose):\n%s", d)
			}
			if n := tg.Counts.ByClass[diagnose.ClassPod] + tg.Counts.ByClass[diagnose.ClassForeign]; n != 0 {
				t.Errorf("%d pod or foreign targets, want none: %+v", n, tg.Counts)
			}
			f := findingOf(tg, diagnose.CodeGhostTarget)
			if f == nil {
				t.Fatalf("no GhostTarget finding: %v", tg.Findings)
			}
			if d := cmp.Diff(tr.ghosts, targetKeys(f.Evidence.Names)); d != "" {
				t.Errorf("GhostTarget evidence (-simulator +diagnose):\n%s", d)
			}
			for _, code := range []diagnose.Code{diagnose.CodeStaticNodeTarget, diagnose.CodeKarpenterDisruptionRisk} {
				f := findingOf(tg, code)
				if f == nil {
					t.Errorf("no %s finding: %v", code, tg.Findings)
					continue
				}
				if d := cmp.Diff(tr.nodes, f.Evidence.Names); d != "" {
					t.Errorf("%s nodes (-simulator +diagnose):\n%s", code, d)
				}
				if f.Evidence.Counts["targets"] != len(tr.nodeTargets) {
					t.Errorf("%s counts %v, want %d targets", code, f.Evidence.Counts, len(tr.nodeTargets))
				}
			}
			t.Logf("%s: %d ghosts and %d live node targets of %d, both sets equal the simulator's (other-web, out of scope: %d ghosts)",
				tt.name, len(tr.ghosts), len(tr.nodeTargets), len(w.Targets(legacy.TargetGroupARN)), len(groundTruth(w, other).ghosts))
		})
	}
}

// iamGate stands in for an LBC whose IAM role lacks
// elasticloadbalancing:DescribeTargetHealth: while denied, its reconciles
// fail before they list the target group, and back off.
type iamGate struct {
	lbc.ELBv2API
	denied atomic.Bool
}

// wrap is Config.WrapLBCELBv2: the gate in front of the LBC's client.
func (g *iamGate) wrap(real lbc.ELBv2API) lbc.ELBv2API {
	g.ELBv2API = real
	return g
}

// DescribeTargetHealth fails with AccessDenied while the gate is denied.
func (g *iamGate) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, opts ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	if g.denied.Load() {
		return nil, &smithy.OperationError{ServiceID: "ElasticLoadBalancingV2", OperationName: "DescribeTargetHealth",
			Err: &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized to perform elasticloadbalancing:DescribeTargetHealth"}}
	}
	return g.ELBv2API.DescribeTargetHealth(ctx, in, opts...)
}

// scenario is one world for one finding code: setup builds it (and runs it
// as long as needed) and returns the target group to diagnose; check, when
// set, looks further at the report and the world (f is nil when the finding
// is absent).
type scenario struct {
	name  string
	code  diagnose.Code
	want  bool
	cfg   sim.Config
	gate  bool // wrap the LBC's client in an iamGate, denied from the start
	setup func(t *testing.T, w *sim.World, g *iamGate) string
	check func(t *testing.T, w *sim.World, g *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding)
	// quotas, when set, are the applied values of ELBv2's quotas on
	// targets, by quota code, that a Service Quotas client answers; nil
	// means no client (AWS's defaults).
	quotas map[string]float64
}

// smallWorld is the seed's case with 4 nodes and 8 pods.
func smallWorld(seed uint64) sim.Config { return sim.Config{Seed: seed, Nodes: 4, Pods: 8} }

// noLag takes the deregistration lag out of cfg's timings.
func noLag(cfg sim.Config) sim.Config {
	cfg.Timings.DeregistrationLag = -1
	return cfg
}

// legacyTG is the setup of a scenario that diagnoses the seed's world as built.
func legacyTG(_ *testing.T, w *sim.World, _ *iamGate) string { return w.Legacy().TargetGroupARN }

// bind creates a binding of the legacy target group and runs the world on.
func bind(t *testing.T, w *sim.World, multiCluster bool, port intstr.IntOrString, run time.Duration) {
	t.Helper()
	b := w.NewBinding("web", multiCluster)
	b.Spec.ServiceRef.Port = port
	if err := w.Client().Create(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	w.Run(run)
}

// httpPort is the Service's port, as NewBinding names it.
var httpPort = intstr.FromInt32(sim.DefaultServicePort)

// deregisterNodeTargets deregisters the legacy node targets, with their
// Port, as cutover does once the pod targets are healthy, through the
// system under test's client (the real SDK client on the wire).
func deregisterNodeTargets(t *testing.T, w *sim.World) {
	t.Helper()
	var ts []elbv2types.TargetDescription
	for _, nt := range w.NodeTargets() {
		ts = append(ts, elbv2types.TargetDescription{Id: aws.String(nt.IP), Port: aws.Int32(nt.Port)})
	}
	if _, err := w.AWS().DeregisterTargets(t.Context(), &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(w.Legacy().TargetGroupARN), Targets: ts}); err != nil {
		t.Fatal(err)
	}
}

// cutOver is the setup of a finished adoption: a multi-cluster binding,
// the pod targets healthy, the node targets deregistered and gone.
func cutOver(t *testing.T, w *sim.World, _ *iamGate) string {
	bind(t, w, true, httpPort, 5*time.Minute)
	deregisterNodeTargets(t, w)
	w.Run(6 * time.Minute) // past the deregistration delay of 300 s
	if tr := groundTruth(w, w.Legacy().TargetGroupARN); len(tr.nodeTargets) != 0 {
		t.Fatalf("ground truth %+v: want no node target left", tr)
	}
	return w.Legacy().TargetGroupARN
}

// podHosts are the nodes, by name, whose pods hold the target group's pod
// targets that are not draining, as the simulator knows them.
func podHosts(w *sim.World, arn string) []string {
	nodeOf := map[string]string{}
	for _, p := range w.Cluster().Pods() {
		nodeOf["pod/"+p.Namespace+"/"+p.Name] = p.Node
	}
	nodes := map[string]bool{}
	for _, t := range w.Targets(arn) {
		if n := nodeOf[t.Owner]; n != "" && t.State != elbv2types.TargetHealthStateEnumDraining {
			nodes[n] = true
		}
	}
	return slices.Sorted(maps.Keys(nodes))
}

// expiry is when the oldest live node's NodeClaim expires (the first by
// name among the oldest), as Karpenter computes it.
func expiry(w *sim.World, after time.Duration) (string, time.Time) {
	var name string
	var at time.Time
	for _, n := range w.Cluster().Nodes() {
		e := n.LaunchedAt.Add(after)
		if name == "" || e.Before(at) || (e.Equal(at) && n.Name < name) {
			name, at = n.Name, e
		}
	}
	return name, at
}

// wantNext checks the next known disruption a KarpenterDisruptionRisk
// finding names.
func wantNext(t *testing.T, f *diagnose.Finding, kind, node string) {
	t.Helper()
	if d := f.Evidence.Details; d["nextDisruption"] != kind || d["nextDisruptionNode"] != node || !strings.Contains(f.Remediation, "("+node+": ") {
		t.Errorf("next disruption: details %v, remediation %q; want %s of %s", d, f.Remediation, kind, node)
	}
}

// scenarios are, for each target-group finding code, worlds that produce it
// and near misses that must not.
// build makes the scenario's world on via (its LBC's client behind an
// iamGate, denied from the start, when sc.gate), runs its setup, and
// returns the world, the gate, the target group's ARN and the sources a
// scan of it takes (with the scenario's quotas when it sets them).
func (sc scenario) build(t *testing.T, via transport) (*sim.World, *iamGate, string, diagnose.Sources) {
	t.Helper()
	cfg := sc.cfg
	g := &iamGate{}
	if sc.gate {
		g.denied.Store(true)
		cfg.WrapLBCELBv2 = g.wrap
	}
	w := newSimWorld(t, via, cfg)
	arn := sc.setup(t, w, g)
	src := worldSources(w)
	if sc.quotas != nil {
		src.Accounts[0].ServiceQuotas = appliedQuotas(sc.quotas)
	}
	return w, g, arn, src
}

var scenarios = []scenario{
	// GhostTarget
	{name: "every node replaced", code: diagnose.CodeGhostTarget, want: true, cfg: smallWorld(21),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			if err := w.ReplaceAllNodes(4 * time.Minute); err != nil {
				t.Fatal(err)
			}
			w.Run(20 * time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			tr := groundTruth(w, tg.ARN)
			if len(tr.ghosts) != 4 || len(tr.nodeTargets) != 0 {
				t.Fatalf("ground truth %+v: want the 4 initial nodes gone", tr)
			}
			if d := cmp.Diff(tr.ghosts, targetKeys(f.Evidence.Names)); d != "" {
				t.Errorf("ghosts (-simulator +diagnose):\n%s", d)
			}
		}},
	{name: "near miss: a node being disrupted still holds its address", code: diagnose.CodeGhostTarget, want: false, cfg: smallWorld(22),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			if err := w.Karpenter().ReplaceNode(w.Cluster().Nodes()[0].Name, karpenter.ReasonDrifted); err != nil {
				t.Fatal(err)
			}
			w.Run(30 * time.Second) // tainted; its replacement is not Ready yet
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			n := w.Cluster().Nodes()[0]
			if n.Phase != "Ready" || !slices.ContainsFunc(n.Taints, func(x corev1.Taint) bool { return x.Key == karpenter.TaintDisrupted }) {
				t.Fatalf("node %s: phase %s, taints %v: want it tainted and alive", n.Name, n.Phase, n.Taints)
			}
			for _, x := range tg.Targets {
				if x.ID == n.InternalIP && (x.Class != diagnose.ClassNode || !x.Node.Disrupting) {
					t.Errorf("target %s: %+v, want a node being disrupted", x.Key(), x)
				}
			}
		}},

	// StaticNodeTarget
	{name: "the seed's node targets", code: diagnose.CodeStaticNodeTarget, want: true, cfg: smallWorld(31), setup: legacyTG,
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			tr := groundTruth(w, tg.ARN)
			if d := cmp.Diff(tr.nodes, f.Evidence.Names); d != "" || f.Evidence.Counts["targets"] != 4 || f.Evidence.Details["ports"] != "30080" {
				t.Errorf("evidence %+v; nodes (-simulator +diagnose):\n%s", f.Evidence, d)
			}
		}},
	{name: "near miss: cut over, the node targets draining", code: diagnose.CodeStaticNodeTarget, want: false,
		cfg: sim.Config{Seed: 32, Nodes: 4, Pods: 8, PublicSubnets: true},
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, httpPort, 5*time.Minute)
			deregisterNodeTargets(t, w)
			w.Run(time.Minute) // the deregistration delay is 300 s
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			tr := groundTruth(w, tg.ARN)
			if len(tr.nodeTargets) != 4 || !slices.Equal(tr.draining, tr.nodeTargets) {
				t.Fatalf("ground truth %+v: want the 4 node targets, draining", tr)
			}
			if n := tg.Counts.ByClass[diagnose.ClassPod]; n != 8 || tg.Counts.ByState["healthy"] != 8 {
				t.Errorf("counts %+v: want the 8 pod targets healthy", tg.Counts)
			}
			// The nodes are still public and host the pods behind the pod
			// targets: PublicSubnetNode stays, for those (see its cases).
			for _, code := range []diagnose.Code{diagnose.CodeKarpenterDisruptionRisk, diagnose.CodeUnmanagedTargetGroup} {
				if f := findingOf(tg, code); f != nil {
					t.Errorf("unexpected %s: %s", code, f.Message)
				}
			}
		}},

	// UnmanagedTargetGroup
	{name: "the seed's hand-made target group", code: diagnose.CodeUnmanagedTargetGroup, want: true, cfg: smallWorld(41), setup: legacyTG,
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if !slices.Equal(f.Evidence.Names, []string{"shop/web"}) || tg.Service == nil || tg.Service.Source != diagnose.ServiceFromNodePort {
				t.Errorf("evidence %+v, service %+v: want shop/web from its NodePort", f.Evidence, tg.Service)
			}
		}},
	{name: "near miss: a multi-cluster binding keeps it", code: diagnose.CodeUnmanagedTargetGroup, want: false, cfg: smallWorld(42),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, httpPort, time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			if tg.Owner.Kind != diagnose.OwnerBinding || len(tg.Owner.Bindings) != 1 || tg.Owner.Bindings[0].Mode != diagnose.ModeMultiCluster {
				t.Errorf("owner %+v", tg.Owner)
			}
		}},

	// KarpenterDisruptionRisk
	{name: "a drift the budget holds back is the next disruption; expiry from the NodeClaims", code: diagnose.CodeKarpenterDisruptionRisk, want: true,
		cfg: sim.Config{Seed: 51, Nodes: 4, Pods: 8, NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}, ExpireAfter: 6 * time.Hour}},
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			w.Run(10 * time.Minute)
			if err := w.Karpenter().ReplaceNode(w.Cluster().Nodes()[2].Name, karpenter.ReasonDrifted); err != nil {
				t.Fatal(err)
			}
			w.Run(time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			drifted := w.Cluster().Nodes()[2].Name
			if len(w.Karpenter().Disruptions()) != 0 {
				t.Fatalf("disruptions %+v: want the drift held back by the budget", w.Karpenter().Disruptions())
			}
			wantNext(t, f, "drifted", drifted)
			node, at := expiry(w, 6*time.Hour)
			d := f.Evidence.Details
			if d["driftedNodes"] != drifted || d["nearestExpiryNode"] != node || d["nearestExpiry"] != at.UTC().Format(time.RFC3339) ||
				d["nearestExpiryIn"] != at.Sub(w.Clock().Now()).Round(time.Minute).String() {
				t.Errorf("details %v: want %s drifted, %s expiring at %v", d, drifted, node, at)
			}
		}},
	{name: "a consolidation the budget holds back is the next disruption", code: diagnose.CodeKarpenterDisruptionRisk, want: true,
		cfg: sim.Config{Seed: 52, Nodes: 4, Pods: 8, NodePool: karpenter.NodePool{Budgets: []karpenter.Budget{{Nodes: "0"}}}},
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			if err := w.Karpenter().ReplaceNode(w.Cluster().Nodes()[1].Name, karpenter.ReasonUnderutilized); err != nil {
				t.Fatal(err)
			}
			w.Run(time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			wantNext(t, f, "consolidatable", w.Cluster().Nodes()[1].Name)
		}},
	{name: "a node being disrupted is the next disruption", code: diagnose.CodeKarpenterDisruptionRisk, want: true, cfg: smallWorld(53),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			if err := w.Karpenter().ReplaceNode(w.Cluster().Nodes()[3].Name, karpenter.ReasonExpired); err != nil {
				t.Fatal(err)
			}
			w.Run(5 * time.Second)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			wantNext(t, f, "disrupting", w.Cluster().Nodes()[3].Name)
		}},
	{name: "the nearest expiry is the next disruption", code: diagnose.CodeKarpenterDisruptionRisk, want: true,
		cfg: sim.Config{Seed: 54, Nodes: 4, Pods: 8, NodePool: karpenter.NodePool{ExpireAfter: 2 * time.Hour}}, setup: legacyTG,
		check: func(t *testing.T, w *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			node, at := expiry(w, 2*time.Hour)
			wantNext(t, f, "expiry", node)
			if want := fmt.Sprintf("expires at %s, in %s", at.UTC().Format(time.RFC3339), at.Sub(w.Clock().Now()).Round(time.Minute)); !strings.Contains(f.Message, want) {
				t.Errorf("message %q, want %q", f.Message, want)
			}
		}},
	{name: "near miss: a node target on a node Karpenter does not manage", code: diagnose.CodeKarpenterDisruptionRisk, want: false, cfg: smallWorld(55),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			name, err := w.Cluster().LaunchNode(t.Context(), cluster.NodeSpec{Labels: map[string]string{"eks.amazonaws.com/nodegroup": "static"}})
			if err != nil {
				t.Fatal(err)
			}
			n, _ := w.Cluster().Node(name)
			return createTargetGroup(t, w, "static-web", elbv2types.TargetTypeEnumIp,
				[]elbv2types.TargetDescription{{Id: aws.String(n.InternalIP), Port: aws.Int32(w.Legacy().NodePort)}}, nil)
		},
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			if f := findingOf(tg, diagnose.CodeStaticNodeTarget); f == nil || len(tg.Targets) != 1 || tg.Targets[0].Node == nil || tg.Targets[0].Node.Karpenter {
				t.Errorf("targets %+v, StaticNodeTarget %v: want one pinned node target, not Karpenter's", tg.Targets, f)
			}
		}},

	// HealthCheckMismatch
	{name: "path / against the probe's /healthz", code: diagnose.CodeHealthCheckMismatch, want: true, cfg: smallWorld(61), setup: legacyTG,
		check: func(t *testing.T, _ *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if d := f.Evidence.Details; d["healthCheckPath"] != "/" || d["probePath"] != "/healthz" {
				t.Errorf("details %v", d)
			}
		}},
	{name: "port pinned to the NodePort", code: diagnose.CodeHealthCheckMismatch, want: true,
		cfg:   sim.Config{Seed: 62, Nodes: 4, Pods: 8, Legacy: sim.LegacyTargetGroup{HealthCheckPath: "/healthz", HealthCheckPort: "30080"}},
		setup: legacyTG,
		check: func(t *testing.T, _ *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if f.Evidence.Counts["aspects"] != 1 || !strings.Contains(f.Message, "port 30080 is the NodePort of shop/web") {
				t.Errorf("finding %+v", f)
			}
		}},
	{name: "near miss: traffic-port and the probe's path", code: diagnose.CodeHealthCheckMismatch, want: false,
		cfg: sim.Config{Seed: 63, Nodes: 4, Pods: 8, Legacy: sim.LegacyTargetGroup{HealthCheckPath: "/healthz"}}, setup: legacyTG},

	// PortMismatch
	{name: "a multi-cluster binding names a port the Service lacks", code: diagnose.CodePortMismatch, want: true, cfg: smallWorld(71),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, intstr.FromString("https"), time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if !strings.Contains(f.Message, "binding shop/web names port https, which Service shop/web does not have") {
				t.Errorf("message %q", f.Message)
			}
			// The LBC found no backend and registered nothing; in
			// multi-cluster mode it left the node targets alone.
			if s := w.LBC().Stats(); s.Registered != 0 || s.Deregistered != 0 || len(classKeys(tg, diagnose.ClassNode)) != 4 {
				t.Errorf("LBC %+v, counts %+v", s, tg.Counts)
			}
		}},
	{name: "near miss: node targets on the NodePort, pod targets on the targetPort", code: diagnose.CodePortMismatch, want: false, cfg: smallWorld(72),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, httpPort, 5*time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			pods, nodes := classKeys(tg, diagnose.ClassPod), classKeys(tg, diagnose.ClassNode)
			if len(pods) != 8 || len(nodes) != 4 || !strings.HasSuffix(pods[0], ":8080") || !strings.HasSuffix(nodes[0], ":30080") {
				t.Errorf("pod targets %v, node targets %v", pods, nodes)
			}
		}},

	// PublicSubnetNode
	{name: "nodes in public subnets", code: diagnose.CodePublicSubnetNode, want: true, cfg: sim.Config{Seed: 81, Nodes: 4, Pods: 8, PublicSubnets: true}, setup: legacyTG,
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if d := cmp.Diff(groundTruth(w, tg.ARN).nodes, f.Evidence.Names); d != "" || f.Evidence.Counts["externalIP"] != 4 || f.Evidence.Counts["publicSubnet"] != 0 {
				t.Errorf("evidence %+v; nodes (-simulator +diagnose):\n%s", f.Evidence, d)
			}
		}},
	{name: "near miss: private subnets", code: diagnose.CodePublicSubnetNode, want: false, cfg: smallWorld(82), setup: legacyTG},
	{name: "cut over, the nodes that host the pod targets still public", code: diagnose.CodePublicSubnetNode, want: true,
		cfg: sim.Config{Seed: 83, Nodes: 4, Pods: 8, PublicSubnets: true}, setup: cutOver,
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			hosts := podHosts(w, tg.ARN)
			if d := cmp.Diff(hosts, f.Evidence.Names); d != "" || f.Evidence.Counts["targets"] != 0 || f.Evidence.Counts["podTargets"] != 8 ||
				f.Evidence.Counts["externalIP"] != len(hosts) {
				t.Errorf("evidence %+v; nodes hosting pod targets (-simulator +diagnose):\n%s", f.Evidence, d)
			}
			for _, n := range hosts {
				if why := f.Evidence.Details["node/"+n]; !strings.HasPrefix(why, "ExternalIP ") || !strings.Contains(why, "hosts the pods of") {
					t.Errorf("node %s: why %q, want its ExternalIP and the pod targets it hosts", n, why)
				}
			}
			if !strings.Contains(f.Message, "LBC registers their new addresses") || !strings.Contains(f.Remediation, "MissingReadinessGate") {
				t.Errorf("message %q, remediation %q", f.Message, f.Remediation)
			}
		}},
	{name: "near miss: cut over on private subnets", code: diagnose.CodePublicSubnetNode, want: false, cfg: smallWorld(84), setup: cutOver},

	// MissingReadinessGate
	{name: "namespace not labelled", code: diagnose.CodeMissingReadinessGate, want: true, cfg: smallWorld(91), setup: legacyTG,
		check: func(t *testing.T, _ *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if !slices.Equal(f.Evidence.Names, []string{sim.ClusterName + "/shop"}) {
				t.Errorf("names %v", f.Evidence.Names)
			}
		}},
	{name: "labelled and bound, but the pods predate the binding", code: diagnose.CodeMissingReadinessGate, want: true,
		cfg: sim.Config{Seed: 92, Nodes: 4, Pods: 8, ReadinessGateInjection: true},
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, httpPort, time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, _ *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if f.Evidence.Counts["podsWithoutGate"] != 8 || f.Evidence.Counts["namespaces"] != 0 || !strings.Contains(f.Remediation, "restart") {
				t.Errorf("finding %+v", f)
			}
		}},
	{name: "near miss: labelled, no binding yet", code: diagnose.CodeMissingReadinessGate, want: false,
		cfg: sim.Config{Seed: 93, Nodes: 4, Pods: 8, ReadinessGateInjection: true}, setup: legacyTG},
	{name: "near miss: labelled and bound, every pod recreated since", code: diagnose.CodeMissingReadinessGate, want: false,
		cfg: sim.Config{Seed: 94, Nodes: 4, Pods: 8, ReadinessGateInjection: true},
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, httpPort, time.Minute)
			if err := w.ReplaceAllNodes(4 * time.Minute); err != nil {
				t.Fatal(err)
			}
			w.Run(20 * time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, _ *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			for _, p := range w.Cluster().Pods() {
				if !slices.Contains(p.Gates, diagnose.ReadinessGatePrefix+"web") {
					t.Errorf("pod %s has gates %v, want the binding's", p.Name, p.Gates)
				}
			}
		}},

	// DefaultModeBindingOnSharedGroup
	// No deregistration lag: the outage the finding predicts shows (a lag
	// longer than the pods' first check would bridge it).
	{name: "a default-mode binding the LBC cannot reconcile yet", code: diagnose.CodeDefaultModeBindingOnSharedGroup, want: true, cfg: noLag(smallWorld(101)), gate: true,
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, false, httpPort, 5*time.Minute)
			// Nothing has happened yet: the node targets serve.
			if tr := groundTruth(w, w.Legacy().TargetGroupARN); len(tr.nodeTargets) != 4 || len(tr.draining) != 0 || w.Traffic().Failed != 0 {
				t.Fatalf("ground truth %+v, traffic %s: want the node targets serving", tr, w.Traffic().String())
			}
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, g *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			named := targetKeys(f.Evidence.Names)
			if f.Evidence.Counts["notOwned"] != 4 || f.Evidence.Counts["node"] != 4 || !slices.Contains(f.Evidence.Names, sim.ClusterName+"/shop/web") {
				t.Errorf("evidence %+v", f.Evidence)
			}
			// The prediction: once the LBC can reconcile, it deregisters
			// exactly the targets named, and traffic fails.
			g.denied.Store(false)
			for range 30 {
				if w.LBC().Stats().Deregistered > 0 {
					break
				}
				w.Run(time.Minute)
			}
			if d := cmp.Diff(named, groundTruth(w, tg.ARN).draining); d != "" {
				t.Errorf("targets the LBC deregistered (-diagnose +simulator):\n%s", d)
			}
			if w.Traffic().Failed == 0 {
				t.Errorf("traffic %s: want the outage the finding predicts", w.Traffic().String())
			}
		}},
	{name: "a node target registered by hand next to a settled default-mode binding", code: diagnose.CodeDefaultModeBindingOnSharedGroup, want: true, cfg: smallWorld(104),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, false, httpPort, 10*time.Minute) // wiped, drained, pod targets healthy
			// A leftover script pins a node again; with stable endpoints
			// the LBC's checkpoint skips its reconciles and leaves it.
			n := w.Cluster().Nodes()[0]
			if _, err := w.Model().RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.Legacy().TargetGroupARN),
				Targets: []elbv2types.TargetDescription{{Id: aws.String(n.InternalIP), Port: aws.Int32(w.Legacy().NodePort)}}}); err != nil {
				t.Fatal(err)
			}
			w.Run(5 * time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			n := w.Cluster().Nodes()[0]
			stray := fmt.Sprintf("%s:%d", n.InternalIP, w.Legacy().NodePort)
			if named := targetKeys(f.Evidence.Names); !slices.Equal(named, []string{stray}) || f.Evidence.Counts["notOwned"] != 1 {
				t.Fatalf("evidence %+v: want only %s", f.Evidence, stray)
			}
			if tr := groundTruth(w, tg.ARN); !slices.Equal(tr.nodeTargets, []string{stray}) || len(tr.draining) != 0 {
				t.Fatalf("ground truth %+v: want the stray node target serving", tr)
			}
			// The prediction: the next reconcile (a pod replaced, so the
			// endpoints change) deregisters it.
			if err := w.Cluster().Evict(t.Context(), w.PodKeys()[0]); err != nil {
				t.Fatal(err)
			}
			w.Run(time.Minute)
			if tr := groundTruth(w, tg.ARN); !slices.Contains(tr.draining, stray) {
				t.Errorf("ground truth %+v: want %s deregistered by the LBC", tr, stray)
			}
		}},
	{name: "near miss: after the LBC's reconcile, the node targets are draining", code: diagnose.CodeDefaultModeBindingOnSharedGroup, want: false, cfg: smallWorld(102),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, false, httpPort, time.Minute)
			return w.Legacy().TargetGroupARN
		},
		check: func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			if tr := groundTruth(w, tg.ARN); len(tr.draining) != 4 || len(classKeys(tg, diagnose.ClassPod)) != 8 {
				t.Errorf("ground truth %+v, counts %+v: want the node targets draining and the pod targets registered", tr, tg.Counts)
			}
		}},
	{name: "near miss: a multi-cluster binding", code: diagnose.CodeDefaultModeBindingOnSharedGroup, want: false, cfg: smallWorld(103),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			bind(t, w, true, httpPort, 5*time.Minute)
			return w.Legacy().TargetGroupARN
		}},

	// InstanceTypeTargetGroup
	{name: "a hand-made instance target group behind the ALB", code: diagnose.CodeInstanceTypeTargetGroup, want: true, cfg: instanceWorld(111),
		setup: legacyTG,
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			if tg.Counts.ByClass[diagnose.ClassNode] != 4 || !strings.Contains(f.Remediation, "blue-green") ||
				f.Next.Op != diagnose.OpPlanCutover || f.Next.Strategy != "blue-green" {
				t.Errorf("counts %+v, remediation %q, next %+v", tg.Counts, f.Remediation, f.Next)
			}
			// Every finding on it names blue-green, which PlanCutover accepts
			// for an instance target group; never in-place.
			for _, f := range tg.Findings {
				if f.Next.Strategy == "in-place" || strings.Contains(f.Remediation, "in-place") {
					t.Errorf("%s names in-place: %q", f.Code, f.Remediation)
				}
			}
		}},
	{name: "an instance target group no load balancer uses", code: diagnose.CodeInstanceTypeTargetGroup, want: true, cfg: smallWorld(113),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string { return instanceTG(t, w, nil) },
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			// PlanCutover would refuse blue-green: there is no traffic to shift.
			if tg.Counts.ByClass[diagnose.ClassNode] != 4 || f.Next.Op != diagnose.OpManual || !strings.Contains(f.Remediation, "no load balancer forwards to it") {
				t.Errorf("counts %+v, remediation %q, next %+v", tg.Counts, f.Remediation, f.Next)
			}
		}},
	{name: "near miss: an instance target group of an LBC stack", code: diagnose.CodeInstanceTypeTargetGroup, want: false, cfg: smallWorld(112),
		setup: func(t *testing.T, w *sim.World, _ *iamGate) string {
			return instanceTG(t, w, map[string]string{diagnose.TagCluster: sim.ClusterName, diagnose.TagIngressStack: "shop/web"})
		},
		check: func(t *testing.T, _ *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
			if tg.TargetType != "instance" || tg.Owner.Kind != diagnose.OwnerLBCStack {
				t.Errorf("type %s, owner %+v", tg.TargetType, tg.Owner)
			}
		}},

	// TargetQuotaOverlap: 4 node targets and 8 pods to add, a peak of 12,
	// against a quota of 10 per target group (read through Service
	// Quotas); TargetQuotaExceeded: against 6, which even the 8 pod
	// targets alone exceed.
	{name: "the overlap exceeds a quota of 10 per target group", code: diagnose.CodeTargetQuotaOverlap, want: true, cfg: smallWorld(121),
		setup: legacyTG, quotas: map[string]float64{diagnose.QuotaCodeTargetsPerTargetGroup: 10, diagnose.QuotaCodeTargetsPerALB: 1000, diagnose.QuotaCodeTargetsPerNLB: 3000},
		check: wantQuotaHeadroom(10, diagnose.QuotaApplied)},
	{name: "near miss: AWS's default quotas", code: diagnose.CodeTargetQuotaOverlap, want: false, cfg: smallWorld(122),
		setup: legacyTG, check: wantQuotaHeadroom(1000, diagnose.QuotaDocumentedDefault)},
	{name: "the pod targets alone exceed a quota of 6 per target group", code: diagnose.CodeTargetQuotaExceeded, want: true, cfg: smallWorld(123),
		setup: legacyTG, quotas: map[string]float64{diagnose.QuotaCodeTargetsPerTargetGroup: 6, diagnose.QuotaCodeTargetsPerALB: 1000, diagnose.QuotaCodeTargetsPerNLB: 3000},
		check: func(t *testing.T, w *sim.World, g *iamGate, tg *diagnose.TargetGroupReport, f *diagnose.Finding) {
			wantQuotaHeadroom(6, diagnose.QuotaApplied)(t, w, g, tg, f)
			if f.Next.Op != diagnose.OpManual || !strings.Contains(f.Next.Reason, "--quota-code "+diagnose.QuotaCodeTargetsPerTargetGroup+" --desired-value 8 --region "+sim.DefaultRegion) {
				t.Errorf("next %+v", f.Next)
			}
		}},
	{name: "near miss: a quota of 10 that only the overlap exceeds", code: diagnose.CodeTargetQuotaExceeded, want: false, cfg: smallWorld(124),
		setup: legacyTG, quotas: map[string]float64{diagnose.QuotaCodeTargetsPerTargetGroup: 10, diagnose.QuotaCodeTargetsPerALB: 1000, diagnose.QuotaCodeTargetsPerNLB: 3000},
		check: wantQuotaHeadroom(10, diagnose.QuotaApplied)},
}

// wantQuotaHeadroom checks the legacy target group's headroom against the
// simulator's ground truth: its node targets now, the Service's Ready
// pods to add (none registered yet), the node targets leaving, against a
// quota of value from source.
func wantQuotaHeadroom(value int, source diagnose.QuotaSource) func(*testing.T, *sim.World, *iamGate, *diagnose.TargetGroupReport, *diagnose.Finding) {
	return func(t *testing.T, w *sim.World, _ *iamGate, tg *diagnose.TargetGroupReport, _ *diagnose.Finding) {
		t.Helper()
		tr := groundTruth(w, tg.ARN)
		ready := 0
		for _, p := range w.Cluster().Pods() {
			if p.Namespace == sim.DefaultNamespace && p.Workload == sim.DefaultService && p.Ready && p.DeletingAt.IsZero() {
				ready++
			}
		}
		if len(tr.nodeTargets) != 4 || ready != 8 {
			t.Fatalf("ground truth %+v, %d Ready pods: want the seed's 4 node targets and 8 pods", tr, ready)
		}
		var h *diagnose.Headroom
		for i := range tg.Headroom {
			if tg.Headroom[i].Scope == diagnose.ScopeTargetGroup {
				h = &tg.Headroom[i]
			}
		}
		if h == nil {
			t.Fatalf("no target-group headroom: %+v", tg.Headroom)
		}
		want := diagnose.NewHeadroom(diagnose.ScopeTargetGroup, tg.ARN, h.Quota, len(tr.nodeTargets), 0, ready, len(tr.nodeTargets))
		if *h != want || h.Quota.Value != value || h.Quota.Source != source {
			t.Errorf("headroom %+v, want %+v against %d from %s", h, want, value, source)
		}
	}
}

// appliedQuotas is a Service Quotas client that answers the applied value
// of each quota in values.
type appliedQuotas map[string]float64

func (q appliedQuotas) GetServiceQuota(_ context.Context, in *servicequotas.GetServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error) {
	v, ok := q[aws.ToString(in.QuotaCode)]
	if !ok {
		return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota")}
	}
	return &servicequotas.GetServiceQuotaOutput{Quota: &sqtypes.ServiceQuota{QuotaCode: in.QuotaCode, Value: aws.Float64(v)}}, nil
}

func (q appliedQuotas) GetAWSDefaultServiceQuota(context.Context, *servicequotas.GetAWSDefaultServiceQuotaInput, ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
	return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota")}
}

// instanceTG creates an instance target group of every node, on the
// NodePort, as the LBC's instance mode or a hand would.
// instanceWorld is a small world whose legacy target group, behind the
// ALB, is of type instance.
func instanceWorld(seed uint64) sim.Config {
	cfg := smallWorld(seed)
	cfg.Legacy.TargetType = "instance"
	return cfg
}

func instanceTG(t *testing.T, w *sim.World, tags map[string]string) string {
	var ts []elbv2types.TargetDescription
	for _, n := range w.Cluster().Nodes() {
		ts = append(ts, elbv2types.TargetDescription{Id: aws.String(n.InstanceID), Port: aws.Int32(w.Legacy().NodePort)})
	}
	return createTargetGroup(t, w, "instance-web", elbv2types.TargetTypeEnumInstance, ts, tags)
}

// TestScenarioFindings: for each finding code, a simulated world that
// produces it and near misses that must not.
func TestScenarioFindings(t *testing.T) {
	forEachTransport(t, testScenarioFindings)
}

func testScenarioFindings(t *testing.T, via transport) {
	for _, sc := range scenarios {
		t.Run(string(sc.code)+"/"+sc.name, func(t *testing.T) {
			w, g, arn, src := sc.build(t, via)
			before := w.Clock().Now()
			resetCounts(w)
			rep := diagnoseSources(t, w, src, diagnose.Scope{TargetGroupARNs: arntest.TGs(arn)})
			if !w.Clock().Now().Equal(before) || !rep.GeneratedAt.Equal(before) {
				t.Fatalf("the scan ran from %v to %v, report generated at %v: want one virtual instant", before, w.Clock().Now(), rep.GeneratedAt)
			}
			checkTransport(t, via, w)
			// The simulator serves ELBv2 only: Diagnose's Service Quotas
			// calls go to the scenario's client.
			elbCalls := maps.Clone(rep.Accounts[0].APICalls)
			if n := elbCalls["GetServiceQuota"]; (sc.quotas != nil) != (n == 3) {
				t.Errorf("%d GetServiceQuota calls, want 3 with a Service Quotas client and none without", n)
			}
			delete(elbCalls, "GetServiceQuota")
			if d := cmp.Diff(elbCalls, w.AWSCounts()); d != "" {
				t.Errorf("calls (-Diagnose counted +the service counted):\n%s", d)
			}
			tg := reportTG(rep, arn)
			if tg == nil || tg.Error != nil {
				t.Fatalf("target group %s: %+v", arn, tg)
			}
			f := findingOf(tg, sc.code)
			switch {
			case sc.want && f == nil:
				t.Fatalf("no %s finding; findings: %+v", sc.code, tg.Findings)
			case !sc.want && f != nil:
				t.Fatalf("unexpected %s finding: %s", sc.code, f.Message)
			}
			if f != nil {
				rule, _ := diagnose.RuleFor(sc.code)
				if f.Severity != rule.Severity || f.Signal != rule.Signal || f.Message == "" || f.Remediation == "" || !slices.Contains(f.Evidence.ARNs, arn) {
					t.Errorf("finding %+v: want the rule's severity and signal, a message, a remediation and the target group's ARN", f)
				}
			}
			if sc.check != nil {
				sc.check(t, w, g, tg, f)
			}
		})
	}
}

// TestScenarioCoverEveryCode keeps the scenarios honest: each target-group
// finding code has a world that produces it and a near miss. Two codes are
// left to the fixture tests and the corpus: TargetGroupBindingCRDMissing,
// because the simulated cluster always serves the CRD, and
// OutsideTargetGroup, because the simulated ELBv2 holds only the cluster's
// VPC, refuses addresses outside it, and models ip and instance target
// groups only.
func TestScenarioCoverEveryCode(t *testing.T) {
	for _, r := range diagnose.Rules() {
		if r.Code == diagnose.CodeBindingCRDMissing || r.Code == diagnose.CodeOutsideTargetGroup {
			continue
		}
		var yes, no bool
		for _, sc := range scenarios {
			if sc.code == r.Code {
				yes = yes || sc.want
				no = no || !sc.want
			}
		}
		if !yes || !no {
			t.Errorf("code %s: producing scenario %t, near miss %t", r.Code, yes, no)
		}
	}
}

// TestScenarioDeterminism: two worlds built from the same seed, churned for
// 30 minutes and diagnosed, give byte-identical JSON reports, generation
// time included (it is the world's virtual clock), on either transport and
// across them. With one call in flight at a time the rate limiter's waits
// advance the world deterministically too; with more, the calls must fit in
// the burst (two goroutines waiting on the virtual clock at once run in no
// fixed order). Through the wire nothing else waits on the virtual clock:
// the endpoint's handlers never do, and the SDK's retryer, which would
// sleep in real time, has nothing to retry.
func TestScenarioDeterminism(t *testing.T) {
	tests := []struct {
		name    string
		fillers int
		scope   func(w *sim.World) diagnose.Scope
		opts    []diagnose.Option
		waits   bool
	}{
		{name: "every target group, paced, one call at a time", fillers: 60, waits: true,
			scope: func(*sim.World) diagnose.Scope { return diagnose.Scope{All: true} }, opts: []diagnose.Option{diagnose.WithConcurrency(1)}},
		{name: "the load balancer, default options", fillers: 0,
			scope: func(w *sim.World) diagnose.Scope {
				return diagnose.Scope{LoadBalancerARNs: arntest.LBs(w.Legacy().LoadBalancerARN)}
			}},
	}
	// reports[test][transport] is the first run's report.
	reports := map[string]map[string][]byte{}
	forEachTransport(t, func(t *testing.T, via transport) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				run := func() ([]byte, time.Duration) {
					w := newSimWorld(t, via, sim.Config{Seed: 11, ChurnInterval: 2 * time.Minute, PublicSubnets: true})
					createTargetGroup(t, w, "other-web", elbv2types.TargetTypeEnumIp, nodeTargets(w), nil)
					for i := range tt.fillers {
						createTargetGroup(t, w, fmt.Sprintf("filler-%03d", i), elbv2types.TargetTypeEnumIp, nil, nil)
					}
					w.Run(30 * time.Minute)
					resetCounts(w)
					start := w.Clock().Now()
					rep := diagnoseWorld(t, w, tt.scope(w), tt.opts...)
					if !rep.GeneratedAt.Equal(start) || rep.Summary.ByClass[diagnose.ClassGhost] == 0 {
						t.Fatalf("report generated at %v (scan started %v), %+v: want the virtual start and ghosts", rep.GeneratedAt, start, rep.Summary)
					}
					checkTransport(t, via, w)
					if d := cmp.Diff(rep.Accounts[0].APICalls, w.AWSCounts()); d != "" {
						t.Errorf("calls (-Diagnose counted +the service counted):\n%s", d)
					}
					js, err := rep.JSON()
					if err != nil {
						t.Fatal(err)
					}
					return js, w.Clock().Since(start)
				}
				a, waitedA := run()
				b, waitedB := run()
				if (waitedA > 0) != tt.waits || waitedA != waitedB {
					t.Errorf("the scans took %v and %v of virtual time; want equal, and non-zero %t", waitedA, waitedB, tt.waits)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("reports differ:\n%s", cmp.Diff(string(a), string(b)))
				}
				if reports[tt.name] == nil {
					reports[tt.name] = map[string][]byte{}
				}
				reports[tt.name][via.name] = a
			})
		}
	})
	// The transport is invisible in the report: the same world gives the
	// same bytes through the wire as on the facade.
	for _, tt := range tests {
		a, b := reports[tt.name][onFacade.name], reports[tt.name][onWire.name]
		if a != nil && b != nil && !bytes.Equal(a, b) {
			t.Errorf("%s: reports differ (-facade +wire):\n%s", tt.name, cmp.Diff(string(a), string(b)))
		}
	}
}
