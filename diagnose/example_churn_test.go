package diagnose_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// Diagnose on the test kit's world, under Karpenter's churn: after ten
// minutes of spot interruptions, the hand-made target group still holds
// the addresses of replaced nodes (GhostTarget). The report names each
// finding's next call and reads only: the world counts no write. No fake
// or clock of the caller's own.
func ExampleDiagnose_underChurn() {
	ctx := context.Background()
	spot := tgmigratetest.Churn{Shape: tgmigratetest.ChurnSpot, Interval: 90 * time.Second}
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8, Churn: spot})
	w.Run(10 * time.Minute) // EC2 interrupts nodes; their targets stay behind
	account := diagnose.Account{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}
	scope := diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{w.Legacy().TargetGroupARN}}
	src := diagnose.Sources{Accounts: []diagnose.Account{account}, Clusters: []diagnose.Cluster{w.Cluster()}}
	rep, err := diagnose.Diagnose(ctx, src, scope, diagnose.WithClock(w.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.AllFindings() {
		fmt.Println(f.Code, "->", f.Next.Op)
	}
	fmt.Println("ghost targets in the world:", w.Ghosts() > 0)
	fmt.Println("writes:", w.Calls()["DeregisterTargets"]+w.Calls()["RegisterTargets"]+w.Calls()["ModifyTargetGroup"])
	// Output:
	// GhostTarget -> cutover.PlanCutover
	// HealthCheckMismatch -> cutover.PlanCutover
	// MissingReadinessGate -> label-namespace
	// UnmanagedTargetGroup -> tgbind.Build
	// ghost targets in the world: true
	// writes: 0
}
