//go:build integration

package cutover_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/testenv"
)

const itTG = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"

var (
	itPlan  = cutover.PlanRef{ID: "plan-legacy-web-1", Digest: "sha256:0f1e2d3c"}
	itEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
)

// TestIntegrationConfigMapJournal runs the ConfigMap journal against a real
// API server: save, load, resume in a new process, and lost updates on
// update and on create, which the API server refuses through
// resourceVersion and name uniqueness.
func TestIntegrationConfigMapJournal(t *testing.T) {
	ctx := t.Context()
	env := testenv.Start(t)
	clk := clocktesting.NewFakePassiveClock(itEpoch)
	newJournal := func(t *testing.T, ns string) *cutover.ConfigMapJournal {
		t.Helper()
		j, err := cutover.NewConfigMapJournal(env.Client, cutover.ConfigMapJournalOptions{Namespace: ns, TargetGroupARN: arntest.TG(itTG), Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	stored := func(t *testing.T, j *cutover.ConfigMapJournal) *corev1.ConfigMap {
		t.Helper()
		var cm corev1.ConfigMap
		if err := env.Client.Get(ctx, j.Key(), &cm); err != nil {
			t.Fatal(err)
		}
		return &cm
	}

	t.Run("save, load and resume", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "journal")
		j := newJournal(t, ns)
		if _, err := j.Load(ctx, itPlan); !cutover.IsNoJournal(err) {
			t.Fatalf("Load() of an empty namespace: err = %v", err)
		}
		s := cutover.NewState(itPlan, "in-place", "bind", "deregister", "verify")
		if err := j.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := s.SetStep("bind", cutover.StepDone, clk.Now(), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.SetStep("deregister", cutover.StepRunning, clk.Now(), nil); err != nil {
			t.Fatal(err)
		}
		s.RecordBatch(cutover.TargetAddr{IP: "10.0.1.17", Port: 31080}, cutover.TargetAddr{IP: "10.0.2.9", Port: 31080})
		if err := j.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
		cm := stored(t, j)
		if cm.Labels[cutover.LabelManagedBy] != cutover.ManagedBy || cm.Annotations[cutover.AnnotationTargetGroupARN] != itTG {
			t.Errorf("ConfigMap metadata: labels %v, annotations %v", cm.Labels, cm.Annotations)
		}
		t.Logf("journal %s, resourceVersion %s, %d bytes", j.Key(), cm.ResourceVersion, len(cm.Data[cutover.JournalDataKey]))

		// A new process (a new journal) resumes where the first stopped.
		resumed := newJournal(t, ns)
		got, err := resumed.Load(ctx, itPlan)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Errorf("resumed state (-want +got):\n%s", diff)
		}
		if got.Revision != 2 || got.Deregistration.BatchesDone != 1 || got.Step("deregister").Status != cutover.StepRunning {
			t.Errorf("resumed revision %d, batches %d", got.Revision, got.Deregistration.BatchesDone)
		}
		got.RecordBatch(cutover.TargetAddr{IP: "10.0.3.4", Port: 31080})
		if err := resumed.Save(ctx, got); err != nil {
			t.Fatal(err)
		}
		// Another plan never reads it.
		other := cutover.PlanRef{ID: itPlan.ID, Digest: "sha256:changed"}
		if _, err := newJournal(t, ns).Load(ctx, other); !cutover.IsPlanMismatch(err) {
			t.Fatalf("Load() for another digest: err = %v", err)
		}
		if err := resumed.Delete(ctx); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, j.Key(), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
			t.Fatalf("after Delete: %v", err)
		}
	})

	t.Run("lost update on update", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "journal")
		if err := newJournal(t, ns).Save(ctx, cutover.NewState(itPlan, "in-place", "a")); err != nil {
			t.Fatal(err)
		}
		first, second := newJournal(t, ns), newJournal(t, ns)
		s1, err := first.Load(ctx, itPlan)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := second.Load(ctx, itPlan)
		if err != nil {
			t.Fatal(err)
		}
		s1.Notes = []string{"first"}
		if err := first.Save(ctx, s1); err != nil {
			t.Fatal(err)
		}
		rv := stored(t, first).ResourceVersion
		s2.Notes = []string{"second"}
		err = second.Save(ctx, s2)
		var ce *cutover.ConflictError
		if !errors.As(err, &ce) || !apierrors.IsConflict(ce.Err) {
			t.Fatalf("second Save: err = %v, want a *ConflictError from the API server's 409", err)
		}
		t.Logf("refused as expected: %v", err)
		cm := stored(t, first)
		if cm.ResourceVersion != rv {
			t.Error("the ConfigMap changed after the refused save")
		}
		back, err := newJournal(t, ns).Load(ctx, itPlan)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"first"}, back.Notes); diff != "" {
			t.Errorf("stored notes (-want +got):\n%s", diff)
		}
	})

	t.Run("lost update on create", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "journal")
		first, second := newJournal(t, ns), newJournal(t, ns)
		for _, j := range []*cutover.ConfigMapJournal{first, second} {
			if _, err := j.Load(ctx, itPlan); !cutover.IsNoJournal(err) {
				t.Fatal(err)
			}
		}
		if err := first.Save(ctx, cutover.NewState(itPlan, "in-place", "a")); err != nil {
			t.Fatal(err)
		}
		err := second.Save(ctx, cutover.NewState(itPlan, "in-place", "b"))
		var ce *cutover.ConflictError
		if !errors.As(err, &ce) || !apierrors.IsAlreadyExists(ce.Err) {
			t.Fatalf("second create: err = %v, want a *ConflictError from AlreadyExists", err)
		}
		back, err := newJournal(t, ns).Load(ctx, itPlan)
		if err != nil || back.Steps[0].ID != "a" {
			t.Fatalf("stored = %+v, %v; want the first journal's", back, err)
		}
	})
}

