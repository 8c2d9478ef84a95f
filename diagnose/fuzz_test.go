package diagnose_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// fuzzCallLimit bounds the calls of one Diagnose run: past it, the fake
// ends the run and the fuzz target fails.
const fuzzCallLimit = 10_000

// fuzzMode is how an operation misbehaves.
type fuzzMode byte

const (
	fuzzOK         fuzzMode = iota // the answer, in pages of two
	fuzzNil                        // (nil, nil)
	fuzzEmpty                      // an empty output, no marker
	fuzzSameMarker                 // the whole answer, and always the same marker
	fuzzCycle                      // the whole answer, markers a, b, a...
	fuzzThrottled                  // Throttling: retried, then given up
	fuzzNotFound                   // TargetGroupNotFound: batches halved
	fuzzInvalid                    // ValidationError
	fuzzPanic                      // a panic
	fuzzModes
)

// fuzzOps are the operations whose modes an input sets, in its order.
var fuzzOps = []string{"DescribeTargetGroups", "DescribeTags", "DescribeTargetHealth", "DescribeListeners",
	"DescribeRules", "DescribeInstances", "DescribeRouteTables"}

// fuzzInput reads a fuzz input a byte at a time; past its end, zeros.
type fuzzInput struct{ b []byte }

func (in *fuzzInput) pick(n int) int {
	if len(in.b) == 0 {
		return 0
	}
	c := in.b[0]
	in.b = in.b[1:]
	return int(c) % n
}

// fuzzWorld is the AWS side an input describes, and its misbehaviour. It
// is both the ELBv2 and the EC2 client, and it counts every call, the
// cluster's included.
type fuzzWorld struct {
	modes     map[string]fuzzMode
	tgs       []elbv2types.TargetGroup
	health    map[string][]elbv2types.TargetHealthDescription
	listeners []elbv2types.Listener // of every load balancer
	rules     []elbv2types.Rule     // of every listener

	calls atomic.Int64
	stop  context.CancelFunc
}

var (
	_ diagnose.ELBv2API = (*fuzzWorld)(nil)
	_ diagnose.EC2API   = (*fuzzWorld)(nil)
)

var (
	fuzzNLB       = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/net/edge/0123456789abcdef"
	fuzzInstance  = "i-0aaaaaaaaaaaaaaa1" // node n1's
	fuzzTargetIDs = []*string{nil, aws.String("10.0.0.1"), aws.String("10.0.0.2"), aws.String("10.1.0.1"),
		aws.String("10.9.9.9"), aws.String(fuzzInstance), aws.String("not-an-ip"), aws.String("::1")}
	fuzzPorts = []*int32{nil, aws.Int32(0), aws.Int32(-1), aws.Int32(80), aws.Int32(8080), aws.Int32(30080),
		aws.Int32(65536), aws.Int32(math.MinInt32), aws.Int32(math.MaxInt32)}
	fuzzStates = []*elbv2types.TargetHealth{nil, {State: elbv2types.TargetHealthStateEnumHealthy},
		{State: elbv2types.TargetHealthStateEnumDraining}, {State: elbv2types.TargetHealthStateEnumUnhealthy, Reason: elbv2types.TargetHealthReasonEnumFailedHealthChecks}}
	fuzzTypes = []elbv2types.TargetTypeEnum{elbv2types.TargetTypeEnumIp, elbv2types.TargetTypeEnumInstance,
		elbv2types.TargetTypeEnumLambda, elbv2types.TargetTypeEnumAlb, "weird"}
	fuzzLBs = [][]string{nil, {robustALB}, {fuzzNLB}, {"not-an-arn", robustALB}}
)

