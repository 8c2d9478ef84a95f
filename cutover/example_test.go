package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/cutover"
)

const (
	exampleTG       = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	exampleListener = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2"
)

// The least-privilege policy of a blue/green cutover: it may create, change
// and (for rollback) delete only the target group it names, and touch only
// the listener it shifts.
func ExamplePolicyFor() {
	p, err := cutover.PolicyFor(cutover.PolicyInput{
		TargetGroupARN:       exampleTG,
		ListenerARNs:         []string{exampleListener},
		NewTargetGroupName:   "legacy-web-pods",
		DeleteNewTargetGroup: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range p.Statement {
		fmt.Println(st.Sid, st.Action)
	}
	newTG := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web-pods/1111222233334444"
	fmt.Println("delete new TG:", p.Allows("elasticloadbalancing:DeleteTargetGroup", newTG))
	fmt.Println("delete legacy TG:", p.Allows("elasticloadbalancing:DeleteTargetGroup", exampleTG))
	// Output:
	// ReadELBv2 [elasticloadbalancing:Describe*]
	// TargetWrites [elasticloadbalancing:DeregisterTargets elasticloadbalancing:RegisterTargets]
	// TargetGroupWrites [elasticloadbalancing:AddTags elasticloadbalancing:ModifyTargetGroup elasticloadbalancing:ModifyTargetGroupAttributes]
	// TargetGroupCreate [elasticloadbalancing:CreateTargetGroup]
	// ListenerWrites [elasticloadbalancing:ModifyListener]
	// TargetGroupCleanup [elasticloadbalancing:DeleteTargetGroup]
	// delete new TG: true
	// delete legacy TG: false
}

// A cutover saves its state after each step; after a crash, a new process
// loads it and goes on. A process that kept an old copy cannot overwrite it.
func ExampleFileJournal() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "tgmigrate-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "plan-1.journal.json")
	plan := cutover.PlanRef{ID: "plan-1", Digest: "sha256:0f1e2d3c"}
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

	j, _ := cutover.NewFileJournal(path, cutover.FileJournalOptions{Clock: clk})
	if _, err := j.Load(ctx, plan); cutover.IsNoJournal(err) {
		fmt.Println("no journal: start afresh")
	}
	s := cutover.NewState(plan, "in-place", "bind", "deregister")
	_ = s.SetStep("bind", cutover.StepDone, clk.Now(), nil)
	_ = j.Save(ctx, s)
	s.RecordBatch(cutover.TargetAddr{IP: "10.0.1.17", Port: 31080})
	_ = j.Save(ctx, s)

	// After a crash.
	resumed, _ := cutover.NewFileJournal(path, cutover.FileJournalOptions{Clock: clk})
	got, err := resumed.Load(ctx, plan)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("revision %d, bind %s, %d batch done\n", got.Revision, got.Step("bind").Status, got.Deregistration.BatchesDone)
	_ = resumed.Save(ctx, got)

	// The crashed process's journal is stale now.
	err = j.Save(ctx, s)
	fmt.Println("stale save is a conflict:", cutover.IsConflict(err))
	// Output:
	// no journal: start afresh
	// revision 2, bind done, 1 batch done
	// stale save is a conflict: true
}

// Two operators on one target group: the second is refused until the
// first's lease expires, then takes it over; the first learns it lost it.
func ExampleLeaseLock() {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	opts := cutover.LeaseLockOptions{Namespace: "web", TargetGroupARN: exampleTG, Clock: clk}

	opts.Holder = "operator-a"
	a, _ := cutover.NewLeaseLock(c, opts)
	opts.Holder = "operator-b"
	b, _ := cutover.NewLeaseLock(c, opts)

	fmt.Println("a acquires:", a.Acquire(ctx))
	var locked *cutover.LockedError
	if err := b.Acquire(ctx); errors.As(err, &locked) {
		fmt.Println("b is refused: held by", locked.Holder, "until", locked.Expires.Format(time.TimeOnly))
	}
	clk.SetTime(clk.Now().Add(2 * time.Minute)) // a stopped renewing
	fmt.Println("b takes over:", b.Acquire(ctx))
	var lost *cutover.LostLockError
	if err := a.Renew(ctx); errors.As(err, &lost) {
		fmt.Println("a lost it to", lost.Current)
	}
	fmt.Println("b releases:", b.Release(ctx))
	// Output:
	// a acquires: <nil>
	// b is refused: held by operator-a until 00:01:00
	// b takes over: <nil>
	// a lost it to operator-b
	// b releases: <nil>
}

// The journal in the TargetGroupBinding's namespace, resumed by a new
// process and refused to a different plan.
func ExampleConfigMapJournal() {
	ctx := context.Background()
	c := fake.NewClientBuilder().Build()
	opts := cutover.ConfigMapJournalOptions{Namespace: "web", TargetGroupARN: exampleTG}
	plan := cutover.PlanRef{ID: "plan-1", Digest: "sha256:0f1e2d3c"}

	j, _ := cutover.NewConfigMapJournal(c, opts)
	fmt.Println("configmap:", j.Key().Name)
	_ = j.Save(ctx, cutover.NewState(plan, "in-place", "bind"))

	resumed, _ := cutover.NewConfigMapJournal(c, opts)
	s, err := resumed.Load(ctx, plan)
	fmt.Println("resumed revision:", s.Revision, err)

	_, err = resumed.Load(ctx, cutover.PlanRef{ID: "plan-1", Digest: "sha256:changed"})
	fmt.Println("other digest refused:", cutover.IsPlanMismatch(err))
	// Output:
	// configmap: tgmigrate-journal-legacy-web-d2cc95b38d
	// resumed revision: 1 <nil>
	// other digest refused: true
}
