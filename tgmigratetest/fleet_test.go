package tgmigratetest_test

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// fleetOptions are three clusters, each in an account of its own, under
// churn.
func fleetOptions() tgmigratetest.FleetOptions {
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
			Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute}}
	}
	return tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1)},
		{Name: "prod-b", AccountID: "222222222222", Options: opts(2)},
		{Name: "staging", AccountID: "333333333333", Options: opts(3)},
	}}
}

// migrate returns a participant that plans and executes the cutover of
// w's legacy target group, and records how long, in the fleet's virtual
// time, it took.
func migrate(w *tgmigratetest.World, took *time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		start := w.Clock().Now()
		l := w.Legacy()
		env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterName: w.ClusterName(), ClusterVPCID: w.VPCID()}
		plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
			Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
		if err == nil {
			_, err = cutover.Execute(ctx, env, plan)
		}
		*took = w.Clock().Since(start)
		return err
	}
}

// TestFleetParallelCutovers: a fleet's worlds have their own accounts,
// clusters, ARNs and counters on one clock; cutovers in two of them, run
// at once by Parallel, keep every request served, while the third world,
// idle and static, runs on with them under the same churn and fails
// requests.
func TestFleetParallelCutovers(t *testing.T) {
	ctx := t.Context()
	f, err := tgmigratetest.NewFleet(ctx, fleetOptions())
	if err != nil {
		t.Fatal(err)
	}
	ws := f.Worlds()
	if len(ws) != 3 || f.World("prod-b") != ws[1] || f.World("nope") != nil {
		t.Fatalf("worlds %v", ws)
	}
	for i, c := range fleetOptions().Clusters {
		w := ws[i]
		arn := w.Legacy().TargetGroupARN
		if w.AccountID() != c.AccountID || w.ClusterName() != c.Name || w.Cluster().Name != c.Name ||
			arn.AccountID != c.AccountID || arn.Region != tgmigratetest.Region || w.Clock() != f.Clock() {
			t.Errorf("world %d: account %s, cluster %s, target group %v; want %s, %s in %s on the fleet's clock",
				i, w.AccountID(), w.ClusterName(), arn, c.AccountID, c.Name, tgmigratetest.Region)
		}
	}
	idleStart := ws[2].Elapsed()

	var took [2]time.Duration
	if err := f.Parallel(ctx, migrate(ws[0], &took[0]), migrate(ws[1], &took[1])); err != nil {
		t.Fatal(err)
	}
	f.Run(5 * time.Minute)
	for i, w := range ws {
		r, writes := w.Requests(), w.Calls()["DeregisterTargets"]
		migrated := i < 2
		switch {
		case migrated && (r.Failed != 0 || r.Served == 0):
			t.Errorf("%s: requests %+v, want every one served", w.ClusterName(), r)
		case migrated && (w.NodeTargets() != 0 || writes == 0):
			t.Errorf("%s: %d node targets left after %d DeregisterTargets calls", w.ClusterName(), w.NodeTargets(), writes)
		case !migrated && (w.NodeTargets() == 0 || writes != 0 || r.Failed == 0 || w.Ghosts() == 0):
			// Static under the same churn, on the same clock: its ghosts fail requests.
			t.Errorf("%s (idle): %d node targets, %d DeregisterTargets calls, %d ghosts, requests %+v; want its own targets, untouched, failing under churn",
				w.ClusterName(), w.NodeTargets(), writes, w.Ghosts(), r)
		}
	}
	if ran, want := ws[2].Elapsed()-idleStart, max(took[0], took[1])+5*time.Minute; ran != want {
		t.Errorf("the idle world ran %v while the others migrated (%v, %v) and ran 5m; want %v", ran, took[0], took[1], want)
	}
}

// fleetRun is what a test reads of a fleet after a run.
type fleetRun struct {
	elapsed  time.Duration
	took     []time.Duration
	requests []tgmigratetest.Requests
	calls    []map[string]int
}

