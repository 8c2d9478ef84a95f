package diagnose

// The fixtures of the finding tests are plain data: a world of target
// groups, load balancers and clusters. This file turns a world into gomock
// expectations (with the exact call counts the API-economy contract sets)
// and a controller-runtime fake client. A simulator-based version of the
// same tests builds the same worlds in internal/sim instead.

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire/wiretest"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	testAccount = "123456789012"
	testRegion  = "eu-west-1"
	testVPC     = "vpc-0a1b2c3d4e5f60718"
)

// world is a fleet: target groups and load balancers in one account, and
// the clusters behind them.
type world struct {
	Account, Region string // default testAccount, testRegion
	TargetGroups    []tgFix
	LoadBalancers   []lbFix
	Clusters        []clusterFix
	// EC2 is nil for "no EC2 client".
	EC2 *ec2Fix
}

type tgFix struct {
	Name       string
	Type       string // default ip
	Protocol   string // default HTTP
	Port       int32
	VPC        string // default testVPC
	HCPort     string // default traffic-port
	HCPath     string // default /
	HCProtocol string // default HTTP
	Tags       map[string]string
	LBs        []string // lbFix names
	Targets    []targetFix
	// Account overrides the ARN's account (a target group another account owns).
	Account string
}

type targetFix struct {
	ID     string
	Port   int32
	State  string // default healthy
	Reason string
	AZ     string // default eu-west-1a
}

type lbFix struct {
	Name      string
	Type      string // default app
	Listeners []listenerFix
}

type listenerFix struct {
	Port     int32
	Protocol string
	Rules    []ruleFix
}

type ruleFix struct {
	Priority string // "default" for the default rule
	// Forward maps target-group names to weights; one entry is a plain forward.
	Forward map[string]int32
}

type clusterFix struct {
	Name         string
	VPC          string // "" = unknown
	CIDRs        []string
	Nodes        []nodeFix
	Pods         []podFix
	Services     []svcFix
	Namespaces   []nsFix
	Bindings     []bindingFix
	NodeClaims   []nodeClaimFix
	NoBindingCRD bool
	// ListErr, when set, fails the List of that kind: "pods", "nodes"...
	ListErr map[string]error
}

type nodeFix struct {
	Name, IP, ExternalIP, Instance, Zone, NodePool string
	Disrupted, Excluded, DoNotDisrupt              bool
}

type podFix struct {
	NS, Name, Node, IP string
	Labels             map[string]string
	Ports              []portFix
	ProbePath          string // "" = no readiness probe
	ProbePort          string // container-port name or number
	ProbeScheme        string
	Gates              []string
	NotReady           bool
}

type portFix struct {
	Name string
	Port int32
}

type svcFix struct {
	NS, Name string
	Selector map[string]string
	Ports    []svcPortFix
}

type svcPortFix struct {
	Name       string
	Port       int32
	TargetPort string // number or name; "" = Port
	NodePort   int32
}

type nsFix struct {
	Name   string
	Labels map[string]string
}

type bindingFix struct {
	NS, Name, TG, Service, Port string
	Multi                       bool
	Type                        string
}

type nodeClaimFix struct {
	Name, Node, ExpireAfter string
	Created                 time.Time
	Drifted, Consolidatable bool
}

type ec2Fix struct {
	// Subnet maps instance IDs to subnet IDs.
	Subnet map[string]string
	// Public lists the subnets whose route table sends 0.0.0.0/0 to an internet gateway.
	Public map[string]bool
}

func (w world) account() string { return cmpOr(w.Account, testAccount) }
func (w world) region() string  { return cmpOr(w.Region, testRegion) }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func hexID(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("%016x", h.Sum64())
}

func (w world) tgARN(name string) string {
	acct := w.account()
	for _, tg := range w.TargetGroups {
		if tg.Name == name && tg.Account != "" {
			acct = tg.Account
		}
	}
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:targetgroup/%s/%s", w.region(), acct, name, hexID("tg/"+name))
}

func (w world) lbARN(name string) string {
	typ := "app"
	for _, lb := range w.LoadBalancers {
		if lb.Name == name && lb.Type != "" {
			typ = lb.Type
		}
	}
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:loadbalancer/%s/%s/%s", w.region(), w.account(), typ, name, hexID("lb/"+name))
}

