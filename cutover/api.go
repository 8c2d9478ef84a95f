package cutover

import (
	"context"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/qstools/tgmigrate/diagnose"
)

//go:generate go tool mockgen -typed -destination=mock_api_test.go -package=cutover -self_package=github.com/qstools/tgmigrate/cutover . ELBv2API

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

// ELBv2API is everything cutover calls: the read-only [diagnose.ELBv2API]
// and the three writer roles. Each method has the SDK's own signature, so
// *elasticloadbalancingv2.Client satisfies it as it is.
type ELBv2API interface {
	diagnose.ELBv2API
	TargetWriter
	TargetGroupWriter
	ListenerWriter
}

// The real SDK client satisfies every role and their union with no adapter.
var (
	_ ELBv2API          = (*elbv2.Client)(nil)
	_ TargetWriter      = (*elbv2.Client)(nil)
	_ TargetGroupWriter = (*elbv2.Client)(nil)
	_ ListenerWriter    = (*elbv2.Client)(nil)
)
