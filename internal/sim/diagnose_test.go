package sim_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/timing"
)

// TestDiagnoseSources: the world's sources are valid for diagnose, which
// reads the cluster through them (nodes, pods, the Service, the bindings
// CRD and Karpenter's NodeClaims) and the legacy target group through the
// system under test's client, without advancing the world.
func TestDiagnoseSources(t *testing.T) {
	// No API latency: Diagnose's reads then take no virtual time, and the
	// world does not move.
	w := newWorld(t, sim.Config{Seed: 1, Nodes: 3, Pods: 6, Timings: timing.Timings{ELBv2Latency: -1, KubeLatency: -1}}, nil)
	src := w.DiagnoseSources()
	if len(src.Accounts) != 1 || src.Accounts[0].ELBv2 != w.ELBv2() || len(src.Clusters) != 1 || src.Clusters[0].Name != sim.ClusterName {
		t.Fatalf("sources = %+v", src)
	}
	now := w.Clock().Now()
	rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{TargetGroupARNs: []string{w.Legacy().TargetGroupARN}}, diagnose.WithClock(w.Clock()))
	if err != nil {
		t.Fatalf("Diagnose() = %v", err)
	}
	if !w.Clock().Now().Equal(now) || !rep.GeneratedAt.Equal(now) {
		t.Errorf("clock %v, report generated at %v, want both at %v", w.Clock().Now(), rep.GeneratedAt, now)
	}
	if len(rep.Errors) != 0 {
		t.Errorf("errors = %+v", rep.Errors)
	}
	want := diagnose.ClusterReport{
		Name: sim.ClusterName, VPCID: w.Legacy().VPCID, CIDRs: []string{w.Cluster().VPCCIDR()}, Read: true,
		Nodes: 3, KarpenterNodes: 3, Pods: 6, Services: 1, NodeClaims: 3, BindingCRD: true, NodeClaimCRD: true,
	}
	if len(rep.Clusters) != 1 {
		t.Fatalf("clusters = %+v", rep.Clusters)
	}
	if d := cmp.Diff(want, rep.Clusters[0]); d != "" {
		t.Errorf("cluster report (-want +got):\n%s", d)
	}
	if len(rep.TargetGroups) != 1 || rep.TargetGroups[0].Name != w.Legacy().TargetGroupName || rep.TargetGroups[0].Counts.ByClass[diagnose.ClassNode] != 3 {
		t.Errorf("target groups = %+v", rep.TargetGroups)
	}
	if got := w.ELBv2().Counts()["DescribeTargetHealth"]; got != 1 {
		t.Errorf("DescribeTargetHealth calls through World.ELBv2 = %d, want 1", got)
	}
}
