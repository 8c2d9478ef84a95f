package tgmigrate

// This file holds the cluster, once: [Cluster], a Kubernetes cluster as
// the packages read it (its name as the LBC tags it, a reader, its VPC and
// address ranges). diagnose.Cluster is an alias; cutover's Env carries
// the same facts as flat fields and builds a Cluster from them in one
// place. The simulator's cluster.Cluster is not this concept: it is the
// simulated cluster itself (its objects and controllers), not a view of
// one.

import "sigs.k8s.io/controller-runtime/pkg/client"

// Cluster is one Kubernetes cluster, as the read paths see it.
type Cluster struct {
	// Name identifies the cluster in a report, and matches the value of
	// the LBC's elbv2.k8s.aws/cluster tag ([TagLBCCluster]). Required and
	// unique.
	Name string `json:"name"`
	// Reader lists the cluster's objects. Required, and not a typed nil.
	// It needs list access to nodes, pods, services and namespaces;
	// targetgroupbindings (elbv2.k8s.aws) and nodeclaims (karpenter.sh) are
	// read when served. Its scheme must register tgbind/v1beta1.
	Reader client.Reader `json:"-"`
	// VPCID is the cluster's VPC. Empty means unknown: the cluster may then
	// own targets of a target group in any VPC. Set it whenever clusters in
	// different VPCs share address space.
	VPCID string `json:"vpcID,omitempty"`
	// CIDRs are the address ranges the cluster's nodes and pods draw from
	// (node and pod subnets). Empty means unknown. When set, they decide
	// whether an IP nobody holds is a ghost (inside) or foreign (outside);
	// when empty, the targets' ports decide (see package diagnose's
	// documentation).
	CIDRs []string `json:"cidrs,omitempty"`
}
