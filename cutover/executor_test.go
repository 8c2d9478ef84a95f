package cutover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The executor's call contract, on gomock: each test sets the exact AWS
// calls it allows, and a fake cluster holds the Service, its endpoints, the
// nodes and the pods.

const (
	unitNS      = "shop"
	unitVPC     = "vpc-0123456789abcdef0"
	unitBinding = "web-http-legacy-web"
)

// execFixture is a fake target group behind a gomock ELBv2API and a fake
// cluster.
type execFixture struct {
	t     *testing.T
	api   *mocks.MockELBv2API
	kube  client.Client
	clock *vclock.Clock
	env   Env
	plan  *Plan

	mu      sync.Mutex
	targets map[TargetAddr]string // registered targets and their state
	order   []TargetAddr
	dereg   [][]elbv2types.TargetDescription
}

// newExecFixture builds a cluster of nodes and pods (pod i at 10.1.0.i on
// 8080, node i at 10.0.0.i) and a target group holding every pod (healthy)
// and every recorded node target on 30080 (healthy). The plan's steps bind
// and gate are done in the journal: Execute starts with deregister.
func newExecFixture(t *testing.T, nodes, pods, floor int, steps ...string) *execFixture {
	t.Helper()
	f := &execFixture{t: t, api: mocks.NewMockELBv2API(gomock.NewController(t)), clock: vclock.New(time.Time{}), targets: map[TargetAddr]string{}}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unitNS}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: unitNS, Name: "web"}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30080}}}},
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: unitNS, Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
	}
	for i := range pods {
		ip := podIP(i)
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}})
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: unitNS, Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
		f.add(TargetAddr{IP: ip, Port: 8080}, "healthy")
	}
	objs = append(objs, slice)
	var recorded []RecordedTarget
	for i := range nodes {
		ip := nodeIP(i)
		objs = append(objs, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i)},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}},
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		})
		t := TargetAddr{IP: ip, Port: 30080}
		recorded = append(recorded, RecordedTarget{TargetAddr: t, Class: "node", Node: fmt.Sprintf("node-%d", i), State: "healthy"})
		f.add(t, "healthy")
	}
	f.kube = fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
	f.env = Env{ELBv2: viaELBv2(t, f.api), Client: f.kube, Clock: f.clock, ClusterVPCID: unitVPC, Holder: "unit"}

	tgb := &v1beta1.TargetGroupBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: unitNS, Name: unitBinding, Labels: map[string]string{LabelManagedBy: ManagedBy}},
		Spec: v1beta1.TargetGroupBindingSpec{TargetGroupARN: testTG, TargetType: ptr.To(v1beta1.TargetTypeIP),
			ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("http")}, MultiClusterTargetGroup: true},
	}
	p := &Plan{
		SchemaVersion: PlanSchemaVersion, ID: "tgm-unit", Strategy: StrategyInPlace,
		Request:     Request{TargetGroupARN: arntest.TG(testTG), Namespace: unitNS, Service: "web", Port: intstr.FromString("http")},
		TargetGroup: TargetGroupInfo{ARN: arntest.TG(testTG), Name: "legacy-web", AccountID: "123456789012", Region: "eu-west-1", TargetType: "ip", Protocol: "HTTP", Port: 30080, VPCID: unitVPC},
		Service:     ServiceInfo{Namespace: unitNS, Name: "web", Port: 80, PortName: "http", TargetPort: "http", NodePort: 30080, ReadyEndpoints: pods},
		Binding:     BindingPlan{Namespace: unitNS, Name: unitBinding, TargetGroupARN: testTG, MultiCluster: true, Object: tgb},
		HealthCheck: HealthCheckPlan{Original: HealthCheckSettings{Port: "traffic-port", Path: "/"}, Target: HealthCheckSettings{Port: "traffic-port", Path: "/healthz"}, Timing: HealthCheckBeforeBinding},
		Recorded:    recorded, Floor: floor,
		Estimate: Estimate{RegistrationSeconds: 10, HealthCheckSeconds: 150, FloorSeconds: 160},
	}
	if len(steps) == 0 {
		steps = []string{StepBind, StepGate, StepDeregister, StepDrain}
	}
	for _, id := range steps {
		p.Steps = append(p.Steps, Step{ID: id, Phase: id, Title: id})
	}
	if err := p.seal(); err != nil {
		t.Fatal(err)
	}
	f.plan = p
	return f
}

