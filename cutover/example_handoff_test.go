package cutover_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// Diagnose names the next call of each finding; when that is PlanCutover
// with nothing missing, the call carries its argument as one typed value,
// the handoff. RequestFrom turns it into the Request, and PlanCutover
// checks the live target group against what diagnose saw before it reads
// and plans as ever. A handoff the target group no longer matches (here,
// another VPC) is refused before anything else is read.
func ExampleRequestFrom() {
	ctx := context.Background()
	w, _ := tgmigratetest.NewWorld(ctx, tgmigratetest.Options{Seed: 1, Nodes: 4, Pods: 8})
	l := w.Legacy()
	rep, err := diagnose.Diagnose(ctx, diagnose.Sources{
		Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}},
		Clusters: []diagnose.Cluster{w.Cluster()},
	}, diagnose.Scope{TargetGroupARNs: []tgmigrate.ARN{l.TargetGroupARN}}, diagnose.WithClock(w.Clock()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.AllFindings() {
		h := f.Next.Handoff
		if h == nil {
			continue
		}
		fmt.Println(f.Code, "->", f.Next.Op)
		fmt.Printf("handoff: %s target group, %s of Service %s/%s port %s; %d node targets at %s\n",
			h.TargetType, h.Strategy, h.Service.Namespace, h.Service.Name, h.Service.Port.String(), h.Observed.Nodes, h.Observed.At.Format("15:04:05"))

		req, err := cutover.RequestFrom(*h)
		if err != nil {
			fmt.Println(err)
			return
		}
		req.Assumptions = w.Assumptions()
		env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID()}
		p, err := cutover.PlanCutover(ctx, env, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("plan:", p.Strategy, len(p.Recorded), "node targets recorded, floor", p.Floor)

		stale := *h
		stale.VPCID = "vpc-0123abcd"
		req, _ = cutover.RequestFrom(stale)
		_, err = cutover.PlanCutover(ctx, env, req)
		var ie *cutover.InputError
		fmt.Println("stale:", errors.As(err, &ie) && errors.Is(err, cutover.ErrStaleHandoff), ie.Field)
		break
	}
	// Output:
	// KarpenterDisruptionRisk -> cutover.PlanCutover
	// handoff: ip target group, in-place of Service shop/web port http; 4 node targets at 00:00:10
	// plan: in-place 4 node targets recorded, floor 4
	// stale: true From.VPCID
}
