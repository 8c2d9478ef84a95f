package subnets_test

// simhelpers_test.go: the simulated worlds of sim_test.go: one built,
// cut over, checked and moved as a user would with the world's clients.

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	tgmigrate "github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/subnets"
)

// simConfig is a small step-4 world: six nodes in public subnets, the
// phased cutover's safe pod settings; move sets the world's broken parts.
func simConfig(seed uint64, wire bool, move func(*sim.Config)) sim.Config {
	var d cutover.Assumptions
	cfg := sim.Config{
		Seed: seed, Nodes: 6, Pods: 18, RPS: 20,
		PublicSubnets: true, Move: sim.MoveWorld{Enabled: true},
		ReadinessGateInjection: true, ServerSideApply: true,
		Workload: sim.Workload{MaxUnavailable: "20%", PreStop: d.SafePreStop(), TerminationGracePeriod: d.SafeTerminationGracePeriod()},
	}
	if wire {
		cfg.Wire = &sim.WireOptions{}
	}
	if move != nil {
		move(&cfg)
	}
	return cfg
}

// newSimWorld builds and starts cfg's world, closed at the test's end,
// and runs it a minute so the targets are healthy.
func newSimWorld(t *testing.T, cfg sim.Config) *sim.World {
	t.Helper()
	w, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("sim.New: %v", err)
	}
	t.Cleanup(w.Close)
	w.Run(time.Minute)
	return w
}

// simCutover runs the phased cutover of the world's legacy target group,
// so that no node IP stays pinned.
func simCutover(t *testing.T, w *sim.World) {
	t.Helper()
	ctx := t.Context()
	l := w.Legacy()
	tg, err := tgmigrate.ParseTargetGroupARN(l.TargetGroupARN)
	if err != nil {
		t.Fatal(err)
	}
	env := cutover.Env{ELBv2: w.AWS(), EC2: w.EC2(), Client: w.Client(), Clock: w.Clock(), ClusterName: sim.ClusterName,
		ClusterVPCID: l.VPCID, Holder: "subnets-sim-test"}
	plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: tg, Namespace: l.Namespace, Service: l.Service,
		Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
	if err != nil {
		t.Fatalf("plan the cutover: %v", err)
	}
	if _, err := cutover.Execute(ctx, env, plan, cutover.WithPollInterval(15*time.Second)); err != nil {
		t.Fatalf("cutover: %v", err)
	}
}

// simReadiness checks the world's readiness with its clients.
func simReadiness(ctx context.Context, w *sim.World) (*subnets.Readiness, error) {
	return subnets.CheckReadiness(ctx, subnets.Input{
		Cluster: sim.ClusterName, AccountID: sim.DefaultAccountID, Region: sim.DefaultRegion, VPCID: w.Legacy().VPCID,
		Reader: w.Client(), EC2: w.EC2(), ELBv2: w.AWS(),
	}, subnets.WithClock(w.Clock()))
}

// simEnv is the move's Env on the world.
func simEnv(w *sim.World) subnets.Env {
	return subnets.Env{Client: w.Client(), ELBv2: w.AWS(), Namespace: sim.DefaultNamespace, Holder: "subnets-sim-test", Clock: w.Clock()}
}

// simSpecs are the specs of the world's EC2NodeClasses and NodePools by
// kind/name.
func simSpecs(t *testing.T, w *sim.World) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, gvk := range []struct {
		gv   string
		kind string
	}{{karpenterapi.EC2NodeClassGVK.GroupVersion().String(), karpenterapi.EC2NodeClassGVK.Kind},
		{karpenterapi.NodePoolGVK.GroupVersion().String(), karpenterapi.NodePoolGVK.Kind}} {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(gvk.gv)
		l.SetKind(gvk.kind + "List")
		if err := w.Client().List(t.Context(), l); err != nil {
			t.Fatalf("list %s: %v", gvk.kind, err)
		}
		for _, it := range l.Items {
			spec, _, _ := unstructured.NestedMap(it.Object, "spec")
			out[gvk.kind+"/"+it.GetName()] = spec
		}
	}
	if len(out) < 2 {
		t.Fatalf("the world has %d EC2NodeClass/NodePool objects, want the seed's two", len(out))
	}
	return out
}

// sameSpecs fails t when the specs differ.
func sameSpecs(t *testing.T, what string, before, after map[string]map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		t.Errorf("%s: the specs changed:\nbefore %v\nafter  %v", what, before, after)
	}
}

// simNodes says which nodes are still public.
func simPublicNodes(w *sim.World) (public []string, total int) {
	for _, n := range w.Cluster().Nodes() {
		total++
		if n.Public || n.ExternalIP != "" {
			public = append(public, fmt.Sprintf("%s(public=%v, ip=%q)", n.Name, n.Public, n.ExternalIP))
		}
	}
	return public, total
}
