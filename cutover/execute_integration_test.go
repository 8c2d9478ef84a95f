//go:build integration

package cutover_test

import (
	"context"
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestIntegrationExecuteOnAPIServer runs a cutover on a world that lives on
// a real kube-apiserver: the binding applied server-side (with tgbind's
// server-side dry run), the journal ConfigMap and the Lease written with
// resourceVersion preconditions, a crash after the binding, a resume, and
// a rollback after completion, with no failed request.
func TestIntegrationExecuteOnAPIServer(t *testing.T) {
	env := testenv.Start(t)
	ctx := t.Context()
	cfg := sim.Config{Seed: 1, Nodes: 3, Pods: 6, RPS: 20, Client: env.Client}
	w, err := sim.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := w.Legacy()
	cenv := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: l.VPCID, Holder: "operator-1", Discovery: env.Discovery}
	p, err := cutover.PlanCutover(ctx, cenv, cutover.Request{TargetGroupARN: arntest.TG(l.TargetGroupARN), Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: worldAssumptions(w)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cutover.Execute(ctx, cenv, p, simPods, cutover.WithHook(crashAfter(cutover.StepBind))); !errors.Is(err, errCrash) {
		t.Fatalf("crash after the binding: %v", err)
	}
	// The crashed run's lease is still there, held by operator-1.
	leaseName, _ := cutover.LeaseName(arntest.TG(l.TargetGroupARN))
	var lease coordinationv1.Lease
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: l.Namespace, Name: leaseName}, &lease); err != nil || *lease.Spec.HolderIdentity != "operator-1" {
		t.Fatalf("lease after the crash: %+v, %v", lease.Spec, err)
	}
	var tgb v1beta1.TargetGroupBinding
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &tgb); err != nil || !tgb.Spec.MultiClusterTargetGroup {
		t.Fatalf("binding on the API server: %+v, %v", tgb.Spec, err)
	}

	res, err := cutover.Execute(ctx, cenv, p, simPods)
	if err != nil || !res.Completed || !res.Resumed {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: l.Namespace, Name: leaseName}, &lease); !apierrors.IsNotFound(err) {
		t.Errorf("lease after completion: %v, want released", err)
	}
	jname, _ := cutover.JournalConfigMapName(arntest.TG(l.TargetGroupARN))
	var cm corev1.ConfigMap
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: l.Namespace, Name: jname}, &cm); err != nil {
		t.Fatal(err)
	}
	st, err := cutover.DecodeState("test", []byte(cm.Data[cutover.JournalDataKey]))
	if err != nil || !st.Finished() {
		t.Fatalf("journal on the API server: %+v, %v", st, err)
	}
	if n := len(w.NodeTargets()); n != 0 {
		t.Errorf("%d node targets left", n)
	}

	rb, err := cutover.Rollback(ctx, cenv, p)
	if err != nil || !rb.Completed {
		t.Fatalf("rollback: %+v, %v", rb, err)
	}
	w.Run(6 * time.Minute)
	if st := w.Traffic(); st.Failed != 0 || st.Total == 0 {
		t.Errorf("traffic %s", st.String())
	}
	if n := len(w.NodeTargets()); n != 3 {
		t.Errorf("%d node targets after the rollback, want 3", n)
	}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &tgb); !apierrors.IsNotFound(err) {
		t.Errorf("binding after the rollback: %v, want gone", err)
	}
}

// crashAfter returns a hook that fails as a crash at the event of the
// named step, whatever its place in the plan.
func crashAfter(step string) cutover.Hook {
	return func(_ context.Context, e cutover.Event) error {
		if e.Kind == cutover.EventStep && e.Step == step {
			return errCrash
		}
		return nil
	}
}