func (w world) listenerARN(lb string, i int) string {
	return strings.Replace(w.lbARN(lb), ":loadbalancer/", ":listener/", 1) + "/" + hexID(fmt.Sprintf("l/%s/%d", lb, i))
}

func (w world) tgByARN(arn string) (tgFix, bool) {
	// The name is in the ARN: find it, then check the whole ARN.
	parts := strings.Split(arn, "/")
	if len(parts) != 3 {
		return tgFix{}, false
	}
	for _, tg := range w.TargetGroups {
		if tg.Name == parts[1] && w.tgARN(tg.Name) == arn {
			return tg, true
		}
	}
	return tgFix{}, false
}

func (w world) elbTargetGroup(tg tgFix) elbv2types.TargetGroup {
	var lbs []string
	for _, lb := range tg.LBs {
		lbs = append(lbs, w.lbARN(lb))
	}
	return elbv2types.TargetGroup{
		TargetGroupArn: aws.String(w.tgARN(tg.Name)), TargetGroupName: aws.String(tg.Name),
		TargetType: elbv2types.TargetTypeEnum(cmpOr(tg.Type, "ip")), Protocol: elbv2types.ProtocolEnum(cmpOr(tg.Protocol, "HTTP")),
		Port: aws.Int32(tg.Port), VpcId: aws.String(cmpOr(tg.VPC, testVPC)), IpAddressType: "ipv4",
		HealthCheckEnabled: aws.Bool(true), HealthCheckPort: aws.String(cmpOr(tg.HCPort, "traffic-port")),
		HealthCheckPath: aws.String(cmpOr(tg.HCPath, "/")), HealthCheckProtocol: elbv2types.ProtocolEnum(cmpOr(tg.HCProtocol, "HTTP")),
		HealthCheckIntervalSeconds: aws.Int32(15), HealthCheckTimeoutSeconds: aws.Int32(5),
		HealthyThresholdCount: aws.Int32(2), UnhealthyThresholdCount: aws.Int32(2),
		Matcher: &elbv2types.Matcher{HttpCode: aws.String("200")}, LoadBalancerArns: lbs,
	}
}

func (w world) health(tg tgFix) *elbv2.DescribeTargetHealthOutput {
	out := &elbv2.DescribeTargetHealthOutput{}
	for _, t := range tg.Targets {
		out.TargetHealthDescriptions = append(out.TargetHealthDescriptions, elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: aws.String(t.ID), Port: aws.Int32(t.Port), AvailabilityZone: aws.String(cmpOr(t.AZ, "eu-west-1a"))},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnum(cmpOr(t.State, "healthy")), Reason: elbv2types.TargetHealthReasonEnum(t.Reason)},
		})
	}
	return out
}

func (w world) listeners(lb lbFix) *elbv2.DescribeListenersOutput {
	out := &elbv2.DescribeListenersOutput{}
	for i, l := range lb.Listeners {
		el := elbv2types.Listener{ListenerArn: aws.String(w.listenerARN(lb.Name, i)), LoadBalancerArn: aws.String(w.lbARN(lb.Name)),
			Port: aws.Int32(l.Port), Protocol: elbv2types.ProtocolEnum(l.Protocol)}
		for _, r := range l.Rules {
			if r.Priority == "default" {
				el.DefaultActions = w.actions(r)
			}
		}
		out.Listeners = append(out.Listeners, el)
	}
	return out
}

func (w world) actions(r ruleFix) []elbv2types.Action {
	if len(r.Forward) == 0 {
		return []elbv2types.Action{{Type: elbv2types.ActionTypeEnumFixedResponse}}
	}
	act := elbv2types.Action{Type: elbv2types.ActionTypeEnumForward}
	if len(r.Forward) == 1 {
		for name := range r.Forward {
			act.TargetGroupArn = aws.String(w.tgARN(name))
		}
	}
	act.ForwardConfig = &elbv2types.ForwardActionConfig{}
	for _, name := range slices.Sorted(maps.Keys(r.Forward)) {
		act.ForwardConfig.TargetGroups = append(act.ForwardConfig.TargetGroups,
			elbv2types.TargetGroupTuple{TargetGroupArn: aws.String(w.tgARN(name)), Weight: aws.Int32(r.Forward[name])})
	}
	return []elbv2types.Action{act}
}

