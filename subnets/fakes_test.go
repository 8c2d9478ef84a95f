package subnets_test

// fakes_test.go: the tests' world: a fake EC2 of SDK types (paged, with
// injected errors and nil outputs, counting calls), an ELBv2 fake behind
// the one generated mock (internal/mocks), and a fake cluster
// (controller-runtime's fake client, Karpenter's kinds unstructured).

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	account = "111122223333"
	region  = "eu-west-1"
	vpc     = "vpc-0abc1234"
	cluster = "prod"
	zoneA   = "eu-west-1a"
	zoneB   = "eu-west-1b"
	tgARN   = "arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/web/0123456789abcdef"
	pinARN  = "arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/legacy/fedcba9876543210"
	lbARN   = "arn:aws:elasticloadbalancing:eu-west-1:111122223333:loadbalancer/app/web/0011223344556677"
)

// fakeEC2 answers from its fields, PageSize items a page; Fail fails an
// operation with an AWS error code, Nil makes it answer (nil, nil).
type fakeEC2 struct {
	mu             sync.Mutex
	Subnets        []ec2types.Subnet
	RouteTables    []ec2types.RouteTable
	Endpoints      []ec2types.VpcEndpoint
	SecurityGroups []ec2types.SecurityGroup
	PageSize       int
	Fail           map[string]string
	Nil            map[string]bool
	Calls          map[string]int
}

func (f *fakeEC2) enter(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Calls == nil {
		f.Calls = map[string]int{}
	}
	f.Calls[op]++
	if code := f.Fail[op]; code != "" {
		return &smithy.OperationError{ServiceID: "EC2", OperationName: op, Err: &smithy.GenericAPIError{Code: code, Message: "you are not authorized to perform this operation"}}
	}
	return nil
}

func (f *fakeEC2) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.Calls {
		n += c
	}
	return n
}

// page cuts items at token (an offset), PageSize a page.
func page[T any](f *fakeEC2, items []T, token *string) ([]T, *string) {
	size := f.PageSize
	if size == 0 {
		size = 2
	}
	from, _ := strconv.Atoi(aws.ToString(token))
	to := min(from+size, len(items))
	var next *string
	if to < len(items) {
		next = aws.String(strconv.Itoa(to))
	}
	return items[from:to], next
}

func (f *fakeEC2) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	if err := f.enter("DescribeSubnets"); err != nil || f.Nil["DescribeSubnets"] {
		return nil, err
	}
	items, next := page(f, f.Subnets, in.NextToken)
	return &ec2.DescribeSubnetsOutput{Subnets: items, NextToken: next}, nil
}

func (f *fakeEC2) DescribeRouteTables(_ context.Context, in *ec2.DescribeRouteTablesInput, _ ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	if err := f.enter("DescribeRouteTables"); err != nil || f.Nil["DescribeRouteTables"] {
		return nil, err
	}
	items, next := page(f, f.RouteTables, in.NextToken)
	return &ec2.DescribeRouteTablesOutput{RouteTables: items, NextToken: next}, nil
}

func (f *fakeEC2) DescribeVpcEndpoints(_ context.Context, in *ec2.DescribeVpcEndpointsInput, _ ...func(*ec2.Options)) (*ec2.DescribeVpcEndpointsOutput, error) {
	if err := f.enter("DescribeVpcEndpoints"); err != nil || f.Nil["DescribeVpcEndpoints"] {
		return nil, err
	}
	items, next := page(f, f.Endpoints, in.NextToken)
	return &ec2.DescribeVpcEndpointsOutput{VpcEndpoints: items, NextToken: next}, nil
}

func (f *fakeEC2) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	if err := f.enter("DescribeSecurityGroups"); err != nil || f.Nil["DescribeSecurityGroups"] {
		return nil, err
	}
	var groups []ec2types.SecurityGroup
	for _, g := range f.SecurityGroups {
		for _, id := range in.GroupIds {
			if aws.ToString(g.GroupId) == id {
				groups = append(groups, g)
			}
		}
	}
	items, next := page(f, groups, in.NextToken)
	return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: items, NextToken: next}, nil
}

