package cutover

// plan_policy.go holds what a plan's steps call, as IAM: Plan.PolicyInput,
// Plan.IAMPolicy and Plan.ControllerPolicy.

import (
	"fmt"
	"slices"
)

// PolicyInput returns what [PolicyFor] needs to know about the plan: what
// its steps call (Step.Calls) and what its rollback calls. Every plan
// deregisters targets of its target group and its rollback registers the
// live nodes there; ModifyTargetGroup is asked for only when a step aligns
// the health check (the rollback then restores it), and
// ModifyTargetGroupAttributes only when blue/green's create step sets the
// new target group's attributes.
func (p *Plan) PolicyInput() PolicyInput {
	in := PolicyInput{TargetGroupARN: p.TargetGroup.ARN, CheckSecurityGroups: p.Network != nil && p.Network.Checked}
	for _, s := range p.Steps {
		in.ModifyHealthCheck = in.ModifyHealthCheck || slices.Contains(s.Calls, callModifyTG)
		in.NewTargetGroupAttributes = in.NewTargetGroupAttributes || slices.Contains(s.Calls, callModifyAttr)
	}
	if bg := p.BlueGreen; bg != nil {
		for _, r := range bg.Routes {
			if r.RuleARN != "" {
				in.RuleARNs = append(in.RuleARNs, r.RuleARN)
			} else {
				in.ListenerARNs = append(in.ListenerARNs, r.ListenerARN)
			}
		}
		slices.Sort(in.ListenerARNs)
		in.ListenerARNs = slices.Compact(in.ListenerARNs)
		slices.Sort(in.RuleARNs)
		in.RuleARNs = slices.Compact(in.RuleARNs)
		in.NewTargetGroupName = bg.NewTargetGroup.Name
		in.DeleteNewTargetGroup = true
	}
	return in
}

// ControllerPolicy returns what the AWS Load Balancer Controller's own IAM
// role needs for this plan's binding, as its reconciles call it: the
// target health (elasticloadbalancing:Describe*), RegisterTargets and
// DeregisterTargets on the target group (blue/green: the one the plan
// creates); ec2:DescribeVpcs and ec2:DescribeSecurityGroups on every
// reconcile, with or without spec.networking (a controller without them
// registers nothing: the binding is stuck, not slow); and, when the plan
// sets spec.networking (Network.Networking),
// ec2:AuthorizeSecurityGroupIngress and RevokeSecurityGroupIngress on the
// pods' security groups. It is a check for the controller's installation,
// not a grant for tgmigrate.
func (p *Plan) ControllerPolicy() (*Policy, error) {
	tg, err := targetGroupInput("controller policy", "TargetGroup.ARN", p.TargetGroup.ARN)
	if err != nil {
		return nil, err
	}
	target := tg.Raw
	if bg := p.BlueGreen; bg != nil {
		target = fmt.Sprintf("arn:%s:elasticloadbalancing:%s:%s:targetgroup/%s/*", tg.Partition, tg.Region, tg.AccountID, bg.NewTargetGroup.Name)
	}
	needs := []PolicyNeed{
		{Action: ActionDescribeELBv2, Resources: []string{"*"}},
		{Action: ActionRegisterTargets, Resources: []string{target}},
		{Action: ActionDeregisterTargets, Resources: []string{target}},
		{Action: ActionDescribeVpcs, Resources: []string{"*"}},
		{Action: ActionDescribeSecurityGroups, Resources: []string{"*"}},
	}
	if n := p.Network; n != nil && n.Networking {
		var groups []string
		for _, g := range n.PodSecurityGroups {
			groups = append(groups, fmt.Sprintf("arn:%s:ec2:%s:%s:security-group/%s", tg.Partition, tg.Region, tg.AccountID, g))
		}
		needs = append(needs, PolicyNeed{Action: ActionAuthorizeSecurityGroupIngress, Resources: groups},
			PolicyNeed{Action: ActionRevokeSecurityGroupIngress, Resources: groups})
	}
	return NewPolicy(needs...)
}

// controllerActions lists the actions of ControllerPolicy, for the text.
func (p *Plan) controllerActions() []string {
	out := []string{ActionRegisterTargets, ActionDeregisterTargets, ActionDescribeTargetHealth, ActionDescribeVpcs, ActionDescribeSecurityGroups}
	if n := p.Network; n != nil && n.Networking {
		out = append(out, ActionAuthorizeSecurityGroupIngress, ActionRevokeSecurityGroupIngress)
	}
	return out
}

// IAMPolicy returns the least-privilege IAM policy that Execute and
// Rollback of this plan need: the actions its steps call, scoped to its
// ARNs (see [PolicyFor]).
func (p *Plan) IAMPolicy() (*Policy, error) { return PolicyFor(p.PolicyInput()) }
