package diagnose

// This file holds what Diagnose reads (Sources, Account, Cluster) and
// which target groups (Scope), and their validation, with that of the
// snapshots a caller gives (WithSnapshot).

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/awserr"
)

// Sources is everything Diagnose reads: one read-only ELBv2 client per AWS
// account and Region, and one read-only Kubernetes reader per cluster.
type Sources struct {
	// Accounts are the AWS accounts and Regions to scan. At least one.
	Accounts []Account
	// Clusters are the clusters whose nodes and pods may be behind the
	// target groups. At least one.
	Clusters []Cluster
}

// Account is one AWS account in one Region.
type Account struct {
	// ID is the 12-digit account ID. Required: target groups whose ARN names
	// another account are reported as errors, never scanned with this client.
	ID string `json:"id"`
	// Region, for example "eu-west-1". Required.
	Region string `json:"region"`
	// ELBv2 is a read-only ELBv2 client for ID and Region. Required, and
	// not a typed nil; *elasticloadbalancingv2.Client fits as it is.
	ELBv2 ELBv2API `json:"-"`
	// EC2 is an optional read-only EC2 client for ID and Region. Nil means no
	// subnet checks: PublicSubnetNode then rests on the nodes' ExternalIPs.
	// A typed nil, such as (*ec2.Client)(nil), is refused.
	EC2 EC2API `json:"-"`
	// ServiceQuotas is an optional read-only Service Quotas client for ID
	// and Region; *servicequotas.Client fits as it is. Diagnose reads
	// ELBv2's quotas on targets through it once per run (three
	// GetServiceQuota calls, and a GetAWSDefaultServiceQuota for a quota
	// with no applied value) and compares each cutover's overlap with
	// them. Nil means AWS's documented defaults, and the report says so
	// ([AccountReport].Quotas). A typed nil, such as
	// (*servicequotas.Client)(nil), is refused.
	ServiceQuotas ServiceQuotasAPI `json:"-"`
}

// Cluster is one Kubernetes cluster: [tgmigrate.Cluster], the one model
// of a cluster (its Name, Reader, VPCID and CIDRs).
type Cluster = tgmigrate.Cluster

// Scope selects the target groups to diagnose. The selectors TargetGroupARNs,
// TargetGroupNames and LoadBalancerARNs add up; Tags then narrows the result;
// All selects every target group the clients can see. The zero Scope is
// invalid, so that nobody scans a whole fleet by accident.
//
// Costs: ARNs and names cost one DescribeTargetGroups per 20; a load
// balancer costs one paged DescribeTargetGroups; All and a Tags-only scope
// list every target group (pages of 400) and a Tags scope reads the tags of
// every listed target group (batches of 20) before it filters.
type Scope struct {
	// TargetGroupARNs are target groups by ARN, as
	// tgmigrate.ParseTargetGroupARN (or JSON) parsed them. Each ARN is
	// routed to the account and Region it names.
	TargetGroupARNs []tgmigrate.ARN `json:"targetGroupARNs,omitempty"`
	// TargetGroupNames are target groups by name, looked up in every account.
	TargetGroupNames []string `json:"targetGroupNames,omitempty"`
	// LoadBalancerARNs selects every target group of these load balancers,
	// as tgmigrate.ParseLoadBalancerARN (or JSON) parsed them.
	LoadBalancerARNs []tgmigrate.ARN `json:"loadBalancerARNs,omitempty"`
	// Tags keeps only target groups that carry every one of these tags. An
	// empty value matches any value of the key.
	Tags map[string]string `json:"tags,omitempty"`
	// All selects every target group visible to the clients.
	All bool `json:"all,omitempty"`
}

func (s Scope) explicit() bool {
	return len(s.TargetGroupARNs)+len(s.TargetGroupNames)+len(s.LoadBalancerARNs) > 0
}

// listsAll reports whether the scope lists every target group of an account.
func (s Scope) listsAll() bool { return s.All || (!s.explicit() && len(s.Tags) > 0) }

