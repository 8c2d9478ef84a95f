package sim

// network.go: the world's network: its security groups, network
// interfaces and instances (package ec2sim), the firewall between the load balancer and
// the cluster, and the EC2 clients of the system under test and the LBC.

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// seedNetwork builds the network's security groups: the load balancer's,
// and the nodes' (tagged as the cluster's, which the pods share under the
// VPC CNI), which lets the load balancer reach the NodePort range and the
// pods' port; and the controller's EC2 client.
func (w *World) seedNetwork() error {
	m, err := ec2sim.New(ec2sim.Options{AccountID: w.cfg.AccountID, Region: DefaultRegion})
	if err != nil {
		return err
	}
	vpc := w.cl.VPCID()
	if err := m.AddVPC(vpc, w.cl.VPCCIDR()); err != nil {
		return err
	}
	if w.lbSG, err = m.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: LoadBalancerSecurityGroup, Name: "alb", VpcID: vpc}); err != nil {
		return err
	}
	if w.nodeSG, err = m.AddSecurityGroup(ec2sim.SecurityGroupSpec{ID: NodeSecurityGroup, Name: "nodes", VpcID: vpc,
		Tags: map[string]string{"kubernetes.io/cluster/" + w.cfg.ClusterName: "owned"}}); err != nil {
		return err
	}
	from := []ec2types.UserIdGroupPair{{GroupId: aws.String(w.lbSG), Description: aws.String("the ALB to the NodePorts")}}
	perms := []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(30000), ToPort: aws.Int32(32767), UserIdGroupPairs: from}}
	if !w.cfg.PodPortBlocked {
		perms = append(perms, ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(DefaultContainerPort), ToPort: aws.Int32(DefaultContainerPort),
			UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(w.lbSG), Description: aws.String("the ALB to the pods")}}})
	}
	if _, err := m.Authorize(w.nodeSG, perms...); err != nil {
		return err
	}
	m.SetInterfaceSource(ec2sim.InterfaceFunc(w.interfaces))
	m.SetInstanceSource(ec2sim.InstanceFunc(w.instances))
	w.ec2 = m
	if w.lbcEC2, err = ec2sim.NewClient(m); err != nil {
		return err
	}
	w.sutEC2, err = ec2sim.NewClient(m)
	return err
}

// interfaces are the network interfaces of the world: one per node that
// is not terminated, its address primary and its pods' secondary (the VPC
// CNI's), in the nodes' security group; a Fargate node's is its pod's
// own, with the one address they share.
func (w *World) interfaces() []ec2sim.Interface {
	byNode := map[string][]string{}
	for _, p := range w.cl.Pods() {
		if p.IP != "" && p.Node != "" {
			byNode[p.Node] = append(byNode[p.Node], p.IP)
		}
	}
	var out []ec2sim.Interface
	for _, n := range w.cl.Nodes() {
		if n.Phase == "Terminated" || n.InternalIP == "" {
			continue
		}
		if n.Fargate {
			// A Fargate pod's own interface: its one address is the
			// pod's and its node's, no instance behind it.
			out = append(out, ec2sim.Interface{
				ID: "eni-0fa" + strings.ReplaceAll(n.InternalIP, ".", ""), VpcID: w.cl.VPCID(), SubnetID: n.SubnetID, AvailabilityZone: n.Zone,
				PrivateIPs: []string{n.InternalIP}, GroupIDs: []string{w.nodeSG},
				Description: "the Fargate interface of " + n.Name,
			})
			continue
		}
		out = append(out, ec2sim.Interface{
			ID: "eni-" + strings.TrimPrefix(n.InstanceID, "i-"), VpcID: w.cl.VPCID(), SubnetID: n.SubnetID, AvailabilityZone: n.Zone,
			PrivateIPs: append([]string{n.InternalIP}, byNode[n.Name]...), GroupIDs: []string{w.nodeSG}, InstanceID: n.InstanceID,
			Description: "the primary interface of " + n.Name,
		})
	}
	return out
}

