package elbv2sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// TestWaitAndWithoutLatency: a facade in front of the client (the wire
// endpoint) spends the latency in its caller's goroutine with Wait and
// calls the client under WithoutLatency, which then does not wait: the
// virtual time spent is the same as a direct call's.
func TestWaitAndWithoutLatency(t *testing.T) {
	w := newWorld(t)
	c := newClient(t, w, elbv2sim.Options{Latency: 200 * time.Millisecond, OpLatency: map[string]time.Duration{elbv2sim.OpRegisterTargets: 2 * time.Second}})
	ctx := t.Context()
	start := w.clock.Now()
	if err := c.Wait(ctx, elbv2sim.OpRegisterTargets); err != nil {
		t.Fatal(err)
	}
	if got := w.clock.Since(start); got != 2*time.Second {
		t.Errorf("Wait(RegisterTargets) spent %v, want its 2s", got)
	}
	if _, err := c.RegisterTargets(elbv2sim.WithoutLatency(ctx), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: targets(1)}); err != nil {
		t.Fatal(err)
	}
	if got := w.clock.Since(start); got != 2*time.Second {
		t.Errorf("a call under WithoutLatency moved the clock to %v", got)
	}
	if at := c.Calls()[0].At; !at.Equal(start.Add(2 * time.Second)) {
		t.Errorf("the call reached the service at %v, want after the latency Wait spent", at)
	}
	// A call from a world event under WithoutLatency is allowed: it does
	// not wait on the clock.
	var eventErr error
	w.clock.AfterEvent(time.Second, "facade in front", func(time.Time) {
		_, eventErr = c.DescribeTargetHealth(elbv2sim.WithoutLatency(ctx), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
	})
	w.clock.Advance(2 * time.Second)
	if eventErr != nil {
		t.Error(eventErr)
	}

	cctx, cancel := context.WithCancelCause(ctx)
	cause := errors.New("operator abort")
	cancel(cause)
	before := w.clock.Now()
	if err := c.Wait(cctx, elbv2sim.OpDescribeTargetHealth); !errors.Is(err, cause) || !w.clock.Now().Equal(before) {
		t.Errorf("Wait on a cancelled context: %v, clock moved %v", err, w.clock.Since(before))
	}
	noLatency := newClient(t, w, elbv2sim.Options{})
	if err := noLatency.Wait(ctx, elbv2sim.OpDescribeTargetHealth); err != nil || !w.clock.Now().Equal(before) {
		t.Errorf("Wait without latency: %v, clock moved %v", err, w.clock.Since(before))
	}
}