// elbData is the ELBv2 fake's state: target groups, their targets, load
// balancers; Fail fails an operation with an AWS error code.
type elbData struct {
	mu      sync.Mutex
	TGs     []elbv2types.TargetGroup
	Targets map[string][]elbv2types.TargetHealthDescription
	LBs     []elbv2types.LoadBalancer
	Fail    map[string]string
	Calls   map[string]int
}

func (d *elbData) enter(op string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.Calls == nil {
		d.Calls = map[string]int{}
	}
	d.Calls[op]++
	if code := d.Fail[op]; code != "" {
		return &smithy.OperationError{ServiceID: "ElasticLoadBalancingV2", OperationName: op, Err: &smithy.GenericAPIError{Code: code, Message: "denied"}}
	}
	return nil
}

func (d *elbData) total() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.Calls {
		n += c
	}
	return n
}

// mockELB is the generated mock, every Describe answered from d.
func mockELB(t *testing.T, d *elbData) *mocks.MockELBv2API {
	m := mocks.NewMockELBv2API(gomock.NewController(t))
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
			if err := d.enter("DescribeTargetGroups"); err != nil {
				return nil, err
			}
			var out []elbv2types.TargetGroup
			for _, tg := range d.TGs {
				arn := aws.ToString(tg.TargetGroupArn)
				switch {
				case len(in.TargetGroupArns) > 0 && !contains(in.TargetGroupArns, arn):
				case len(in.Names) > 0 && !contains(in.Names, aws.ToString(tg.TargetGroupName)):
				case in.LoadBalancerArn != nil && !contains(tg.LoadBalancerArns, *in.LoadBalancerArn):
				default:
					out = append(out, tg)
				}
			}
			if len(out) == 0 && len(in.TargetGroupArns)+len(in.Names) > 0 {
				return nil, &smithy.OperationError{ServiceID: "ElasticLoadBalancingV2", OperationName: "DescribeTargetGroups", Err: &smithy.GenericAPIError{Code: "TargetGroupNotFound"}}
			}
			return &elbv2.DescribeTargetGroupsOutput{TargetGroups: out}, nil
		})
	m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
			if err := d.enter("DescribeTargetHealth"); err != nil {
				return nil, err
			}
			return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: d.Targets[aws.ToString(in.TargetGroupArn)]}, nil
		})
	m.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTagsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
			if err := d.enter("DescribeTags"); err != nil {
				return nil, err
			}
			var out []elbv2types.TagDescription
			for _, arn := range in.ResourceArns {
				out = append(out, elbv2types.TagDescription{ResourceArn: aws.String(arn)})
			}
			return &elbv2.DescribeTagsOutput{TagDescriptions: out}, nil
		})
	m.EXPECT().DescribeTargetGroupAttributes(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, _ *elbv2.DescribeTargetGroupAttributesInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
			return &elbv2.DescribeTargetGroupAttributesOutput{}, d.enter("DescribeTargetGroupAttributes")
		})
	m.EXPECT().DescribeLoadBalancers(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeLoadBalancersInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
			if err := d.enter("DescribeLoadBalancers"); err != nil {
				return nil, err
			}
			var out []elbv2types.LoadBalancer
			for _, lb := range d.LBs {
				if len(in.LoadBalancerArns) == 0 || contains(in.LoadBalancerArns, aws.ToString(lb.LoadBalancerArn)) {
					out = append(out, lb)
				}
			}
			return &elbv2.DescribeLoadBalancersOutput{LoadBalancers: out}, nil
		})
	m.EXPECT().DescribeListeners(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, _ *elbv2.DescribeListenersInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
			return &elbv2.DescribeListenersOutput{}, d.enter("DescribeListeners")
		})
	m.EXPECT().DescribeRules(gomock.Any(), gomock.Any(), gomock.Any()).AnyTimes().DoAndReturn(
		func(_ context.Context, _ *elbv2.DescribeRulesInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
			return &elbv2.DescribeRulesOutput{}, d.enter("DescribeRules")
		})
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// world is one test's inputs, ready by default: two zones, each with a
// public and a private subnet (NAT), two Karpenter nodes in public
// subnets, a Service's two pods bound to an ip target group behind an ALB
// that enables both zones, the nodes' security group open to the ALB's.
type world struct {
	ec2    *fakeEC2
	elb    *elbData
	objs   []client.Object
	noKarp bool           // the cluster does not serve Karpenter's kinds
	lists  int            // the cluster's lists, counted
	byKind map[string]int // and by the kind of list (NodeList, PodList, NodePoolList...)
	// failList makes the lists of these kinds (as listKind names them) fail.
	failList map[string]error
	listMux  sync.Mutex
}

