package diagnose_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const exampleVPC = "vpc-0a1b2c3d4e5f60718"

// exampleCluster is a cluster with two Karpenter nodes and Service shop/web
// on NodePort 30080.
func exampleCluster() client.Reader {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1beta1.AddToScheme(scheme)
	node := func(name, ip string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{diagnose.LabelNodePool: "default"}},
			Status:     corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}},
		}
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080}}},
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(node("n1", "10.0.1.10"), node("n2", "10.0.2.10"), svc, ns).Build()
}

// exampleELBv2 is a read-only ELBv2 that holds one target group and its
// targets, and counts the calls it answers: all a Diagnose of that target
// group reads. Diagnose takes a tgmigrate.ELBv2ReadAPI, the seven Describe
// calls, so a fake has no write method to stub.
type exampleELBv2 struct {
	tg      elbv2types.TargetGroup
	targets []elbv2types.TargetHealthDescription

	mu    sync.Mutex
	calls map[string]int
}

var _ tgmigrate.ELBv2ReadAPI = (*exampleELBv2)(nil)

func (f *exampleELBv2) count(op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[op]++
}

// Calls returns the calls answered so far, by operation.
func (f *exampleELBv2) Calls() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.calls)
}

func (f *exampleELBv2) DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	f.count("DescribeTargetGroups")
	return &elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{f.tg}}, nil
}

func (f *exampleELBv2) DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	f.count("DescribeTargetHealth")
	return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: f.targets}, nil
}

func (f *exampleELBv2) DescribeTags(_ context.Context, in *elbv2.DescribeTagsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	f.count("DescribeTags")
	out := &elbv2.DescribeTagsOutput{}
	for _, arn := range in.ResourceArns {
		out.TagDescriptions = append(out.TagDescriptions, elbv2types.TagDescription{ResourceArn: aws.String(arn)})
	}
	return out, nil
}

func (f *exampleELBv2) DescribeTargetGroupAttributes(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	f.count("DescribeTargetGroupAttributes")
	return &elbv2.DescribeTargetGroupAttributesOutput{}, nil
}

func (f *exampleELBv2) DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	f.count("DescribeLoadBalancers")
	return &elbv2.DescribeLoadBalancersOutput{}, nil
}

func (f *exampleELBv2) DescribeListeners(context.Context, *elbv2.DescribeListenersInput, ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	f.count("DescribeListeners")
	return &elbv2.DescribeListenersOutput{}, nil
}

func (f *exampleELBv2) DescribeRules(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	f.count("DescribeRules")
	return &elbv2.DescribeRulesOutput{}, nil
}

func ExampleDiagnose() {
	// AWS: a hand-made target group that pins two node IPs on the NodePort;
	// Karpenter has since replaced the node at 10.0.3.10.
	target := func(ip string) elbv2types.TargetHealthDescription {
		return elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: aws.String(ip), Port: aws.Int32(30080), AvailabilityZone: aws.String("eu-west-1a")},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy},
		}
	}
	elb := &exampleELBv2{
		tg: elbv2types.TargetGroup{
			TargetGroupArn:  aws.String("arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"),
			TargetGroupName: aws.String("legacy-web"), TargetType: elbv2types.TargetTypeEnumIp, VpcId: aws.String(exampleVPC),
			Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(30080), HealthCheckEnabled: aws.Bool(true),
			HealthCheckProtocol: elbv2types.ProtocolEnumHttp, HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/"),
		},
		targets: []elbv2types.TargetHealthDescription{target("10.0.1.10"), target("10.0.3.10")},
	}

	rep, err := diagnose.Diagnose(context.Background(), diagnose.Sources{
		Accounts: []diagnose.Account{{ID: "123456789012", Region: "eu-west-1", ELBv2: elb}},
		Clusters: []diagnose.Cluster{{Name: "prod", Reader: exampleCluster(), VPCID: exampleVPC}},
	}, diagnose.Scope{TargetGroupNames: []string{"legacy-web"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range rep.AllFindings() {
		call := strings.TrimSpace(string(f.Next.Op) + " " + f.Next.Strategy)
		fmt.Printf("%s %s: %s\n  next: %s\n  call: %s\n", f.Severity, f.Code, f.Message, f.Remediation, call)
	}
	calls := elb.Calls()
	for _, op := range slices.Sorted(maps.Keys(calls)) {
		fmt.Printf("%s x%d\n", op, calls[op])
	}
	// Output:
	// critical GhostTarget: ghost targets: 1 of 2; no node or pod holds their address now
	//   next: cutover.PlanCutover for legacy-web and Service shop/web port http in cluster prod with strategy in-place: it deregisters the ghosts first, each with its Port
	//   call: cutover.PlanCutover in-place
	// high KarpenterDisruptionRisk: node targets on Karpenter nodes: 1 target on 1 node; every consolidation, drift, expiry or interruption drops them
	//   next: cutover.PlanCutover for legacy-web and Service shop/web port http in cluster prod with strategy in-place: run it before the next disruption
	//   call: cutover.PlanCutover in-place
	// high StaticNodeTarget: node addresses pinned by hand: 1 target on 1 node (port 30080); nothing updates them when nodes change
	//   next: cutover.PlanCutover for legacy-web and Service shop/web port http in cluster prod with strategy in-place: it binds the Service (tgbind, targetType ip, MultiClusterTargetGroup true) and deregisters the node targets once the pods are healthy
	//   call: cutover.PlanCutover in-place
	// medium MissingReadinessGate: ip targets without the LBC readiness gate: namespaces without elbv2.k8s.aws/pod-readiness-gate-inject=enabled: prod/shop
	//   next: label the namespace elbv2.k8s.aws/pod-readiness-gate-inject=enabled before tgbind.Build, then restart the pods once the binding exists
	//   call: label-namespace
	// medium UnmanagedTargetGroup: no TargetGroupBinding and no LBC tags: 2 targets, registered by hand or by another tool; it serves Service shop/web (from node-port)
	//   next: tgbind.Build for Service shop/web port http in cluster prod with MultiClusterTargetGroup true
	//   call: tgbind.Build
	// DescribeTags x1
	// DescribeTargetGroups x1
	// DescribeTargetHealth x1
}

// ExampleClassify is what cutover does for the one target group it
// migrates: list the cluster once, then classify the targets.
func ExampleClassify() {
	ctx := context.Background()
	snap, err := diagnose.TakeSnapshot(ctx, diagnose.Cluster{Name: "prod", Reader: exampleCluster(), VPCID: exampleVPC})
	if err != nil {
		fmt.Println(err)
		return
	}
	set := diagnose.TargetSet{VPCID: exampleVPC, TargetType: "ip", Targets: []diagnose.Target{
		{ID: "10.0.1.10", Port: 30080}, {ID: "10.0.3.10", Port: 30080}, {ID: "10.0.3.10", Port: 443},
	}}
	for _, t := range diagnose.Classify(set, snap) {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s %s %s", t.Key(), t.Class, t.Note)))
	}
	// Output:
	// 10.0.1.10:30080 node
	// 10.0.3.10:30080 ghost no node or pod holds it; port 30080 is the NodePort of shop/web in cluster prod
	// 10.0.3.10:443 foreign no scanned node or pod holds it, and neither its address nor its port is the cluster's
}
