package main

// migrate_test.go: run on a tgmigratetest world under Karpenter churn:
// approved, refused, a fault that makes it roll back, and a crash that
// does not.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// setup is a world under churn, the Env on it and the request for its
// hand-made target group.
func setup(t *testing.T) (*tgmigratetest.World, cutover.Env, cutover.Request) {
	t.Helper()
	w, err := tgmigratetest.NewWorld(t.Context(), tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	l := w.Legacy()
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(),
		ClusterName: tgmigratetest.ClusterName, ClusterVPCID: w.VPCID()}
	req := cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service,
		Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()}
	return w, env, req
}

// approveAll approves every phase and records their names.
func approveAll(asked *[]string) cutover.ApprovalFunc {
	return func(_ context.Context, p cutover.Phase) error { *asked = append(*asked, p.Name); return nil }
}

// bindings counts the TargetGroupBindings in the world's cluster.
func bindings(t *testing.T, w *tgmigratetest.World) int {
	t.Helper()
	var l v1beta1.TargetGroupBindingList
	if err := w.Client().List(t.Context(), &l); err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

func TestRunApproved(t *testing.T) {
	w, env, req := setup(t)
	var asked []string
	var out strings.Builder
	if code := run(t.Context(), env, req, approveAll(&asked), &out); code != exitCompleted {
		t.Fatalf("exit code %d, want %d:\n%s", code, exitCompleted, out.String())
	}
	w.Run(5 * time.Minute) // the churn goes on
	if r := w.Requests(); r.Failed != 0 || r.Served == 0 || w.NodeTargets() != 0 || len(asked) == 0 {
		t.Errorf("requests %+v, node targets %d, phases asked %v; want none failed, none left, some asked:\n%s",
			r, w.NodeTargets(), asked, out.String())
	}
}

func TestRunRefused(t *testing.T) {
	w, env, req := setup(t)
	before := w.NodeTargets()
	refuse := func(context.Context, cutover.Phase) error { return errors.New("not during the sale") }
	var out strings.Builder
	if code := run(t.Context(), env, req, refuse, &out); code != exitRefused {
		t.Fatalf("exit code %d, want %d:\n%s", code, exitRefused, out.String())
	}
	// Stopped before the first mutation: the node targets stay, no binding.
	if w.NodeTargets() != before || before == 0 || bindings(t, w) != 0 ||
		w.Calls()["DeregisterTargets"] != 0 || w.Calls()["ModifyTargetGroup"] != 0 {
		t.Errorf("node targets %d (before %d), bindings %d, calls %v; want all as before:\n%s",
			w.NodeTargets(), before, bindings(t, w), w.Calls(), out.String())
	}
	if !strings.Contains(out.String(), "not during the sale") {
		t.Errorf("the refusal's reason is not shown:\n%s", out.String())
	}
}

func TestRunFaultRollsBack(t *testing.T) {
	w, env, req := setup(t)
	if err := w.Inject(tgmigratetest.Fault{Op: "DeregisterTargets", Code: tgmigratetest.AccessDenied}); err != nil {
		t.Fatal(err)
	}
	var asked []string
	var out strings.Builder
	if code := run(t.Context(), env, req, approveAll(&asked), &out); code != exitFailed || !strings.Contains(out.String(), "rolled back: ") {
		t.Fatalf("exit code %d, want %d, and the rollback's completion said:\n%s", code, exitFailed, out.String())
	}
	// The target group serves again, on node targets, with no binding
	// left, and no request failed. (Left longer, Karpenter's churn breaks
	// the hand-made node targets again: the problem the migration solves.)
	served := w.Requests().Served
	w.Run(time.Minute)
	if r := w.Requests(); r.Failed != 0 || r.Served <= served || w.NodeTargets() == 0 || bindings(t, w) != 0 {
		t.Errorf("requests %+v (served %d before), node targets %d, bindings %d; want serving on node targets:\n%s",
			r, served, w.NodeTargets(), bindings(t, w), out.String())
	}
}

// TestRunCrashNotRolledBack: a failure that calls for no rollback
// (cutover.ShouldRollback: here a crash, which resumes) exits 3, names
// the disposition, and runs no Rollback: the journal holds no rollback.
func TestRunCrashNotRolledBack(t *testing.T) {
	w, env, req := setup(t)
	var asked []string
	var out strings.Builder
	crash := cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](1))
	if code := run(t.Context(), env, req, approveAll(&asked), &out, crash); code != exitFailed {
		t.Fatalf("exit code %d, want %d:\n%s", code, exitFailed, out.String())
	}
	if !strings.Contains(out.String(), "not rolled back (resume)") || strings.Contains(out.String(), "rolling back") {
		t.Errorf("output does not say it is not rolled back, and why:\n%s", out.String())
	}
	l := w.Legacy()
	j, err := cutover.NewConfigMapJournal(w.Client(), cutover.ConfigMapJournalOptions{Namespace: l.Namespace, TargetGroupARN: l.TargetGroupARN})
	if err != nil {
		t.Fatal(err)
	}
	st, err := j.Inspect(t.Context())
	if err != nil || st.Rollback != nil {
		t.Errorf("journal: %v; rollback %+v, want none", err, st)
	}
}