// runFleet builds a fleet of the first n clusters of fleetOptions, with
// timings, all in the first one's account if shared, and migrates the
// clusters named in parallel, each in a participant of one Parallel.
func runFleet(t *testing.T, n int, timings tgmigratetest.Timings, shared bool, names ...string) fleetRun {
	t.Helper()
	opts := fleetOptions()
	opts.Clusters = opts.Clusters[:n]
	for i := range opts.Clusters {
		opts.Clusters[i].Options.Timings = timings
		if shared {
			opts.Clusters[i].AccountID = opts.Clusters[0].AccountID
		}
	}
	f, err := tgmigratetest.NewFleet(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	start := f.Clock().Now()
	r := fleetRun{took: make([]time.Duration, len(names))}
	var fns []func(context.Context) error
	for i, name := range names {
		fns = append(fns, migrate(f.World(name), &r.took[i]))
	}
	if err := f.Parallel(t.Context(), fns...); err != nil {
		t.Fatal(err)
	}
	r.elapsed = f.Clock().Since(start)
	for _, name := range names {
		w := f.World(name)
		r.requests = append(r.requests, w.Requests())
		r.calls = append(r.calls, w.Calls())
	}
	return r
}

// TestFleetParallelTime: two cutovers run by Parallel take, in the
// fleet's virtual time, as long as the longer of the two alone, not their
// sum; each takes as long as it does alone, with no request failed; the
// same fleet gives the same time, requests and calls on a second run.
// With API latencies too (they wait on the fleet's clock), and with the
// two clusters in one account, on its one ELBv2 service.
func TestFleetParallelTime(t *testing.T) {
	tests := []struct {
		name    string
		timings tgmigratetest.Timings
		shared  bool
	}{
		{"no latency", tgmigratetest.Timings{}, false},
		{"latencies", tgmigratetest.Timings{ELBv2Latency: 50 * time.Millisecond, KubeLatency: 10 * time.Millisecond}, false},
		{"one account", tgmigratetest.Timings{ELBv2Latency: 50 * time.Millisecond, KubeLatency: 10 * time.Millisecond}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			aloneA := runFleet(t, 2, tt.timings, tt.shared, "prod-a").took[0]
			aloneB := runFleet(t, 2, tt.timings, tt.shared, "prod-b").took[0]
			both := runFleet(t, 2, tt.timings, tt.shared, "prod-a", "prod-b")
			t.Logf("alone %v and %v; in parallel %v (each %v)", aloneA, aloneB, both.elapsed, both.took)
			if aloneA < 4*time.Minute || aloneB < 4*time.Minute {
				t.Fatalf("cutovers alone took %v and %v; the test needs long ones", aloneA, aloneB)
			}
			if both.took[0] != aloneA || both.took[1] != aloneB || both.elapsed != max(aloneA, aloneB) {
				t.Errorf("in parallel: %v (each %v); want %v (each %v, %v)", both.elapsed, both.took, max(aloneA, aloneB), aloneA, aloneB)
			}
			for i, r := range both.requests {
				if r.Failed != 0 || r.Served == 0 {
					t.Errorf("cluster %d: requests %+v, want every one served", i, r)
				}
			}
			again := runFleet(t, 2, tt.timings, tt.shared, "prod-a", "prod-b")
			if !reflect.DeepEqual(again, both) {
				t.Errorf("second run %+v; want the first's, %+v", again, both)
			}
		})
	}
}

// TestFleetParallelRules: Parallel returns its participants' errors,
// refuses to run inside another, and a participant that ends its
// goroutine no longer holds the others' waits; outside Parallel, waits
// from several goroutines are taken one at a time, each its whole
// length.
func TestFleetParallelRules(t *testing.T) {
	opts := fleetOptions()
	opts.Clusters = opts.Clusters[:1]
	f, err := tgmigratetest.NewFleet(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Clock()
	errA := errors.New("a")
	start := c.Now()
	var inner error
	err = f.Parallel(t.Context(),
		func(context.Context) error { c.Sleep(time.Minute); return errA },
		func(ctx context.Context) error {
			inner = f.Parallel(ctx, func(context.Context) error { return nil })
			t := c.NewTimer(3 * time.Minute)
			<-t.C()
			return nil
		},
		func(context.Context) error {
			tk := c.NewTicker(time.Minute)
			defer tk.Stop()
			<-tk.C()
			runtime.Goexit() // as t.FailNow does
			return nil
		},
	)
	var oe *tgmigratetest.OptionsError
	if !errors.Is(err, errA) || !errors.As(inner, &oe) || oe.Op != "parallel" || c.Since(start) != 3*time.Minute {
		t.Errorf("Parallel() = %v, inner %v, took %v; want a's error, an *OptionsError of parallel, 3m", err, inner, c.Since(start))
	}
	start = c.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { c.Sleep(time.Minute) })
	}
	wg.Wait()
	if got := c.Since(start); got != 2*time.Minute {
		t.Errorf("two goroutines' 1m sleeps outside Parallel took %v; want 2m", got)
	}
}

