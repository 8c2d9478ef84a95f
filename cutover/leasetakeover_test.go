package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/qstools/tgmigrate/cutover"
)

// takeoverAPI throttles the first DeregisterTargets attempts and, before
// each one, lets a second operator try to take the lease: by acquiring it
// (it succeeds once the lease has expired) or, with force, by deleting it
// first (someone broke the lock). It records every DeregisterTargets that
// reached it and whether the second operator held the lease by then.
type takeoverAPI struct {
	cutover.ELBv2API
	t        *testing.T
	s        *scenario
	p        *cutover.Plan
	throttle int // attempts to throttle
	forceAt  int // attempt before which the lease is deleted and taken; 0: never
	mu       sync.Mutex
	attempts int
	tookOver bool
	acquire  []error  // the second operator's Acquire results
	after    []string // DeregisterTargets that reached the API after the takeover
}

func (a *takeoverAPI) DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	a.mu.Lock()
	a.attempts++
	n := a.attempts
	if a.tookOver {
		a.after = append(a.after, fmt.Sprintf("attempt %d at %s", n, a.s.w.Clock().Now().Format(time.TimeOnly)))
	} else {
		other, err := cutover.NewLeaseLock(a.s.w.Client(), cutover.LeaseLockOptions{Namespace: a.p.Binding.Namespace,
			TargetGroupARN: a.p.TargetGroup.ARN, Holder: "operator-2", Clock: a.s.w.Clock()})
		if err != nil {
			a.t.Fatal(err)
		}
		if n == a.forceAt {
			lease := &coordinationv1.Lease{}
			lease.Namespace, lease.Name = other.Key().Namespace, other.Key().Name
			if err := a.s.w.Client().Delete(ctx, lease); err != nil {
				a.t.Fatal(err)
			}
		}
		err = other.Acquire(ctx)
		a.acquire = append(a.acquire, err)
		a.tookOver = err == nil
	}
	a.mu.Unlock()
	if n <= a.throttle {
		return nil, &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
	}
	return a.ELBv2API.DeregisterTargets(ctx, in, o...)
}

// TestLeaseTakeoverStopsRetriedWrites: a DeregisterTargets throttled for
// about two minutes (DefaultRetry) must not go through once another
// operator holds the lease. The lease lives 60 s, so before the fix a
// retried call that renewed only before its first attempt outlived it:
// operator-2 took it over and the retries still deregistered targets.
//   - expiry: the lease is renewed before every attempt, so it never
//     lapses and operator-2 cannot take it; the call completes;
//   - forced: operator-2 deletes the lease and takes it mid-retry; the
//     next attempt finds it gone and stops with a *LostLockError naming
//     operator-2, without another call and without a rollback.
func TestLeaseTakeoverStopsRetriedWrites(t *testing.T) {
	t.Parallel() // a world of its own
	tests := []struct {
		name     string
		forceAt  int
		wantLost bool
	}{
		{name: "expiry", forceAt: 0},
		{name: "forced", forceAt: 3, wantLost: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScenario(t, smallWorld(204))
			p := s.plan(nil)
			if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate)); err != nil {
				t.Fatal(err)
			}
			api := &takeoverAPI{ELBv2API: s.api, t: t, s: s, p: p, throttle: 25, forceAt: tt.forceAt}
			env := s.env
			env.ELBv2 = api
			res, err := cutover.Execute(t.Context(), env, p, simPods, cutover.WithAutoRollback(false))
			if len(api.after) > 0 {
				t.Errorf("DeregisterTargets reached the API after operator-2 took the lease: %v", api.after)
			}
			if api.attempts < max(tt.forceAt, 1) {
				t.Fatalf("only %d DeregisterTargets attempts: the test did not reach its takeover point", api.attempts)
			}
			if !tt.wantLost {
				if err != nil || !res.Completed {
					t.Fatalf("Execute: completed %t, err %v", res.Completed, err)
				}
				for i, aerr := range api.acquire {
					if !cutover.IsLocked(aerr) {
						t.Errorf("operator-2's Acquire before attempt %d: %v, want ErrLocked (the lease is renewed before every attempt)", i+1, aerr)
					}
				}
				return
			}
			var lost *cutover.LostLockError
			if !errors.As(err, &lost) || lost.Current != "operator-2" {
				t.Fatalf("Execute: err %v, want a *LostLockError naming operator-2", err)
			}
			if api.attempts != tt.forceAt {
				t.Errorf("%d DeregisterTargets attempts, want %d: none after the takeover", api.attempts, tt.forceAt)
			}
			if res.RolledBack || res.Rollback != nil {
				t.Errorf("rolled back after losing the lease: %+v", res.Rollback)
			}
		})
	}
}

// lostAfter is a Lock that another operator takes over after n renewals.
type lostAfter struct{ n int }

func (l *lostAfter) Acquire(context.Context) error { return nil }
func (l *lostAfter) Release(context.Context) error { return nil }
func (l *lostAfter) Renew(context.Context) error {
	if l.n--; l.n < 0 {
		return &cutover.LostLockError{Op: "renew lease", Lease: "shop/lock", Holder: "operator-1", Current: "operator-2", Reason: "taken over"}
	}
	return nil
}

// TestLostLockMessage: the error of a lost lease names its operation once
// ("cutover: step bind: cutover: renew lease ...", not "cutover: cutover:
// renew lease").
func TestLostLockMessage(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(204))
	p := s.plan(nil)
	_, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithLock(&lostAfter{n: 1}))
	if !cutover.IsLostLock(err) || strings.Contains(err.Error(), "cutover: cutover:") {
		t.Fatalf("err %q: want a lost lease, its prefix once", err)
	}
	t.Logf("%v", err)
}