func (w world) rules(lb lbFix, i int) *elbv2.DescribeRulesOutput {
	out := &elbv2.DescribeRulesOutput{}
	for j, r := range lb.Listeners[i].Rules {
		out.Rules = append(out.Rules, elbv2types.Rule{
			RuleArn:  aws.String(strings.Replace(w.listenerARN(lb.Name, i), ":listener/", ":listener-rule/", 1) + "/" + hexID(fmt.Sprint(j))),
			Priority: aws.String(r.Priority), IsDefault: aws.Bool(r.Priority == "default"), Actions: w.actions(r),
		})
	}
	return out
}

func tagList(m map[string]string) []elbv2types.Tag {
	var out []elbv2types.Tag
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, elbv2types.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

func notFound(arn string) error {
	return &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found: " + arn)}
}

// expectAll sets the expectations of a Diagnose call with Scope{All: true}
// over w: every call the API-economy contract allows, each exactly as often
// as it allows, answered from w.
func expectAll(m *mocks.MockELBv2API, w world) {
	tgs := w.TargetGroups
	pages := max(1, (len(tgs)+PageSize-1)/PageSize)
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
		return aws.ToInt32(in.PageSize) == PageSize && in.LoadBalancerArn == nil && in.Names == nil && in.TargetGroupArns == nil
	}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(pages)
	expectRest(m, w, tgs)
}

// expectRest sets the expectations of everything after discovery, for the
// target groups in scope.
func expectRest(m *mocks.MockELBv2API, w world, inScope []tgFix) {
	expectRestTags(m, w, inScope, inScope)
}

// expectRestTags is expectRest when the tags of tagged are read but only
// inScope survive the tag filter.
func expectRestTags(m *mocks.MockELBv2API, w world, tagged, inScope []tgFix) {
	var own []tgFix
	for _, tg := range tagged {
		if tg.Account == "" {
			own = append(own, tg)
		}
	}
	if n := (len(own) + TagBatch - 1) / TagBatch; n > 0 {
		m.EXPECT().DescribeTags(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTagsInput) bool {
			return len(in.ResourceArns) >= 1 && len(in.ResourceArns) <= TagBatch
		}), gomock.Any()).DoAndReturn(w.describeTags).Times(n)
	}
	lbs := map[string]bool{}
	for _, tg := range inScope {
		if tg.Account != "" {
			continue
		}
		arn := w.tgARN(tg.Name)
		m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetHealthInput) bool {
			return aws.ToString(in.TargetGroupArn) == arn && in.Targets == nil
		}), gomock.Any()).Return(w.health(tg), nil).Times(1)
		for _, lb := range tg.LBs {
			lbs[lb] = true
		}
	}
	for _, lb := range w.LoadBalancers {
		if !lbs[lb.Name] {
			continue
		}
		lbARN := w.lbARN(lb.Name)
		m.EXPECT().DescribeListeners(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeListenersInput) bool {
			return aws.ToString(in.LoadBalancerArn) == lbARN && aws.ToInt32(in.PageSize) == PageSize
		}), gomock.Any()).Return(w.listeners(lb), nil).Times(1)
		if cmpOr(lb.Type, "app") != "app" {
			continue
		}
		for i := range lb.Listeners {
			lARN := w.listenerARN(lb.Name, i)
			m.EXPECT().DescribeRules(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeRulesInput) bool {
				return aws.ToString(in.ListenerArn) == lARN
			}), gomock.Any()).Return(w.rules(lb, i), nil).Times(1)
		}
	}
}

// expectLBMembers expects the quota check's one paged DescribeTargetGroups
// of each load balancer named, answered from w: a target group in scope
// with a cutover overlap names it, and discovery did not list its target
// groups (an ARN or a name scope).
func expectLBMembers(m *mocks.MockELBv2API, w world, lbs ...string) {
	for _, lb := range lbs {
		arn := w.lbARN(lb)
		m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
			return aws.ToString(in.LoadBalancerArn) == arn && aws.ToInt32(in.PageSize) == PageSize && in.Names == nil && in.TargetGroupArns == nil
		}), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
	}
}

