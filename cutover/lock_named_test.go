package cutover_test

// lock_named_test.go: NewNamedLeaseLock behaves as the target group's
// lock on a Lease the caller names, and refuses one that guards another
// subject.

import (
	"errors"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/cutover"
)

func TestNamedLeaseLock(t *testing.T) {
	ctx := t.Context()
	c := fake.NewClientBuilder().Build()
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 4, 8, 0, 0, 0, time.UTC))
	opts := func(holder, subject string) cutover.NamedLeaseLockOptions {
		return cutover.NamedLeaseLockOptions{Namespace: "ops", Name: "tgmigrate-move-prod", Subject: subject, Holder: holder, Clock: clk}
	}
	a, err := cutover.NewNamedLeaseLock(c, opts("a", "subnets-move/prod"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	var lease coordinationv1.Lease
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ops", Name: "tgmigrate-move-prod"}, &lease); err != nil {
		t.Fatal(err)
	}
	if lease.Annotations[cutover.AnnotationLockSubject] != "subnets-move/prod" || lease.Labels[cutover.LabelManagedBy] != cutover.ManagedBy {
		t.Errorf("lease meta = %v %v", lease.Labels, lease.Annotations)
	}
	b, _ := cutover.NewNamedLeaseLock(c, opts("b", "subnets-move/prod"))
	if err := b.Acquire(ctx); !errors.Is(err, cutover.ErrLocked) {
		t.Errorf("second holder: %v, want ErrLocked", err)
	}
	other, _ := cutover.NewNamedLeaseLock(c, opts("a", "something-else"))
	if err := other.Acquire(ctx); !errors.Is(err, cutover.ErrNotManaged) {
		t.Errorf("another subject: %v, want ErrNotManaged", err)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]cutover.NamedLeaseLockOptions{
		"no name": {Namespace: "ops", Subject: "s", Holder: "h"}, "bad name": {Namespace: "ops", Name: "Bad_Name", Subject: "s", Holder: "h"},
		"no subject": {Namespace: "ops", Name: "n", Holder: "h"}, "no holder": {Namespace: "ops", Name: "n", Subject: "s"},
		"no namespace": {Name: "n", Subject: "s", Holder: "h"}, "negative": {Namespace: "ops", Name: "n", Subject: "s", Holder: "h", LeaseDuration: -time.Second},
	} {
		if _, err := cutover.NewNamedLeaseLock(c, o); !errors.Is(err, cutover.ErrInvalidInput) {
			t.Errorf("%s: %v, want ErrInvalidInput", name, err)
		}
	}
	if _, err := cutover.NewNamedLeaseLock(nil, opts("a", "s")); !errors.Is(err, cutover.ErrInvalidInput) {
		t.Errorf("nil client: %v", err)
	}
}
