package sim_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// Each knob of package timing changes what the world does; these tests
// show each effect in a small world. A knob that changed nothing would be
// a defect of the model.

// podTargetsOnly binds the Service in multi-cluster mode, waits until the
// pod targets are healthy, and takes the node targets out, so that the
// target group holds the pods alone.
func podTargetsOnly(t *testing.T, w *sim.World) {
	t.Helper()
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(3 * time.Minute)
	arn := w.Legacy().TargetGroupARN
	var nodes []elbv2types.TargetDescription
	for _, tg := range w.Targets(arn) {
		if tg.Port == w.Legacy().NodePort {
			nodes = append(nodes, elbv2types.TargetDescription{Id: aws.String(tg.IP), Port: aws.Int32(tg.Port)})
		}
		if tg.Port == w.Legacy().ContainerPort && tg.State != elbv2types.TargetHealthStateEnumHealthy {
			t.Fatalf("pod target %v is not healthy after 3 minutes", tg)
		}
	}
	if _, err := w.Model().DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: nodes}); err != nil {
		t.Fatal(err)
	}
	w.Run(10 * time.Minute) // the node targets drain, the lag passes
}

// failedAfter runs the world for d and returns the requests that failed
// meanwhile.
func failedAfter(w *sim.World, d time.Duration) int {
	before := w.Traffic().Failed
	w.Run(d)
	return w.Traffic().Failed - before
}

