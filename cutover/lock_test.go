package cutover

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/arntest"
)

func newLock(t *testing.T, c client.Client, holder string, clk *clocktesting.FakePassiveClock) *LeaseLock {
	t.Helper()
	l, err := NewLeaseLock(c, LeaseLockOptions{Namespace: testNS, TargetGroupARN: arntest.TG(testTG), Holder: holder, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// leaseSpec reads the Lease back; nil when absent.
func leaseSpec(t *testing.T, c client.Client) *coordinationv1.LeaseSpec {
	t.Helper()
	name, err := LeaseName(arntest.TG(testTG))
	if err != nil {
		t.Fatal(err)
	}
	var l coordinationv1.Lease
	err = c.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: name}, &l)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return &l.Spec
}

// wantSpec is what a lease written by holder at acquired/renewed looks like.
func wantSpec(holder string, acquired, renewed time.Time, secs, transitions int32) *coordinationv1.LeaseSpec {
	return &coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(holder),
		LeaseDurationSeconds: ptr.To(secs),
		AcquireTime:          ptr.To(metav1.NewMicroTime(acquired)),
		RenewTime:            ptr.To(metav1.NewMicroTime(renewed)),
		LeaseTransitions:     ptr.To(transitions),
	}
}

func TestNewLeaseLockInput(t *testing.T) {
	c := newFakeClient(nil)
	ok := LeaseLockOptions{Namespace: testNS, TargetGroupARN: arntest.TG(testTG), Holder: "a"}
	with := func(f func(*LeaseLockOptions)) LeaseLockOptions { o := ok; f(&o); return o }
	tests := []struct {
		name  string
		c     client.Client
		opts  LeaseLockOptions
		field string
	}{
		{"nil client", nil, ok, "client"},
		{"no namespace", c, with(func(o *LeaseLockOptions) { o.Namespace = "" }), "Namespace"},
		{"no ARN", c, with(func(o *LeaseLockOptions) { o.TargetGroupARN = tgmigrate.ARN{} }), "TargetGroupARN"},
		{"hand-made ARN", c, with(func(o *LeaseLockOptions) { o.TargetGroupARN = arntest.HandMadeTG(testTG) }), "TargetGroupARN"},
		{"load balancer ARN", c, with(func(o *LeaseLockOptions) { o.TargetGroupARN = arntest.LB(testLB) }), "TargetGroupARN"},
		{"no holder", c, with(func(o *LeaseLockOptions) { o.Holder = "" }), "Holder"},
		{"negative duration", c, with(func(o *LeaseLockOptions) { o.LeaseDuration = -time.Second }), "LeaseDuration"},
		{"huge duration", c, with(func(o *LeaseLockOptions) { o.LeaseDuration = 1 << 62 }), "LeaseDuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLeaseLock(tt.c, tt.opts)
			var ie *InputError
			if l != nil || !errors.As(err, &ie) || ie.Field != tt.field {
				t.Fatalf("NewLeaseLock() = %v, %v; want an *InputError on %s", l, err, tt.field)
			}
		})
	}
	durations := []struct{ in, want time.Duration }{
		{0, DefaultLeaseDuration}, {15 * time.Second, 15 * time.Second}, {1500 * time.Millisecond, 2 * time.Second}, {time.Nanosecond, time.Second},
	}
	for _, d := range durations {
		l, err := NewLeaseLock(c, with(func(o *LeaseLockOptions) { o.LeaseDuration = d.in }))
		if err != nil || l.LeaseDuration() != d.want {
			t.Errorf("LeaseDuration %v: got %v, %v; want %v", d.in, l.LeaseDuration(), err, d.want)
		}
	}
	if DefaultHolder() == "" || !strings.Contains(DefaultHolder(), "-") {
		t.Errorf("DefaultHolder() = %q", DefaultHolder())
	}
}