// describeTargetGroups answers like ELBv2: by ARNs, names or load balancer,
// or everything, in pages of PageSize with a numeric marker; NotFound when
// any requested ARN or name does not exist.
func (w world) describeTargetGroups(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	var all []elbv2types.TargetGroup
	switch {
	case len(in.TargetGroupArns) > 0:
		for _, arn := range in.TargetGroupArns {
			tg, ok := w.tgByARN(arn)
			if !ok {
				return nil, notFound(arn)
			}
			all = append(all, w.elbTargetGroup(tg))
		}
	case len(in.Names) > 0:
		for _, n := range in.Names {
			i := slices.IndexFunc(w.TargetGroups, func(tg tgFix) bool { return tg.Name == n })
			if i < 0 {
				return nil, notFound(n)
			}
			all = append(all, w.elbTargetGroup(w.TargetGroups[i]))
		}
	case in.LoadBalancerArn != nil:
		found := false
		for _, lb := range w.LoadBalancers {
			found = found || w.lbARN(lb.Name) == aws.ToString(in.LoadBalancerArn)
		}
		if !found {
			return nil, &elbv2types.LoadBalancerNotFoundException{Message: aws.String("not found")}
		}
		for _, tg := range w.TargetGroups {
			if slices.ContainsFunc(tg.LBs, func(lb string) bool { return w.lbARN(lb) == aws.ToString(in.LoadBalancerArn) }) {
				all = append(all, w.elbTargetGroup(tg))
			}
		}
	default:
		for _, tg := range w.TargetGroups {
			all = append(all, w.elbTargetGroup(tg))
		}
	}
	start := 0
	if in.Marker != nil {
		fmt.Sscan(*in.Marker, &start)
	}
	size := int(aws.ToInt32(in.PageSize))
	if size <= 0 || size > PageSize {
		size = PageSize
	}
	end := min(start+size, len(all))
	out := &elbv2.DescribeTargetGroupsOutput{TargetGroups: all[start:end]}
	if end < len(all) {
		out.NextMarker = aws.String(fmt.Sprint(end))
	}
	return out, nil
}

func (w world) describeTags(_ context.Context, in *elbv2.DescribeTagsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	out := &elbv2.DescribeTagsOutput{}
	for _, arn := range in.ResourceArns {
		tg, ok := w.tgByARN(arn)
		if !ok {
			return nil, notFound(arn)
		}
		out.TagDescriptions = append(out.TagDescriptions, elbv2types.TagDescription{ResourceArn: aws.String(arn), Tags: tagList(tg.Tags)})
	}
	return out, nil
}

