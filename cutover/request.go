package cutover

// request.go holds the Request PlanCutover takes, with its Strategy and
// Force values, and its validation; and targetGroupInput, where every
// target group ARN cutover is given is checked.

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/envelope"
)

// Strategy is how a cutover moves the traffic.
type Strategy string

// The strategies. See the package documentation's Strategies section.
const (
	// StrategyAuto lets [PlanCutover] choose: in-place for a target group
	// of type ip, blue-green for one of type instance.
	StrategyAuto Strategy = ""
	// StrategyInPlace hands the target group itself to the LBC, then
	// deregisters the node targets. Only for target groups of type ip.
	StrategyInPlace Strategy = "in-place"
	// StrategyBlueGreen creates an ip target group beside the old one,
	// binds it, and shifts the listeners' weights to it step by step.
	StrategyBlueGreen Strategy = "blue-green"
)

func (s Strategy) valid() bool {
	return s == StrategyAuto || s == StrategyInPlace || s == StrategyBlueGreen
}

// Force names a guard the caller overrides. Guards refuse a target group
// that does not look like the caller's; each override is explicit and
// recorded in the plan.
type Force string

// The overrides, one per guard.
const (
	// ForceForeignOwner touches a target group whose tags say another LBC
	// stack (ingress.k8s.aws/stack, service.k8s.aws/stack) or another
	// cluster (elbv2.k8s.aws/cluster) owns it.
	ForceForeignOwner Force = "foreign-owner"
	// ForceVPCMismatch touches a target group in another VPC than
	// Env.ClusterVPCID.
	ForceVPCMismatch Force = "vpc-mismatch"
	// ForceAccountMismatch touches a target group in another account or
	// region than Request.AccountID and Request.Region.
	ForceAccountMismatch Force = "account-mismatch"
)

var knownForces = []Force{ForceForeignOwner, ForceVPCMismatch, ForceAccountMismatch}

// DefaultWeightSteps are the blue/green weights of the new target group,
// in percent, when Request.WeightSteps is empty. 0 attaches the new target
// group to the listener without traffic, so that its targets are health
// checked (a target group no load balancer uses is never checked).
var DefaultWeightSteps = []int32{0, 10, 50, 100}

// Request is what the caller asks [PlanCutover] for. Each field's comment
// says what its zero value means.
type Request struct {
	// TargetGroupARN is the hand-made target group to migrate, as
	// tgmigrate.ParseTargetGroupARN (or JSON) parsed it. Required.
	TargetGroupARN tgmigrate.ARN `json:"targetGroupARN"`
	// Namespace and Service name the Service whose pods take over; the
	// binding is created in Namespace. Required.
	Namespace string `json:"namespace"`
	// Service is the Service's name. Required.
	Service string `json:"service"`
	// Port is the Service port, by name or number. Zero: the Service's only
	// port.
	Port intstr.IntOrString `json:"port"`
	// Strategy forces a strategy. Zero: chosen from the target type.
	Strategy Strategy `json:"strategy,omitempty"`
	// MinHealthy sets the floor: the fewest healthy targets the target
	// group may hold at any point of the cutover. Zero: the healthy node
	// targets at plan time, capped by the Service's ready endpoints (and at
	// least 1). It may not exceed the ready endpoints: the gate could never
	// pass.
	MinHealthy int `json:"minHealthy,omitempty"`
	// AccountID is the 12-digit AWS account the caller expects the target
	// group in. Zero: not checked (the plan says so).
	AccountID string `json:"accountID,omitempty"`
	// Region is the Region the caller expects the target group in. Zero:
	// not checked.
	Region string `json:"region,omitempty"`
	// Force lists the guards the caller overrides. Nil: every guard holds.
	Force []Force `json:"force,omitempty"`
	// BindingName overrides the TargetGroupBinding's name. Zero:
	// tgbind.Name of the Service, the port and the (new) target group.
	BindingName string `json:"bindingName,omitempty"`
	// NewTargetGroupName names the target group blue/green creates. Zero:
	// "<old name>-ip", shortened with a hash to 32 characters.
	NewTargetGroupName string `json:"newTargetGroupName,omitempty"`
	// WeightSteps are blue/green's weights of the new target group, in
	// percent, ascending, ending at 100; 0 is added in front when missing.
	// Nil: [DefaultWeightSteps].
	WeightSteps []int32 `json:"weightSteps,omitempty"`
	// StepHoldSeconds is how long blue/green holds each weight above 0,
	// watching health, before the analysis hook judges it. Zero: one health
	// check interval of the new target group. Negative: no hold.
	StepHoldSeconds int32 `json:"stepHoldSeconds,omitempty"`
	// Assumptions are the AWS timings the plan is made under; its floor,
	// its waits and its pod preconditions derive from them. Each zero field
	// means its default (see [Assumptions]); the plan records them with
	// the defaults applied.
	Assumptions Assumptions `json:"assumptions,omitzero"`
	// NoDisruptionHold skips the steps that hold Karpenter's graceful
	// disruption during the cutover ([StepHoldDisruption],
	// [StepReleaseDisruption]); the plan then warns. Zero: the hold, the
	// safe default.
	NoDisruptionHold bool `json:"noDisruptionHold,omitempty"`
	// LeaveSecurityGroups declines to have the controller open the pods'
	// port: when the plan's security-group check (Env.EC2) finds that the
	// load balancer's security groups cannot reach it, the plan records a
	// [PreconditionSecurityGroup] naming the missing rule instead of
	// setting the binding's spec.networking. False: the plan sets
	// spec.networking (ingress from the load balancer's groups on the
	// pods' port) and the controller authorizes the rule.
	LeaveSecurityGroups bool `json:"leaveSecurityGroups,omitempty"`
	// From is the diagnose handoff the request was made from
	// ([RequestFrom]). PlanCutover then checks the live target group
	// against it before planning (handoff.go): another target type or VPC
	// is an *InputError ([ErrStaleHandoff]); changed target counts are a
	// plan warning. It is left out of the plan and its JSON. Nil: a
	// request written by hand, checked by the guards alone.
	From *tgmigrate.Handoff `json:"-"`
}