// newFuzzWorld reads the modes and the target groups. Each target group is
// its ARN's shape, its target type, its load balancers and its targets (a
// count, then each target's ID, port and health).
func newFuzzWorld(in *fuzzInput) *fuzzWorld {
	w := &fuzzWorld{modes: map[string]fuzzMode{}, health: map[string][]elbv2types.TargetHealthDescription{}}
	for _, op := range fuzzOps {
		w.modes[op] = fuzzMode(in.pick(int(fuzzModes)))
	}
	for i := range in.pick(6) {
		name := fmt.Sprintf("tg-%d", i)
		var arn *string
		switch in.pick(6) {
		case 0:
			arn = aws.String(robustARN(name))
		case 1:
			arn = aws.String(strings.Replace(robustARN(name), robustAccount, "999999999999", 1))
		case 2:
			arn = aws.String(strings.Replace(robustARN(name), robustRegion, "us-east-1", 1))
		case 3:
			arn = aws.String("arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/" + name)
		case 4: // nil
		case 5:
			if i > 0 { // a duplicate of the one before
				w.tgs = append(w.tgs, w.tgs[i-1])
				continue
			}
			arn = aws.String(robustARN(name))
		}
		tg := elbv2types.TargetGroup{TargetGroupArn: arn, TargetGroupName: aws.String(name), TargetType: fuzzTypes[in.pick(len(fuzzTypes))],
			Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(8080), VpcId: aws.String(robustVPC), LoadBalancerArns: fuzzLBs[in.pick(len(fuzzLBs))]}
		w.tgs = append(w.tgs, tg)
		var th []elbv2types.TargetHealthDescription
		for range in.pick(5) {
			id, port := in.pick(len(fuzzTargetIDs)+1), in.pick(len(fuzzPorts))
			d := elbv2types.TargetHealthDescription{TargetHealth: fuzzStates[in.pick(len(fuzzStates))]}
			if id < len(fuzzTargetIDs) { // else no Target at all
				d.Target = &elbv2types.TargetDescription{Id: fuzzTargetIDs[id], Port: fuzzPorts[port]}
			}
			th = append(th, d)
		}
		w.health[aws.ToString(arn)] = th
	}
	// Every load balancer has the same listeners: one forwards to every
	// target group (weights nil and set), one names nothing; every listener
	// has a rule per target group, and one with nil fields.
	fwd := &elbv2types.ForwardActionConfig{}
	for i, tg := range w.tgs {
		fwd.TargetGroups = append(fwd.TargetGroups, elbv2types.TargetGroupTuple{TargetGroupArn: tg.TargetGroupArn, Weight: aws.Int32(int32(i - 1))})
		w.rules = append(w.rules, elbv2types.Rule{RuleArn: aws.String(fmt.Sprintf("%s-rule-%d", robustLstn, i)), Priority: aws.String(strconv.Itoa(i)),
			Actions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: tg.TargetGroupArn}}})
	}
	w.rules = append(w.rules, elbv2types.Rule{Actions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, ForwardConfig: fwd}, {}}})
	w.listeners = []elbv2types.Listener{
		{ListenerArn: aws.String(robustLstn), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(80),
			DefaultActions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, ForwardConfig: fwd}}},
		{DefaultActions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward}}},
	}
	return w
}

// fault counts a call, ends the run past the call limit, and applies the
// operation's mode: an error, a panic, or the mode to answer in.
func (w *fuzzWorld) fault(op string) (fuzzMode, error) {
	if w.calls.Add(1) > fuzzCallLimit {
		w.stop()
		return fuzzOK, errors.New("fuzz: call limit")
	}
	switch m := w.modes[op]; m {
	case fuzzThrottled:
		return m, &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
	case fuzzNotFound:
		return m, &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found")}
	case fuzzInvalid:
		return m, &smithy.GenericAPIError{Code: "ValidationError", Message: "invalid"}
	case fuzzPanic:
		panic("fuzz: " + op + " broke")
	default:
		return m, nil
	}
}

// fuzzPage pages all as mode says: in pages of two with numeric markers
// (any malformed marker reads as the start), or all at once with a marker
// that comes back.
func fuzzPage[T any](m fuzzMode, all []T, marker *string) ([]T, *string) {
	switch m {
	case fuzzEmpty:
		return nil, nil
	case fuzzSameMarker:
		return all, aws.String("same")
	case fuzzCycle:
		if aws.ToString(marker) == "a" {
			return all, aws.String("b")
		}
		return all, aws.String("a")
	}
	start, _ := strconv.Atoi(aws.ToString(marker))
	start = min(max(start, 0), len(all))
	end := min(start+2, len(all))
	if end < len(all) {
		return all[start:end], aws.String(strconv.Itoa(end))
	}
	return all[start:end], nil
}

