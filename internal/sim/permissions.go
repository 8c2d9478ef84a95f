package sim

// permissions.go: the controller's IAM role: the ELBv2 actions
// DenyController refuses (DenyControllerOn on one target group) and
// AllowController grants again, and the AccessDenied error IAM refuses an
// action with.

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/lbc"
)

// controllerRole is the controller's ELBv2 client behind its IAM role: an
// action the world denies ([World.DenyController]) is refused with
// AccessDenied, as IAM refuses it, and has no effect. It sits in front of
// the controller's endpoint with Config.Wire, so its real SDK client
// decodes the refusal.
type controllerRole struct {
	lbc.ELBv2API
	mu     sync.Mutex
	denied map[string]bool
	// deniedOn are the actions denied on one target group, by action and
	// target group ARN (DenyControllerOn).
	deniedOn map[string]map[string]bool
}

func (r *controllerRole) check(op string, resource *string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.denied[op] && !r.deniedOn[op][aws.ToString(resource)] {
		return nil
	}
	return AccessDenied("aws-load-balancer-controller/controller", op, aws.ToString(resource))
}

// AccessDenied is the error IAM refuses an ELBv2 action op on resource
// with, for the assumed role ("ROLE/SESSION") of the world's account: the
// code AccessDenied and IAM's message. The controller's denied actions
// ([World.DenyController]) fail with it, and so does a fault a test injects
// into the system under test's client.
func AccessDenied(role, op, resource string) error {
	return &smithy.GenericAPIError{Code: "AccessDenied", Fault: smithy.FaultClient,
		Message: fmt.Sprintf("User: arn:aws:sts::%s:assumed-role/%s is not authorized to perform: elasticloadbalancing:%s on resource: %s because no identity-based policy allows the elasticloadbalancing:%s action",
			DefaultAccountID, role, op, resource, op)}
}

// DescribeTargetGroups implements lbc.ELBv2API.
func (r *controllerRole) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	if err := r.check("DescribeTargetGroups", aws.String("*")); err != nil {
		return nil, err
	}
	return r.ELBv2API.DescribeTargetGroups(ctx, in, o...)
}

// DescribeTargetHealth implements lbc.ELBv2API.
func (r *controllerRole) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	if err := r.check("DescribeTargetHealth", aws.String("*")); err != nil {
		return nil, err
	}
	return r.ELBv2API.DescribeTargetHealth(ctx, in, o...)
}

// RegisterTargets implements lbc.ELBv2API.
func (r *controllerRole) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	var arn *string
	if in != nil {
		arn = in.TargetGroupArn
	}
	if err := r.check("RegisterTargets", arn); err != nil {
		return nil, err
	}
	return r.ELBv2API.RegisterTargets(ctx, in, o...)
}

// DeregisterTargets implements lbc.ELBv2API.
func (r *controllerRole) DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	var arn *string
	if in != nil {
		arn = in.TargetGroupArn
	}
	if err := r.check("DeregisterTargets", arn); err != nil {
		return nil, err
	}
	return r.ELBv2API.DeregisterTargets(ctx, in, o...)
}

// DenyController takes an ELBv2 action (one of the controller's:
// DescribeTargetGroups, DescribeTargetHealth, RegisterTargets,
// DeregisterTargets) from the controller's IAM role: its calls are
// refused with AccessDenied until [World.AllowController]. Its EC2 faults
// are [World.LBCEC2]'s.
func (w *World) DenyController(op string) error {
	switch op {
	case "DescribeTargetGroups", "DescribeTargetHealth", "RegisterTargets", "DeregisterTargets":
	default:
		return &ConfigError{Field: "DenyController", Reason: fmt.Sprintf("%q is not an ELBv2 action the controller calls", op)}
	}
	w.role.mu.Lock()
	defer w.role.mu.Unlock()
	w.role.denied[op] = true
	return nil
}

// DenyControllerOn takes an ELBv2 action from the controller's IAM role on
// one target group only, as a policy scoped down by resource does:
// RegisterTargets or DeregisterTargets (the controller's actions IAM
// authorizes per target group; its Describe* calls take no resource) on
// tgARN is refused with AccessDenied until [World.AllowController], while
// the same action on any other target group goes through. A binding of
// tgARN then never gets its pod targets (RegisterTargets), or never lets
// go of the ones it no longer wants (DeregisterTargets). tgARN must be one
// of the world's target groups.
func (w *World) DenyControllerOn(op, tgARN string) error {
	switch op {
	case "RegisterTargets", "DeregisterTargets":
	default:
		return &ConfigError{Field: "DenyControllerOn", Reason: fmt.Sprintf("%q is not an ELBv2 action IAM scopes to a target group (RegisterTargets, DeregisterTargets)", op)}
	}
	known := false
	for _, arn := range w.TargetGroupARNs() {
		known = known || arn == tgARN
	}
	if !known {
		return &ConfigError{Field: "DenyControllerOn", Reason: fmt.Sprintf("%q is not a target group of the world", tgARN)}
	}
	w.role.mu.Lock()
	defer w.role.mu.Unlock()
	if w.role.deniedOn == nil {
		w.role.deniedOn = map[string]map[string]bool{}
	}
	if w.role.deniedOn[op] == nil {
		w.role.deniedOn[op] = map[string]bool{}
	}
	w.role.deniedOn[op][tgARN] = true
	return nil
}

// AllowController gives an action denied by [World.DenyController] or
// [World.DenyControllerOn] back, on every target group.
func (w *World) AllowController(op string) {
	w.role.mu.Lock()
	defer w.role.mu.Unlock()
	delete(w.role.denied, op)
	delete(w.role.deniedOn, op)
}