func podIP(i int) string  { return fmt.Sprintf("10.1.%d.%d", i/250, i%250+1) }
func nodeIP(i int) string { return fmt.Sprintf("10.0.%d.%d", i/250, i%250+1) }

func (f *execFixture) add(t TargetAddr, state string) {
	if _, ok := f.targets[t]; !ok {
		f.order = append(f.order, t)
	}
	f.targets[t] = state
}

// done marks steps done in the journal, as an earlier run would have.
func (f *execFixture) done(ids ...string) {
	f.t.Helper()
	j, err := NewConfigMapJournal(f.kube, ConfigMapJournalOptions{Namespace: unitNS, TargetGroupARN: arntest.TG(testTG), Clock: f.clock})
	if err != nil {
		f.t.Fatal(err)
	}
	st := NewState(f.plan.Ref(), string(f.plan.Strategy), f.plan.StepIDs()...)
	st.TargetGroupARN = arntest.TG(testTG)
	st.Restore = f.plan.restoreInfo()
	st.Binding = BindingState{Created: true, Namespace: unitNS, Name: unitBinding}
	for _, id := range ids {
		_ = st.SetStep(id, StepDone, f.clock.Now(), nil)
	}
	if err := j.Save(context.Background(), st); err != nil {
		f.t.Fatal(err)
	}
}

// describe allows the reads: the target group (the guards' re-check), its
// tags, and its targets' health, from the fixture's state.
func (f *execFixture) describe(tags map[string]string) {
	tg := elbv2types.TargetGroup{TargetGroupArn: aws.String(testTG), TargetGroupName: aws.String("legacy-web"), TargetType: elbv2types.TargetTypeEnumIp,
		VpcId: aws.String(unitVPC), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(30080),
		HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String("/")}
	f.api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{tg}}, nil).AnyTimes()
	var ts []elbv2types.Tag
	for k, v := range tags {
		ts = append(ts, elbv2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	f.api.EXPECT().DescribeTags(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTagsOutput{TagDescriptions: []elbv2types.TagDescription{{ResourceArn: aws.String(testTG), Tags: ts}}}, nil).AnyTimes()
	f.api.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).DoAndReturn(f.health).AnyTimes()
}

func (f *execFixture) health(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &elbv2.DescribeTargetHealthOutput{}
	for _, t := range f.order {
		st, ok := f.targets[t]
		if !ok {
			continue
		}
		out.TargetHealthDescriptions = append(out.TargetHealthDescriptions, elbv2types.TargetHealthDescription{
			Target:       &elbv2types.TargetDescription{Id: aws.String(t.IP), Port: aws.Int32(t.Port)},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnum(st)},
		})
	}
	return out, nil
}

// deregister marks the targets draining, as ELBv2 does; a target named
// without its Port is not found and stays, as ELBv2 does.
func (f *execFixture) deregister(_ context.Context, in *elbv2.DeregisterTargetsInput, _ ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dereg = append(f.dereg, in.Targets)
	for _, d := range in.Targets {
		t := TargetAddr{IP: aws.ToString(d.Id), Port: aws.ToInt32(d.Port)}
		if _, ok := f.targets[t]; ok {
			f.targets[t] = "draining"
		}
	}
	return &elbv2.DeregisterTargetsOutput{}, nil
}

