package cutover_test

import (
	"context"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
)

// BenchmarkInPlaceCutover: a full in-place cutover of the seed's case (20
// nodes, 60 pods) on the simulator, while Karpenter drifts every node: the
// CPU cost of PlanCutover plus Execute (the world is built outside the
// timer), and the virtual figures per run.
func BenchmarkInPlaceCutover(b *testing.B) {
	var ratio, seconds, calls, failed float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, env, req := benchWorld(b, sim.Config{Seed: uint64(i + 1), ServerSideApply: true})
		if err := w.ReplaceAllNodes(0); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		p, err := cutover.PlanCutover(b.Context(), env, req)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cutover.Execute(b.Context(), env, p, simPods)
		if err != nil || !res.Completed {
			b.Fatalf("%+v %v", res, err)
		}
		b.StopTimer()
		ratio += res.Ratio
		seconds += res.CutoverSeconds
		calls += float64(len(w.ELBv2().Calls()))
		failed += float64(w.Traffic().Failed)
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(ratio/n, "ratio")
	b.ReportMetric(seconds/n, "virtual-s/op")
	b.ReportMetric(calls/n, "elbv2-calls/op")
	b.ReportMetric(failed/n, "failed-requests/op")
}

// BenchmarkInPlaceCutover1000 is an in-place cutover at ELBv2's default
// quota: 500 node targets and 500 pods, so that the target group holds
// 1,000 targets at the peak of the overlap. It reports Execute's own ELBv2
// calls (retries included) against the batching floor: one
// DeregisterTargets per 200 recorded targets.
func BenchmarkInPlaceCutover1000(b *testing.B) {
	var calls, dereg, floorCalls, failed float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		w, env, req := benchWorld(b, sim.Config{Seed: uint64(i + 1), ServerSideApply: true, Nodes: 500, Pods: 500})
		b.StartTimer()
		p, err := cutover.PlanCutover(b.Context(), env, req)
		if err != nil {
			b.Fatal(err)
		}
		res, err := cutover.Execute(b.Context(), env, p, simPods)
		if err != nil || !res.Completed {
			b.Fatalf("%+v %v", res, err)
		}
		b.StopTimer()
		for _, n := range res.Calls {
			calls += float64(n)
		}
		dereg += float64(res.Calls["DeregisterTargets"])
		floorCalls += float64((len(p.Recorded) + 199) / 200)
		failed += float64(w.Traffic().Failed)
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(calls/n, "elbv2-calls/op")
	b.ReportMetric(dereg/n, "deregister-calls/op")
	b.ReportMetric(floorCalls/n, "deregister-floor/op")
	b.ReportMetric(failed/n, "failed-requests/op")
}

// benchWorld builds a simulated world and the cutover's environment and
// request on it.
func benchWorld(b *testing.B, cfg sim.Config) (*sim.World, cutover.Env, cutover.Request) {
	b.Helper()
	w, err := sim.New(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.Legacy().VPCID, Holder: "bench"}
	req := cutover.Request{TargetGroupARN: arntest.TG(w.Legacy().TargetGroupARN), Namespace: "shop", Service: "web", Assumptions: worldAssumptions(w)}
	return w, env, req
}
