package tgbind

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	fakediscovery "k8s.io/client-go/discovery/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Shared fixtures of the unit and integration tests: a hand-made target
// group "legacy-web" pinning two node targets on NodePort 30080, and the
// Service shop/web whose pods listen on 8080.
const (
	testARN      = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	otherARN     = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/empty-web/fedcba9876543210"
	testVPC      = "vpc-0123456789abcdef0"
	otherVPC     = "vpc-0fedcba9876543210"
	testNS       = "shop"
	testService  = "web"
	testNodePort = 30080
	testPodPort  = 8080
	testSG       = "sg-0123456789abcdef0"
)

var (
	podIPs  = []string{"10.0.1.10", "10.0.1.11", "10.0.2.12"}
	nodeIPs = []string{"10.0.100.1", "10.0.100.2"}
)

func testScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// awsWorld is a small, mutable model of ELBv2 behind the gomock mock.
type awsWorld struct {
	mu     sync.Mutex
	tgs    map[string]elbv2types.TargetGroup
	health map[string][]elbv2types.TargetHealthDescription
	// healthFn, when set, computes DescribeTargetHealth instead of health.
	healthFn func(arn string) ([]elbv2types.TargetHealthDescription, error)
	calls    map[string]int
}

func newAWSWorld() *awsWorld {
	return &awsWorld{tgs: map[string]elbv2types.TargetGroup{}, health: map[string][]elbv2types.TargetHealthDescription{}, calls: map[string]int{}}
}

func (w *awsWorld) addTG(tg elbv2types.TargetGroup, targets ...elbv2types.TargetHealthDescription) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tgs[aws.ToString(tg.TargetGroupArn)] = tg
	w.health[aws.ToString(tg.TargetGroupArn)] = targets
}

func (w *awsWorld) count(op string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[op]
}

// wire makes the mock answer from the world, any number of times.
func (w *awsWorld) wire(m *mocks.MockELBv2API) {
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.calls["DescribeTargetGroups"]++
			out := &elbv2.DescribeTargetGroupsOutput{}
			for _, arn := range in.TargetGroupArns {
				tg, ok := w.tgs[arn]
				if !ok {
					return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("One or more target groups not found")}
				}
				out.TargetGroups = append(out.TargetGroups, tg)
			}
			return out, nil
		}).AnyTimes()
	m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
			w.mu.Lock()
			w.calls["DescribeTargetHealth"]++
			arn := aws.ToString(in.TargetGroupArn)
			fn := w.healthFn
			targets, ok := w.health[arn]
			w.mu.Unlock()
			if fn != nil {
				d, err := fn(arn)
				if err != nil {
					return nil, err
				}
				return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: d}, nil
			}
			if !ok {
				return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("not found")}
			}
			return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: targets}, nil
		}).AnyTimes()
}

type tgOpt func(*elbv2types.TargetGroup)

func withType(t elbv2types.TargetTypeEnum) tgOpt {
	return func(tg *elbv2types.TargetGroup) { tg.TargetType = t }
}
func withHealthCheckPort(p string) tgOpt {
	return func(tg *elbv2types.TargetGroup) { tg.HealthCheckPort = aws.String(p) }
}
func withProtocol(p elbv2types.ProtocolEnum) tgOpt {
	return func(tg *elbv2types.TargetGroup) { tg.Protocol = p }
}
func withIPv6() tgOpt {
	return func(tg *elbv2types.TargetGroup) { tg.IpAddressType = elbv2types.TargetGroupIpAddressTypeEnumIpv6 }
}

// targetGroup returns legacy-web (or the target group of arn): ip, HTTP, in
// testVPC, health check on traffic-port.
func targetGroup(arn string, opts ...tgOpt) elbv2types.TargetGroup {
	name := "legacy-web"
	if arn == otherARN {
		name = "empty-web"
	}
	tg := elbv2types.TargetGroup{
		TargetGroupArn:  aws.String(arn),
		TargetGroupName: aws.String(name),
		TargetType:      elbv2types.TargetTypeEnumIp,
		Protocol:        elbv2types.ProtocolEnumHttp,
		Port:            aws.Int32(testNodePort),
		VpcId:           aws.String(testVPC),
		IpAddressType:   elbv2types.TargetGroupIpAddressTypeEnumIpv4,
		HealthCheckPort: aws.String("traffic-port"),
	}
	for _, o := range opts {
		o(&tg)
	}
	return tg
}