func TestLeaseLockLifecycle(t *testing.T) {
	ctx := t.Context()
	c := newFakeClient(nil)
	clk := clocktesting.NewFakePassiveClock(testEpoch)
	a := newLock(t, c, "operator-a", clk)
	b := newLock(t, c, "operator-b", clk)

	if _, held := a.Expires(); held {
		t.Fatal("held before Acquire")
	}
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantSpec("operator-a", testEpoch, testEpoch, 60, 0), leaseSpec(t, c)); diff != "" {
		t.Errorf("after Acquire (-want +got):\n%s", diff)
	}
	if exp, held := a.Expires(); !held || !exp.Equal(testEpoch.Add(time.Minute)) {
		t.Errorf("Expires() = %v, %v", exp, held)
	}

	// A second holder is refused while the lease lives, even at its last instant.
	clk.SetTime(testEpoch.Add(time.Minute))
	err := b.Acquire(ctx)
	var le *LockedError
	if !errors.As(err, &le) || le.Holder != "operator-a" || !le.Expires.Equal(testEpoch.Add(time.Minute)) {
		t.Fatalf("second Acquire: err = %v, want a *LockedError naming operator-a", err)
	}
	if !strings.Contains(err.Error(), `held by "operator-a" until 2026-01-01T00:01:00Z`) {
		t.Errorf("message %q", err)
	}
	if err := b.Renew(ctx); !IsLostLock(err) {
		t.Errorf("Renew without Acquire: err = %v", err)
	}
	if err := b.Release(ctx); !IsLostLock(err) {
		t.Errorf("Release without Acquire: err = %v", err)
	}

	// The holder renews.
	clk.SetTime(testEpoch.Add(50 * time.Second))
	if err := a.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantSpec("operator-a", testEpoch, testEpoch.Add(50*time.Second), 60, 0), leaseSpec(t, c)); diff != "" {
		t.Errorf("after Renew (-want +got):\n%s", diff)
	}
	clk.SetTime(testEpoch.Add(100 * time.Second))
	if err := b.Acquire(ctx); !IsLocked(err) {
		t.Fatalf("Acquire after renewal: err = %v, want locked", err)
	}

	// Released, the lease is gone and b gets it at once.
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if leaseSpec(t, c) != nil {
		t.Fatal("Release left the Lease")
	}
	if err := b.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Renew(ctx); !IsLostLock(err) {
		t.Fatalf("Renew after Release: err = %v", err)
	}
}

func TestLeaseLockTakeOverExpired(t *testing.T) {
	ctx := t.Context()
	c := newFakeClient(nil)
	clk := clocktesting.NewFakePassiveClock(testEpoch)
	a := newLock(t, c, "operator-a", clk)
	b := newLock(t, c, "operator-b", clk)
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	// A crashed: nobody renews. One microsecond after expiry, b takes over.
	later := testEpoch.Add(time.Minute + time.Microsecond)
	clk.SetTime(later)
	if err := b.Acquire(ctx); err != nil {
		t.Fatalf("takeover: %v", err)
	}
	if diff := cmp.Diff(wantSpec("operator-b", later, later, 60, 1), leaseSpec(t, c)); diff != "" {
		t.Errorf("after takeover (-want +got):\n%s", diff)
	}

	// A comes back: it has lost the lock, and learns who has it.
	err := a.Renew(ctx)
	var lost *LostLockError
	if !errors.As(err, &lost) || lost.Current != "operator-b" {
		t.Fatalf("Renew of a lost lease: err = %v, want a *LostLockError naming operator-b", err)
	}
	if _, held := a.Expires(); held {
		t.Error("a still believes it holds the lease")
	}
	if err := a.Release(ctx); !IsLostLock(err) {
		t.Errorf("Release of a lost lease: err = %v", err)
	}
	if got := leaseSpec(t, c); got == nil || *got.HolderIdentity != "operator-b" {
		t.Fatalf("a's Release touched b's lease: %+v", got)
	}
	// And a must wait for b's lease to expire.
	if err := a.Acquire(ctx); !IsLocked(err) {
		t.Fatalf("Acquire: err = %v, want locked", err)
	}
}

