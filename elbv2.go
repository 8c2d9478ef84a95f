package tgmigrate

// This file declares the ELBv2 interfaces, once, for every package: diagnose
// and tgbind read through [ELBv2ReadAPI], cutover reads and writes through
// [ELBv2API], and the simulator's wire endpoint serves exactly [ELBv2API].
// Each package re-exports them under its own name (diagnose.ELBv2API,
// tgbind.ELBv2API, cutover.ELBv2API and cutover's writer roles are aliases),
// so the same method set is never written twice and a mock of one fits all.
//
// The EC2 interfaces stay with their consumers (diagnose.EC2API,
// cutover.EC2API): each package reads a different, disjoint part of EC2
// (subnets and route tables; network interfaces and security groups), so
// there is no shared method set to declare here, and a narrow interface
// belongs where it is used.
//
// The one mock of these interfaces, a mock of ELBv2API that fits each of
// them, is generated into internal/mocks (its doc.go has the go:generate
// line).

import (
	"context"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

// ELBv2ReadAPI is the read-only part of the ELBv2 API: Describe* operations
// only, so a caller holding an ELBv2ReadAPI cannot change AWS, by
// construction. Diagnose and tgbind take it. Each method has the SDK's own
// signature: *elasticloadbalancingv2.Client satisfies ELBv2ReadAPI as it is,
// and so do the SDK's paginators' client interfaces.
type ELBv2ReadAPI interface {
	// DescribeTargetGroups is the SDK call behind IAM action elasticloadbalancing:DescribeTargetGroups.
	DescribeTargetGroups(ctx context.Context, params *elbv2.DescribeTargetGroupsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
	// DescribeTargetHealth is the SDK call behind IAM action elasticloadbalancing:DescribeTargetHealth.
	DescribeTargetHealth(ctx context.Context, params *elbv2.DescribeTargetHealthInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	// DescribeTargetGroupAttributes is the SDK call behind IAM action elasticloadbalancing:DescribeTargetGroupAttributes.
	DescribeTargetGroupAttributes(ctx context.Context, params *elbv2.DescribeTargetGroupAttributesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error)
	// DescribeTags is the SDK call behind IAM action elasticloadbalancing:DescribeTags.
	DescribeTags(ctx context.Context, params *elbv2.DescribeTagsInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error)
	// DescribeLoadBalancers is the SDK call behind IAM action elasticloadbalancing:DescribeLoadBalancers.
	DescribeLoadBalancers(ctx context.Context, params *elbv2.DescribeLoadBalancersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error)
	// DescribeListeners is the SDK call behind IAM action elasticloadbalancing:DescribeListeners.
	DescribeListeners(ctx context.Context, params *elbv2.DescribeListenersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error)
	// DescribeRules is the SDK call behind IAM action elasticloadbalancing:DescribeRules.
	DescribeRules(ctx context.Context, params *elbv2.DescribeRulesInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error)
}

// TargetWriter registers and deregisters targets.
type TargetWriter interface {
	// RegisterTargets is the SDK call behind IAM action elasticloadbalancing:RegisterTargets.
	RegisterTargets(ctx context.Context, params *elbv2.RegisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error)
	// DeregisterTargets is the SDK call behind IAM action elasticloadbalancing:DeregisterTargets.
	DeregisterTargets(ctx context.Context, params *elbv2.DeregisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error)
}

// TargetGroupWriter creates target groups, changes their health checks,
// attributes and tags, and deletes them (a blue/green rollback deletes the
// target group it created, and only that one).
type TargetGroupWriter interface {
	// CreateTargetGroup is the SDK call behind IAM action elasticloadbalancing:CreateTargetGroup.
	CreateTargetGroup(ctx context.Context, params *elbv2.CreateTargetGroupInput, optFns ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error)
	// DeleteTargetGroup is the SDK call behind IAM action elasticloadbalancing:DeleteTargetGroup.
	DeleteTargetGroup(ctx context.Context, params *elbv2.DeleteTargetGroupInput, optFns ...func(*elbv2.Options)) (*elbv2.DeleteTargetGroupOutput, error)
	// ModifyTargetGroup is the SDK call behind IAM action elasticloadbalancing:ModifyTargetGroup.
	ModifyTargetGroup(ctx context.Context, params *elbv2.ModifyTargetGroupInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error)
	// ModifyTargetGroupAttributes is the SDK call behind IAM action elasticloadbalancing:ModifyTargetGroupAttributes.
	ModifyTargetGroupAttributes(ctx context.Context, params *elbv2.ModifyTargetGroupAttributesInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupAttributesOutput, error)
	// AddTags is the SDK call behind IAM action elasticloadbalancing:AddTags.
	AddTags(ctx context.Context, params *elbv2.AddTagsInput, optFns ...func(*elbv2.Options)) (*elbv2.AddTagsOutput, error)
}

// ListenerWriter replaces the actions of listeners and rules, which is how
// weighted forwarding shifts traffic between target groups.
type ListenerWriter interface {
	// ModifyListener is the SDK call behind IAM action elasticloadbalancing:ModifyListener.
	ModifyListener(ctx context.Context, params *elbv2.ModifyListenerInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error)
	// ModifyRule is the SDK call behind IAM action elasticloadbalancing:ModifyRule.
	ModifyRule(ctx context.Context, params *elbv2.ModifyRuleInput, optFns ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error)
}

// ELBv2API is every ELBv2 operation tgmigrate calls: the read-only
// [ELBv2ReadAPI] and the three writer roles. cutover takes it. Each method
// has the SDK's own signature, so *elasticloadbalancingv2.Client satisfies it
// as it is.
type ELBv2API interface {
	ELBv2ReadAPI
	TargetWriter
	TargetGroupWriter
	ListenerWriter
}

// The real SDK client satisfies every role and their union with no adapter,
// and the read-only interface satisfies the SDK's own paginator client
// interfaces.
var (
	_ ELBv2ReadAPI      = (*elbv2.Client)(nil)
	_ ELBv2API          = (*elbv2.Client)(nil)
	_ TargetWriter      = (*elbv2.Client)(nil)
	_ TargetGroupWriter = (*elbv2.Client)(nil)
	_ ListenerWriter    = (*elbv2.Client)(nil)

	_ elbv2.DescribeTargetGroupsAPIClient  = ELBv2ReadAPI(nil)
	_ elbv2.DescribeTargetHealthAPIClient  = ELBv2ReadAPI(nil)
	_ elbv2.DescribeLoadBalancersAPIClient = ELBv2ReadAPI(nil)
	_ elbv2.DescribeListenersAPIClient     = ELBv2ReadAPI(nil)
	_ elbv2.DescribeRulesAPIClient         = ELBv2ReadAPI(nil)
)
