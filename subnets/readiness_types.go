package subnets

// readiness_types.go: the readiness report's data: Readiness, Subnet,
// ZoneReport, NodeClassReport, NodePoolReport, BoundTargetGroup,
// NodeGroupReport and Estimate. The checks that fill it are in
// readiness.go and check_*.go; PlanMove reads it.

import (
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
)

// ReadinessSchemaVersion is the version of the readiness report's JSON.
const ReadinessSchemaVersion = 1

// Readiness is what [CheckReadiness] found: one report per cluster, plain
// data. Ready is true exactly when no finding blocks the move; PlanMove
// refuses a Readiness that is not Ready.
type Readiness struct {
	// SchemaVersion is [ReadinessSchemaVersion].
	SchemaVersion int `json:"schemaVersion"`
	// Cluster is the cluster's name; VPCID its VPC; Region its Region.
	Cluster string `json:"cluster"`
	VPCID   string `json:"vpcID"`
	Region  string `json:"region"`
	// CheckedAt is when the checks ran (the injected clock).
	CheckedAt time.Time `json:"checkedAt"`
	// Ready is true when no finding of severity high or critical remains.
	Ready bool `json:"ready"`
	// PrivateSubnets are the subnets the move will select, one or more
	// per zone the nodes use, in zone then ID order.
	PrivateSubnets []Subnet `json:"privateSubnets"`
	// SelectorTerms are the subnetSelectorTerms the move writes: the
	// request's, or one id term per private subnet chosen.
	SelectorTerms []karpenterapi.SelectorTerm `json:"selectorTerms"`
	// Zones is one report per Availability Zone the nodes use.
	Zones []ZoneReport `json:"zones"`
	// NodeClasses are the EC2NodeClasses that select a public subnet or
	// give nodes a public address: the ones the move patches.
	NodeClasses []NodeClassReport `json:"nodeClasses"`
	// NodePools are the NodePools of those node classes.
	NodePools []NodePoolReport `json:"nodePools"`
	// NodeGroups are the nodes no Karpenter NodePool owns (managed node
	// groups, self-managed), which the move does not automate.
	NodeGroups []NodeGroupReport `json:"nodeGroups,omitempty"`
	// TargetGroups are the target groups whose targets are the cluster's
	// pods, with their load balancers' zones and their healthy floor.
	TargetGroups []BoundTargetGroup `json:"targetGroups"`
	// Estimate is what the replacement will take.
	Estimate Estimate `json:"estimate"`
	// Findings are the failed checks, each with its evidence and next call.
	Findings []diagnose.Finding `json:"findings"`
	// Notes say what could not be checked, and why.
	Notes []string `json:"notes,omitempty"`
}

// Subnet is a subnet as the checks saw it.
type Subnet struct {
	// ID, Zone and CIDR are the subnet's.
	ID   string `json:"id"`
	Zone string `json:"zone"`
	CIDR string `json:"cidr"`
	// Free is the subnet's AvailableIpAddressCount.
	Free int `json:"free"`
	// Public: its route table sends 0.0.0.0/0 to an internet gateway, or
	// it maps a public address on launch.
	Public bool `json:"public"`
	// Egress says how a private subnet reaches AWS's APIs: "nat"
	// (nat-…), or "endpoints" (every endpoint the nodes need), or "none".
	Egress string `json:"egress,omitempty"`
	// MissingEndpoints names the VPC endpoint services a subnet without a
	// NAT route lacks (for example "com.amazonaws.eu-west-1.ecr.dkr").
	MissingEndpoints []string          `json:"missingEndpoints,omitempty"`
	Tags             map[string]string `json:"tags,omitempty"`
}

// ZoneReport is one Availability Zone the nodes use.
type ZoneReport struct {
	// Zone is the zone's name.
	Zone string `json:"zone"`
	// Nodes and Pods are the nodes in the zone and the pods on them that
	// take an address from the node's subnet (not hostNetwork).
	Nodes int `json:"nodes"`
	Pods  int `json:"pods"`
	// Need is the addresses the zone's nodes and pods need in a private
	// subnet: Nodes + Pods. Free is what the chosen subnets have.
	Need int `json:"need"`
	Free int `json:"free"`
	// Subnets are the chosen private subnets' IDs in the zone.
	Subnets []string `json:"subnets"`
}