func TestLeaseLockAcquireExisting(t *testing.T) {
	ctx := t.Context()
	name, _ := LeaseName(arntest.TG(testTG))
	lease := func(labels, annotations map[string]string, spec coordinationv1.LeaseSpec) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name, Labels: labels, Annotations: annotations}, Spec: spec}
	}
	managed := map[string]string{LabelManagedBy: ManagedBy}
	ours := map[string]string{AnnotationTargetGroupARN: testTG}
	now := testEpoch.Add(time.Hour)
	tests := []struct {
		name     string
		existing *coordinationv1.Lease
		wantErr  error
		want     *coordinationv1.LeaseSpec
	}{
		{"own live lease is taken back", lease(managed, ours, *wantSpec("me", testEpoch, now.Add(-time.Second), 60, 3)),
			nil, wantSpec("me", testEpoch, now, 60, 3)},
		{"released lease", lease(managed, ours, coordinationv1.LeaseSpec{LeaseTransitions: ptr.To(int32(4))}),
			nil, wantSpec("me", now, now, 60, 5)},
		{"expired under another duration", lease(managed, ours, *wantSpec("other", testEpoch, now.Add(-11*time.Second), 10, 0)),
			nil, wantSpec("me", now, now, 60, 1)},
		{"live under another duration", lease(managed, ours, *wantSpec("other", testEpoch, now.Add(-9*time.Second), 10, 0)),
			ErrLocked, wantSpec("other", testEpoch, now.Add(-9*time.Second), 10, 0)},
		{"no renew time, acquire time live", lease(managed, ours, coordinationv1.LeaseSpec{HolderIdentity: ptr.To("other"), AcquireTime: ptr.To(metav1.NewMicroTime(now))}),
			ErrLocked, &coordinationv1.LeaseSpec{HolderIdentity: ptr.To("other"), AcquireTime: ptr.To(metav1.NewMicroTime(now))}},
		{"no times at all", lease(managed, ours, coordinationv1.LeaseSpec{HolderIdentity: ptr.To("other")}),
			nil, wantSpec("me", now, now, 60, 1)},
		{"not managed", lease(nil, ours, *wantSpec("other", testEpoch, testEpoch, 1, 0)),
			ErrNotManaged, wantSpec("other", testEpoch, testEpoch, 1, 0)},
		{"another target group", lease(managed, map[string]string{AnnotationTargetGroupARN: testOtherTG}, *wantSpec("other", testEpoch, testEpoch, 1, 0)),
			ErrNotManaged, wantSpec("other", testEpoch, testEpoch, 1, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeClient(nil, tt.existing)
			l := newLock(t, c, "me", clocktesting.NewFakePassiveClock(now))
			err := l.Acquire(ctx)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Acquire() err = %v, want %v", err, tt.wantErr)
			}
			if _, held := l.Expires(); held != (err == nil) {
				t.Errorf("held = %v after err %v", held, err)
			}
			if diff := cmp.Diff(tt.want, leaseSpec(t, c)); diff != "" {
				t.Errorf("lease (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLeaseLockConflicts races two operators through interceptors: the
// rival writes between this lock's read and its write.
func TestLeaseLockConflicts(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakePassiveClock(testEpoch)

	t.Run("both create", func(t *testing.T) {
		base := newFakeClient(nil)
		rival := newLock(t, base, "rival", clk)
		c := interceptor.NewClient(base, interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := rival.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
			return c.Create(ctx, obj, opts...)
		}})
		me := newLock(t, c, "me", clk)
		err := me.Acquire(ctx)
		var ce *ConflictError
		if !errors.As(err, &ce) || !apierrors.IsAlreadyExists(ce.Err) {
			t.Fatalf("Acquire() err = %v, want a *ConflictError from AlreadyExists", err)
		}
		if got := leaseSpec(t, base); *got.HolderIdentity != "rival" {
			t.Errorf("holder = %q, want rival", *got.HolderIdentity)
		}
	})

	t.Run("both take over an expired lease", func(t *testing.T) {
		base := newFakeClient(nil)
		if err := newLock(t, base, "crashed", clk).Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		late := clocktesting.NewFakePassiveClock(testEpoch.Add(2 * time.Minute))
		rival := newLock(t, base, "rival", late)
		raced := false
		c := interceptor.NewClient(base, interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if !raced {
				raced = true
				if err := rival.Acquire(ctx); err != nil {
					t.Fatal(err)
				}
			}
			return c.Update(ctx, obj, opts...)
		}})
		me := newLock(t, c, "me", late)
		err := me.Acquire(ctx)
		var ce *ConflictError
		if !errors.As(err, &ce) || !apierrors.IsConflict(ce.Err) || ce.Expected == "" {
			t.Fatalf("Acquire() err = %v, want a *ConflictError from a 409 with the stale version", err)
		}
		if _, held := me.Expires(); held {
			t.Error("the loser believes it holds the lease")
		}
		if got := leaseSpec(t, base); *got.HolderIdentity != "rival" || *got.LeaseTransitions != 1 {
			t.Errorf("lease = holder %q transitions %d, want rival 1", *got.HolderIdentity, *got.LeaseTransitions)
		}
	})

	t.Run("same identity renews twice", func(t *testing.T) {
		base := newFakeClient(nil)
		first := newLock(t, base, "me", clk)
		if err := first.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		twin := newLock(t, base, "me", clk)
		if err := twin.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		err := first.Renew(ctx)
		if !IsConflict(err) || IsLostLock(err) || !strings.Contains(err.Error(), "same identity") {
			t.Fatalf("Renew() err = %v, want a conflict naming the shared identity", err)
		}
		if err := first.Release(ctx); !IsConflict(err) {
			t.Fatalf("Release() err = %v, want a conflict", err)
		}
		if leaseSpec(t, base) == nil {
			t.Fatal("a conflicting Release deleted the lease")
		}
	})

	t.Run("deleted under the holder", func(t *testing.T) {
		base := newFakeClient(nil)
		l := newLock(t, base, "me", clk)
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		name, _ := LeaseName(arntest.TG(testTG))
		if err := base.Delete(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name}}); err != nil {
			t.Fatal(err)
		}
		var lost *LostLockError
		if err := l.Renew(ctx); !errors.As(err, &lost) || !strings.Contains(err.Error(), "deleted") {
			t.Fatalf("Renew() err = %v, want a *LostLockError saying it was deleted", err)
		}
		if leaseSpec(t, base) != nil {
			t.Error("Renew re-created a deleted lease")
		}
	})
}

