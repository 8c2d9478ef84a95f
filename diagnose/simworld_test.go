package diagnose_test

// The simulator's world as Diagnose reads it: the adapter the scenario
// tests run Diagnose through, and the test that it is valid. The adapter
// lives here, with its users, so that internal/sim stays a leaf that
// imports no capability package.

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
)

// worldSources returns the world as diagnose reads it: one account
// (sim.DefaultAccountID in sim.DefaultRegion) whose ELBv2 client is
// World.AWS (with Config.Wire the real SDK client through the endpoint,
// otherwise World.ELBv2), so that Diagnose's calls take the system under
// test's path and are counted with its calls, and one cluster,
// sim.ClusterName, read through World.Client, with the VPC and the VPC CIDR
// its nodes and pods draw from. There is no EC2 client, so public nodes
// show as ExternalIPs only. Run Diagnose on the world's clock
// (diagnose.WithClock(w.Clock())).
func worldSources(w *sim.World) diagnose.Sources {
	return diagnose.Sources{
		Accounts: []diagnose.Account{{ID: sim.DefaultAccountID, Region: sim.DefaultRegion, ELBv2: w.AWS()}},
		Clusters: []diagnose.Cluster{{
			Name: sim.ClusterName, Reader: w.Client(), VPCID: w.Legacy().VPCID, CIDRs: []string{w.Cluster().VPCCIDR()},
		}},
	}
}

// TestWorldSources: the world's sources are valid for diagnose, which
// reads the cluster through them (nodes, pods, the Service, the bindings
// CRD and Karpenter's NodeClaims) and the legacy target group through the
// system under test's client, without advancing the world.
func TestWorldSources(t *testing.T) {
	// No API latency (newSimWorld's default): Diagnose's reads then take no
	// virtual time, and the world does not move.
	w := newSimWorld(t, onFacade, sim.Config{Seed: 1, Nodes: 3, Pods: 6})
	src := worldSources(w)
	if len(src.Accounts) != 1 || src.Accounts[0].ELBv2 != w.ELBv2() || len(src.Clusters) != 1 || src.Clusters[0].Name != sim.ClusterName {
		t.Fatalf("sources = %+v", src)
	}
	now := w.Clock().Now()
	rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{TargetGroupARNs: arntest.TGs(w.Legacy().TargetGroupARN)}, diagnose.WithClock(w.Clock()))
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
