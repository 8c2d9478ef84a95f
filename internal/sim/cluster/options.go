package cluster

// options.go: Options and how their zero values resolve.

import (
	"fmt"
	"net/netip"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/timing"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Default values of [Options].
const (
	DefaultRegion         = "us-east-1"
	DefaultVPCID          = "vpc-0a1b2c3d4e5f60718"
	DefaultVPCCIDR        = "10.0.0.0/16"
	DefaultMaxPodsPerNode = 29 // an m5.large with the VPC CNI
)

// Options configures a [Cluster]. Only Client and Clock are required.
type Options struct {
	// Client is the API the cluster lives in: [NewFakeClient] (the default
	// of the simulation) or a client of a real API server (envtest). The
	// cluster writes through Hub's wrapper of it. Required.
	Client client.Client
	// Clock is the virtual clock of the world. Required.
	Clock *vclock.Clock
	// Hub observes the writes made through the cluster's client, so that the
	// cluster sees what others write (pod deletions, readiness-gate
	// conditions, Services, PodDisruptionBudgets). Nil: the cluster makes
	// its own on Clock; [Cluster.Hub] returns it.
	Hub *Hub
	// Seed seeds the cluster's random stream (instance IDs, name suffixes).
	// The same seed gives the same names. Zero is a valid seed.
	Seed uint64
	// Region of the nodes. Zero: [DefaultRegion].
	Region string
	// VPCID is the cluster's VPC. Zero: [DefaultVPCID].
	VPCID string
	// VPCCIDR is the VPC's IPv4 CIDR, /8 to /20. It is split into eight
	// equal subnets: one private subnet per zone in the first half, one
	// public subnet per zone in the second. Zero: [DefaultVPCCIDR].
	VPCCIDR string
	// Zones are the availability zones, one to four. Zero: the Region's a,
	// b and c.
	Zones []string
	// MaxPodsPerNode caps the pods the scheduler puts on a node. Zero:
	// [DefaultMaxPodsPerNode].
	MaxPodsPerNode int
	// EndpointDelay is the EndpointSlice controller's lag, from a pod change
	// to the EndpointSlice write. Zero: none.
	EndpointDelay time.Duration
	// ProxyDelay is kube-proxy's lag, from an EndpointSlice change to the
	// rules every node forwards its NodePorts with. Zero: none.
	ProxyDelay time.Duration
	// ServerEnforcesPDBs leaves the PodDisruptionBudget check of an
	// eviction to the API server, as against envtest's real API server
	// (whose Eviction API honours PDBs with the status the cluster's
	// disruption controller writes). False (the default, right for the fake
	// client, whose eviction deletes the pod unconditionally): the cluster
	// checks PDBs itself, with the Eviction API's rules, before it calls
	// the Eviction API.
	ServerEnforcesPDBs bool
	// OnEvent receives the cluster's world events (reason, object, message)
	// for the event log. Nil: they are dropped.
	OnEvent func(reason, object, message string)
	// IPReuse hands freed addresses (a terminated node's, a deleted pod's)
	// out again, after their cool-down, to the holders it allows: a new
	// node or a new pod of the same subnet. Zero: off, every address is
	// handed out once. See package timing.
	IPReuse timing.IPReuse
	// FargateNamespace is the namespace a Fargate profile selects: each of
	// its pods runs on a Node of its own (label and NoSchedule taint
	// eks.amazonaws.com/compute-type=fargate, no EC2 instance) whose
	// InternalIP is the pod's address, in a private subnet (the zones in
	// turn); no kube-proxy runs there, so that address serves the pod's
	// port and no NodePort, and the Node goes with its pod. Zero: no
	// Fargate profile, every pod on the EC2 nodes.
	FargateNamespace string
	// OnInstanceTerminated is called, as a world event, with the instance
	// ID of each node whose EC2 instance is terminated, after its addresses
	// stopped answering: the world tells the ELBv2 model, as EC2 tells ELB.
	// Nil: nobody is told.
	OnInstanceTerminated func(instanceID string)
}

type resolved struct {
	Options
	cidr netip.Prefix
}

func (o Options) resolve() (resolved, error) {
	bad := func(field, reason string) (resolved, error) {
		return resolved{}, &ConfigError{Op: "new", Field: field, Reason: reason}
	}
	if o.Client == nil {
		return bad("Client", "is required")
	}
	if o.Clock == nil {
		return bad("Clock", "is required")
	}
	if o.Region == "" {
		o.Region = DefaultRegion
	}
	if o.VPCID == "" {
		o.VPCID = DefaultVPCID
	}
	if o.VPCCIDR == "" {
		o.VPCCIDR = DefaultVPCCIDR
	}
	p, err := netip.ParsePrefix(o.VPCCIDR)
	if err != nil || !p.Addr().Is4() {
		return bad("VPCCIDR", fmt.Sprintf("%q is not an IPv4 CIDR", o.VPCCIDR))
	}
	if p.Bits() < 8 || p.Bits() > 20 {
		return bad("VPCCIDR", fmt.Sprintf("%q: prefix length must be 8 to 20", o.VPCCIDR))
	}
	if len(o.Zones) == 0 {
		o.Zones = []string{o.Region + "a", o.Region + "b", o.Region + "c"}
	}
	if len(o.Zones) > 4 {
		return bad("Zones", fmt.Sprintf("%d zones: at most 4", len(o.Zones)))
	}
	seen := map[string]bool{}
	for _, z := range o.Zones {
		if z == "" || seen[z] {
			return bad("Zones", fmt.Sprintf("zone %q is empty or repeated", z))
		}
		seen[z] = true
	}
	if o.MaxPodsPerNode < 0 {
		return bad("MaxPodsPerNode", "is negative")
	}
	if o.MaxPodsPerNode == 0 {
		o.MaxPodsPerNode = DefaultMaxPodsPerNode
	}
	if o.EndpointDelay < 0 || o.ProxyDelay < 0 {
		return bad("EndpointDelay/ProxyDelay", "is negative")
	}
	if err := (timing.Timings{IPReuse: o.IPReuse}).Validate(); err != nil {
		return bad("IPReuse", err.Error())
	}
	o.IPReuse = timing.Timings{IPReuse: o.IPReuse}.WithDefaults().IPReuse
	return resolved{Options: o, cidr: p.Masked()}, nil
}