// instances are the EC2 instances of the world: one per node that is not
// a Fargate pod's, "pending" while it launches, "running" once Ready, and
// "terminated" (with no VPC, subnet or address, as EC2 shows one) once
// Karpenter has terminated it; each in the nodes' security group, tagged as
// Karpenter tags what it launches (its NodePool, the cluster's ownership
// tag, the EKS cluster's name) and named after its node.
func (w *World) instances() []ec2sim.Instance {
	var out []ec2sim.Instance
	for _, n := range w.cl.Nodes() {
		if n.Fargate || n.InstanceID == "" {
			continue
		}
		in := ec2sim.Instance{
			ID: n.InstanceID, InstanceType: n.Labels[cluster.LabelInstanceType], PrivateDNSName: n.Name, LaunchTime: n.LaunchedAt,
			Tags: map[string]string{"Name": n.Name, "kubernetes.io/cluster/" + w.cfg.ClusterName: "owned", "eks:eks-cluster-name": w.cfg.ClusterName},
		}
		if pool := n.Labels[karpenter.LabelNodePool]; pool != "" {
			in.Tags[karpenter.LabelNodePool] = pool
		}
		switch n.Phase {
		case "Terminated":
			in.State = ec2types.InstanceStateNameTerminated
			out = append(out, in)
			continue
		case "Ready":
			in.State = ec2types.InstanceStateNameRunning
		default:
			in.State = ec2types.InstanceStateNamePending
		}
		in.VpcID, in.SubnetID, in.AvailabilityZone, in.PrivateIP = w.cl.VPCID(), n.SubnetID, n.Zone, n.InternalIP
		in.GroupIDs = []string{w.nodeSG}
		out = append(out, in)
	}
	return out
}

// firewall is the network the load balancer sees: the cluster's, behind
// the nodes' security group (which the pods share under the VPC CNI). A
// health check or a request to a port the group does not let the load
// balancer reach times out, as a dropped SYN does: a pod target whose port
// is blocked never turns healthy.
type firewall struct{ w *World }

func (f firewall) allowed(ip string, port int32) bool {
	if f.w.ec2 == nil {
		return true // the network is not built yet
	}
	if _, held := f.w.cl.Owner(ip); !held {
		return true // nothing there: the cluster answers a timeout anyway
	}
	ok, _ := f.w.ec2.Allows(ec2sim.Source{GroupIDs: []string{f.w.lbSG}}, []string{f.w.nodeSG}, "tcp", port)
	return ok
}

// Probe implements elbv2model.Network.
func (f firewall) Probe(ip string, port int32, path string) elbv2model.ProbeResult {
	if !f.allowed(ip, port) {
		return elbv2model.ProbeTimeout
	}
	return f.w.cl.Probe(ip, port, path)
}

// Serve implements elbv2model.Network.
func (f firewall) Serve(ip string, port int32) elbv2model.Answer {
	if !f.allowed(ip, port) {
		return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
	}
	return f.w.cl.Serve(ip, port)
}

// InVPC implements elbv2model.Network.
func (f firewall) InVPC(vpcID, ip string) bool { return f.w.cl.InVPC(vpcID, ip) }

// InstanceIP implements elbv2model.InstanceResolver.
func (f firewall) InstanceIP(id string) (string, bool) { return f.w.cl.InstanceIP(id) }

var _ elbv2model.InstanceResolver = firewall{}

// The security groups of the world's network.
const (
	// LoadBalancerSecurityGroup is the load balancer's.
	LoadBalancerSecurityGroup = "sg-0a1b0000000000a1b"
	// NodeSecurityGroup is the nodes' (and, under the VPC CNI, the
	// pods'), tagged kubernetes.io/cluster/<ClusterName>=owned.
	NodeSecurityGroup = "sg-0e0d0000000000e0d"
)

// EC2 returns the EC2 API to give the system under test (cutover's
// Env.EC2): with Config.Wire, the real *ec2.Client pointed at the
// system under test's endpoint; otherwise [World.SUTEC2] itself.
func (w *World) EC2() ec2sim.API {
	if w.sutEC2SDK != nil {
		return w.sutEC2SDK
	}
	return w.sutEC2
}

// SUTEC2 returns the system under test's EC2 facade: its counts and its
// fault injection, behind the endpoint with Config.Wire.
func (w *World) SUTEC2() *ec2sim.Client { return w.sutEC2 }

// EC2Model returns the network's security groups.
func (w *World) EC2Model() *ec2sim.Model { return w.ec2 }

// LBCEC2 returns the controller's EC2 client, with its fault injection:
// an EC2 that refuses the controller leaves every binding stuck.
func (w *World) LBCEC2() *ec2sim.Client { return w.lbcEC2 }