// TestFleetParallelOrder: Parallel runs one participant at a time: they
// start in the order of fns, and the waits that end at one instant
// return in that order, each participant running until it waits again
// (a wait begun meanwhile that ends at the same instant, Sleep(0), comes
// after them); a participant may hand its work to a goroutine and wait
// for it. So the order is the same on every run (and -race sees no two
// participants at once: the log has no lock).
func TestFleetParallelOrder(t *testing.T) {
	opts := fleetOptions()
	opts.Clusters = opts.Clusters[:1]
	f, err := tgmigratetest.NewFleet(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Clock()
	want := "0 start, 1 start, 2 start, 0 at 1m, 1 at 1m, 1 back, 2 at 1m, 0 again at 1m, 1 at 2m, 2 at 2m"
	for run := range 10 {
		var log []string
		err := f.Parallel(t.Context(),
			func(context.Context) error {
				log = append(log, "0 start")
				c.Sleep(time.Minute)
				log = append(log, "0 at 1m")
				c.Sleep(0)
				log = append(log, "0 again at 1m")
				return nil
			},
			func(context.Context) error {
				log = append(log, "1 start")
				done := make(chan struct{})
				go func() {
					<-c.After(time.Minute)
					log = append(log, "1 at 1m")
					close(done)
				}()
				<-done
				log = append(log, "1 back")
				c.Sleep(time.Minute)
				log = append(log, "1 at 2m")
				return nil
			},
			func(context.Context) error {
				log = append(log, "2 start")
				tm := c.NewTimer(time.Minute)
				<-tm.C()
				log = append(log, "2 at 1m")
				tk := c.NewTicker(time.Minute)
				defer tk.Stop()
				<-tk.C()
				log = append(log, "2 at 2m")
				return nil
			},
		)
		if got := strings.Join(log, ", "); err != nil || got != want {
			t.Fatalf("run %d: Parallel() = %v, order %s; want nil, %s", run, err, got, want)
		}
	}
}

// TestFleetSharedAccount: two clusters of one account share its ELBv2
// service (one service lists both target groups, named per cluster, in
// two VPCs), and a third has an account of its own; cutovers in all three
// at once, on the shared service, keep every request served: the health
// checks of each cluster's pods reach that cluster, each controller
// stand-in registers its own pods, and each world counts its own targets
// and calls.
func TestFleetSharedAccount(t *testing.T) {
	ctx := t.Context()
	opts := fleetOptions()
	opts.Clusters[1].AccountID = opts.Clusters[0].AccountID
	f, err := tgmigratetest.NewFleet(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	ws := f.Worlds()
	a, b, alone := ws[0], ws[1], ws[2]
	wantNames := map[*tgmigratetest.World]string{a: "legacy-web-prod-a", b: "legacy-web-prod-b", alone: "legacy-web"}
	for w, name := range wantNames {
		if got := w.Legacy().TargetGroupName; got != name || w.Legacy().TargetGroupARN.AccountID != w.AccountID() {
			t.Errorf("%s: target group %s (%v); want %s in %s", w.ClusterName(), got, w.Legacy().TargetGroupARN, name, w.AccountID())
		}
		if n := w.NodeTargets(); n != 4 {
			t.Errorf("%s: %d node targets; want its own 4 nodes'", w.ClusterName(), n)
		}
	}
	if a.VPCID() == b.VPCID() || a.Cluster().CIDRs[0] == b.Cluster().CIDRs[0] || a.Legacy().LoadBalancerARN == b.Legacy().LoadBalancerARN {
		t.Errorf("shared account: VPCs %s, %s, CIDRs %v, %v, load balancers %s, %s; want each cluster's own",
			a.VPCID(), b.VPCID(), a.Cluster().CIDRs, b.Cluster().CIDRs, a.Legacy().LoadBalancerARN, b.Legacy().LoadBalancerARN)
	}
	listed := func(w *tgmigratetest.World) []string {
		out, err := w.ELBv2Read().DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tg := range out.TargetGroups {
			names = append(names, aws.ToString(tg.TargetGroupName))
		}
		sort.Strings(names)
		return names
	}
	if got, want := listed(b), []string{"legacy-web-prod-a", "legacy-web-prod-b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the shared service lists %v; want %v", got, want)
	}
	if got := listed(alone); !reflect.DeepEqual(got, []string{"legacy-web"}) {
		t.Errorf("the other account's service lists %v; want legacy-web alone", got)
	}

	// The clusters' VPCs: the account's first and second, and one alone.
	vpcPrefix := []string{"10.0.", "10.1.", "10.0."}
	took := make([]time.Duration, 3)
	if err := f.Parallel(ctx, migrate(a, &took[0]), migrate(b, &took[1]), migrate(alone, &took[2])); err != nil {
		t.Fatal(err)
	}
	f.Run(5 * time.Minute)
	for i, w := range ws {
		r := w.Requests()
		if r.Failed != 0 || r.Served == 0 || w.NodeTargets() != 0 || w.Ghosts() != 0 || w.Calls()["DeregisterTargets"] == 0 {
			t.Errorf("%s: requests %+v, %d node targets, %d ghosts, calls %v; want every request served, the pods alone",
				w.ClusterName(), r, w.NodeTargets(), w.Ghosts(), w.Calls())
		}
		// Each cluster's pods, in its own VPC, pass their health checks:
		// the shared service's checks reach the cluster that holds them.
		out, err := w.ELBv2Read().DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.Legacy().TargetGroupARN.String())})
		if err != nil {
			t.Fatal(err)
		}
		healthy, n := 0, 0
		for _, d := range out.TargetHealthDescriptions {
			if d.TargetHealth.State == elbv2types.TargetHealthStateEnumDraining {
				continue // an evicted pod's, deregistered by the controller
			}
			n++
			if strings.HasPrefix(aws.ToString(d.Target.Id), vpcPrefix[i]) && d.TargetHealth.State == elbv2types.TargetHealthStateEnumHealthy {
				healthy++
			}
		}
		if healthy == 0 || healthy != n {
			t.Errorf("%s: %d of %d targets not draining healthy in %s0.0/16", w.ClusterName(), healthy, n, vpcPrefix[i])
		}
	}
	if took[0] < 4*time.Minute || took[1] < 4*time.Minute {
		t.Errorf("cutovers took %v; want the full ones", took)
	}
}

