package cutover_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// expiringWorld is a world whose first node's NodeClaim expires 140 s
// after the lead-in ends, the next one interval later (karpenter's expiry
// shape), under the envelope's longest deregistration lag (120 s, the
// plan's default) and a NodePool terminationGracePeriod of 30 s: an
// expired node is gone 30 s after Karpenter takes it, well within the lag.
func expiringWorld(t *testing.T) (*scenario, time.Time) {
	t.Helper()
	const interval = 6 * time.Minute
	cfg := smallWorld(191)
	cfg.ChurnShape, cfg.ChurnInterval = karpenter.ShapeExpiry, interval
	cfg.NodePool.TerminationGracePeriod = 30 * time.Second
	cfg.Timings = timing.Timings{DeregistrationLag: 120 * time.Second}
	s := newScenario(t, cfg)
	first := s.w.Start().Add(interval)
	s.w.RunUntil(first.Add(-140 * time.Second))
	return s, first
}

// tgState is the target group's targets and the cluster's cutover objects,
// to compare before and after a refused Execute.
func (s *scenario) tgState() string {
	s.t.Helper()
	var b strings.Builder
	out, err := s.w.Model().DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(s.w.Legacy().TargetGroupARN)})
	if err != nil {
		s.t.Fatal(err)
	}
	var ts []string
	for _, d := range out.TargetHealthDescriptions {
		ts = append(ts, aws.ToString(d.Target.Id)+":"+string(d.TargetHealth.State))
	}
	slices.Sort(ts)
	b.WriteString("targets " + strings.Join(ts, " ") + "\n")
	var cms corev1.ConfigMapList
	var leases coordinationv1.LeaseList
	var tgbs v1beta1.TargetGroupBindingList
	var nodes corev1.NodeList
	if err := s.w.Client().List(s.t.Context(), &cms); err != nil {
		s.t.Fatal(err)
	}
	for _, cm := range cms.Items {
		b.WriteString("configmap " + cm.Namespace + "/" + cm.Name + "\n")
	}
	if err := s.w.Client().List(s.t.Context(), &leases); err != nil {
		s.t.Fatal(err)
	}
	for _, l := range leases.Items {
		b.WriteString("lease " + l.Namespace + "/" + l.Name + "\n")
	}
	if err := s.w.Client().List(s.t.Context(), &tgbs); err != nil {
		s.t.Fatal(err)
	}
	for _, x := range tgbs.Items {
		b.WriteString("binding " + x.Namespace + "/" + x.Name + "\n")
	}
	if err := s.w.Client().List(s.t.Context(), &nodes); err != nil {
		s.t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if v, ok := n.Annotations[cutover.AnnotationDisruptionHold]; ok {
			b.WriteString("held " + n.Name + " " + v + "\n")
		}
	}
	return b.String()
}

// failedSince counts the requests sent from t that failed.
func (s *scenario) failedSince(t time.Time) int {
	n := 0
	for _, f := range s.w.FailedRequests() {
		if !f.At.Before(t) {
			n++
		}
	}
	return n
}