// NodeClassReport is one EC2NodeClass the move patches.
type NodeClassReport struct {
	// Name is the EC2NodeClass's name.
	Name string `json:"name"`
	// SubnetSelectorTerms and AssociatePublicIPAddress are the fields as
	// read: what Rollback restores.
	SubnetSelectorTerms      []karpenterapi.SelectorTerm `json:"subnetSelectorTerms"`
	AssociatePublicIPAddress *bool                       `json:"associatePublicIPAddress,omitempty"`
	// PublicSubnets are the public subnets its terms select.
	PublicSubnets []string `json:"publicSubnets"`
	// NodePools name the pools that use it; Nodes count their nodes.
	NodePools []string `json:"nodePools"`
	Nodes     int      `json:"nodes"`
	// ResourceVersion is the object's, as read.
	ResourceVersion string `json:"resourceVersion"`
}

// NodePoolReport is one NodePool whose nodes the move replaces.
type NodePoolReport struct {
	// Name is the pool's name; NodeClass its EC2NodeClass's.
	Name      string `json:"name"`
	NodeClass string `json:"nodeClass"`
	// Budgets are spec.disruption.budgets as read (nil: absent, and
	// Karpenter applies 10%): what Rollback restores.
	Budgets []karpenterapi.Budget `json:"budgets"`
	// Nodes are the pool's nodes now; PublicNodes those with a public
	// address or in a public subnet.
	Nodes       int `json:"nodes"`
	PublicNodes int `json:"publicNodes"`
	// AllowedDrift is how many nodes the budgets let drift at once.
	AllowedDrift int `json:"allowedDrift"`
	// ResourceVersion is the object's, as read.
	ResourceVersion string `json:"resourceVersion"`
}

// NodeGroupReport is a group of nodes no NodePool owns: a managed node
// group (eks.amazonaws.com/nodegroup) or self-managed nodes.
type NodeGroupReport struct {
	// Name is the node group's name, or "self-managed".
	Name string `json:"name"`
	// Nodes and PublicNodes count its nodes.
	Nodes       int `json:"nodes"`
	PublicNodes int `json:"publicNodes"`
	// Steps are what to do by hand.
	Steps []string `json:"steps"`
}

// BoundTargetGroup is a target group whose targets are the cluster's
// pods, through a TargetGroupBinding.
type BoundTargetGroup struct {
	// ARN is the target group's.
	ARN tgmigrate.ARN `json:"arn"`
	// Binding is namespace/name of its TargetGroupBinding.
	Binding string `json:"binding"`
	// LoadBalancers are the ARNs of the load balancers that forward to it;
	// Zones the Availability Zones all of them enable.
	LoadBalancers []string `json:"loadBalancers"`
	Zones         []string `json:"zones"`
	// HealthyPodTargets is the healthy pod targets now; Floor the fewest
	// the move lets it have between waves.
	HealthyPodTargets int `json:"healthyPodTargets"`
	Floor             int `json:"floor"`
	// TargetPort is the pods' port, and Networking says what the
	// binding's spec.networking manages ("" when it has none).
	TargetPort int    `json:"targetPort"`
	Networking string `json:"networking,omitempty"`
}

// Estimate is what the drift-driven replacement will take, and the
// assumptions the figure rests on.
type Estimate struct {
	// Nodes is how many nodes will be replaced; Waves how many rounds of
	// at most the budget each.
	Nodes int `json:"nodes"`
	Waves int `json:"waves"`
	// Duration is Waves × (Launch + Drain).
	Duration time.Duration `json:"duration"`
	// Launch and Drain are the per-wave times assumed: a node's launch
	// until Ready, and a node's drain until its instance is terminated.
	Launch time.Duration `json:"launch"`
	Drain  time.Duration `json:"drain"`
	// Assumptions name where Launch and Drain come from.
	Assumptions []string `json:"assumptions"`
}
