package cutover

// guards.go holds the guards: the account, owner and VPC checks a plan
// runs on the target group, each yielding only to its named Force, and
// their re-check before Execute's first mutation.

import (
	"fmt"
	"strings"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// The AWS tags the guards read (the LBC's, DOMAIN.md) and the ones
// tgmigrate writes on the target group blue/green creates.
const (
	// TagLBCCluster is the LBC's cluster tag ([tgmigrate.TagLBCCluster]).
	TagLBCCluster = tgmigrate.TagLBCCluster
	// TagIngressStack and TagServiceStack name the LBC stack (an Ingress
	// group or a Service) that made a resource
	// ([tgmigrate.TagLBCIngressStack], [tgmigrate.TagLBCServiceStack]).
	TagIngressStack = tgmigrate.TagLBCIngressStack
	TagServiceStack = tgmigrate.TagLBCServiceStack
	// TagCreatedBy marks a target group tgmigrate created; its value is
	// [ManagedBy]. Rollback deletes a target group only when it carries it.
	TagCreatedBy = "tgmigrate.qstools.io/created-by"
	// TagSourceTargetGroup records the target group a blue/green target
	// group replaces.
	TagSourceTargetGroup = "tgmigrate.qstools.io/source-target-group"
	// TagPlanID records the plan that created it.
	TagPlanID = "tgmigrate.qstools.io/plan-id"
)

// The guards' IDs.
const (
	GuardOwner   = "owner"
	GuardVPC     = "vpc"
	GuardAccount = "account"
)

// guards evaluates the three guards for a target group and returns their
// outcomes, or the first *GuardError that the request does not override.
// tags and vpc may be unknown (nil, "") for the account guard alone, which
// runs before any call.
type guardInput struct {
	arn          awserr.ARN
	tags         map[string]string
	vpcID        string
	clusterName  string
	clusterVPCID string
	req          *Request
}

// accountGuard compares the ARN's account and Region with the request's.
func accountGuard(in guardInput) (GuardCheck, error) {
	c := GuardCheck{ID: GuardAccount}
	if in.req.AccountID == "" && in.req.Region == "" {
		c.Status, c.Detail = GuardSkipped, "Request.AccountID and Region not given: the target group's account "+in.arn.AccountID+" and Region "+in.arn.Region+" were not checked"
		return c, nil
	}
	var why []string
	if in.req.AccountID != "" && in.arn.AccountID != in.req.AccountID {
		why = append(why, fmt.Sprintf("account %s, expected %s", in.arn.AccountID, in.req.AccountID))
	}
	if in.req.Region != "" && in.arn.Region != in.req.Region {
		why = append(why, fmt.Sprintf("Region %s, expected %s", in.arn.Region, in.req.Region))
	}
	return decide(c, in, why, ForceAccountMismatch, ErrAccountMismatch,
		fmt.Sprintf("account %s, Region %s as expected", in.arn.AccountID, in.arn.Region))
}

// ownerGuard reads the LBC's tags: a stack tag, or a cluster tag naming
// another cluster, says someone else owns the target group.
func ownerGuard(in guardInput) (GuardCheck, error) {
	c := GuardCheck{ID: GuardOwner}
	var why []string
	for _, k := range tgmigrate.LBCStacksIn(in.tags) {
		why = append(why, fmt.Sprintf("tag %s=%s: an LBC stack manages it", k, in.tags[k]))
	}
	if v, ok := in.tags[TagLBCCluster]; ok && (in.clusterName == "" || v != in.clusterName) {
		if in.clusterName == "" {
			why = append(why, fmt.Sprintf("tag %s=%s and Env.ClusterName is not set", TagLBCCluster, v))
		} else {
			why = append(why, fmt.Sprintf("tag %s=%s is another cluster than %s", TagLBCCluster, v, in.clusterName))
		}
	}
	ok := "no LBC stack or cluster tag: made by hand or by another tool"
	if v, found := in.tags[TagLBCCluster]; found && len(why) == 0 {
		ok = fmt.Sprintf("tag %s=%s is this cluster, and no stack tag", TagLBCCluster, v)
	}
	return decide(c, in, why, ForceForeignOwner, ErrForeignOwner, ok)
}

// vpcGuard compares the target group's VPC with the cluster's.
func vpcGuard(in guardInput) (GuardCheck, error) {
	c := GuardCheck{ID: GuardVPC}
	if in.clusterVPCID == "" {
		c.Status, c.Detail = GuardSkipped, "Env.ClusterVPCID not given: the target group's VPC "+in.vpcID+" was not compared with the cluster's"
		return c, nil
	}
	var why []string
	if in.vpcID != in.clusterVPCID {
		why = append(why, fmt.Sprintf("target group in %s, cluster in %s: pod IPs cannot be registered in it", in.vpcID, in.clusterVPCID))
	}
	return decide(c, in, why, ForceVPCMismatch, ErrVPCMismatch, "both in "+in.vpcID)
}

func decide(c GuardCheck, in guardInput, why []string, f Force, kind error, ok string) (GuardCheck, error) {
	if len(why) == 0 {
		c.Status, c.Detail = GuardPassed, ok
		return c, nil
	}
	detail := strings.Join(why, "; ")
	if in.req.forced(f) {
		c.Status, c.Detail = GuardForced, detail+" (overridden by "+string(f)+")"
		return c, nil
	}
	return c, &GuardError{Guard: c.ID, TargetGroupARN: in.arn, Detail: detail, Force: f, Kind: kind}
}

// recheckGuards runs the guards again, as Execute does before its first
// mutation, with the plan's overrides. in is the world read now, and the
// plan's target group ARN as the plan's validation parsed it; its req is
// set here. A guard that passed or was skipped at plan time and fails now
// is refused.
func recheckGuards(p *Plan, in guardInput) error {
	req := p.Request
	in.req = &req
	for _, g := range []func(guardInput) (GuardCheck, error){accountGuard, ownerGuard, vpcGuard} {
		if _, err := g(in); err != nil {
			return err
		}
	}
	return nil
}

// isOurs reports whether tags mark a target group tgmigrate created to
// replace source.
func isOurs(tags map[string]string, source string) bool {
	return tags[TagCreatedBy] == ManagedBy && (source == "" || tags[TagSourceTargetGroup] == source)
}