// validateSources checks the structure of the accounts and clusters.
func validateSources(src Sources) error {
	if len(src.Accounts) == 0 {
		return &InputError{Field: "Sources.Accounts", Reason: "at least one account is required"}
	}
	seen := map[string]bool{}
	for i, a := range src.Accounts {
		f := fmt.Sprintf("Sources.Accounts[%d]", i)
		switch {
		case !awserr.ValidAccountID(a.ID):
			return &InputError{Field: f + ".ID", Reason: fmt.Sprintf("%q is not a 12-digit account ID", a.ID)}
		case !awserr.ValidRegion(a.Region):
			return &InputError{Field: f + ".Region", Reason: fmt.Sprintf("%q is not a Region", a.Region)}
		case isNil(a.ELBv2):
			return &InputError{Field: f + ".ELBv2", Reason: nilReason(a.ELBv2)}
		case a.EC2 != nil && isNil(a.EC2): // a typed nil: nil itself means no subnet checks
			return &InputError{Field: f + ".EC2", Reason: nilReason(a.EC2)}
		case a.ServiceQuotas != nil && isNil(a.ServiceQuotas): // nil itself means AWS's defaults
			return &InputError{Field: f + ".ServiceQuotas", Reason: nilReason(a.ServiceQuotas)}
		case seen[a.ID+"/"+a.Region]:
			return &InputError{Field: f, Reason: fmt.Sprintf("account %s in %s is listed twice", a.ID, a.Region)}
		}
		seen[a.ID+"/"+a.Region] = true
	}
	if len(src.Clusters) == 0 {
		return &InputError{Field: "Sources.Clusters", Reason: "at least one cluster is required"}
	}
	names := map[string]bool{}
	for i, c := range src.Clusters {
		f := fmt.Sprintf("Sources.Clusters[%d]", i)
		switch {
		case c.Name == "":
			return &InputError{Field: f + ".Name", Reason: "is empty"}
		case names[c.Name]:
			return &InputError{Field: f + ".Name", Reason: fmt.Sprintf("cluster %q is listed twice", c.Name)}
		case isNil(c.Reader):
			return &InputError{Field: f + ".Reader", Reason: nilReason(c.Reader)}
		case c.VPCID != "" && !awserr.ValidVPCID(c.VPCID):
			return &InputError{Field: f + ".VPCID", Reason: fmt.Sprintf("%q is not a VPC ID", c.VPCID)}
		}
		names[c.Name] = true
		for j, cidr := range c.CIDRs {
			if _, err := netip.ParsePrefix(cidr); err != nil {
				return &InputError{Field: fmt.Sprintf("%s.CIDRs[%d]", f, j), Reason: fmt.Sprintf("%q is not a CIDR", cidr)}
			}
		}
	}
	return nil
}

// validateScope checks the structure of the scope. Malformed ARNs and
// names in it are not input errors: they are reported per resource, and
// the rest of the fleet is still scanned.
func validateScope(scope Scope) error {
	if !scope.All && !scope.explicit() && len(scope.Tags) == 0 {
		return &InputError{Field: "Scope", Reason: "selects nothing: set ARNs, names, load balancers or tags, or All"}
	}
	for k := range scope.Tags {
		if k == "" {
			return &InputError{Field: "Scope.Tags", Reason: "has an empty key"}
		}
	}
	return nil
}

// validateSnapshots checks that each snapshot given with WithSnapshot is
// one of src's clusters, with its VPC and CIDRs.
func validateSnapshots(src Sources, snaps map[string]*Snapshot) error {
	for _, name := range slices.Sorted(maps.Keys(snaps)) {
		s := snaps[name]
		i := slices.IndexFunc(src.Clusters, func(c Cluster) bool { return c.Name == name })
		bad := func(format string, args ...any) error {
			return &InputError{Field: "WithSnapshot", Reason: fmt.Sprintf("snapshot of cluster %q: ", name) + fmt.Sprintf(format, args...)}
		}
		switch {
		case i < 0:
			return bad("no cluster of Sources.Clusters has that name")
		case s.cluster.VPCID != src.Clusters[i].VPCID:
			return bad("its VPC is %q, Sources.Clusters[%d]'s %q", s.cluster.VPCID, i, src.Clusters[i].VPCID)
		case !slices.Equal(s.cluster.CIDRs, src.Clusters[i].CIDRs):
			return bad("its CIDRs are %v, Sources.Clusters[%d]'s %v", s.cluster.CIDRs, i, src.Clusters[i].CIDRs)
		}
	}
	return nil
}
