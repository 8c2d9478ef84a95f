package subnets_test

// findings_test.go: one failing world per finding code, each with the
// finding's message, evidence and next call; and the passing variants
// that must make none (egress through endpoints, a path the binding's
// spec.networking manages).

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// replace swaps the world's object of the same kind and name.
func (w *world) replace(o client.Object) {
	for i, x := range w.objs {
		if x.GetName() == o.GetName() && x.GetObjectKind().GroupVersionKind().Kind == o.GetObjectKind().GroupVersionKind().Kind &&
			sameType(x, o) {
			w.objs[i] = o
			return
		}
	}
	w.objs = append(w.objs, o)
}

func sameType(a, b client.Object) bool {
	switch a.(type) {
	case *corev1.Node:
		_, ok := b.(*corev1.Node)
		return ok
	case *corev1.Service:
		_, ok := b.(*corev1.Service)
		return ok
	case *v1beta1.TargetGroupBinding:
		_, ok := b.(*v1beta1.TargetGroupBinding)
		return ok
	}
	return a.GetObjectKind().GroupVersionKind() == b.GetObjectKind().GroupVersionKind()
}

func TestFindings(t *testing.T) {
	tests := []struct {
		name     string
		world    func(w *world)
		input    func(in *subnets.Input)
		code     diagnose.Code
		severity diagnose.Severity
		message  string // a part of the message
		op       diagnose.Operation
		ready    bool
	}{{
		name: "a target group pins node IPs",
		world: func(w *world) {
			w.replace(&corev1.Service{ObjectMeta: w.objs[5].(*corev1.Service).ObjectMeta, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
				Selector: map[string]string{"app": "web"},
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080}}}})
			w.elb.TGs = append(w.elb.TGs, elbv2types.TargetGroup{TargetGroupArn: aws.String(pinARN), TargetGroupName: aws.String("legacy"),
				TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(30080), VpcId: aws.String(vpc), LoadBalancerArns: []string{lbARN}})
			w.elb.Targets[pinARN] = []elbv2types.TargetHealthDescription{healthy("10.0.0.10", 30080), healthy("10.0.1.10", 30080)}
		},
		code: subnets.CodeNodeIPsPinned, severity: diagnose.SeverityCritical, message: "target group legacy (account 111122223333, eu-west-1) pins node IPs",
		op: diagnose.OpPlanCutover,
	}, {
		name:  "the gate cannot be checked",
		world: func(w *world) { w.elb.Fail = map[string]string{"DescribeTargetGroups": "AccessDenied"} },
		code:  subnets.CodePinnedNotChecked, severity: diagnose.SeverityHigh, message: "diagnose scanned no target group", op: diagnose.OpManual,
	}, {
		name:  "subnets not read",
		world: func(w *world) { w.ec2.Fail = map[string]string{"DescribeSubnets": "UnauthorizedOperation"} },
		code:  subnets.CodeSubnetsNotRead, severity: diagnose.SeverityHigh, message: "could not be read", op: diagnose.OpManual,
	}, {
		name:  "a nil DescribeRouteTables output",
		world: func(w *world) { w.ec2.Nil = map[string]bool{"DescribeRouteTables": true} },
		code:  subnets.CodeSubnetsNotRead, severity: diagnose.SeverityHigh, message: "could not be read", op: diagnose.OpManual,
	}, {
		name: "a requested subnet is public",
		input: func(in *subnets.Input) {
			in.PrivateSubnets = []karpenterapi.SelectorTerm{{ID: "subnet-pub-a"}, {ID: "subnet-priv-b"}}
		},
		code: subnets.CodeSubnetNotEligible, severity: diagnose.SeverityHigh, message: "subnet subnet-pub-a (eu-west-1a), selected for the move, is public", op: diagnose.OpManual,
	}, {
		name: "a requested subnet is not in the VPC",
		input: func(in *subnets.Input) {
			in.PrivateSubnets = []karpenterapi.SelectorTerm{{ID: "subnet-elsewhere"}, {Tags: map[string]string{"tier": "private"}}}
		},
		code: subnets.CodeSubnetNotEligible, severity: diagnose.SeverityHigh, message: "subnet subnet-elsewhere, selected for the move, is no subnet of vpc-0abc1234", op: diagnose.OpManual,
	}, {
		name:  "a zone without a private subnet",
		world: func(w *world) { w.ec2.Subnets = w.ec2.Subnets[:3] },
		code:  subnets.CodeNoPrivateSubnet, severity: diagnose.SeverityHigh, message: "zone eu-west-1b (1 node) has no private subnet", op: diagnose.OpManual,
	}, {
		name:  "a subnet too small",
		world: func(w *world) { w.ec2.Subnets[2].AvailableIpAddressCount = aws.Int32(1) },
		code:  subnets.CodeSubnetTooSmall, severity: diagnose.SeverityHigh, message: "zone eu-west-1a needs 2 addresses (1 node + 1 pod) and its private subnets subnet-priv-a have 1 free", op: diagnose.OpManual,
	}, {
		name: "no egress: no NAT and too few endpoints",
		world: func(w *world) {
			w.ec2.RouteTables[2] = table("rtb-priv-a", false, []string{"subnet-priv-a"})
			w.ec2.Endpoints = []ec2types.VpcEndpoint{endpoint("ecr.api", ec2types.VpcEndpointTypeInterface), endpoint("sts", ec2types.VpcEndpointTypeInterface)}
		},
		code: subnets.CodeNoEgress, severity: diagnose.SeverityHigh,
		message: "subnet subnet-priv-a (eu-west-1a) has no NAT route and lacks the VPC endpoints com.amazonaws.eu-west-1.ecr.dkr, com.amazonaws.eu-west-1.s3, com.amazonaws.eu-west-1.ec2",
		op:      diagnose.OpManual,
	}, {
		name:  "a zone not enabled on the load balancer",
		world: func(w *world) { w.elb.LBs[0].AvailabilityZones = w.elb.LBs[0].AvailabilityZones[:1] },
		code:  subnets.CodeZoneNotEnabled, severity: diagnose.SeverityHigh, message: "load balancer web does not enable zone eu-west-1b", op: diagnose.OpManual,
	}, {
		name: "no security-group path",
		world: func(w *world) {
			w.ec2.SecurityGroups[0].IpPermissions[0].UserIdGroupPairs[0].GroupId = aws.String("sg-other")
		},
		code: subnets.CodeSecurityGroupPath, severity: diagnose.SeverityHigh,
		message: "the nodes of EC2NodeClass default would not be reachable by the load balancers of default/web on the pods' port 8080: no ingress rule of sg-nodes allows tcp/8080 from sg-alb",
		op:      diagnose.OpManual,
	}, {
		name: "budgets block drift",
		world: func(w *world) {
			w.replace(nodePool("default", "default", map[string]any{"nodes": "0", "reasons": []any{"Drifted"}}))
		},
		code: subnets.CodeDriftBlocked, severity: diagnose.SeverityHigh, message: "NodePool default's budgets allow 0 of its 2 nodes to drift at once", op: diagnose.OpManual,
	}, {
		name: "a managed node group",
		world: func(w *world) {
			n := node("mng-1", zoneA, "10.0.0.20", "", true)
			n.Labels[subnets.LabelNodeGroup] = "ng-1"
			w.objs = append(w.objs, n)
		},
		code: subnets.CodeManagedNodeGroup, severity: diagnose.SeverityMedium, message: "managed node group ng-1: 1 node (1 with a public address)", op: diagnose.OpManual, ready: true,
	}, {
		name:  "self-managed nodes",
		world: func(w *world) { w.objs = append(w.objs, node("self-1", zoneB, "10.0.1.20", "", false)) },
		code:  subnets.CodeSelfManagedNodes, severity: diagnose.SeverityMedium, message: "self-managed nodes: 1 node (0 with a public address)", op: diagnose.OpManual, ready: true,
	}}
	seen := map[diagnose.Code]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			if tt.world != nil {
				tt.world(w)
			}
			rep := check(t, w, tt.input)
			f := findingOf(t, rep, tt.code)
			seen[tt.code] = true
			if f.Severity != tt.severity || f.Next.Op != tt.op || f.Cluster != cluster || f.Signal == "" || f.Remediation == "" {
				t.Errorf("finding = %+v, want severity %s, next %s, the cluster, a signal and a remediation", f, tt.severity, tt.op)
			}
			if !strings.Contains(f.Message, tt.message) {
				t.Errorf("message = %q, want it to say %q", f.Message, tt.message)
			}
			if tt.op == diagnose.OpManual && f.Next.Reason == "" {
				t.Errorf("a manual next call without its reason: %+v", f.Next)
			}
			if rep.Ready != tt.ready {
				t.Errorf("Ready = %v, want %v (findings %v)", rep.Ready, tt.ready, codes(rep))
			}
		})
	}
	for _, r := range subnets.Rules() {
		if !seen[r.Code] {
			t.Errorf("code %s has no failing test", r.Code)
		}
	}
}

