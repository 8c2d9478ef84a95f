package karpenterapi

// types.go: the kinds' GVKs, SelectorTerm and its matching rule,
// EC2NodeClass, NodePool, Budget and AllowedDisruptions.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The Karpenter v1 kinds tgmigrate reads and writes.
var (
	NodePoolGVK     = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodePool"}
	NodeClaimGVK    = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaim"}
	EC2NodeClassGVK = schema.GroupVersionKind{Group: "karpenter.k8s.aws", Version: "v1", Kind: "EC2NodeClass"}
)

// Labels Karpenter sets on its nodes.
const (
	// LabelNodePool names the NodePool a node belongs to.
	LabelNodePool = "karpenter.sh/nodepool"
	// LabelNodeClass names the EC2NodeClass of an AWS node.
	LabelNodeClass = "karpenter.k8s.aws/ec2nodeclass"
)

// SelectorTerm is one term of an EC2NodeClass's subnetSelectorTerms or
// securityGroupSelectorTerms: an ID, or tags that must all match.
type SelectorTerm struct {
	// Tags must all be on the resource; a value "*" matches any value.
	Tags map[string]string `json:"tags,omitempty"`
	// ID is the resource's ID (subnet-…, sg-…).
	ID string `json:"id,omitempty"`
}

// Matches reports whether the resource id with tags matches the term. An
// empty term matches nothing.
func (t SelectorTerm) Matches(id string, tags map[string]string) bool {
	if t.ID != "" {
		return t.ID == id
	}
	if len(t.Tags) == 0 {
		return false
	}
	for k, v := range t.Tags {
		got, ok := tags[k]
		if !ok || (v != "*" && got != v) {
			return false
		}
	}
	return true
}

// String renders the term as it reads in a manifest: "id=subnet-1" or
// "tags{k=v,...}" with the keys sorted.
func (t SelectorTerm) String() string {
	if t.ID != "" {
		return "id=" + t.ID
	}
	keys := make([]string, 0, len(t.Tags))
	for k := range t.Tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + t.Tags[k]
	}
	return "tags{" + strings.Join(parts, ",") + "}"
}

// Selects reports whether any of terms matches the resource: terms are
// ORed, as Karpenter ORs them.
func Selects(terms []SelectorTerm, id string, tags map[string]string) bool {
	for _, t := range terms {
		if t.Matches(id, tags) {
			return true
		}
	}
	return false
}

// CloneTerms returns a deep copy of terms.
func CloneTerms(terms []SelectorTerm) []SelectorTerm {
	if terms == nil {
		return nil
	}
	out := make([]SelectorTerm, len(terms))
	for i, t := range terms {
		out[i] = SelectorTerm{ID: t.ID}
		if t.Tags != nil {
			out[i].Tags = make(map[string]string, len(t.Tags))
			for k, v := range t.Tags {
				out[i].Tags[k] = v
			}
		}
	}
	return out
}

// StatusSubnet is one entry of an EC2NodeClass's status.subnets.
type StatusSubnet struct {
	// ID is the subnet's ID.
	ID string `json:"id"`
	// Zone and ZoneID are its Availability Zone's name and ID.
	Zone   string `json:"zone,omitempty"`
	ZoneID string `json:"zoneID,omitempty"`
}