// TestIntegrationLeaseLock runs the Lease lock against a real API server on
// a clock the test controls: acquire, renew, release, a refused second
// holder, the takeover of an expired lease, and lost updates.
func TestIntegrationLeaseLock(t *testing.T) {
	ctx := t.Context()
	env := testenv.Start(t)
	newLock := func(t *testing.T, c client.Client, ns, holder string, clk *clocktesting.FakePassiveClock) *cutover.LeaseLock {
		t.Helper()
		l, err := cutover.NewLeaseLock(c, cutover.LeaseLockOptions{Namespace: ns, TargetGroupARN: arntest.TG(itTG), Holder: holder, Clock: clk, LeaseDuration: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	lease := func(t *testing.T, l *cutover.LeaseLock) *coordinationv1.Lease {
		t.Helper()
		var got coordinationv1.Lease
		err := env.Client.Get(ctx, l.Key(), &got)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return &got
	}

	t.Run("acquire, refuse, renew, release", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "lock")
		clk := clocktesting.NewFakePassiveClock(itEpoch)
		a := newLock(t, env.Client, ns, "operator-a", clk)
		b := newLock(t, env.Client, ns, "operator-b", clk)
		if err := a.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		got := lease(t, a)
		if *got.Spec.HolderIdentity != "operator-a" || *got.Spec.LeaseDurationSeconds != 30 || *got.Spec.LeaseTransitions != 0 ||
			!got.Spec.RenewTime.Time.Equal(itEpoch) || got.Labels[cutover.LabelManagedBy] != cutover.ManagedBy {
			t.Fatalf("lease after Acquire: %+v %v", got.Spec, got.Labels)
		}

		clk.SetTime(itEpoch.Add(20 * time.Second))
		err := b.Acquire(ctx)
		var le *cutover.LockedError
		if !errors.As(err, &le) || le.Holder != "operator-a" || !le.Expires.Equal(itEpoch.Add(30*time.Second)) {
			t.Fatalf("second holder: err = %v, want a *LockedError", err)
		}
		t.Logf("refused as expected: %v", err)

		if err := a.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		if got := lease(t, a); !got.Spec.RenewTime.Time.Equal(itEpoch.Add(20 * time.Second)) {
			t.Errorf("renewTime = %v", got.Spec.RenewTime)
		}
		// Past the first expiry, the renewal still protects it.
		clk.SetTime(itEpoch.Add(45 * time.Second))
		if err := b.Acquire(ctx); !cutover.IsLocked(err) {
			t.Fatalf("Acquire after renewal: err = %v", err)
		}
		if err := a.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if lease(t, a) != nil {
			t.Fatal("Release left the lease")
		}
		if err := b.Acquire(ctx); err != nil {
			t.Fatalf("Acquire after Release: %v", err)
		}
		if err := b.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("expired lease is taken over", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "lock")
		clk := clocktesting.NewFakePassiveClock(itEpoch)
		crashed := newLock(t, env.Client, ns, "crashed", clk)
		if err := crashed.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		successor := newLock(t, env.Client, ns, "successor", clk)
		clk.SetTime(itEpoch.Add(30 * time.Second))
		if err := successor.Acquire(ctx); !cutover.IsLocked(err) {
			t.Fatalf("at the expiry instant: err = %v, want locked", err)
		}
		clk.SetTime(itEpoch.Add(31 * time.Second))
		if err := successor.Acquire(ctx); err != nil {
			t.Fatalf("takeover: %v", err)
		}
		got := lease(t, successor)
		if *got.Spec.HolderIdentity != "successor" || *got.Spec.LeaseTransitions != 1 || !got.Spec.AcquireTime.Time.Equal(itEpoch.Add(31*time.Second)) {
			t.Fatalf("lease after takeover: %+v", got.Spec)
		}
		err := crashed.Renew(ctx)
		var lost *cutover.LostLockError
		if !errors.As(err, &lost) || lost.Current != "successor" {
			t.Fatalf("Renew by the old holder: err = %v, want a *LostLockError naming the successor", err)
		}
		t.Logf("lost as expected: %v", err)
		if err := crashed.Release(ctx); !cutover.IsLostLock(err) {
			t.Fatalf("Release by the old holder: err = %v", err)
		}
		if got := lease(t, successor); got == nil || *got.Spec.HolderIdentity != "successor" {
			t.Fatal("the old holder's Release touched the successor's lease")
		}
	})

	t.Run("lost update: two operators take over at once", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "lock")
		clk := clocktesting.NewFakePassiveClock(itEpoch)
		if err := newLock(t, env.Client, ns, "crashed", clk).Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		clk.SetTime(itEpoch.Add(time.Minute))
		rival := newLock(t, env.Client, ns, "rival", clk)

		// This operator's client lets the rival write between its Get and
		// its Update, so its Update carries a stale resourceVersion.
		raw, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		raced := false
		racing := interceptor.NewClient(raw, interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if !raced {
				raced = true
				if err := rival.Acquire(ctx); err != nil {
					return err
				}
			}
			return c.Update(ctx, obj, opts...)
		}})
		me := newLock(t, racing, ns, "me", clk)
		err = me.Acquire(ctx)
		var ce *cutover.ConflictError
		if !errors.As(err, &ce) || !apierrors.IsConflict(ce.Err) {
			t.Fatalf("Acquire() err = %v, want a *ConflictError from the API server's 409", err)
		}
		t.Logf("refused as expected: %v", err)
		got := lease(t, rival)
		if *got.Spec.HolderIdentity != "rival" || *got.Spec.LeaseTransitions != 1 {
			t.Fatalf("lease = %+v, want the rival's single takeover", got.Spec)
		}
		// The loser does not hold it, and the next attempt is refused cleanly.
		if err := me.Renew(ctx); !cutover.IsLostLock(err) {
			t.Fatalf("Renew by the loser: err = %v", err)
		}
		if err := me.Acquire(ctx); !cutover.IsLocked(err) {
			t.Fatalf("second Acquire by the loser: err = %v", err)
		}
	})

	t.Run("lost update: stale renew under a shared identity", func(t *testing.T) {
		ns := env.Namespace(ctx, t, "lock")
		clk := clocktesting.NewFakePassiveClock(itEpoch)
		first := newLock(t, env.Client, ns, "shared", clk)
		twin := newLock(t, env.Client, ns, "shared", clk)
		if err := first.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		// A no-op update keeps the resourceVersion: the twin writes a later
		// renewTime, as a second process would.
		clk.SetTime(itEpoch.Add(time.Second))
		if err := twin.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		err := first.Renew(ctx)
		var ce *cutover.ConflictError
		if !errors.As(err, &ce) || !apierrors.IsConflict(ce.Err) || cutover.IsLostLock(err) {
			t.Fatalf("stale Renew: err = %v, want a *ConflictError", err)
		}
		if err := first.Release(ctx); !cutover.IsConflict(err) {
			t.Fatalf("stale Release: err = %v, want a conflict", err)
		}
		if lease(t, twin) == nil {
			t.Fatal("a stale Release deleted the lease")
		}
		if err := twin.Release(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