func (w *fuzzWorld) DescribeTargetGroups(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	m, err := w.fault("DescribeTargetGroups")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	match := func(want []string, key func(elbv2types.TargetGroup) string) ([]elbv2types.TargetGroup, error) {
		var out []elbv2types.TargetGroup
		for _, k := range want {
			n := len(out)
			for _, tg := range w.tgs {
				if key(tg) == k {
					out = append(out, tg)
				}
			}
			if len(out) == n {
				return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found")}
			}
		}
		return out, nil
	}
	all := w.tgs
	switch {
	case len(in.TargetGroupArns) > 0:
		all, err = match(in.TargetGroupArns, func(tg elbv2types.TargetGroup) string { return aws.ToString(tg.TargetGroupArn) })
	case len(in.Names) > 0:
		all, err = match(in.Names, func(tg elbv2types.TargetGroup) string { return aws.ToString(tg.TargetGroupName) })
	case in.LoadBalancerArn != nil:
		all = nil
		for _, tg := range w.tgs {
			for _, lb := range tg.LoadBalancerArns {
				if lb == *in.LoadBalancerArn {
					all = append(all, tg)
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	got, next := fuzzPage(m, all, in.Marker)
	return &elbv2.DescribeTargetGroupsOutput{TargetGroups: got, NextMarker: next}, nil
}

func (w *fuzzWorld) DescribeTags(_ context.Context, in *elbv2.DescribeTagsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	m, err := w.fault("DescribeTags")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	out := &elbv2.DescribeTagsOutput{}
	if m == fuzzEmpty {
		return out, nil
	}
	out.TagDescriptions = append(out.TagDescriptions, elbv2types.TagDescription{Tags: []elbv2types.Tag{{Key: aws.String("team")}}})
	for _, arn := range in.ResourceArns {
		out.TagDescriptions = append(out.TagDescriptions, elbv2types.TagDescription{ResourceArn: aws.String(arn),
			Tags: []elbv2types.Tag{{Key: aws.String("team"), Value: aws.String("web")}, {}, {Key: aws.String("elbv2.k8s.aws/cluster")}}})
	}
	return out, nil
}

func (w *fuzzWorld) DescribeTargetHealth(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	m, err := w.fault("DescribeTargetHealth")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	if m == fuzzEmpty {
		return &elbv2.DescribeTargetHealthOutput{}, nil
	}
	return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: w.health[aws.ToString(in.TargetGroupArn)]}, nil
}

func (w *fuzzWorld) DescribeTargetGroupAttributes(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	w.calls.Add(1)
	return nil, errors.New("fuzz: Diagnose does not read attributes")
}

func (w *fuzzWorld) DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	w.calls.Add(1)
	return nil, errors.New("fuzz: Diagnose does not read load balancers")
}

func (w *fuzzWorld) DescribeListeners(_ context.Context, in *elbv2.DescribeListenersInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	m, err := w.fault("DescribeListeners")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	got, next := fuzzPage(m, w.listeners, in.Marker)
	return &elbv2.DescribeListenersOutput{Listeners: got, NextMarker: next}, nil
}

func (w *fuzzWorld) DescribeRules(_ context.Context, in *elbv2.DescribeRulesInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	m, err := w.fault("DescribeRules")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	got, next := fuzzPage(m, w.rules, in.Marker)
	return &elbv2.DescribeRulesOutput{Rules: got, NextMarker: next}, nil
}

func (w *fuzzWorld) DescribeInstances(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	m, err := w.fault("DescribeInstances")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	var all []ec2types.Reservation
	for _, f := range in.Filters {
		for _, id := range f.Values {
			all = append(all, ec2types.Reservation{Instances: []ec2types.Instance{
				{InstanceId: aws.String(id), SubnetId: aws.String("subnet-1"), VpcId: aws.String(robustVPC)}, {}}})
		}
	}
	all = append(all, ec2types.Reservation{})
	got, next := fuzzPage(m, all, in.NextToken)
	return &ec2.DescribeInstancesOutput{Reservations: got, NextToken: next}, nil
}

func (w *fuzzWorld) DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	w.calls.Add(1)
	return nil, errors.New("fuzz: Diagnose does not read subnets")
}

func (w *fuzzWorld) DescribeRouteTables(_ context.Context, in *ec2.DescribeRouteTablesInput, _ ...func(*ec2.Options)) (*ec2.DescribeRouteTablesOutput, error) {
	m, err := w.fault("DescribeRouteTables")
	if err != nil || m == fuzzNil {
		return nil, err
	}
	all := []ec2types.RouteTable{
		{VpcId: aws.String(robustVPC), Associations: []ec2types.RouteTableAssociation{{Main: aws.Bool(true)}, {SubnetId: aws.String("subnet-1")}, {}},
			Routes: []ec2types.Route{{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-1")}, {}}},
		{},
	}
	got, next := fuzzPage(m, all, in.NextToken)
	return &ec2.DescribeRouteTablesOutput{RouteTables: got, NextToken: next}, nil
}

// fuzzReader is the cluster: it counts its calls, and lists normally,
// fails every list as Forbidden, or panics.
type fuzzReader struct {
	client.Reader
	w    *fuzzWorld
	mode int
}

func (r fuzzReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.w.calls.Add(1)
	switch r.mode {
	case 1:
		return apierrors.NewForbidden(schema.GroupResource{Resource: "any"}, "", errors.New("rbac"))
	case 2:
		panic("fuzz: the cluster client broke")
	}
	return r.Reader.List(ctx, list, opts...)
}

// fuzzCluster has nodes n1 (10.0.0.1, instance fuzzInstance) and n2
// (10.0.0.2), pod shop/web-1 (10.1.0.1) on n1, and Service shop/web on
// NodePort 30080.
func fuzzCluster(tb testing.TB) client.Reader {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	node := func(name, ip, provider string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{ProviderID: provider},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}}}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{"app": "web"}},
		Spec:   corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.0.1"}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: 30080}}}}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(
		node("n1", "10.0.0.1", "aws:///eu-west-1a/"+fuzzInstance), node("n2", "10.0.0.2", ""), pod, svc,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}).Build()
}