func endpoint(svc string, typ ec2types.VpcEndpointType, routeTables ...string) ec2types.VpcEndpoint {
	return ec2types.VpcEndpoint{VpcEndpointId: aws.String("vpce-" + svc), VpcId: aws.String(vpc), ServiceName: aws.String("com.amazonaws." + region + "." + svc),
		VpcEndpointType: typ, State: "available", RouteTableIds: routeTables}
}

func TestPinnedFindingCarriesDiagnosesCall(t *testing.T) {
	w := newWorld()
	w.replace(&corev1.Service{ObjectMeta: w.objs[5].(*corev1.Service).ObjectMeta, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Selector: map[string]string{"app": "web"},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080}}}})
	w.elb.TGs = append(w.elb.TGs, elbv2types.TargetGroup{TargetGroupArn: aws.String(pinARN), TargetGroupName: aws.String("legacy"),
		TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(30080), VpcId: aws.String(vpc), LoadBalancerArns: []string{lbARN}})
	w.elb.Targets[pinARN] = []elbv2types.TargetHealthDescription{healthy("10.0.0.10", 30080)}
	f := findingOf(t, check(t, w, nil), subnets.CodeNodeIPsPinned)
	if f.TargetGroupARN.String() != pinARN || f.Next.TargetGroupARN.String() != pinARN || f.Next.Strategy != "in-place" {
		t.Errorf("finding = %+v, want the pinned target group and diagnose's in-place PlanCutover call", f)
	}
	if f.Evidence.Details["targetGroup"] != "legacy" || !contains(f.Evidence.Names, "n1") {
		t.Errorf("evidence = %+v, want the target group named and the node", f.Evidence)
	}
}

