package lbc_test

// startup_test.go: the controller's process start (its first reconcile
// after about 2.3 s), its EC2 security-group read until it first succeeds
// in a process, and metadata.generation and status.observedGeneration.

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestStartupDelay: after a restart the first reconcile runs
// DefaultStartupDelay (2.3 s, issue 34's observation of the real
// controller from process start to first reconcile) after the start, and
// a binding changed meanwhile is reconciled then, not before.
func TestStartupDelay(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 3})
	ctx := t.Context()
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(2 * time.Minute)
	w.LBC().Crash()
	if err := w.LBC().Start(ctx); err != nil {
		t.Fatal(err)
	}
	before := w.LBC().Stats().Reconciles
	w.Run(lbc.DefaultStartupDelay - time.Millisecond)
	if n := w.LBC().Stats().Reconciles; n != before {
		t.Fatalf("%d reconciles within %v of the restart, want none", n-before, lbc.DefaultStartupDelay)
	}
	w.Run(time.Second)
	if n := w.LBC().Stats().Reconciles; n == before {
		t.Errorf("no reconcile %v after the restart", lbc.DefaultStartupDelay+time.Second)
	}
}

// TestSecurityGroupsReadUntilFirstSuccess: the cluster's security groups
// are read (DescribeSecurityGroups) on each reconcile until the read first
// succeeds in a process, then never again until a restart (the LBC's
// networking manager fetches them once: pkg/networking/
// networking_manager.go); not on every reconcile.
func TestSecurityGroupsReadUntilFirstSuccess(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 4})
	ctx := t.Context()
	ec2 := w.LBCEC2()
	if err := ec2.Fail(ec2sim.OpDescribeSecurityGroups, ec2sim.ErrUnauthorized(ec2sim.OpDescribeSecurityGroups)); err != nil {
		t.Fatal(err)
	}
	if err := w.Client().Create(ctx, w.NewBinding("web", true)); err != nil {
		t.Fatal(err)
	}
	w.Run(time.Minute)
	refused := ec2.Counts()[ec2sim.OpDescribeSecurityGroups]
	if refused < 2 {
		t.Fatalf("%d DescribeSecurityGroups while refused, want one per reconcile", refused)
	}
	ec2.Clear("")
	w.Run(5 * time.Minute)
	ok := ec2.Counts()[ec2sim.OpDescribeSecurityGroups]
	if ok != refused+1 {
		t.Fatalf("%d DescribeSecurityGroups after it answered, want %d (one success)", ok, refused+1)
	}
	reconciles := w.LBC().Stats().Reconciles
	for i := range 2 {
		deletePod(t, w, i)
		w.Run(time.Minute)
	}
	if w.LBC().Stats().Reconciles == reconciles {
		t.Fatal("no reconcile after the pods changed")
	}
	if n := ec2.Counts()[ec2sim.OpDescribeSecurityGroups]; n != ok {
		t.Errorf("%d DescribeSecurityGroups after more reconciles, want still %d", n, ok)
	}
	w.LBC().Crash()
	if err := w.LBC().Start(ctx); err != nil {
		t.Fatal(err)
	}
	deletePod(t, w, 0)
	w.Run(time.Minute)
	if n := ec2.Counts()[ec2sim.OpDescribeSecurityGroups]; n != ok+1 {
		t.Errorf("%d DescribeSecurityGroups after a restart, want %d (read again once)", n, ok+1)
	}
}

// TestGeneration: the API server sets metadata.generation to 1 on create
// and bumps it on a change of the spec (not of metadata or status), and
// the controller writes status.observedGeneration after a full reconcile
// (targetgroupbinding_controller.go updateTargetGroupBindingStatus).
func TestGeneration(t *testing.T) {
	for _, ssa := range []bool{false, true} {
		t.Run(map[bool]string{false: "update", true: "server-side apply"}[ssa], func(t *testing.T) {
			w := newWorld(t, sim.Config{Seed: 5, ServerSideApply: ssa})
			ctx := t.Context()
			key := types.NamespacedName{Namespace: "shop", Name: "web"}
			if err := w.Client().Create(ctx, w.NewBinding("web", false)); err != nil {
				t.Fatal(err)
			}
			w.Run(time.Minute)
			get := func() *v1beta1.TargetGroupBinding {
				b := &v1beta1.TargetGroupBinding{}
				if err := w.Client().Get(ctx, key, b); err != nil {
					t.Fatal(err)
				}
				return b
			}
			b := get()
			if b.Generation != 1 || b.Status.ObservedGeneration == nil || *b.Status.ObservedGeneration != 1 {
				t.Fatalf("generation %d, observedGeneration %v after the first reconcile: want 1 and 1", b.Generation, b.Status.ObservedGeneration)
			}
			b.Spec.MultiClusterTargetGroup = true
			if ssa {
				spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&b.Spec)
				if err != nil {
					t.Fatal(err)
				}
				u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
				u.SetGroupVersionKind(v1beta1.GroupVersion.WithKind(v1beta1.Kind))
				u.SetNamespace(key.Namespace)
				u.SetName(key.Name)
				if err := w.Client().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("test"), client.ForceOwnership); err != nil {
					t.Fatal(err)
				}
			} else if err := w.Client().Update(ctx, b); err != nil {
				t.Fatal(err)
			}
			w.Run(time.Minute)
			b = get()
			if b.Generation != 2 || *b.Status.ObservedGeneration != 2 {
				t.Errorf("generation %d, observedGeneration %d after a spec change: want 2 and 2", b.Generation, *b.Status.ObservedGeneration)
			}
		})
	}
}