// TestNewFleetBadOptions: a bad fleet is an *OptionsError naming the
// cluster's field, before any world is built.
func TestNewFleetBadOptions(t *testing.T) {
	with := func(edit func(*tgmigratetest.FleetOptions)) tgmigratetest.FleetOptions {
		o := fleetOptions()
		edit(&o)
		return o
	}
	tests := []struct {
		name  string
		opts  tgmigratetest.FleetOptions
		field string
	}{
		{"none", tgmigratetest.FleetOptions{}, "Clusters"},
		{"too many", tgmigratetest.FleetOptions{Clusters: make([]tgmigratetest.ClusterOptions, tgmigratetest.MaxFleetClusters+1)}, "Clusters"},
		{"no name", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[1].Name = "" }), "Clusters[1].Name"},
		{"same name", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[2].Name = "prod-a" }), "Clusters[2].Name"},
		{"bad account", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[0].AccountID = "12" }), "Clusters[0].AccountID"},
		{"shared account, same seed", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[2].AccountID, o.Clusters[2].Options.Seed = "111111111111", 1
		}), "Clusters[2].Options.Seed"},
		{"shared account, long name", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Name = "111111111111", strings.Repeat("b", tgmigratetest.MaxSharedClusterName+1)
		}), "Clusters[1].Name"},
		{"shared account, bad name", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Name = "111111111111", "prod_b"
		}), "Clusters[1].Name"},
		{"shared account, step 4", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Options.Move = "111111111111", &tgmigratetest.Move{}
		}), "Clusters[1].Options.Move"},
		{"shared account, other timings", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Options.Timings.DeregistrationLag = "111111111111", time.Minute
		}), "Clusters[1].Options.Timings"},
		{"world option", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[1].Options.Nodes = 100000 }), "Clusters[1].Options.Nodes"},
		{"world app", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[1].Options.Apps = []tgmigratetest.App{{Name: "API"}} }), "Clusters[1].Options.Apps[0].Name"},
		{"shared account, app name too long", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Options.Apps = "111111111111", []tgmigratetest.App{{Name: strings.Repeat("a", 16)}}
		}), "Clusters[1].Options.Apps[0].Name"},
		{"shared account, another cluster's load balancer", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[0].Options.Apps = []tgmigratetest.App{{Name: "api", LoadBalancerName: "shared"}}
			o.Clusters[1].AccountID, o.Clusters[1].Options.Apps = "111111111111", []tgmigratetest.App{{Name: "api", LoadBalancerName: "shared"}}
		}), "Clusters[1].Options.Apps[0].LoadBalancerName"},
		{"shared account, another cluster's target group", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Options.Apps = "111111111111", []tgmigratetest.App{{Name: "api", TargetGroupName: "legacy-web-prod-a"}}
		}), "Clusters[1].Options.Apps[0].TargetGroupName"},
		{"shared account, other quota", with(func(o *tgmigratetest.FleetOptions) {
			o.Clusters[1].AccountID, o.Clusters[1].Options.TargetsPerLoadBalancer = "111111111111", 100
		}), "Clusters[1].Options.TargetsPerLoadBalancer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tgmigratetest.NewFleet(t.Context(), tt.opts)
			var oe *tgmigratetest.OptionsError
			if f != nil || !errors.As(err, &oe) || oe.Field != tt.field || oe.Op != "new fleet" || !strings.HasPrefix(err.Error(), "tgmigratetest: new fleet: ") {
				t.Errorf("NewFleet() = %v, %v; want an *OptionsError of new fleet naming %s", f, err, tt.field)
			}
		})
	}
}
