package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
)

// TestFailedRequests: the world keeps every failed request, and each one
// is attributed to its target, the target to the node that held its
// address at registration, and the node to its disruption. In the seed's
// outage every failure is a request to a ghost: the registration of a node
// Karpenter had terminated before the request was sent.
func TestFailedRequests(t *testing.T) {
	w := newWorld(t, sim.Config{Seed: 2, Nodes: 5, Pods: 10, ChurnInterval: 90 * time.Second}, nil)
	w.Run(8 * time.Minute)
	failed := w.FailedRequests()
	if st := w.Traffic(); len(failed) != st.Failed || st.Failed == 0 {
		t.Fatalf("%d failed requests kept, %d counted: want all of them, some", len(failed), st.Failed)
	}
	terminated := map[string]karpenter.Disruption{}
	for _, d := range w.Karpenter().Disruptions() {
		terminated[d.Node] = d
	}
	tg := w.Legacy().TargetGroupARN
	for i, r := range failed {
		if i > 0 && r.At.Before(failed[i-1].At) {
			t.Fatalf("failure %d at %v before the one before it", i, r.At)
		}
		if r.TargetGroupARN != tg || r.Outcome != traffic.TargetTimeout || r.Status != 504 {
			t.Fatalf("failure %d: %+v, want a 504 from a legacy target", i, r)
		}
		span, ok := w.TargetSpanAt(r.TargetGroupARN, r.Target.ID, r.Target.Port, r.At)
		if !ok {
			t.Fatalf("failure %d: no registration of %s:%d at %v", i, r.Target.IP, r.Target.Port, r.At)
		}
		node := strings.TrimPrefix(span.Registered, "node/")
		d, gone := terminated[node]
		if !gone || d.TerminatedAt.IsZero() || d.TerminatedAt.After(r.At) {
			t.Fatalf("failure %d at %v to %s: its disruption %+v, want a node terminated before it", i, r.At, span.Registered, d)
		}
	}
	if spans := w.TargetSpans(tg); len(spans) != 5 {
		t.Errorf("%d registrations in the legacy target group, want the 5 initial nodes' (nobody maintains it)", len(spans))
	}
}

// TestTargetSpans: a deregistration is recorded at the transition to
// draining, the removal when the deregistration delay ends, and a new
// registration of the same target starts a new span.
func TestTargetSpans(t *testing.T) {
	delay := time.Minute
	w := newWorld(t, sim.Config{Seed: 3, Nodes: 3, Pods: 3, Legacy: sim.LegacyTargetGroup{DeregistrationDelay: &delay}}, nil)
	ctx := t.Context()
	tg := w.Legacy().TargetGroupARN
	spans := w.TargetSpans(tg)
	if len(spans) != 3 {
		t.Fatalf("spans %+v, want the 3 nodes'", spans)
	}
	first := spans[0]
	if !strings.HasPrefix(first.Registered, "node/") || !first.DeregisteredAt.IsZero() || !first.RemovedAt.IsZero() {
		t.Fatalf("span %+v: want a node's, registered, in place", first)
	}
	target := []elbv2types.TargetDescription{{Id: aws.String(first.ID), Port: aws.Int32(first.Port)}}
	if _, err := w.ELBv2().DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: target}); err != nil {
		t.Fatal(err)
	}
	deregistered := w.Clock().Now()
	w.Run(2 * time.Minute)
	if _, err := w.ELBv2().RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: target}); err != nil {
		t.Fatal(err)
	}
	again := w.Clock().Now()
	spans = w.TargetSpans(tg)
	if len(spans) != 4 {
		t.Fatalf("spans %+v, want a fourth for the new registration", spans)
	}
	if s := spans[0]; !s.DeregisteredAt.Equal(deregistered) || !s.RemovedAt.Equal(deregistered.Add(delay)) {
		t.Errorf("span %+v: want deregistered at %v, removed %v later", s, deregistered, delay)
	}
	if s := spans[3]; s.ID != first.ID || s.Port != first.Port || !s.RegisteredAt.Equal(again) || s.Registered != first.Registered {
		t.Errorf("the new span %+v: want %s:%d registered at %v, held by %s", s, first.ID, first.Port, again, first.Registered)
	}
	for _, tc := range []struct {
		at   time.Time
		want time.Time // the span's registration; zero: none
	}{
		{deregistered.Add(30 * time.Second), first.RegisteredAt}, // draining: still in the group
		{deregistered.Add(delay + time.Second), time.Time{}},     // removed, not registered again yet
		{again, again},
	} {
		s, ok := w.TargetSpanAt(tg, first.ID, first.Port, tc.at)
		if ok != !tc.want.IsZero() || (ok && !s.RegisteredAt.Equal(tc.want)) {
			t.Errorf("at %v: %+v, %v; want the registration of %v", tc.at.Sub(w.Start()), s, ok, tc.want)
		}
	}
}
