package lbc

// api.go: ELBv2API, the ELBv2 calls the controller makes.

import (
	"context"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

// ELBv2API is the part of the ELBv2 API the controller stand-in calls, with
// the SDK's own signatures. In the simulation it is an elbv2sim client of
// its own, with no latency (the controller runs inside world events, which
// must not wait), so its calls are counted apart from the system under
// test's. Tests mock it with the project's one ELBv2 mock,
// internal/mocks.MockELBv2API: a mock of tgmigrate.ELBv2API, whose method
// set holds these four.
type ELBv2API interface {
	// DescribeTargetGroups is the SDK call behind IAM action elasticloadbalancing:DescribeTargetGroups.
	DescribeTargetGroups(ctx context.Context, params *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
	// DescribeTargetHealth is the SDK call behind IAM action elasticloadbalancing:DescribeTargetHealth.
	DescribeTargetHealth(ctx context.Context, params *elbv2.DescribeTargetHealthInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	// RegisterTargets is the SDK call behind IAM action elasticloadbalancing:RegisterTargets.
	RegisterTargets(ctx context.Context, params *elbv2.RegisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error)
	// DeregisterTargets is the SDK call behind IAM action elasticloadbalancing:DeregisterTargets.
	DeregisterTargets(ctx context.Context, params *elbv2.DeregisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error)
}

var _ ELBv2API = (*elbv2.Client)(nil)