// forced reports whether f is among the request's overrides.
func (r *Request) forced(f Force) bool { return slices.Contains(r.Force, f) }

// Validate checks the request as [PlanCutover] does before any call, and
// returns the [*InputError] (Op "plan", the Field at fault) PlanCutover
// would return for it, or nil. It makes no call and needs no client, so a
// program checks its user's input with it before it looks for credentials.
// The fields are checked in order with TargetGroupARN last (but for
// NewTargetGroupName against the old target group's name): a caller that
// resolves a target group given by name later may check the rest first
// with the zero TargetGroupARN, and an error on "TargetGroupARN" (Reason
// "empty") then says that every other field passed. The diagnose handoff
// (From) is checked by PlanCutover against the live target group.
func (r Request) Validate() error {
	_, err := r.validate()
	return err
}

// validate checks the request's shape, before any call, and returns its
// target group's ARN.
func (r *Request) validate() (awserr.ARN, error) {
	const op = "plan"
	bad := func(field, reason string, err error) (awserr.ARN, error) {
		return awserr.ARN{}, &InputError{Op: op, Field: field, Reason: reason, Err: err}
	}
	if err := validNamespace(op, r.Namespace); err != nil {
		return awserr.ARN{}, err
	}
	if r.Service == "" {
		return bad("Service", "empty: name the Service whose pods take over", nil)
	}
	if !r.Strategy.valid() {
		return bad("Strategy", fmt.Sprintf("%q is not %q, %q or empty", r.Strategy, StrategyInPlace, StrategyBlueGreen), nil)
	}
	if r.MinHealthy < 0 {
		return bad("MinHealthy", fmt.Sprintf("%d is negative", r.MinHealthy), nil)
	}
	if r.AccountID != "" && !awserr.ValidAccountID(r.AccountID) {
		return bad("AccountID", fmt.Sprintf("%q is not a 12-digit account ID", r.AccountID), nil)
	}
	if r.Region != "" && !awserr.ValidRegion(r.Region) {
		return bad("Region", fmt.Sprintf("%q is not a Region", r.Region), nil)
	}
	for _, f := range r.Force {
		if !slices.Contains(knownForces, f) {
			return bad("Force", fmt.Sprintf("%q is not one of %v", f, knownForces), nil)
		}
	}
	if r.NewTargetGroupName != "" && !awserr.ValidTargetGroupName(r.NewTargetGroupName) {
		return bad("NewTargetGroupName", fmt.Sprintf("%q is not a target group name (1-32 letters, digits or hyphens)", r.NewTargetGroupName), nil)
	}
	if _, err := weightSteps(r.WeightSteps); err != nil {
		return bad("WeightSteps", err.Error(), nil)
	}
	if err := r.Assumptions.Validate(); err != nil {
		field, reason := "Assumptions", err.Error()
		var ie *envelope.InvalidError
		if errors.As(err, &ie) {
			field, reason = "Assumptions."+ie.Field, ie.Reason
		}
		return bad(field, reason, nil)
	}
	a, err := targetGroupInput(op, "TargetGroupARN", r.TargetGroupARN)
	if err != nil {
		return awserr.ARN{}, err
	}
	if r.NewTargetGroupName != "" && r.NewTargetGroupName == a.Name {
		return bad("NewTargetGroupName", "is the old target group's name", nil)
	}
	return a, nil
}

// targetGroupInput checks a, a target group ARN given to cutover as the
// field of the operation op: a Request's, a saved plan's, a policy input's.
// It is the one place cutover checks one; it parses nothing (the caller, or
// JSON, did), and inside, the typed ARN is passed on. The zero ARN is an
// *InputError "empty"; one not made by a parser, or a load balancer's, is
// one "malformed"; each unwraps to the *ARNError.
func targetGroupInput(op, field string, a awserr.ARN) (awserr.ARN, error) {
	if err := a.ValidTargetGroup(); err != nil {
		reason := "malformed"
		if a.IsZero() {
			reason = "empty"
		}
		return awserr.ARN{}, &InputError{Op: op, Field: field, Reason: reason, Err: err}
	}
	return a, nil
}

// weightSteps validates steps and returns them with 0 in front.
func weightSteps(steps []int32) ([]int32, error) {
	if len(steps) == 0 {
		return slices.Clone(DefaultWeightSteps), nil
	}
	out := slices.Clone(steps)
	if out[0] != 0 {
		out = append([]int32{0}, out...)
	}
	for i, w := range out {
		if w < 0 || w > 100 {
			return nil, fmt.Errorf("%d is outside 0-100", w)
		}
		if i > 0 && w <= out[i-1] {
			return nil, fmt.Errorf("%v is not strictly ascending", steps)
		}
	}
	if out[len(out)-1] != 100 {
		return nil, fmt.Errorf("%v does not end at 100", steps)
	}
	return out, nil
}