func target(ip string, port int32, state elbv2types.TargetHealthStateEnum, reason elbv2types.TargetHealthReasonEnum) elbv2types.TargetHealthDescription {
	return elbv2types.TargetHealthDescription{
		Target:       &elbv2types.TargetDescription{Id: aws.String(ip), Port: aws.Int32(port)},
		TargetHealth: &elbv2types.TargetHealth{State: state, Reason: reason},
	}
}

// nodeTargets are the hand-registered nodeIP:NodePort targets, healthy.
func nodeTargets() []elbv2types.TargetHealthDescription {
	var out []elbv2types.TargetHealthDescription
	for _, ip := range nodeIPs {
		out = append(out, target(ip, testNodePort, elbv2types.TargetHealthStateEnumHealthy, ""))
	}
	return out
}

// podTargets are the pod targets in the given state.
func podTargets(state elbv2types.TargetHealthStateEnum, reason elbv2types.TargetHealthReasonEnum) []elbv2types.TargetHealthDescription {
	var out []elbv2types.TargetHealthDescription
	for _, ip := range podIPs {
		out = append(out, target(ip, testPodPort, state, reason))
	}
	return out
}

// service returns shop/web: NodePort, port 80 "http" -> targetPort "http".
func service(ns string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: testService, Namespace: ns},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeNodePort,
			Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{
				Name: "http", Port: 80, Protocol: corev1.ProtocolTCP,
				TargetPort: intstr.FromString("http"), NodePort: testNodePort,
			}},
		},
	}
}

// endpointSlice returns a slice of shop/web with the pod IPs ready on 8080
// and one more endpoint that is not ready.
func endpointSlice(ns string) *discoveryv1.EndpointSlice {
	ready, notReady := true, false
	es := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: testService + "-abcde", Namespace: ns,
			Labels: map[string]string{discoveryv1.LabelServiceName: testService}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: aws.String("http"), Port: aws.Int32(testPodPort), Protocol: ptrTo(corev1.ProtocolTCP)}},
	}
	for _, ip := range podIPs {
		es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.3.13"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}})
	return es
}

// binding returns a TargetGroupBinding on the target group; mutate it to taste.
func binding(ns, name, arn string, multi bool, owned bool) *v1beta1.TargetGroupBinding {
	ip := v1beta1.TargetTypeIP
	t := &v1beta1.TargetGroupBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + ns + "-" + name)},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: arn, TargetType: &ip,
			ServiceRef:              v1beta1.ServiceReference{Name: testService, Port: intstr.FromString("http")},
			MultiClusterTargetGroup: multi,
		},
	}
	if owned {
		t.Labels = map[string]string{LabelManagedBy: ManagedByValue}
	}
	return t
}

func discoveryWithCRD(installed bool) *fakediscovery.FakeDiscovery {
	f := &clienttesting.Fake{}
	if installed {
		f.Resources = []*metav1.APIResourceList{{GroupVersion: v1beta1.GroupVersion.String(),
			APIResources: []metav1.APIResource{{Name: v1beta1.Resource, Namespaced: true, Kind: v1beta1.Kind}}}}
	}
	return &fakediscovery.FakeDiscovery{Fake: f}
}

// snapshot lists the objects tgbind could touch (bindings in every
// namespace; Services, EndpointSlices and ConfigMaps in ns) as
// kind/namespace/name -> resourceVersion.
func snapshot(t testing.TB, ctx context.Context, r client.Reader, ns string) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(kind string, objs []client.Object) {
		for _, o := range objs {
			out[fmt.Sprintf("%s/%s/%s", kind, o.GetNamespace(), o.GetName())] = o.GetResourceVersion()
		}
	}
	var tgbs v1beta1.TargetGroupBindingList
	if err := r.List(ctx, &tgbs); err != nil {
		t.Fatalf("list bindings: %v", err)
	}
	var objs []client.Object
	for i := range tgbs.Items {
		objs = append(objs, &tgbs.Items[i])
	}
	add("TargetGroupBinding", objs)
	var svcs corev1.ServiceList
	var cms corev1.ConfigMapList
	var eps discoveryv1.EndpointSliceList
	for _, l := range []client.ObjectList{&svcs, &cms, &eps} {
		if err := r.List(ctx, l, client.InNamespace(ns)); err != nil {
			t.Fatalf("list: %v", err)
		}
	}
	objs = nil
	for i := range svcs.Items {
		objs = append(objs, &svcs.Items[i])
	}
	add("Service", objs)
	objs = nil
	for i := range cms.Items {
		objs = append(objs, &cms.Items[i])
	}
	add("ConfigMap", objs)
	objs = nil
	for i := range eps.Items {
		objs = append(objs, &eps.Items[i])
	}
	add("EndpointSlice", objs)
	return out
}