func tags(kv ...string) []ec2types.Tag {
	var out []ec2types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, ec2types.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

func subnet(id, zone, cidr string, free int32, tier string) ec2types.Subnet {
	return ec2types.Subnet{SubnetId: aws.String(id), VpcId: aws.String(vpc), AvailabilityZone: aws.String(zone), CidrBlock: aws.String(cidr),
		AvailableIpAddressCount: aws.Int32(free), MapPublicIpOnLaunch: aws.Bool(false), Tags: tags("tier", tier)}
}

func table(id string, main bool, subnetIDs []string, routes ...ec2types.Route) ec2types.RouteTable {
	rt := ec2types.RouteTable{RouteTableId: aws.String(id), VpcId: aws.String(vpc),
		Routes: append([]ec2types.Route{{DestinationCidrBlock: aws.String("10.0.0.0/16"), GatewayId: aws.String("local")}}, routes...)}
	if main {
		rt.Associations = append(rt.Associations, ec2types.RouteTableAssociation{Main: aws.Bool(true)})
	}
	for _, s := range subnetIDs {
		rt.Associations = append(rt.Associations, ec2types.RouteTableAssociation{SubnetId: aws.String(s)})
	}
	return rt
}

func igw() ec2types.Route {
	return ec2types.Route{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-1")}
}

func nat(id string) ec2types.Route {
	return ec2types.Route{DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: aws.String(id)}
}

func node(name, zone, ip, pool string, external bool) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyZone: zone}},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}}}
	if pool != "" {
		n.Labels[karpenterapi.LabelNodePool] = pool
	}
	if external {
		n.Status.Addresses = append(n.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "52.0.0." + ip[len(ip)-2:]})
	}
	return n
}

func pod(name, nodeName, ip string, hostNetwork bool) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:   corev1.PodSpec{NodeName: nodeName, HostNetwork: hostNetwork, Containers: []corev1.Container{{Name: "web", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
}

func nodeClass(name string, terms []any, public *bool, groups ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"subnetSelectorTerms": terms}}}
	u.SetGroupVersionKind(karpenterapi.EC2NodeClassGVK)
	u.SetName(name)
	if public != nil {
		_ = unstructured.SetNestedField(u.Object, *public, "spec", "associatePublicIPAddress")
	}
	var sgs []any
	for _, g := range groups {
		sgs = append(sgs, map[string]any{"id": g})
	}
	if sgs != nil {
		_ = unstructured.SetNestedSlice(u.Object, sgs, "status", "securityGroups")
	}
	return u
}

func nodePool(name, class string, budgets ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": class}}}}}}
	u.SetGroupVersionKind(karpenterapi.NodePoolGVK)
	u.SetName(name)
	if budgets != nil {
		var bs []any
		for _, b := range budgets {
			bs = append(bs, b)
		}
		_ = unstructured.SetNestedSlice(u.Object, bs, "spec", "disruption", "budgets")
	}
	return u
}

func healthy(ip string, port int32) elbv2types.TargetHealthDescription {
	return elbv2types.TargetHealthDescription{Target: &elbv2types.TargetDescription{Id: aws.String(ip), Port: aws.Int32(port)},
		TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy}}
}

