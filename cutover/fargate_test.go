package cutover_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
)

// TestFargateWorld: the Service's namespace runs on EKS Fargate (each pod
// on a Node of its own whose InternalIP is the pod's address), and the
// hand-made target group pins each Fargate pod by its address besides the
// Karpenter nodes' nodeIP:NodePort. Diagnose calls every pinned pod a pod
// target (its Fargate node beside it), never a ghost or a node target,
// and no GhostTarget; PlanCutover records the node targets only, leaving
// every Fargate pod to the controller; Execute completes with no failed
// request, and the target group then holds the pods only.
func TestFargateWorld(t *testing.T) {
	t.Parallel() // a world of its own
	cfg := smallWorld(341)
	cfg.Fargate = true
	s := newScenario(t, cfg)
	l := s.w.Legacy()

	fargatePods := map[string]string{} // ip:port -> Fargate node
	fargateNodes := map[string]bool{}
	for _, n := range s.w.Cluster().Nodes() {
		fargateNodes[n.Name] = n.Fargate
	}
	for _, p := range s.w.Cluster().Pods() {
		if !fargateNodes[p.Node] {
			t.Fatalf("pod %s is on %s, not on a Fargate node", p.Key(), p.Node)
		}
		fargatePods[fmt.Sprintf("%s:%d", p.IP, l.ContainerPort)] = p.Node
	}
	if len(fargatePods) != cfg.Pods {
		t.Fatalf("%d Fargate pods, want %d", len(fargatePods), cfg.Pods)
	}

	rep, err := diagnose.Diagnose(t.Context(), diagnose.Sources{
		Accounts: []diagnose.Account{{ID: sim.DefaultAccountID, Region: sim.DefaultRegion, ELBv2: s.w.AWS()}},
		Clusters: []diagnose.Cluster{{Name: sim.ClusterName, Reader: s.w.Client(), VPCID: l.VPCID, CIDRs: []string{s.w.Cluster().VPCCIDR()}}},
	}, diagnose.Scope{TargetGroupARNs: arntest.TGs(l.TargetGroupARN)}, diagnose.WithClock(s.w.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	tg := rep.TargetGroups[0]
	pods, nodes := 0, 0
	for _, tr := range tg.Targets {
		switch node, pinned := fargatePods[tr.Key()]; {
		case pinned:
			pods++
			if tr.Class != diagnose.ClassPod || tr.Node == nil || tr.Node.Name != node || !tr.Node.Fargate {
				t.Errorf("Fargate pod target %s: class %s (%s), node %+v", tr.Key(), tr.Class, tr.Note, tr.Node)
			}
		case tr.Class == diagnose.ClassNode && tr.Port == l.NodePort:
			nodes++
		default:
			t.Errorf("target %s: class %s (%s)", tr.Key(), tr.Class, tr.Note)
		}
	}
	if pods != cfg.Pods || nodes != cfg.Nodes {
		t.Errorf("diagnose saw %d pod and %d node targets, want %d and %d", pods, nodes, cfg.Pods, cfg.Nodes)
	}
	for _, f := range tg.Findings {
		if f.Code == diagnose.CodeGhostTarget {
			t.Errorf("GhostTarget on live Fargate pods: %s", f.Message)
		}
	}
	if tg.Service == nil || tg.Service.Name != l.Service {
		t.Errorf("Service %+v, want %s", tg.Service, l.Service)
	}

	p := s.plan(nil)
	if len(p.Recorded) != cfg.Nodes {
		t.Errorf("the plan records %d targets, want the %d node targets", len(p.Recorded), cfg.Nodes)
	}
	for _, r := range p.Recorded {
		if _, pinned := fargatePods[fmt.Sprintf("%s:%d", r.IP, r.Port)]; pinned || r.Class != string(diagnose.ClassNode) {
			t.Errorf("the plan records %s (%s) for deregistration", r.TargetAddr, r.Class)
		}
	}
	left := 0
	for _, o := range p.Others {
		if _, pinned := fargatePods[fmt.Sprintf("%s:%d", o.IP, o.Port)]; pinned {
			left++
		}
	}
	if left != cfg.Pods {
		t.Errorf("the plan leaves %d Fargate pod targets to the controller, want %d", left, cfg.Pods)
	}

	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if !res.Completed || len(res.Unplanned) != 0 {
		t.Errorf("Execute: completed %t, unplanned %v, warnings %v", res.Completed, res.Unplanned, res.Warnings)
	}
	s.w.Run(time.Minute)
	s.checkPodsOnly(l.TargetGroupARN)
	if st := s.w.Traffic(); st.Total == 0 || st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}