// deregContract matches a DeregisterTargets on the fixture's target group
// with 1 to max targets, each with its Port.
func deregContract(max int) gomock.Matcher {
	return gomock.Cond(func(x any) bool {
		in, ok := x.(*elbv2.DeregisterTargetsInput)
		if !ok || aws.ToString(in.TargetGroupArn) != testTG || len(in.Targets) == 0 || len(in.Targets) > max {
			return false
		}
		for _, t := range in.Targets {
			if t.Port == nil {
				return false
			}
		}
		return true
	})
}

func apiError(code string) error { return &smithy.GenericAPIError{Code: code, Message: code} }

// TestExecuteDeregisterContract: the deregistration batches, their
// invariants and their retries, call by call.
func TestExecuteDeregisterContract(t *testing.T) {
	tests := []struct {
		name string
		// nodes, pods, floor shape the fixture.
		nodes, pods, floor int
		// setup changes the world before Execute.
		setup func(*execFixture)
		// expect sets the DeregisterTargets expectations.
		expect func(*execFixture)
		// check inspects the outcome.
		check func(*testing.T, *execFixture, *Result, error)
	}{
		{
			name: "450 node targets: three batches of at most 200, every target with its Port", nodes: 450, pods: 30, floor: 30,
			expect: func(f *execFixture) {
				f.api.EXPECT().DeregisterTargets(gomock.Any(), deregContract(200)).DoAndReturn(f.deregister).Times(3)
			},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				if err != nil {
					t.Fatal(err)
				}
				sizes, seen := []int{}, map[string]bool{}
				for _, b := range f.dereg {
					sizes = append(sizes, len(b))
					for _, d := range b {
						seen[aws.ToString(d.Id)] = true
					}
				}
				if fmt.Sprint(sizes) != "[200 200 50]" || len(seen) != 450 || res.Deregistered != 450 || res.Batches != 3 {
					t.Errorf("batches %v, %d distinct targets, result %d in %d", sizes, len(seen), res.Deregistered, res.Batches)
				}
			},
		},
		{
			name: "a recorded target already gone is skipped, with no call for it", nodes: 3, pods: 6, floor: 3,
			setup: func(f *execFixture) { delete(f.targets, TargetAddr{IP: nodeIP(1), Port: 30080}) },
			expect: func(f *execFixture) {
				f.api.EXPECT().DeregisterTargets(gomock.Any(), deregContract(2)).DoAndReturn(f.deregister).Times(1)
			},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				if err != nil || len(res.Skipped) != 1 || res.Skipped[0].IP != nodeIP(1) {
					t.Errorf("skipped %v, err %v", res.Skipped, err)
				}
			},
		},
		{
			name: "a target registered after the plan is reported, never deregistered", nodes: 2, pods: 4, floor: 2,
			setup: func(f *execFixture) {
				extra := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "late"}, Status: corev1.NodeStatus{
					Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.9.9"}},
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
				if err := f.kube.Create(context.Background(), extra); err != nil {
					f.t.Fatal(err)
				}
				f.add(TargetAddr{IP: "10.0.9.9", Port: 30080}, "healthy")
			},
			expect: func(f *execFixture) {
				f.api.EXPECT().DeregisterTargets(gomock.Any(), gomock.All(deregContract(2), gomock.Cond(func(x any) bool {
					return !slices.ContainsFunc(x.(*elbv2.DeregisterTargetsInput).Targets, func(d elbv2types.TargetDescription) bool { return aws.ToString(d.Id) == "10.0.9.9" })
				}))).DoAndReturn(f.deregister).Times(1)
			},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				if err != nil || len(res.Unplanned) != 1 || res.Unplanned[0].IP != "10.0.9.9" || len(res.Warnings) == 0 {
					t.Errorf("unplanned %v, warnings %v, err %v", res.Unplanned, res.Warnings, err)
				}
			},
		},
		{
			name: "a recorded target that is now a ready pod endpoint: no call, pod-endpoint invariant", nodes: 2, pods: 4, floor: 2,
			setup: func(f *execFixture) {
				// A pod got the address and port of a recorded target.
				var s discoveryv1.EndpointSlice
				if err := f.kube.Get(context.Background(), client.ObjectKey{Namespace: unitNS, Name: "web-1"}, &s); err != nil {
					f.t.Fatal(err)
				}
				s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: ptr.To("http"), Port: ptr.To[int32](30080)})
				other := s.DeepCopy()
				other.Name, other.ResourceVersion = "web-2", ""
				other.Ports = []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](30080)}}
				other.Endpoints = []discoveryv1.Endpoint{{Addresses: []string{nodeIP(0)}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}}
				if err := f.kube.Create(context.Background(), other); err != nil {
					f.t.Fatal(err)
				}
			},
			expect: func(f *execFixture) {},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				var inv *InvariantError
				if !errors.As(err, &inv) || inv.Check != "pod-endpoint" || len(inv.Targets) != 1 || inv.Targets[0].IP != nodeIP(0) {
					t.Errorf("err = %v, want a pod-endpoint InvariantError naming %s", err, nodeIP(0))
				}
			},
		},
		{
			name: "the floor would be breached: no call, floor invariant", nodes: 4, pods: 3, floor: 4,
			expect: func(f *execFixture) {},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				var inv *InvariantError
				if !errors.As(err, &inv) || inv.Check != "floor" || inv.Healthy != 3 || inv.Floor != 4 {
					t.Errorf("err = %v, want a floor InvariantError (3 for 4)", err)
				}
			},
		},
		{
			name: "throttled twice, then done: retried with backoff", nodes: 2, pods: 4, floor: 2,
			expect: func(f *execFixture) {
				gomock.InOrder(
					f.api.EXPECT().DeregisterTargets(gomock.Any(), deregContract(2)).Return(nil, apiError("Throttling")).Times(2),
					f.api.EXPECT().DeregisterTargets(gomock.Any(), deregContract(2)).DoAndReturn(f.deregister),
				)
			},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				if err != nil || res.Deregistered != 2 || res.Calls["DeregisterTargets"] != 3 {
					t.Errorf("err %v, deregistered %d, calls %v", err, res.Deregistered, res.Calls)
				}
			},
		},
		{
			name: "a validation error is not retried", nodes: 2, pods: 4, floor: 2,
			expect: func(f *execFixture) {
				f.api.EXPECT().DeregisterTargets(gomock.Any(), deregContract(2)).Return(nil, apiError("ValidationError")).Times(1)
			},
			check: func(t *testing.T, f *execFixture, res *Result, err error) {
				var se *StepError
				if !errors.As(err, &se) || se.Step != StepDeregister || res.Calls["DeregisterTargets"] != 1 {
					t.Errorf("err %v, calls %v: want one call and a StepError", err, res.Calls)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newExecFixture(t, tt.nodes, tt.pods, tt.floor)
			f.done(StepBind, StepGate)
			if tt.setup != nil {
				tt.setup(f)
			}
			f.describe(nil)
			tt.expect(f)
			res, err := Execute(t.Context(), f.env, f.plan, WithStopAfter(StepDeregister), WithAutoRollback(false), WithFloorGrace(-1))
			tt.check(t, f, res, err)
		})
	}
}

