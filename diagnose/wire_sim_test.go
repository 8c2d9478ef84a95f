package diagnose_test

// Diagnose against the simulator through the wire: the real aws-sdk-go-v2
// client and the ELBv2 Query-protocol endpoint (internal/sim/elbv2wire). In
// the external test package, since internal/sim imports diagnose.

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
)

// newWireWorld is a simulated world whose ELBv2 calls go through the wire.
func newWireWorld(t *testing.T, cfg sim.Config) *sim.World {
	t.Helper()
	if cfg.Wire == nil {
		cfg.Wire = &sim.WireOptions{}
	}
	w, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

func wireSources(w *sim.World) diagnose.Sources {
	return diagnose.Sources{
		Accounts: []diagnose.Account{{ID: sim.DefaultAccountID, Region: sim.DefaultRegion, ELBv2: w.AWS()}},
		Clusters: []diagnose.Cluster{{Name: "sim", Reader: w.Client(), VPCID: w.Legacy().VPCID}},
	}
}

// wireOptions run Diagnose on the world's clock with one goroutine: the
// virtual clock serves one waiting goroutine at a time (package vclock).
func wireOptions(w *sim.World) []diagnose.Option {
	return []diagnose.Option{diagnose.WithClock(w.Clock()), diagnose.WithConcurrency(1)}
}

// TestWireDiagnosesTheSimulatedWorld: Diagnose, through the real SDK
// client, finds exactly the ghost targets the simulator knows of, after
// Karpenter has replaced nodes, with the API economy the contract sets,
// counted at the endpoint; and the same run on the Go facade gives the same
// report.
func TestWireDiagnosesTheSimulatedWorld(t *testing.T) {
	cfg := sim.Config{Seed: 21, Nodes: 8, Pods: 16, ChurnInterval: 90 * time.Second}
	report := func(w *sim.World) *diagnose.Report {
		w.Run(10 * time.Minute)
		rep, err := diagnose.Diagnose(t.Context(), wireSources(w), diagnose.Scope{All: true}, wireOptions(w)...)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	w := newWireWorld(t, cfg)
	rep := report(w)

	ghosts := map[string]bool{}
	for _, g := range w.Ghosts() {
		ghosts[fmt.Sprintf("%s:%d", g.IP, g.Port)] = true
	}
	if len(ghosts) == 0 {
		t.Fatal("no ghosts after 10 minutes of churn: the scenario did not churn")
	}
	tg := reportTG(rep, w.Legacy().TargetGroupARN)
	if tg == nil {
		t.Fatalf("report without %s", w.Legacy().TargetGroupName)
	}
	found := map[string]bool{}
	for _, target := range tg.Targets {
		if target.Class == diagnose.ClassGhost {
			found[target.Key()] = true
		}
	}
	if d := cmp.Diff(ghosts, found); d != "" {
		t.Errorf("ghosts (-simulator +Diagnose):\n%s", d)
	}
	if findingOf(tg, diagnose.CodeGhostTarget) == nil || findingOf(tg, diagnose.CodeStaticNodeTarget) == nil {
		t.Errorf("findings %v", tg.Findings)
	}
	want := map[string]int{"DescribeTargetGroups": 1, "DescribeTags": 1, "DescribeTargetHealth": 1, "DescribeListeners": 1, "DescribeRules": 1}
	if d := cmp.Diff(want, w.AWSCounts()); d != "" {
		t.Errorf("requests at the endpoint (-want +got):\n%s", d)
	}

	// The same world on the Go facade: the same report.
	facade, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	frep := report(facade)
	if d := cmp.Diff(frep.TargetGroups, rep.TargetGroups); d != "" {
		t.Errorf("target groups (-facade +wire):\n%s", d)
	}
	if d := cmp.Diff(facade.AWSCounts(), w.AWSCounts()); d != "" {
		t.Errorf("calls (-facade +wire):\n%s", d)
	}
}

// TestWirePagingOver400: 450 target groups in the simulated account (the
// legacy group and 449 more): Diagnose lists them in two pages of at most
// 400, two DescribeTargetGroups requests at the endpoint, and reads each
// one's health once.
func TestWirePagingOver400(t *testing.T) {
	w := newWireWorld(t, sim.Config{Seed: 22, Nodes: 3, Pods: 3})
	for i := range 449 {
		if _, err := w.Model().CreateTargetGroup(&elbv2.CreateTargetGroupInput{
			Name: aws.String(fmt.Sprintf("extra-%03d", i)), TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp,
			Port: aws.Int32(int32(31000 + i)), VpcId: aws.String(w.Legacy().VPCID),
		}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := diagnose.Diagnose(t.Context(), wireSources(w), diagnose.Scope{All: true}, wireOptions(w)...)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.TargetGroups != 450 {
		t.Errorf("%d target groups in the report, want 450", rep.Summary.TargetGroups)
	}
	counts := w.AWSCounts()
	if counts["DescribeTargetGroups"] != 2 || counts["DescribeTargetHealth"] != 450 || counts["DescribeTags"] != (450+diagnose.TagBatch-1)/diagnose.TagBatch {
		t.Errorf("requests at the endpoint %v: want 2 pages, 450 health calls, %d tag batches", counts, (450+diagnose.TagBatch-1)/diagnose.TagBatch)
	}
}
