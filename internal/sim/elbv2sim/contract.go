package elbv2sim

// contract.go: gomock matchers of the call contract: EveryTargetHasPort,
// AtMostTargets, InTargetGroup.

import (
	"fmt"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"go.uber.org/mock/gomock"
)

// Call-contract matchers for go.uber.org/mock expectations on an ELBv2
// interface whose mock delegates to a Client through DoAndReturn, e.g.
//
//	m.EXPECT().DeregisterTargets(gomock.Any(), gomock.All(elbv2sim.EveryTargetHasPort(), elbv2sim.AtMostTargets(200))).
//		DoAndReturn(sim.DeregisterTargets).AnyTimes()
//
// A call that breaks the contract then matches no expectation and fails
// the test, naming the matcher.

// targetsOf returns the targets of a RegisterTargets, DeregisterTargets or
// DescribeTargetHealth input, and false for anything else.
func targetsOf(x any) ([]types.TargetDescription, bool) {
	switch in := x.(type) {
	case *elbv2.RegisterTargetsInput:
		if in == nil {
			return nil, false
		}
		return in.Targets, true
	case *elbv2.DeregisterTargetsInput:
		if in == nil {
			return nil, false
		}
		return in.Targets, true
	case *elbv2.DescribeTargetHealthInput:
		if in == nil {
			return nil, false
		}
		return in.Targets, true
	}
	return nil, false
}

type everyTargetHasPort struct{}

// EveryTargetHasPort matches a RegisterTargets, DeregisterTargets or
// DescribeTargetHealth input in which every target names its Port. Without
// the Port, DeregisterTargets silently skips a target registered on a
// port-override.
func EveryTargetHasPort() gomock.Matcher { return everyTargetHasPort{} }

func (everyTargetHasPort) Matches(x any) bool {
	targets, ok := targetsOf(x)
	if !ok {
		return false
	}
	for _, t := range targets {
		if t.Port == nil {
			return false
		}
	}
	return true
}

func (everyTargetHasPort) String() string { return "every target carries a Port" }

type atMostTargets int

// AtMostTargets matches a RegisterTargets, DeregisterTargets or
// DescribeTargetHealth input with at most n targets (the LBC's batches are
// 200).
func AtMostTargets(n int) gomock.Matcher { return atMostTargets(n) }

func (n atMostTargets) Matches(x any) bool {
	targets, ok := targetsOf(x)
	return ok && len(targets) <= int(n)
}

func (n atMostTargets) String() string { return fmt.Sprintf("a batch of at most %d targets", int(n)) }

type inTargetGroup string

// InTargetGroup matches an input whose TargetGroupArn is arn.
func InTargetGroup(arn string) gomock.Matcher { return inTargetGroup(arn) }

func (a inTargetGroup) Matches(x any) bool {
	var p *string
	switch in := x.(type) {
	case *elbv2.RegisterTargetsInput:
		if in != nil {
			p = in.TargetGroupArn
		}
	case *elbv2.DeregisterTargetsInput:
		if in != nil {
			p = in.TargetGroupArn
		}
	case *elbv2.DescribeTargetHealthInput:
		if in != nil {
			p = in.TargetGroupArn
		}
	case *elbv2.ModifyTargetGroupInput:
		if in != nil {
			p = in.TargetGroupArn
		}
	case *elbv2.ModifyTargetGroupAttributesInput:
		if in != nil {
			p = in.TargetGroupArn
		}
	case *elbv2.DescribeTargetGroupAttributesInput:
		if in != nil {
			p = in.TargetGroupArn
		}
	}
	return p != nil && *p == string(a)
}

func (a inTargetGroup) String() string { return "target group " + string(a) }
