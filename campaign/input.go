package campaign

// input.go: what PlanCampaign reads (Input: the accounts, the clusters,
// the selection) and its validation, before any call.

import (
	"fmt"
	"net/netip"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/nilcheck"
)

// Input is everything [PlanCampaign] reads: the AWS accounts, the
// clusters, and which target groups to plan.
type Input struct {
	// Accounts are the AWS accounts and Regions whose target groups the
	// campaign migrates, one read-only ELBv2 client each (an assumed role
	// per account, as the CLI makes them). At least one.
	Accounts []Account
	// Clusters are the clusters whose Services take over the target
	// groups. At least one.
	Clusters []Cluster
	// Selection says which target groups to plan.
	Selection Selection
}

// Account is one AWS account in one Region.
type Account struct {
	// ID is the 12-digit account ID. Required.
	ID string
	// Region, for example "eu-west-1". Required.
	Region string
	// ELBv2 is a read-only ELBv2 client of ID in Region: diagnose and
	// cutover.PlanCutover read through it. Required, and not a typed nil;
	// *elasticloadbalancingv2.Client fits as it is.
	ELBv2 tgmigrate.ELBv2ReadAPI
	// ServiceQuotas reads ELBv2's quotas on targets, as diagnose and
	// cutover.PlanCutover take it (*servicequotas.Client fits). Nil: AWS's
	// documented defaults, and each plan says so. A typed nil is refused.
	ServiceQuotas diagnose.ServiceQuotasAPI
	// APIGateway reads the account's API Gateway HTTP APIs, for the
	// blast radius ([Exposure]): *apigatewayv2.Client fits. Nil: not
	// read (each entry's Exposure.APIGateway says so). A typed nil is
	// refused.
	APIGateway APIGatewayReadAPI
}

// Cluster is one Kubernetes cluster and the account that serves its
// target groups.
type Cluster struct {
	// Name is the cluster's name, as the LBC tags it
	// (elbv2.k8s.aws/cluster) and as diagnose reports it. Required and
	// unique.
	Name string
	// Reader reads the cluster (read-only: a client.Client fits, and so
	// does a cache). Its scheme must register tgbind/v1beta1. Required,
	// and not a typed nil.
	Reader client.Reader
	// VPCID is the VPC of the cluster's nodes. Empty: unknown (diagnose
	// then lets the cluster claim targets in any VPC, and PlanCutover
	// skips its VPC guard).
	VPCID string
	// CIDRs are the cluster's node and pod address ranges (see
	// diagnose.Cluster). Empty: unknown.
	CIDRs []string
	// AccountID and Region name the account of Input.Accounts whose
	// ELBv2 serves the cluster's target groups. AccountID is required;
	// Region may be empty when the account is listed in one Region only.
	AccountID, Region string
	// Assumptions are the timing assumptions of the cluster's cutover
	// plans (cutover.Request.Assumptions). Zero: cutover's defaults.
	Assumptions tgmigrate.Assumptions
}

// Selection says which target groups the campaign plans. Set All, or any
// of TargetGroupARNs, TargetGroupNames and Tags (the first two add up;
// Tags then narrows, as in diagnose.Scope). The zero Selection is
// refused, so that nobody plans a whole fleet by accident.
type Selection struct {
	// All plans every target group diagnose finds a cutover for (a
	// finding whose next call is cutover.PlanCutover, complete or not, or
	// a manual change before it); the others are left out of the plan.
	All bool `json:"all,omitempty"`
	// TargetGroupARNs and TargetGroupNames name target groups; each one
	// diagnose reads is an entry of the plan, runnable or not.
	TargetGroupARNs  []tgmigrate.ARN `json:"targetGroupARNs,omitempty"`
	TargetGroupNames []string        `json:"targetGroupNames,omitempty"`
	// Tags keeps the target groups that carry every one of these tags (an
	// empty value matches any value).
	Tags map[string]string `json:"tags,omitempty"`
}

// explicit reports whether s names target groups.
func (s Selection) explicit() bool {
	return len(s.TargetGroupARNs)+len(s.TargetGroupNames)+len(s.Tags) > 0
}

