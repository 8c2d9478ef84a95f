package diagnose_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
)

// TestWrongRegion: an ARN of a configured account in another Region is
// ErrWrongRegion (category wrong-region), one of an unknown account
// ErrWrongAccount alone.
func TestWrongRegion(t *testing.T) {
	elb := robustFleet("alpha")
	// The listing also returns a target group whose ARN names another Region.
	stray := strings.Replace(robustARN("stray"), robustRegion, "us-east-1", 1)
	elb.addTargetGroup(elbv2types.TargetGroup{TargetGroupArn: aws.String(stray), TargetGroupName: aws.String("stray"),
		TargetType: elbv2types.TargetTypeEnumIp, VpcId: aws.String(robustVPC)}, nil, nil)
	elb.index()
	otherRegion := strings.Replace(robustARN("alpha"), robustRegion, "us-east-1", 1)
	otherAccount := strings.Replace(robustARN("alpha"), robustAccount, "999999999999", 1)
	otherRegionLB := strings.Replace(robustALB, robustRegion, "eu-central-1", 1)

	rep, err := diagnose.Diagnose(t.Context(), robustSources(t, elb), diagnose.Scope{
		All: true, TargetGroupARNs: arntest.TGs(otherRegion, otherAccount), LoadBalancerARNs: arntest.LBs(otherRegionLB),
	}, robustOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		resource, kind, category string
		part                     tgmigrate.ARNPart
	}{
		{otherRegion, diagnose.KindTargetGroup, "wrong-region", tgmigrate.ARNPartRegion},
		{otherRegionLB, diagnose.KindLoadBalancer, "wrong-region", tgmigrate.ARNPartRegion},
		{stray, diagnose.KindTargetGroup, "wrong-region", tgmigrate.ARNPartRegion},
		{otherAccount, diagnose.KindTargetGroup, "wrong-account", tgmigrate.ARNPartAccount},
	}
	for _, tt := range tests {
		e := errorFor(rep, tt.resource)
		if e == nil {
			t.Errorf("no error for %s in %+v", tt.resource, rep.Errors)
			continue
		}
		var ae *tgmigrate.ARNError
		region := tt.category == "wrong-region"
		switch {
		case e.Kind != tt.kind || e.Category != tt.category:
			t.Errorf("%s: kind %s, category %s; want %s, %s", tt.resource, e.Kind, e.Category, tt.kind, tt.category)
		case errors.Is(e, tgmigrate.ErrWrongRegion) != region || !errors.Is(e, tgmigrate.ErrWrongAccount):
			t.Errorf("%s: %v; ErrWrongRegion %v, want %v (and ErrWrongAccount)", tt.resource, e, errors.Is(e, tgmigrate.ErrWrongRegion), region)
		case !errors.As(e, &ae) || ae.Part != tt.part:
			t.Errorf("%s: %v; want an ARNError on the %s", tt.resource, e, tt.part)
		}
	}
	if len(rep.TargetGroups) != 1 || rep.TargetGroups[0].Error != nil {
		t.Errorf("target groups = %+v, want alpha alone, scanned", rep.TargetGroups)
	}
}

// hookELBv2 is the in-memory fake with a hook run before each
// DescribeTargetHealth.
type hookELBv2 struct {
	*fakeELBv2
	beforeHealth func(ctx context.Context) error
}

func (h *hookELBv2) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	if err := h.beforeHealth(ctx); err != nil {
		return nil, err
	}
	return h.fakeELBv2.DescribeTargetHealth(ctx, in, o...)
}

// stopError is a typed cancellation cause.
type stopError struct{ who string }

func (e *stopError) Error() string { return e.who + " stopped the scan" }

// TestCancelCause: a context ended with a cause gives an error that is
// both the context's (context.Canceled or DeadlineExceeded, which the
// category reads) and the caller's cause, on Diagnose's result and on
// each target group it left unread.
func TestCancelCause(t *testing.T) {
	plain := errors.New("operator pressed ctrl-c")
	typed := &stopError{who: "the operator"}
	tests := []struct {
		name string
		// ctx returns the context and stop, which the first
		// DescribeTargetHealth calls to end it.
		ctx      func(context.Context) (context.Context, func())
		cause    error
		ctxErr   error
		category string
	}{
		{
			name: "cancelled with a cause",
			ctx: func(parent context.Context) (context.Context, func()) {
				ctx, cancel := context.WithCancelCause(parent)
				return ctx, func() { cancel(plain) }
			},
			cause: plain, ctxErr: context.Canceled, category: "cancelled",
		},
		{
			name: "cancelled with a typed cause",
			ctx: func(parent context.Context) (context.Context, func()) {
				ctx, cancel := context.WithCancelCause(parent)
				return ctx, func() { cancel(typed) }
			},
			cause: typed, ctxErr: context.Canceled, category: "cancelled",
		},
		{
			name: "deadline with a cause",
			ctx: func(parent context.Context) (context.Context, func()) {
				// Long enough for discovery; the first DescribeTargetHealth
				// then outlives it.
				ctx, cancel := context.WithTimeoutCause(parent, 250*time.Millisecond, plain)
				t.Cleanup(cancel)
				return ctx, func() { <-ctx.Done() }
			},
			cause: plain, ctxErr: context.DeadlineExceeded, category: "deadline-exceeded",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, stop := tt.ctx(t.Context())
			elb := &hookELBv2{fakeELBv2: robustFleet("alpha", "beta", "gamma"), beforeHealth: func(ctx context.Context) error {
				stop()
				return ctx.Err() // as the SDK does: the context's error, without its cause
			}}
			rep, err := diagnose.Diagnose(ctx, robustSources(t, elb), diagnose.Scope{All: true}, robustOptions(diagnose.WithConcurrency(1))...)
			check := func(what string, err error) {
				t.Helper()
				var se *stopError
				typedOK := tt.cause != typed || errors.As(err, &se) && se == typed
				if !errors.Is(err, tt.ctxErr) || !errors.Is(err, tt.cause) || !typedOK {
					t.Errorf("%s = %v; want both %v and the cause %v", what, err, tt.ctxErr, tt.cause)
				}
			}
			check("Diagnose()", err)
			if rep == nil || len(rep.TargetGroups) != 3 {
				t.Fatalf("report = %+v, want the three target groups", rep)
			}
			for _, tg := range rep.TargetGroups {
				if tg.Error == nil {
					t.Errorf("%s: no error, want it cancelled", tg.Name)
					continue
				}
				check(tg.Name+".Error", tg.Error)
				if tg.Error.Category != tt.category {
					t.Errorf("%s: category %s, want %s", tg.Name, tg.Error.Category, tt.category)
				}
			}
			if n := elb.Calls()["DescribeTargetHealth"]; n != 0 {
				t.Errorf("the fake answered %d DescribeTargetHealth, want none", n)
			}
		})
	}
}
