package main

// simulate_move.go: the scenario private-subnets, step 4 after the
// cutover: CheckReadiness, PlanMove and the move's Execute on the
// simulated world, and the two broken worlds whose readiness must stop the
// move before any write.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/textcell"
	"github.com/qstools/tgmigrate/subnets"
)

// scenarioPrivateSubnets is the scenario of step 4: the world's nodes
// start in public subnets; phased cuts over, then moves them.
const scenarioPrivateSubnets = "private-subnets"

// The broken worlds of scenario private-subnets (simRun.broken).
const (
	brokenMissingZone = "missing-zone"
	brokenNoEgress    = "no-egress"
)

// moveRun is what one move measured.
type moveRun struct {
	start, end time.Time
	waves      int
	codes      []string // the blocking codes of a refused move
	note       string
}

// readinessOf checks the world's readiness for the move, as a user would
// with the world's clients.
func readinessOf(ctx context.Context, w *sim.World) (*subnets.Readiness, error) {
	return subnets.CheckReadiness(ctx, subnets.Input{
		Cluster: sim.ClusterName, AccountID: sim.DefaultAccountID, Region: sim.DefaultRegion, VPCID: w.Legacy().VPCID,
		Reader: w.Client(), EC2: w.EC2(), ELBv2: w.AWS(),
	}, subnets.WithClock(w.Clock()))
}

// moveNodes runs step 4 on w: readiness, the plan, Execute. In a broken
// world it expects the refusal and proves that nothing was written.
func moveNodes(ctx context.Context, w *sim.World, broken string) (*moveRun, error) {
	mr := &moveRun{start: w.Clock().Now()}
	if broken == brokenMissingZone {
		// Someone removed a zone from the load balancer: the targets of
		// the pods there are unused (Target.NotInUse).
		zones := w.Cluster().Zones()
		enabled := map[string]string{}
		for _, z := range zones[:len(zones)-1] {
			enabled[z] = "subnet-public-" + z
		}
		if err := w.Model().SetLoadBalancerZones(w.Legacy().LoadBalancerARN, enabled); err != nil {
			return nil, fmt.Errorf("break the world: %w", err)
		}
	}
	before, err := karpenterObjects(ctx, w)
	if err != nil {
		return nil, err
	}
	r, err := readinessOf(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("check readiness: %w", err)
	}
	plan, err := subnets.PlanMove(ctx, r, subnets.PlanClock(w.Clock()))
	if broken != "" {
		var nr *subnets.NotReadyError
		if !errors.As(err, &nr) {
			return nil, fmt.Errorf("the %s world: PlanMove must refuse, got %v", broken, err)
		}
		after, err := karpenterObjects(ctx, w)
		if err != nil {
			return nil, err
		}
		if diff := diffObjects(before, after); diff != "" {
			return nil, fmt.Errorf("the %s world: the refused move changed %s", broken, diff)
		}
		for _, f := range r.Findings {
			if f.Severity == "high" || f.Severity == "critical" {
				mr.codes = append(mr.codes, string(f.Code))
			}
		}
		slices.Sort(mr.codes)
		mr.codes = slices.Compact(mr.codes)
		mr.end = w.Clock().Now()
		mr.note = fmt.Sprintf("readiness refused the move (%s); nothing written", strings.Join(mr.codes, ", "))
		return mr, nil
	}
	if err != nil {
		return nil, fmt.Errorf("plan the move: %w", err)
	}
	env := subnets.Env{Client: w.Client(), ELBv2: w.AWS(), Namespace: sim.DefaultNamespace, Holder: "tgmigrate-simulate", Clock: w.Clock()}
	obs := subnets.ObserverFuncs{OnObserved: func(p subnets.WatchProgress) { mr.waves = max(mr.waves, p.Wave) }}
	res, err := subnets.Execute(ctx, plan, env, subnets.WithObserver(obs))
	if err != nil {
		return nil, fmt.Errorf("execute the move: %w", err)
	}
	mr.end = w.Clock().Now()
	mr.note = fmt.Sprintf("moved %s to %s in %s (estimate: %s, %s, assuming %s)",
		textcell.Plural(len(plan.NodeClasses), "node class", "node classes"), textcell.Plural(len(r.PrivateSubnets), "private subnet", "private subnets"),
		textcell.Plural(mr.waves, "wave", "waves"), textcell.Plural(r.Estimate.Waves, "wave", "waves"), r.Estimate.Duration, strings.Join(r.Estimate.Assumptions, "; "))
	if !res.Completed {
		return nil, fmt.Errorf("execute the move: returned without completing")
	}
	return mr, nil
}

// karpenterObjects lists the EC2NodeClasses and NodePools as text, and
// the move's journal ConfigMap when there is one: what a refused move
// must leave as it was.
func karpenterObjects(ctx context.Context, w *sim.World) (map[string]string, error) {
	out := map[string]string{}
	for _, gvk := range []struct{ kind, list string }{{karpenter.EC2NodeClassGVK.Kind, "EC2NodeClassList"}, {karpenter.NodePoolGVK.Kind, "NodePoolList"}} {
		l := &unstructured.UnstructuredList{}
		gv := karpenter.EC2NodeClassGVK.GroupVersion()
		if gvk.kind == karpenter.NodePoolGVK.Kind {
			gv = karpenter.NodePoolGVK.GroupVersion()
		}
		l.SetGroupVersionKind(gv.WithKind(gvk.list))
		if err := w.Client().List(ctx, l); err != nil {
			return nil, fmt.Errorf("list %s: %w", gvk.kind, err)
		}
		for _, it := range l.Items {
			spec, _, _ := unstructured.NestedMap(it.Object, "spec")
			out[gvk.kind+"/"+it.GetName()] = fmt.Sprint(spec)
		}
	}
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	err := w.Client().Get(ctx, client.ObjectKey{Namespace: sim.DefaultNamespace, Name: subnets.JournalName(sim.ClusterName)}, cm)
	if err == nil {
		out["ConfigMap/"+cm.GetName()] = cm.GetResourceVersion()
	}
	return out, nil
}

// diffObjects names the objects that differ between two listings.
func diffObjects(before, after map[string]string) string {
	var diff []string
	for k, v := range after {
		if before[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			diff = append(diff, k)
		}
	}
	slices.Sort(diff)
	return strings.Join(diff, ", ")
}

// nodesByTier counts the world's nodes in private and public subnets.
func nodesByTier(w *sim.World) (private, public int) {
	for _, n := range w.Cluster().Nodes() {
		if n.Public || n.ExternalIP != "" {
			public++
		} else {
			private++
		}
	}
	return private, public
}