// validate checks in before any call, naming the field at fault; it
// returns, for each cluster, the index of its account.
func (in Input) validate() ([]int, error) {
	bad := func(field, format string, args ...any) error {
		return &InputError{Op: "plan", Field: "Input." + field, Reason: fmt.Sprintf(format, args...)}
	}
	if len(in.Accounts) == 0 {
		return nil, bad("Accounts", "at least one account is required")
	}
	seen := map[string]int{}
	for i, a := range in.Accounts {
		f := fmt.Sprintf("Accounts[%d]", i)
		j, dup := seen[a.ID+"/"+a.Region]
		switch {
		case !awserr.ValidAccountID(a.ID):
			return nil, bad(f+".ID", "%q is not a 12-digit account ID", a.ID)
		case !awserr.ValidRegion(a.Region):
			return nil, bad(f+".Region", "%q is not a Region", a.Region)
		case nilcheck.IsNil(a.ELBv2):
			return nil, bad(f+".ELBv2", "%s", nilcheck.Reason(a.ELBv2))
		case a.ServiceQuotas != nil && nilcheck.IsNil(a.ServiceQuotas):
			return nil, bad(f+".ServiceQuotas", "%s", nilcheck.Reason(a.ServiceQuotas))
		case a.APIGateway != nil && nilcheck.IsNil(a.APIGateway):
			return nil, bad(f+".APIGateway", "%s", nilcheck.Reason(a.APIGateway))
		case dup:
			return nil, bad(f, "account %s in %s is Accounts[%d] too", a.ID, a.Region, j)
		}
		seen[a.ID+"/"+a.Region] = i
	}
	if len(in.Clusters) == 0 {
		return nil, bad("Clusters", "at least one cluster is required")
	}
	names := map[string]int{}
	accountOf := make([]int, len(in.Clusters))
	for i, c := range in.Clusters {
		f := fmt.Sprintf("Clusters[%d]", i)
		j, dup := names[c.Name]
		switch {
		case c.Name == "":
			return nil, bad(f+".Name", "is empty")
		case dup:
			return nil, bad(f+".Name", "%q is Clusters[%d]'s too", c.Name, j)
		case nilcheck.IsNil(c.Reader):
			return nil, bad(f+".Reader", "%s", nilcheck.Reason(c.Reader))
		case c.VPCID != "" && !awserr.ValidVPCID(c.VPCID):
			return nil, bad(f+".VPCID", "%q is not a VPC ID", c.VPCID)
		}
		names[c.Name] = i
		for k, cidr := range c.CIDRs {
			if _, err := netip.ParsePrefix(cidr); err != nil {
				return nil, bad(fmt.Sprintf("%s.CIDRs[%d]", f, k), "%q is not a CIDR", cidr)
			}
		}
		if err := c.Assumptions.Validate(); err != nil {
			return nil, &InputError{Op: "plan", Field: "Input." + f + ".Assumptions", Reason: "out of range", Err: err}
		}
		k, err := in.accountOf(c)
		if err != nil {
			return nil, bad(f+".AccountID", "%s", err)
		}
		accountOf[i] = k
	}
	s := in.Selection
	switch {
	case !s.All && !s.explicit():
		return nil, bad("Selection", "selects nothing: set All, or ARNs, names or tags")
	case s.All && len(s.TargetGroupARNs)+len(s.TargetGroupNames) > 0:
		return nil, bad("Selection", "All and a list of target groups: choose one")
	}
	for i, a := range s.TargetGroupARNs {
		if err := a.ValidTargetGroup(); err != nil {
			return nil, &InputError{Op: "plan", Field: fmt.Sprintf("Input.Selection.TargetGroupARNs[%d]", i), Reason: "not a target group's ARN", Err: err}
		}
		if in.arnAccount(a) < 0 {
			return nil, bad(fmt.Sprintf("Selection.TargetGroupARNs[%d]", i), "account %s in %s is not one of Input.Accounts", a.AccountID, a.Region)
		}
	}
	for i, n := range s.TargetGroupNames {
		if n == "" {
			return nil, bad(fmt.Sprintf("Selection.TargetGroupNames[%d]", i), "is empty")
		}
	}
	for k := range s.Tags {
		if k == "" {
			return nil, bad("Selection.Tags", "has an empty key")
		}
	}
	return accountOf, nil
}

// accountOf returns the index of c's account in in.Accounts.
func (in Input) accountOf(c Cluster) (int, error) {
	if !awserr.ValidAccountID(c.AccountID) {
		return 0, fmt.Errorf("%q is not a 12-digit account ID", c.AccountID)
	}
	found := -1
	for i, a := range in.Accounts {
		if a.ID != c.AccountID || (c.Region != "" && a.Region != c.Region) {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("account %s is listed in %s and %s: set Region", c.AccountID, in.Accounts[found].Region, a.Region)
		}
		found = i
	}
	if found < 0 {
		where := ""
		if c.Region != "" {
			where = " in " + c.Region
		}
		return 0, fmt.Errorf("account %s%s is not one of Input.Accounts", c.AccountID, where)
	}
	return found, nil
}

// itoa is strconv.Itoa.
func itoa(i int) string { return strconv.Itoa(i) }