// StatusSecurityGroup is one entry of an EC2NodeClass's
// status.securityGroups.
type StatusSecurityGroup struct {
	// ID and Name are the security group's.
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// EC2NodeClass is the view of an EC2NodeClass that the move reads.
type EC2NodeClass struct {
	// Name is the object's name (the kind is cluster-scoped).
	Name string `json:"name"`
	// ResourceVersion is the object's, as read.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// SubnetSelectorTerms select the subnets nodes launch in.
	SubnetSelectorTerms []SelectorTerm `json:"subnetSelectorTerms"`
	// SecurityGroupSelectorTerms select the nodes' security groups.
	SecurityGroupSelectorTerms []SelectorTerm `json:"securityGroupSelectorTerms,omitempty"`
	// AssociatePublicIPAddress, when set, decides whether nodes get a
	// public address; nil: the subnet's MapPublicIpOnLaunch decides.
	AssociatePublicIPAddress *bool `json:"associatePublicIPAddress,omitempty"`
	// StatusSubnets are the subnets the terms resolved to.
	StatusSubnets []StatusSubnet `json:"statusSubnets,omitempty"`
	// StatusSecurityGroups are the security groups the terms resolved to.
	StatusSecurityGroups []StatusSecurityGroup `json:"statusSecurityGroups,omitempty"`
}

// NodeClassRef is a NodePool's spec.template.spec.nodeClassRef.
type NodeClassRef struct {
	// Group, Kind and Name name the node class (karpenter.k8s.aws,
	// EC2NodeClass, its name).
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// IsEC2NodeClass reports whether the reference names an EC2NodeClass.
func (r NodeClassRef) IsEC2NodeClass() bool {
	return r.Group == EC2NodeClassGVK.Group && r.Kind == EC2NodeClassGVK.Kind
}

// Budget is one of a NodePool's spec.disruption.budgets.
type Budget struct {
	// Nodes is a count ("5") or a percentage ("10%") of the pool's nodes.
	Nodes string `json:"nodes"`
	// Reasons restrict the budget to these disruption reasons
	// (Underutilized, Empty, Drifted); empty: every reason.
	Reasons []string `json:"reasons,omitempty"`
	// Schedule and Duration, when set, make the budget active only in a
	// window (a cron schedule and its length).
	Schedule string `json:"schedule,omitempty"`
	Duration string `json:"duration,omitempty"`
}

// AppliesTo reports whether the budget limits disruptions for reason.
func (b Budget) AppliesTo(reason string) bool {
	return len(b.Reasons) == 0 || slices.Contains(b.Reasons, reason)
}

// DefaultBudgets is what Karpenter applies when a NodePool sets none: one
// budget of 10 % for every reason.
func DefaultBudgets() []Budget { return []Budget{{Nodes: "10%"}} }

// CloneBudgets returns a deep copy of budgets.
func CloneBudgets(budgets []Budget) []Budget {
	if budgets == nil {
		return nil
	}
	out := make([]Budget, len(budgets))
	for i, b := range budgets {
		out[i] = b
		out[i].Reasons = slices.Clone(b.Reasons)
	}
	return out
}

// NodePool is the view of a NodePool that the move reads.
type NodePool struct {
	// Name is the object's name (the kind is cluster-scoped).
	Name string `json:"name"`
	// ResourceVersion is the object's, as read.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// NodeClassRef names the pool's node class.
	NodeClassRef NodeClassRef `json:"nodeClassRef"`
	// Budgets are spec.disruption.budgets as written; nil when the field
	// is absent (Karpenter then applies [DefaultBudgets]).
	Budgets []Budget `json:"budgets,omitempty"`
}

// EffectiveBudgets returns the budgets Karpenter applies: the pool's, or
// [DefaultBudgets] when it sets none.
func (p NodePool) EffectiveBudgets() []Budget {
	if p.Budgets == nil {
		return DefaultBudgets()
	}
	return p.Budgets
}

var budgetNodesRe = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)

// ValidBudgetNodes checks a budget's nodes value as the CRD does.
func ValidBudgetNodes(nodes string) error {
	if !budgetNodesRe.MatchString(nodes) {
		return fmt.Errorf("budget nodes %q is not a count or a percentage from 0%% to 100%%", nodes)
	}
	return nil
}

// AllowedDisruptions returns how many of total nodes the budgets let
// Karpenter disrupt at once for reason: the smallest budget that applies,
// a percentage of total rounded up, as Karpenter computes it. Budgets with
// a schedule are counted as active (the worst case for a move that wants
// few nodes at once is to ignore them, the worst for one that wants
// speed is to count them: the caller says which in its output). It returns
// total when no budget applies, and an error for a malformed value.
func AllowedDisruptions(budgets []Budget, reason string, total int) (int, error) {
	allowed := total
	for _, b := range budgets {
		if !b.AppliesTo(reason) {
			continue
		}
		if err := ValidBudgetNodes(b.Nodes); err != nil {
			return 0, err
		}
		var n int
		if pct, ok := strings.CutSuffix(b.Nodes, "%"); ok {
			p, _ := strconv.Atoi(pct)
			n = (total*p + 99) / 100
		} else {
			n, _ = strconv.Atoi(b.Nodes)
		}
		allowed = min(allowed, n)
	}
	return allowed, nil
}