func TestLeaseLockFaults(t *testing.T) {
	ctx := t.Context()
	clk := clocktesting.NewFakePassiveClock(testEpoch)
	gr := schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	unavailable := apierrors.NewServiceUnavailable("etcd down")

	t.Run("get forbidden", func(t *testing.T) {
		c := newFakeClient(&interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return apierrors.NewForbidden(gr, "x", errors.New("rbac"))
		}})
		err := newLock(t, c, "me", clk).Acquire(ctx)
		if !apierrors.IsForbidden(err) || IsLocked(err) || IsConflict(err) || !strings.HasPrefix(err.Error(), "cutover: acquire lease ") {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("renew transport error keeps the hold", func(t *testing.T) {
		base := newFakeClient(nil)
		fail := true
		c := interceptor.NewClient(base, interceptor.Funcs{Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if fail {
				return unavailable
			}
			return c.Update(ctx, obj, opts...)
		}})
		l := newLock(t, c, "me", clk)
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.Renew(ctx); !apierrors.IsServiceUnavailable(err) || IsLostLock(err) {
			t.Fatalf("Renew() err = %v", err)
		}
		fail = false
		if err := l.Renew(ctx); err != nil {
			t.Fatalf("Renew() after the outage: %v", err)
		}
	})

	t.Run("release transport error can be retried", func(t *testing.T) {
		base := newFakeClient(nil)
		fail := true
		c := interceptor.NewClient(base, interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if fail {
				return unavailable
			}
			return c.Delete(ctx, obj, opts...)
		}})
		l := newLock(t, c, "me", clk)
		if err := l.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
		if err := l.Release(ctx); !apierrors.IsServiceUnavailable(err) {
			t.Fatalf("Release() err = %v", err)
		}
		fail = false
		if err := l.Release(ctx); err != nil {
			t.Fatalf("second Release(): %v", err)
		}
		if leaseSpec(t, base) != nil {
			t.Error("lease left behind")
		}
	})
}