// expectEC2 answers the subnet checks from w.EC2: one DescribeInstances and
// one DescribeRouteTables.
func expectEC2(m *MockEC2API, w world) {
	m.EXPECT().DescribeInstances(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
			out := &ec2.DescribeInstancesOutput{}
			var r ec2types.Reservation
			for _, id := range in.Filters[0].Values {
				if sn, ok := w.EC2.Subnet[id]; ok {
					r.Instances = append(r.Instances, ec2types.Instance{InstanceId: aws.String(id), SubnetId: aws.String(sn), VpcId: aws.String(testVPC)})
				}
			}
			out.Reservations = []ec2types.Reservation{r}
			return out, nil
		}).Times(1)
	m.EXPECT().DescribeRouteTables(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(context.Context, *ec2.DescribeRouteTablesInput, ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
			out := &ec2.DescribeRouteTablesOutput{RouteTables: []ec2types.RouteTable{{
				VpcId:        aws.String(testVPC),
				Associations: []ec2types.RouteTableAssociation{{Main: aws.Bool(true)}},
				Routes:       []ec2types.Route{{DestinationCidrBlock: aws.String("0.0.0.0/0"), NatGatewayId: aws.String("nat-0123")}},
			}}}
			pub := ec2types.RouteTable{VpcId: aws.String(testVPC),
				Routes: []ec2types.Route{{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-0123")}}}
			for _, sn := range slices.Sorted(maps.Keys(w.EC2.Public)) {
				pub.Associations = append(pub.Associations, ec2types.RouteTableAssociation{SubnetId: aws.String(sn)})
			}
			out.RouteTables = append(out.RouteTables, pub)
			return out, nil
		}).Times(1)
}

// scheme knows the core types and TargetGroupBinding.
func testScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// objects returns the cluster's objects.
func (c clusterFix) objects(w world) []client.Object {
	var out []client.Object
	for _, n := range c.Nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{corev1.LabelTopologyZone: cmpOr(n.Zone, "eu-west-1a")}}}
		if n.NodePool != "" {
			node.Labels[LabelNodePool] = n.NodePool
		}
		if n.Excluded {
			node.Labels[LabelExcludeFromLB] = ""
		}
		if n.Disrupted {
			node.Spec.Taints = []corev1.Taint{{Key: TaintDisrupted, Effect: corev1.TaintEffectNoSchedule}}
		}
		if n.DoNotDisrupt {
			node.Annotations = map[string]string{AnnotationDoNotDisrupt: "true"}
		}
		if n.Instance != "" {
			node.Spec.ProviderID = "aws:///" + cmpOr(n.Zone, "eu-west-1a") + "/" + n.Instance
		}
		node.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.IP}}
		if n.ExternalIP != "" {
			node.Status.Addresses = append(node.Status.Addresses, corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: n.ExternalIP})
		}
		node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		out = append(out, node)
	}
	for _, p := range c.Pods {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.NS, Name: p.Name, Labels: p.Labels}}
		ctr := corev1.Container{Name: "app", Image: "app"}
		for _, pt := range p.Ports {
			ctr.Ports = append(ctr.Ports, corev1.ContainerPort{Name: pt.Name, ContainerPort: pt.Port})
		}
		if p.ProbePath != "" {
			ctr.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: p.ProbePath, Port: intstr.Parse(cmpOr(p.ProbePort, "http")), Scheme: corev1.URIScheme(cmpOr(p.ProbeScheme, "HTTP")),
			}}}
		}
		pod.Spec.Containers = []corev1.Container{ctr}
		pod.Spec.NodeName = p.Node
		for _, g := range p.Gates {
			pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: corev1.PodConditionType(g)})
		}
		ready := corev1.ConditionTrue
		if p.NotReady {
			ready = corev1.ConditionFalse
		}
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: p.IP, PodIPs: []corev1.PodIP{{IP: p.IP}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}
		out = append(out, pod)
	}
	for _, s := range c.Services {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: s.NS, Name: s.Name}, Spec: corev1.ServiceSpec{Selector: s.Selector, Type: corev1.ServiceTypeClusterIP}}
		for _, sp := range s.Ports {
			port := corev1.ServicePort{Name: sp.Name, Port: sp.Port, NodePort: sp.NodePort, Protocol: corev1.ProtocolTCP}
			if sp.TargetPort != "" {
				port.TargetPort = intstr.Parse(sp.TargetPort)
			}
			if sp.NodePort != 0 {
				svc.Spec.Type = corev1.ServiceTypeNodePort
			}
			svc.Spec.Ports = append(svc.Spec.Ports, port)
		}
		out = append(out, svc)
	}
	for _, ns := range c.Namespaces {
		out = append(out, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name, Labels: ns.Labels}})
	}
	for _, b := range c.Bindings {
		tgb := &v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Namespace: b.NS, Name: b.Name}, Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: w.tgARN(b.TG), ServiceRef: v1beta1.ServiceReference{Name: b.Service, Port: intstr.Parse(b.Port)},
			MultiClusterTargetGroup: b.Multi,
		}}
		if b.Type != "" {
			tt := v1beta1.TargetType(b.Type)
			tgb.Spec.TargetType = &tt
		}
		out = append(out, tgb)
	}
	for _, nc := range c.NodeClaims {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(NodeClaimGVK)
		u.SetName(nc.Name)
		u.SetCreationTimestamp(metav1.NewTime(nc.Created))
		u.Object["spec"] = map[string]any{"expireAfter": nc.ExpireAfter}
		status := map[string]any{"nodeName": nc.Node}
		conds := []any{map[string]any{"type": "Initialized", "status": "True"}}
		if nc.Drifted {
			conds = append(conds, map[string]any{"type": "Drifted", "status": "True"})
		}
		if nc.Consolidatable {
			conds = append(conds, map[string]any{"type": "Consolidatable", "status": "True"})
		}
		status["conditions"] = conds
		u.Object["status"] = status
		out = append(out, u)
	}
	return out
}