func TestEgressThroughEndpoints(t *testing.T) {
	w := newWorld()
	w.ec2.RouteTables[2] = table("rtb-priv-a", false, []string{"subnet-priv-a"})
	w.ec2.Endpoints = []ec2types.VpcEndpoint{
		endpoint("ecr.api", ec2types.VpcEndpointTypeInterface), endpoint("ecr.dkr", ec2types.VpcEndpointTypeInterface),
		endpoint("s3", ec2types.VpcEndpointTypeGateway, "rtb-priv-a"), endpoint("sts", ec2types.VpcEndpointTypeInterface),
		endpoint("ec2", ec2types.VpcEndpointTypeInterface),
	}
	rep := check(t, w, nil)
	if !rep.Ready || rep.PrivateSubnets[0].Egress != subnets.EgressEndpoints {
		t.Fatalf("Ready = %v, subnets %+v, findings %v: want egress through the endpoints", rep.Ready, rep.PrivateSubnets, codes(rep))
	}
	// A Gateway endpoint of S3 on another route table does not serve it.
	w.ec2.Endpoints[2] = endpoint("s3", ec2types.VpcEndpointTypeGateway, "rtb-priv-b")
	f := findingOf(t, check(t, w, nil), subnets.CodeNoEgress)
	if !cmpEqual(f.Evidence.Names, []string{"com.amazonaws.eu-west-1.s3", "subnet-priv-a"}) {
		t.Errorf("evidence names = %v, want the subnet and the missing s3 endpoint", f.Evidence.Names)
	}
}

func TestNetworkingManagesThePath(t *testing.T) {
	w := newWorld()
	w.ec2.SecurityGroups[0].IpPermissions[0].UserIdGroupPairs[0].GroupId = aws.String("sg-other")
	port := intstr.FromInt32(8080)
	w.replace(&v1beta1.TargetGroupBinding{ObjectMeta: w.objs[7].(*v1beta1.TargetGroupBinding).ObjectMeta, Spec: v1beta1.TargetGroupBindingSpec{
		TargetGroupARN: tgARN, ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromInt32(80)},
		Networking: &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
			From:  []v1beta1.NetworkingPeer{{SecurityGroup: &v1beta1.SecurityGroup{GroupID: "sg-alb"}}},
			Ports: []v1beta1.NetworkingPort{{Port: &port}}}}}}})
	rep := check(t, w, nil)
	if !rep.Ready {
		t.Fatalf("findings %v: the binding's spec.networking opens the path", codes(rep))
	}
	if got := rep.TargetGroups[0].Networking; got != "the controller manages ingress tcp/8080 from sg-alb on the targets' security groups" {
		t.Errorf("Networking = %q", got)
	}
}

func TestSecurityGroupsForPodsAreNoted(t *testing.T) {
	w := newWorld()
	w.ec2.SecurityGroups[0].IpPermissions = nil
	for _, o := range w.objs {
		if p, ok := o.(*corev1.Pod); ok && p.Name == "web-1" {
			p.Annotations = map[string]string{subnets.AnnotationPodENI: `[{"eniId":"eni-1"}]`}
		}
	}
	rep := check(t, w, nil)
	if !rep.Ready || !hasNote(rep, "security groups for pods") {
		t.Errorf("Ready = %v, findings %v, notes %v: want the path left to the pods' own groups, and said", rep.Ready, codes(rep), rep.Notes)
	}
}

func hasNote(rep *subnets.Readiness, part string) bool {
	for _, n := range rep.Notes {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

func cmpEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