// fuzzSeed lays out an input: the scope (0 all, 1 ARNs, 2 names, 3 load
// balancers, 4 tags); the flags (1 an EC2 client, 2 a second client of
// the account in us-east-1, 4 four workers, 8 and 16 the cluster's mode:
// Forbidden, panic); the modes of fuzzOps, fuzzOK where not given; then
// the target groups (see newFuzzWorld).
func fuzzSeed(scope, flags byte, modes map[string]fuzzMode, tgs ...[]byte) []byte {
	b := []byte{scope, flags}
	for _, op := range fuzzOps {
		b = append(b, byte(modes[op]))
	}
	b = append(b, byte(len(tgs)))
	for _, tg := range tgs {
		b = append(b, tg...)
	}
	return b
}

// FuzzClientResponses drives Diagnose with clients that misbehave as the
// input says: nil outputs, empty pages, markers that repeat or loop, nil
// fields, absurd ports, duplicated target groups, ARNs of other accounts
// and Regions or malformed, errors and panics. Whatever they do, Diagnose
// returns (no panic, a bounded number of calls) a report whose JSON
// validates against the schema and whose summary counts what the target
// groups list.
func FuzzClientResponses(f *testing.F) {
	// Target groups: ARN shape, target type, load balancers, then the
	// count of targets and each one's ID, port and health (indexes into
	// fuzzTargetIDs, fuzzPorts and fuzzStates; ID 8 is no Target).
	ipTG := []byte{0, 0, 1, 2, 1, 4, 1, 3, 4, 1}                    // own, ip, ALB: the node's and the pod's address on 8080
	nodeTG := []byte{0, 1, 2, 3, 5, 5, 1, 1, 5, 2, 4, 5, 3}         // own, instance, NLB: the node by instance ID and by IP on 30080, a ghost
	nilTG := []byte{4, 0, 3, 4, 8, 0, 0, 0, 4, 1, 1, 0, 0, 2, 2, 3} // nil ARN
	nilTargets := []byte{0, 0, 1, 3, 8, 0, 0, 0, 4, 1, 1, 0, 0}     // no Target, nil ID, nil port and health
	absurd := []byte{0, 0, 1, 4, 1, 2, 1, 1, 6, 1, 1, 7, 2, 1, 8, 3}
	foreign := [][]byte{{1, 0, 1, 1, 1, 4, 1}, {2, 0, 1, 1, 1, 4, 1}, {3, 0, 1, 0}}
	dup := []byte{5}

	f.Add(fuzzSeed(0, 1, nil, ipTG, nodeTG))
	for _, op := range fuzzOps {
		for _, m := range []fuzzMode{fuzzNil, fuzzEmpty, fuzzSameMarker, fuzzCycle, fuzzThrottled, fuzzNotFound, fuzzInvalid, fuzzPanic} {
			f.Add(fuzzSeed(0, 1, map[string]fuzzMode{op: m}, ipTG, nodeTG))
		}
	}
	f.Add(fuzzSeed(0, 1, nil, nilTG, nilTargets, absurd))
	f.Add(fuzzSeed(0, 1, nil, ipTG, dup, dup))
	f.Add(fuzzSeed(0, 2, nil, append(foreign, ipTG)...))
	f.Add(fuzzSeed(1, 2|4, map[string]fuzzMode{"DescribeTargetGroups": fuzzNotFound}, append(foreign, ipTG, nodeTG)...))
	f.Add(fuzzSeed(1, 1|2|4, nil, append(foreign, ipTG, dup, nodeTG)...))
	f.Add(fuzzSeed(2, 1, map[string]fuzzMode{"DescribeTargetGroups": fuzzCycle}, ipTG, nodeTG, nilTG))
	f.Add(fuzzSeed(3, 1|4, map[string]fuzzMode{"DescribeListeners": fuzzSameMarker, "DescribeRules": fuzzCycle}, ipTG, nodeTG))
	f.Add(fuzzSeed(4, 1, map[string]fuzzMode{"DescribeTags": fuzzNotFound}, ipTG, nodeTG, absurd))
	f.Add(fuzzSeed(0, 1|8, nil, ipTG, nodeTG))
	f.Add(fuzzSeed(0, 1|16|4, nil, ipTG, nodeTG))
	f.Add(fuzzSeed(0, 1|4, map[string]fuzzMode{"DescribeTargetHealth": fuzzPanic, "DescribeInstances": fuzzCycle}, ipTG, nodeTG))
	f.Add([]byte{})

	cluster := fuzzCluster(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{b: data}
		scopeKind, flags := in.pick(5), in.pick(32)
		w := newFuzzWorld(in)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		w.stop = cancel

		src := diagnose.Sources{
			Accounts: []diagnose.Account{{ID: robustAccount, Region: robustRegion, ELBv2: w}},
			Clusters: []diagnose.Cluster{{Name: "prod", Reader: fuzzReader{Reader: cluster, w: w, mode: (flags >> 3) % 4}, VPCID: robustVPC, CIDRs: []string{"10.0.0.0/8"}}},
		}
		if flags&1 != 0 {
			src.Accounts[0].EC2 = w
		}
		if flags&2 != 0 {
			src.Accounts = append(src.Accounts, diagnose.Account{ID: robustAccount, Region: "us-east-1", ELBv2: w})
		}
		workers := 1
		if flags&4 != 0 {
			workers = 4
		}
		var scope diagnose.Scope
		switch scopeKind {
		case 0:
			scope.All = true
		case 1:
			for _, tg := range w.tgs {
				if tg.TargetGroupArn != nil {
					scope.TargetGroupARNs = append(scope.TargetGroupARNs, fuzzARNs(*tg.TargetGroupArn)...)
				}
			}
			scope.TargetGroupARNs = append(scope.TargetGroupARNs, fuzzARNs("arn:aws:s3:::bucket", strings.Replace(robustARN("x"), robustRegion, "eu-central-1", 1))...)
		case 2:
			for _, tg := range w.tgs {
				scope.TargetGroupNames = append(scope.TargetGroupNames, *tg.TargetGroupName)
			}
			scope.TargetGroupNames = append(scope.TargetGroupNames, "missing", "-bad-")
		case 3:
			scope.LoadBalancerARNs = fuzzARNs(robustALB, fuzzNLB, "garbage", strings.Replace(robustALB, robustRegion, "us-east-1", 1))
		case 4:
			scope.Tags = map[string]string{"team": ""}
		}

		rep, err := diagnose.Diagnose(ctx, src, scope, robustOptions(diagnose.WithConcurrency(workers))...)
		if n := w.calls.Load(); n > fuzzCallLimit {
			t.Fatalf("%d calls, more than %d: a loop", n, fuzzCallLimit)
		}
		if rep == nil {
			t.Fatalf("Diagnose() gave no report: %v", err)
		}
		if err != nil && !errors.Is(err, diagnose.ErrNothingScanned) {
			t.Errorf("Diagnose() = %v; want nil or ErrNothingScanned", err)
		}
		checkSchema(t, rep)
		targets := 0
		for _, tg := range rep.TargetGroups {
			targets += len(tg.Targets)
			if tg.Counts.Total != len(tg.Targets) {
				t.Errorf("%s: counts %d targets, lists %d", tg.ARN, tg.Counts.Total, len(tg.Targets))
			}
		}
		if rep.Summary.Targets != targets || rep.Summary.TargetGroups != len(rep.TargetGroups) {
			t.Errorf("summary: %d targets in %d target groups; the target groups list %d in %d",
				rep.Summary.Targets, rep.Summary.TargetGroups, targets, len(rep.TargetGroups))
		}
	})
}

// fuzzARNs parses each of ss as the caller would (a target group's or a
// load balancer's ARN); one that does not parse is kept as a hand-made
// value holding the text alone, which Diagnose refuses per resource as it
// refused the text before the scope was typed.
func fuzzARNs(ss ...string) []tgmigrate.ARN {
	out := make([]tgmigrate.ARN, 0, len(ss))
	for _, s := range ss {
		var a tgmigrate.ARN
		if err := a.UnmarshalText([]byte(s)); err != nil {
			a = tgmigrate.ARN{Raw: s}
		}
		out = append(out, a)
	}
	return out
}