// TestKnobDeregistrationLagAgainstPreStop: a pod behind ip targets that
// starts terminating keeps being sent requests for the deregistration lag
// after the controller deregisters it; with a 60 s lag, a 15 s preStop
// loses requests, a 75 s one (the lag, the controller's delay and some
// margin) none. With no lag, 15 s is enough.
func TestKnobDeregistrationLagAgainstPreStop(t *testing.T) {
	tests := []struct {
		name       string
		lag        time.Duration
		preStop    time.Duration
		wantFailed bool
	}{
		{"lag 60 s, preStop 15 s: the pod dies while it is still sent requests", 60 * time.Second, 15 * time.Second, true},
		{"lag 60 s, preStop 75 s: it outlasts the lag", 60 * time.Second, 75 * time.Second, false},
		{"no lag, preStop 15 s", -1, 15 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := sim.New(t.Context(), sim.Config{Seed: 21, Nodes: 3, Pods: 6, RPS: 30,
				Timings:  timing.Timings{DeregistrationLag: tt.lag},
				Workload: sim.Workload{PreStop: tt.preStop, TerminationGracePeriod: tt.preStop + 30*time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			podTargetsOnly(t, w)
			if f := w.Traffic().Failed; f != 0 {
				t.Fatalf("%d requests failed before the eviction", f)
			}
			p := w.Cluster().Pods()[0]
			if err := w.Cluster().Evict(context.Background(), types.NamespacedName{Namespace: p.Namespace, Name: p.Name}); err != nil {
				t.Fatal(err)
			}
			failed := failedAfter(w, 5*time.Minute)
			if got := failed > 0; got != tt.wantFailed {
				t.Errorf("%d requests failed after the eviction; want failures: %t", failed, tt.wantFailed)
			}
		})
	}
}

// naiveOutage binds the Service in default mode (the LBC deregisters the
// node targets before the pods are healthy) and returns the longest
// outage and the failed requests.
func naiveOutage(t *testing.T, tm timing.Timings) (time.Duration, int) {
	t.Helper()
	w, err := sim.New(t.Context(), sim.Config{Seed: 22, Nodes: 3, Pods: 6, Timings: tm})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Client().Create(t.Context(), w.NewBinding("web", false)); err != nil {
		t.Fatal(err)
	}
	w.Run(10 * time.Minute)
	st := w.Traffic()
	return st.Longest.Duration(), st.Failed
}

// TestKnobNewTargetChecksAndRegistrationDelay: the naive binding's outage
// lasts until the pod targets are healthy: the registration delay, then
// NewTargetChecks passing checks (interval 30 s).
func TestKnobNewTargetChecksAndRegistrationDelay(t *testing.T) {
	noLag := timing.Timings{DeregistrationLag: -1}
	one, _ := naiveOutage(t, noLag)
	withChecks := noLag
	withChecks.NewTargetChecks = timing.HealthyThreshold
	five, _ := naiveOutage(t, withChecks)
	slow := noLag
	slow.RegistrationDelay = 40 * time.Second
	late, _ := naiveOutage(t, slow)
	none := noLag
	none.RegistrationDelay = -1
	quick, _ := naiveOutage(t, none)
	t.Logf("outage: one check %v, HealthyThresholdCount %v, registration delay 40 s %v, none %v", one, five, late, quick)
	if d := five - one; d < 2*time.Minute-time.Second || d > 2*time.Minute+time.Second {
		t.Errorf("four more checks, 30 s apart, lengthened the outage by %v; want 2m", d)
	}
	if d := late - one; d < 29*time.Second || d > 31*time.Second {
		t.Errorf("a 40 s registration delay instead of 10 s lengthened the outage by %v; want 30s", d)
	}
	if d := one - quick; d < 9*time.Second || d > 11*time.Second {
		t.Errorf("no registration delay shortened the outage by %v; want 10s", d)
	}
}

// TestKnobFailOpenInitial: with no healthy target, a load balancer that
// fails open to initial targets too sends the naive binding's requests to
// the pods still in their first checks, which serve.
func TestKnobFailOpenInitial(t *testing.T) {
	base := timing.Timings{DeregistrationLag: -1, NewTargetChecks: timing.HealthyThreshold}
	_, closed := naiveOutage(t, base)
	open := base
	open.FailOpenInitial = true
	_, opened := naiveOutage(t, open)
	if closed == 0 || opened >= closed/10 {
		t.Errorf("failed requests: %d without fail-open to initial targets, %d with; want far fewer with", closed, opened)
	}
}

// TestKnobDeregistrationLagBridgesTheNaiveGap: a lag longer than the time
// the pods take to pass their first check keeps the node targets in the
// rotation (kube-proxy still serves them) until the pods take over.
func TestKnobDeregistrationLagBridgesTheNaiveGap(t *testing.T) {
	_, without := naiveOutage(t, timing.Timings{DeregistrationLag: -1})
	_, with := naiveOutage(t, timing.Timings{DeregistrationLag: 15 * time.Second})
	if without == 0 || with != 0 {
		t.Errorf("failed requests: %d with no lag, %d with a 15 s lag; want some, then none", without, with)
	}
}

// TestKnobConnectTimeout: requests to a ghost (a terminated node's
// address) fail with 504 after the connect timeout, or with 502 at once.
func TestKnobConnectTimeout(t *testing.T) {
	kinds := func(timeout time.Duration) (int, int) {
		w, err := sim.New(t.Context(), sim.Config{Seed: 23, Nodes: 3, Pods: 6, Timings: timing.Timings{ConnectTimeout: timeout}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.ReplaceAllNodes(0); err != nil {
			t.Fatal(err)
		}
		w.Run(15 * time.Minute)
		k := w.Traffic().Kinds
		return k.Status502, k.Status504
	}
	s502, s504 := kinds(0) // the default: 10 s
	if s504 == 0 || s502 != 0 {
		t.Errorf("connect timeout 10 s: %d answered 502, %d 504; want 504 only", s502, s504)
	}
	s502, s504 = kinds(-1)
	if s502 == 0 || s504 != 0 {
		t.Errorf("no connect timeout: %d answered 502, %d 504; want 502 only", s502, s504)
	}
}

// TestKnobControllerReaction: the LBC's reconcile runs its reaction (plus
// the latency of its reads) after the change; its first call lands then.
func TestKnobControllerReaction(t *testing.T) {
	for _, reaction := range []time.Duration{50 * time.Millisecond, 5 * time.Second} {
		w, err := sim.New(t.Context(), sim.Config{Seed: 24, Nodes: 2, Pods: 4,
			Timings: timing.Timings{ControllerReaction: reaction, ELBv2Latency: -1, KubeLatency: -1}})
		if err != nil {
			t.Fatal(err)
		}
		bound := w.Clock().Now()
		if err := w.Client().Create(t.Context(), w.NewBinding("web", true)); err != nil {
			t.Fatal(err)
		}
		w.Run(time.Minute)
		var first time.Time
		for _, c := range w.LBCELBv2().Calls() {
			if c.Op == elbv2sim.OpRegisterTargets {
				first = c.At
				break
			}
		}
		if got := first.Sub(bound); got != reaction {
			t.Errorf("reaction %v: the LBC registered %v after the binding; want %v", reaction, got, reaction)
		}
	}
}

// TestKnobAPILatency: each call of the system under test spends the
// latency on the virtual clock (ELBv2 and Kubernetes alike), and the LBC's
// writes land after its reaction plus the latency of its two reads.
func TestKnobAPILatency(t *testing.T) {
	w, err := sim.New(t.Context(), sim.Config{Seed: 25, Nodes: 2, Pods: 4,
		Timings: timing.Timings{ControllerReaction: -1, ELBv2Latency: 300 * time.Millisecond, KubeLatency: 70 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	start := w.Clock().Now()
	arn := w.Legacy().TargetGroupARN
	if _, err := w.AWS().DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn}); err != nil {
		t.Fatal(err)
	}
	if got := w.Clock().Since(start); got != 300*time.Millisecond {
		t.Errorf("an ELBv2 call took %v of virtual time; want 300ms", got)
	}
	start = w.Clock().Now()
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	bound := w.Clock().Now()
	if got := bound.Sub(start); got != 70*time.Millisecond {
		t.Errorf("a Kubernetes call took %v of virtual time; want 70ms", got)
	}
	w.Run(time.Minute)
	for _, c := range w.LBCELBv2().Calls() {
		if c.Op == elbv2sim.OpRegisterTargets {
			if got := c.At.Sub(bound); got != 370*time.Millisecond {
				t.Errorf("the LBC registered %v after the binding; want 370ms (its reads' latency)", got)
			}
			return
		}
	}
	t.Error("the LBC registered nothing")
}

// TestKnobIPReuse: with reuse, a ghost's address comes back: as another
// application's pod it refuses the NodePort (502 at once instead of a
// timeout's 504), and a pod target's address taken by another
// application's pod serves that application's answers (misrouted). The
// ground truth still counts the reused ghosts.
func TestKnobIPReuse(t *testing.T) {
	run := func(reuse timing.IPReuse) *sim.World {
		// Steady churn: pods keep being placed after earlier nodes freed
		// their addresses.
		w, err := sim.New(t.Context(), sim.Config{Seed: 26, Nodes: 4, Pods: 8, Neighbours: 12, ChurnInterval: time.Minute,
			Timings: timing.Timings{IPReuse: reuse}})
		if err != nil {
			t.Fatal(err)
		}
		w.Run(20 * time.Minute)
		return w
	}
	off, on := run(timing.IPReuse{}), run(timing.IPReuse{Enabled: true, To: timing.HolderPod})
	reused := 0
	for _, g := range on.Ghosts() {
		if g.Reused {
			reused++
			if !strings.HasPrefix(g.FormerOwner, "pod/") {
				t.Errorf("ghost %v: reused by %q, want a pod", g, g.FormerOwner)
			}
		}
	}
	if reused == 0 {
		t.Errorf("no ghost's address was reused: %v", on.Ghosts())
	}
	for _, g := range off.Ghosts() {
		if g.Reused || g.Owner != "" {
			t.Errorf("without reuse, ghost %v has had another holder", g)
		}
	}
	if len(on.Ghosts()) != len(off.Ghosts()) {
		t.Errorf("%d ghosts with reuse, %d without: a reused ghost is still a ghost", len(on.Ghosts()), len(off.Ghosts()))
	}
	if k := on.Traffic().Kinds; k.Status502 == 0 {
		t.Errorf("with reuse, no request was refused by an address's new holder: %+v", k)
	}
	if k := off.Traffic().Kinds; k.Status502 != 0 {
		t.Errorf("without reuse, %d requests were refused: the ghosts should time out", k.Status502)
	}
}

// TestKnobIPReuseMisroutes: a pod target whose pod is gone but which the
// deregistration lag keeps in the rotation, and whose address another
// application's pod took after the cool-down, gets that application's
// answers: misrouted requests. Without reuse the same requests time out.
func TestKnobIPReuseMisroutes(t *testing.T) {
	run := func(reuse timing.IPReuse) (misrouted, timedOut int) {
		w, err := sim.New(t.Context(), sim.Config{Seed: 27, Nodes: 3, Pods: 6, Neighbours: 9, RPS: 30,
			Timings:  timing.Timings{DeregistrationLag: 2 * time.Minute, IPReuse: reuse},
			Workload: sim.Workload{PreStop: -1}})
		if err != nil {
			t.Fatal(err)
		}
		podTargetsOnly(t, w)
		ctx := context.Background()
		before := w.Traffic().Kinds
		web := w.PodKeys()[0]
		if err := w.Cluster().Evict(ctx, web); err != nil {
			t.Fatal(err)
		}
		// After the 30 s cool-down the neighbours move: their new pods
		// take the freed addresses first.
		w.Run(35 * time.Second)
		for _, p := range w.Cluster().Pods() {
			if p.Workload == sim.NeighbourService {
				if err := w.Cluster().Evict(ctx, types.NamespacedName{Namespace: p.Namespace, Name: p.Name}); err != nil {
					t.Fatal(err)
				}
			}
		}
		w.Run(3 * time.Minute)
		k := w.Traffic().Kinds
		return k.Misrouted - before.Misrouted, k.Status504 - before.Status504
	}
	misrouted, _ := run(timing.IPReuse{Enabled: true, To: timing.HolderPod})
	if misrouted == 0 {
		t.Error("with reuse, no request reached the neighbour that took the gone pod's address")
	}
	misrouted, timedOut := run(timing.IPReuse{})
	if misrouted != 0 || timedOut == 0 {
		t.Errorf("without reuse: %d misrouted, %d timed out; want none misrouted, the lag's requests timing out", misrouted, timedOut)
	}
}