// listCounter counts List calls by list type, per cluster.
type listCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *listCounter) get() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.counts)
}

// client builds the cluster's fake client. Every List is counted; the
// cluster's missing CRDs and ListErr faults are injected with interceptor.Funcs.
func (c clusterFix) client(t testing.TB, w world) (client.Reader, *listCounter) {
	counter := &listCounter{counts: map[string]int{}}
	cl := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(c.objects(w)...).
		WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			kind := listKind(list)
			counter.mu.Lock()
			counter.counts[kind]++
			counter.mu.Unlock()
			if err := c.ListErr[kind]; err != nil {
				return err
			}
			if kind == "targetgroupbindings" && c.NoBindingCRD {
				return &apimeta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "elbv2.k8s.aws", Kind: "TargetGroupBinding"}, SearchedVersions: []string{"v1beta1"}}
			}
			return cl.List(ctx, list, opts...)
		}}).Build()
	return cl, counter
}

func listKind(list client.ObjectList) string {
	switch l := list.(type) {
	case *corev1.NodeList:
		return "nodes"
	case *corev1.PodList:
		return "pods"
	case *corev1.ServiceList:
		return "services"
	case *corev1.NamespaceList:
		return "namespaces"
	case *v1beta1.TargetGroupBindingList:
		return "targetgroupbindings"
	case *unstructured.UnstructuredList:
		return strings.ToLower(strings.TrimSuffix(l.GetKind(), "List")) + "s"
	}
	return fmt.Sprintf("%T", list)
}

// harness is a world wired to mocks and fake clients.
type harness struct {
	w     world
	elb   *mocks.MockELBv2API
	ec2   *MockEC2API
	lists map[string]*listCounter
	src   Sources
	clock *vclock.Clock
}

// viaELBv2 is the ELBv2 client a test hands Diagnose for its mock. Here
// it is the mock itself; wire_test.go puts the real SDK client and an
// elbv2wire endpoint in between, to run the suites through the wire.
var viaELBv2 wiretest.Via = wiretest.Direct

func newHarness(t testing.TB, w world) *harness {
	ctrl := gomock.NewController(t)
	h := &harness{w: w, elb: mocks.NewMockELBv2API(ctrl), lists: map[string]*listCounter{}, clock: vclock.New(time.Time{})}
	acct := Account{ID: w.account(), Region: w.region(), ELBv2: viaELBv2(t, h.elb)}
	if w.EC2 != nil {
		h.ec2 = NewMockEC2API(ctrl)
		acct.EC2 = h.ec2
	}
	h.src.Accounts = []Account{acct}
	for _, c := range w.Clusters {
		r, counter := c.client(t, w)
		h.lists[c.Name] = counter
		h.src.Clusters = append(h.src.Clusters, Cluster{Name: c.Name, Reader: r, VPCID: c.VPC, CIDRs: c.CIDRs})
	}
	return h
}

func (h *harness) run(t testing.TB, scope Scope, opts ...Option) (*Report, error) {
	t.Helper()
	opts = append([]Option{WithClock(h.clock)}, opts...)
	return Diagnose(t.Context(), h.src, scope, opts...)
}

func (r *Report) tg(name string) *TargetGroupReport {
	for i := range r.TargetGroups {
		if r.TargetGroups[i].Name == name {
			return &r.TargetGroups[i]
		}
	}
	return nil
}

func (tg *TargetGroupReport) finding(code Code) *Finding {
	for i := range tg.Findings {
		if tg.Findings[i].Code == code {
			return &tg.Findings[i]
		}
	}
	return nil
}