// TestForcefulDisruption: a node of the target group's node targets
// expires during the run, which the hold cannot stop. The plan made at
// the product's defaults names it in a forceful-disruption precondition,
// with when, and leaves it out of the floor. Execute without an answer
// refuses before any change (the world listed before and after). Accepted
// as a risk, the cutover completes, and the expired node, gone 30 s after
// Karpenter took it (the NodePool's terminationGracePeriod), leaves its
// retired target in the load balancer's rotation for the rest of the
// 120 s lag: requests fail. Replaced first, its target is retired at
// Execute's start, its NodeClaim deleted once the lag has passed, and
// Karpenter replaces it before the cutover starts: no request fails from
// Execute's start, and the journal records when each happened.
func TestForcefulDisruption(t *testing.T) {
	t.Parallel() // worlds of their own

	plan := func(s *scenario) *cutover.Plan {
		return s.plan(func(r *cutover.Request) { r.Assumptions = cutover.Assumptions{} }) // the product's defaults
	}
	t.Run("planned and refused", func(t *testing.T) {
		t.Parallel()
		s, first := expiringWorld(t)
		p := plan(s)
		var pc *cutover.Precondition
		for i := range p.Preconditions {
			if p.Preconditions[i].Kind == cutover.PreconditionForcefulDisruption {
				pc = &p.Preconditions[i]
			}
		}
		if pc == nil || len(pc.Nodes) == 0 {
			t.Fatalf("plan preconditions %+v: want the expiring node", p.Preconditions)
		}
		n := pc.Nodes[0]
		if !n.At.Equal(first) || n.NodeClaim == "" || len(n.Targets) != 1 || n.GoneBy == nil || !n.GoneBy.Equal(first.Add(30*time.Second)) {
			t.Errorf("forceful node %+v: want expiry at %v, its NodeClaim, its target, gone by 30 s later", n, first)
		}
		healthyNodes := len(s.original)
		if p.Floor != healthyNodes-len(pc.Nodes) {
			t.Errorf("floor %d (%s): want the %d healthy node targets less the %d expiring", p.Floor, p.FloorReason, healthyNodes, len(pc.Nodes))
		}
		if !strings.Contains(p.Text(), "Precondition forceful-disruption") || !strings.Contains(p.Step(cutover.StepHoldDisruption).Effect, "WithReplaceFirst") {
			t.Errorf("the plan's text and hold step do not tell of the precondition and its option")
		}
		before := s.tgState()
		_, err := cutover.Execute(t.Context(), s.env, p, simPods)
		var pe *cutover.PreconditionError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), n.Node) || !strings.Contains(err.Error(), "WithReplaceFirst()") {
			t.Fatalf("Execute: %v, want a *PreconditionError naming %s and WithReplaceFirst", err, n.Node)
		}
		if after := s.tgState(); after != before {
			t.Errorf("a refused Execute changed the world:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
	t.Run("accepted as a risk", func(t *testing.T) {
		t.Parallel()
		s, _ := expiringWorld(t)
		p := plan(s)
		start := s.w.Clock().Now()
		res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithAcceptPreconditions(cutover.PreconditionForcefulDisruption))
		if err != nil || !res.Completed || len(res.Replaced) != 0 {
			t.Fatalf("Execute: %+v, %v", res, err)
		}
		if failed := s.failedSince(start); failed == 0 {
			t.Errorf("no request failed from Execute's start: the expired node's target should have taken requests after its node went")
		} else {
			t.Logf("accepted as a risk: %d requests failed from Execute's start", failed)
		}
	})
	t.Run("replaced first", func(t *testing.T) {
		t.Parallel()
		s, first := expiringWorld(t)
		p := plan(s)
		start := s.w.Clock().Now()
		res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithReplaceFirst())
		if err != nil || !res.Completed {
			t.Fatalf("Execute: %+v, %v", res, err)
		}
		if failed := s.failedSince(start); failed != 0 {
			t.Errorf("%d requests failed from Execute's start, want 0", failed)
		}
		st := s.journal(p)
		if len(st.Replacements) == 0 || !slices.Equal(res.Replaced, []string{st.Replacements[0].Node}) {
			t.Fatalf("replaced %v, journal %+v", res.Replaced, st.Replacements)
		}
		rp := st.Replacements[0]
		if lag := p.Request.Assumptions.Lag(); rp.DeletedAt.Before(rp.RetiredAt.Add(lag)) || rp.RetiredAt.Sub(start) > 2*time.Second || !rp.DeletedAt.Before(first) {
			t.Errorf("replacement %+v: want its target retired at Execute's start, its NodeClaim deleted the lag (%v) later, before its expiry at %v", rp, lag, first)
		}
		var gone bool
		for _, d := range s.w.Karpenter().Disruptions() {
			if d.Node == rp.Node {
				gone = d.Reason == karpenter.ReasonDeleted && !d.TerminatedAt.IsZero()
			}
		}
		if !gone {
			t.Errorf("node %s was not replaced by its NodeClaim's deletion: %+v", rp.Node, s.w.Karpenter().Disruptions())
		}
		if res.SettleSeconds < p.Request.Assumptions.Lag().Seconds() || res.RatioWhole <= 0 {
			t.Errorf("settle %.0f s, whole ratio %.2f: want the replacement inside the settle", res.SettleSeconds, res.RatioWhole)
		}
	})
}

// TestReplaceFirstWithoutHold: a plan without the hold step
// (Request.NoDisruptionHold) has nowhere to replace nodes first: Execute
// refuses WithReplaceFirst with an *InputError naming it, before any
// change (the world listed before and after).
func TestReplaceFirstWithoutHold(t *testing.T) {
	t.Parallel() // a world of its own
	s, _ := expiringWorld(t)
	p := s.plan(func(r *cutover.Request) { r.Assumptions, r.NoDisruptionHold = cutover.Assumptions{}, true })
	before := s.tgState()
	_, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithReplaceFirst())
	var ie *cutover.InputError
	if !errors.As(err, &ie) || ie.Field != "WithReplaceFirst" {
		t.Fatalf("Execute: %v, want an *InputError on WithReplaceFirst", err)
	}
	if after := s.tgState(); after != before {
		t.Errorf("a refused Execute changed the world:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