// TestExecuteMakesNoCallWhenItMustNot: a finished plan, an edited plan,
// a plan whose target group another stack owns now: no mutating call (the
// mock allows only what each case lists).
func TestExecuteMakesNoCallWhenItMustNot(t *testing.T) {
	tests := []struct {
		name    string
		arrange func(*execFixture) *Plan
		check   func(error) bool
	}{
		{"finished plan: no call at all", func(f *execFixture) *Plan {
			f.done(f.plan.StepIDs()...)
			return f.plan
		}, func(err error) bool { return err == nil }},
		{"edited plan: no call at all", func(f *execFixture) *Plan {
			p := *f.plan
			p.Floor = 1
			return &p
		}, IsInvalidInput},
		{"owned by another stack since the plan: reads only", func(f *execFixture) *Plan {
			f.describe(map[string]string{TagServiceStack: "shop/web"})
			return f.plan
		}, func(err error) bool { return errors.Is(err, ErrForeignOwner) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newExecFixture(t, 2, 4, 2)
			p := tt.arrange(f)
			_, err := Execute(t.Context(), f.env, p)
			if !tt.check(err) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// TestExecuteAlignsHealthCheckOnce: ModifyTargetGroup sends only the
// settings that change, and none when they are already set.
func TestExecuteAlignsHealthCheckOnce(t *testing.T) {
	for _, aligned := range []bool{false, true} {
		t.Run(fmt.Sprintf("already aligned %t", aligned), func(t *testing.T) {
			f := newExecFixture(t, 2, 4, 2, StepAlignHealthCheck, StepBind)
			path := "/"
			if aligned {
				path = "/healthz"
			}
			tg := elbv2types.TargetGroup{TargetGroupArn: aws.String(testTG), TargetType: elbv2types.TargetTypeEnumIp, VpcId: aws.String(unitVPC),
				HealthCheckPort: aws.String("traffic-port"), HealthCheckPath: aws.String(path), HealthCheckProtocol: elbv2types.ProtocolEnumHttp}
			f.api.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{tg}}, nil).AnyTimes()
			f.api.EXPECT().DescribeTags(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTagsOutput{}, nil).AnyTimes()
			if !aligned {
				// The node targets healthy before the change, which the
				// gate then confirms.
				f.api.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).DoAndReturn(f.health)
				f.api.EXPECT().ModifyTargetGroup(gomock.Any(), gomock.Cond(func(x any) bool {
					in := x.(*elbv2.ModifyTargetGroupInput)
					return aws.ToString(in.HealthCheckPath) == "/healthz" && in.HealthCheckPort == nil && in.HealthCheckProtocol == "" &&
						in.HealthCheckIntervalSeconds == nil && in.Matcher == nil
				})).Return(&elbv2.ModifyTargetGroupOutput{}, nil)
			}
			res, err := Execute(t.Context(), f.env, f.plan, WithStopAfter(StepAlignHealthCheck))
			if err != nil || !res.Stopped {
				t.Fatalf("%+v %v", res, err)
			}
		})
	}
}

// TestSetRouteRefusesForeignTargetGroup: a forward action that someone
// pointed at a target group the plan does not know is an invariant breach,
// and nothing is modified.
func TestSetRouteRefusesForeignTargetGroup(t *testing.T) {
	f := newExecFixture(t, 1, 1, 1)
	e, err := f.env.resolve("test")
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(e, collect(nil), f.plan, arntest.TG(testTG), unitNS)
	if err != nil {
		t.Fatal(err)
	}
	r.st = NewState(f.plan.Ref(), "blue-green", StepShift(10))
	f.api.EXPECT().DescribeListeners(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeListenersOutput{Listeners: []elbv2types.Listener{{
		ListenerArn: aws.String(testListener),
		DefaultActions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, ForwardConfig: &elbv2types.ForwardActionConfig{
			TargetGroups: []elbv2types.TargetGroupTuple{{TargetGroupArn: aws.String(testTG), Weight: aws.Int32(50)}, {TargetGroupArn: aws.String(testOtherTG), Weight: aws.Int32(50)}}}}},
	}}}, nil)
	err = r.setRoute(t.Context(), StepShift(10), testListener, []TargetGroupWeight{{TargetGroupARN: testTG, Weight: 90}, {TargetGroupARN: testNewTG, Weight: 10}}, []string{testTG, testNewTG}, nil)
	var inv *InvariantError
	if !errors.As(err, &inv) || inv.Check != "route" {
		t.Errorf("err = %v, want a route InvariantError", err)
	}
}