func newWorld() *world {
	w := &world{}
	w.ec2 = &fakeEC2{
		Subnets: []ec2types.Subnet{
			subnet("subnet-pub-a", zoneA, "10.0.0.0/24", 200, "public"),
			subnet("subnet-pub-b", zoneB, "10.0.1.0/24", 200, "public"),
			subnet("subnet-priv-a", zoneA, "10.0.10.0/24", 100, "private"),
			subnet("subnet-priv-b", zoneB, "10.0.11.0/24", 100, "private"),
		},
		RouteTables: []ec2types.RouteTable{
			table("rtb-main", true, nil),
			table("rtb-pub", false, []string{"subnet-pub-a", "subnet-pub-b"}, igw()),
			table("rtb-priv-a", false, []string{"subnet-priv-a"}, nat("nat-a")),
			table("rtb-priv-b", false, []string{"subnet-priv-b"}, nat("nat-b")),
		},
		SecurityGroups: []ec2types.SecurityGroup{{GroupId: aws.String("sg-nodes"), IpPermissions: []ec2types.IpPermission{{
			IpProtocol: aws.String("tcp"), FromPort: aws.Int32(8080), ToPort: aws.Int32(8080),
			UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String("sg-alb")}}}}}},
	}
	w.elb = &elbData{
		TGs: []elbv2types.TargetGroup{{TargetGroupArn: aws.String(tgARN), TargetGroupName: aws.String("web"), TargetType: elbv2types.TargetTypeEnumIp,
			Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(8080), VpcId: aws.String(vpc), LoadBalancerArns: []string{lbARN}}},
		Targets: map[string][]elbv2types.TargetHealthDescription{tgARN: {healthy("10.0.0.50", 8080), healthy("10.0.1.50", 8080)}},
		LBs: []elbv2types.LoadBalancer{{LoadBalancerArn: aws.String(lbARN), LoadBalancerName: aws.String("web"), SecurityGroups: []string{"sg-alb"},
			AvailabilityZones: []elbv2types.AvailabilityZone{{ZoneName: aws.String(zoneA), SubnetId: aws.String("subnet-pub-a")}, {ZoneName: aws.String(zoneB), SubnetId: aws.String("subnet-pub-b")}}}},
	}
	public := true
	w.objs = []client.Object{
		node("n1", zoneA, "10.0.0.10", "default", true),
		node("n2", zoneB, "10.0.1.10", "default", false),
		pod("web-1", "n1", "10.0.0.50", false),
		pod("web-2", "n2", "10.0.1.50", false),
		pod("agent-1", "n1", "10.0.0.10", true),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		&v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: tgARN, ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromInt32(80)}}},
		nodeClass("default", []any{map[string]any{"tags": map[string]any{"tier": "public"}}}, &public, "sg-nodes"),
		nodePool("default", "default"),
	}
	return w
}

// input builds the world's clients and Input.
func (w *world) input(t *testing.T) subnets.Input {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	objs := w.objs
	if !w.noKarp {
		for _, gvk := range []struct{ kind, list string }{{"EC2NodeClass", "EC2NodeClassList"}, {"NodePool", "NodePoolList"}} {
			gv := karpenterapi.NodePoolGVK.GroupVersion()
			if gvk.kind == "EC2NodeClass" {
				gv = karpenterapi.EC2NodeClassGVK.GroupVersion()
			}
			s.AddKnownTypeWithName(gv.WithKind(gvk.kind), &unstructured.Unstructured{})
			s.AddKnownTypeWithName(gv.WithKind(gvk.list), &unstructured.UnstructuredList{})
		}
	} else {
		objs = nil
		for _, o := range w.objs {
			if _, ok := o.(*unstructured.Unstructured); !ok {
				objs = append(objs, o)
			}
		}
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()
	funcs := interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
		w.listMux.Lock()
		w.lists++
		if w.byKind == nil {
			w.byKind = map[string]int{}
		}
		w.byKind[listKind(l)]++
		w.listMux.Unlock()
		if err := w.failList[listKind(l)]; err != nil {
			return err
		}
		if u, ok := l.(*unstructured.UnstructuredList); ok && w.noKarp {
			// As an API server without Karpenter's CRDs answers.
			gvk := u.GroupVersionKind()
			return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
		}
		return c.List(ctx, l, opts...)
	}}
	return subnets.Input{Cluster: cluster, AccountID: account, Region: region, VPCID: vpc,
		Reader: interceptor.NewClient(c, funcs), EC2: w.ec2, ELBv2: mockELB(t, w.elb)}
}

// listKind names a list by its kind: NodeList, PodList, or an
// unstructured list's kind (NodePoolList, PodDisruptionBudgetList...).
func listKind(l client.ObjectList) string {
	if u, ok := l.(*unstructured.UnstructuredList); ok {
		return u.GetKind()
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", l), "*")
}
