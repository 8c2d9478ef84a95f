package tgbind_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

const (
	legacyARN = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	edgeARN   = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/0123456789abcdef"
)

// fakeELB is a hand-built, read-only ELBv2: one target group and its
// targets. It answers the four Describe* calls the Binder makes; the others
// of tgbind.ELBv2API come from the nil interface it embeds, and would panic
// if called.
type fakeELB struct {
	tgbind.ELBv2API
	targets []elbv2types.TargetHealthDescription
}

func (f fakeELB) DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return &elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{{
		TargetGroupArn: aws.String(legacyARN), TargetGroupName: aws.String("legacy-web"),
		TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(30080),
		VpcId: aws.String("vpc-0123456789abcdef0"), IpAddressType: elbv2types.TargetGroupIpAddressTypeEnumIpv4,
		HealthCheckPort: aws.String("traffic-port"), LoadBalancerArns: []string{edgeARN},
	}}}, nil
}

func (f fakeELB) DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: f.targets}, nil
}

func (f fakeELB) DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	return &elbv2.DescribeTagsOutput{}, nil
}

func (f fakeELB) DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	return &elbv2.DescribeLoadBalancersOutput{LoadBalancers: []elbv2types.LoadBalancer{{
		LoadBalancerArn: aws.String(edgeARN), LoadBalancerName: aws.String("edge"), Type: elbv2types.LoadBalancerTypeEnumApplication,
		SecurityGroups: []string{"sg-0123456789abcdef0"},
	}}}, nil
}

func targetAt(ip string, port int32, state elbv2types.TargetHealthStateEnum) elbv2types.TargetHealthDescription {
	return elbv2types.TargetHealthDescription{
		Target:       &elbv2types.TargetDescription{Id: aws.String(ip), Port: aws.Int32(port)},
		TargetHealth: &elbv2types.TargetHealth{State: state},
	}
}

// cluster is a fake cluster holding the Service shop/web (port 80 "http" ->
// container port 8080) with two ready pods.
func cluster() client.Client {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1beta1.AddToScheme(scheme)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30080}}},
	}
	ready := true
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: aws.String("http"), Port: aws.Int32(8080)}},
		Endpoints: []discoveryv1.Endpoint{
			{Addresses: []string{"10.0.1.10"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			{Addresses: []string{"10.0.1.11"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
		},
	}
	return fake.NewClientBuilder().WithScheme(scheme).WithObjects(svc, slice).Build()
}

// Build a binding for a legacy target group that still holds the
// hand-registered node targets: Build picks multi-cluster mode and says why.
func ExampleBinder_Build() {
	elb := fakeELB{targets: []elbv2types.TargetHealthDescription{
		targetAt("10.0.100.1", 30080, elbv2types.TargetHealthStateEnumHealthy),
		targetAt("10.0.100.2", 30080, elbv2types.TargetHealthStateEnumHealthy),
	}}
	b, err := tgbind.New(tgbind.Options{ELBv2: elb, Reader: cluster()})
	if err != nil {
		fmt.Println(err)
		return
	}
	tg, err := tgmigrate.ParseTargetGroupARN(legacyARN) // once, where the ARN comes in
	if err != nil {
		fmt.Println(err)
		return
	}
	binding, err := b.Build(context.Background(), tgbind.Request{
		TargetGroupARN: tg, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(binding.Key())
	fmt.Println("multiClusterTargetGroup:", binding.TargetGroupBinding.Spec.MultiClusterTargetGroup)
	fmt.Println("reason:", binding.MultiCluster.Reason)
	fmt.Println("targets default mode would remove:", binding.MultiCluster.ForeignTargets)
	// Output:
	// shop/web-http-legacy-web
	// multiClusterTargetGroup: true
	// reason: ForeignTargets
	// targets default mode would remove: [10.0.100.1:30080 10.0.100.2:30080]
}

// Let the ALB that forwards to the target group reach the pods: Build looks
// up its security groups and puts them into networking.ingress, so the LBC
// opens the pods' port to them.
func ExampleWithLoadBalancerSecurityGroups() {
	b, err := tgbind.New(tgbind.Options{ELBv2: fakeELB{}, Reader: cluster()})
	if err != nil {
		fmt.Println(err)
		return
	}
	tg, err := tgmigrate.ParseTargetGroupARN(legacyARN)
	if err != nil {
		fmt.Println(err)
		return
	}
	binding, err := b.Build(context.Background(), tgbind.Request{
		TargetGroupARN: tg, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
	}, tgbind.WithLoadBalancerSecurityGroups())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, lb := range binding.LoadBalancers {
		fmt.Println("load balancer:", lb.Name, lb.SecurityGroups)
	}
	for _, rule := range binding.TargetGroupBinding.Spec.Networking.Ingress {
		for _, from := range rule.From {
			fmt.Println("from:", from.SecurityGroup.GroupID, "to port:", rule.Ports[0].Port.String())
		}
	}
	// Output:
	// load balancer: edge [sg-0123456789abcdef0]
	// from: sg-0123456789abcdef0 to port: http
}

// Render the binding for a GitOps repository instead of applying it.
func ExampleManifest() {
	ip := v1beta1.TargetTypeIP
	tgb := &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-http-legacy-web",
			Labels: map[string]string{tgbind.LabelManagedBy: tgbind.ManagedByValue}},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: legacyARN, TargetType: &ip, MultiClusterTargetGroup: true,
			ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("http")},
		},
	}
	out, err := tgbind.Manifest(tgb)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// apiVersion: elbv2.k8s.aws/v1beta1
	// kind: TargetGroupBinding
	// metadata:
	//   labels:
	//     app.kubernetes.io/managed-by: tgmigrate
	//   name: web-http-legacy-web
	//   namespace: shop
	// spec:
	//   multiClusterTargetGroup: true
	//   serviceRef:
	//     name: web
	//     port: http
	//   targetGroupARN: arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef
	//   targetType: ip
}

// Validate refuses a default-mode binding on a target group that still holds
// node targets, naming the field, and changes nothing. This Binder has no
// Writer, so its dry run is skipped, and no discovery client, so the CRD
// check is skipped too: the report says so.
func ExampleBinder_Validate() {
	elb := fakeELB{targets: []elbv2types.TargetHealthDescription{
		targetAt("10.0.100.1", 30080, elbv2types.TargetHealthStateEnumHealthy),
	}}
	b, _ := tgbind.New(tgbind.Options{ELBv2: elb, Reader: cluster(), ClusterVPCID: "vpc-0123456789abcdef0"})
	ip := v1beta1.TargetTypeIP
	tgb := &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: legacyARN, TargetType: &ip,
			ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("http")},
		},
	}
	report, err := b.Validate(context.Background(), tgb)
	fmt.Println("default mode unsafe:", tgbind.IsDefaultModeUnsafe(err))
	for _, c := range report.Checks {
		if c.Status != tgbind.CheckPassed {
			fmt.Println(c.Status, c.ID)
		}
	}
	for _, fe := range report.Failures {
		fmt.Println("field:", fe.Field)
	}
	// Output:
	// default mode unsafe: true
	// skipped crd-installed
	// failed multi-cluster-mode
	// skipped dry-run
	// field: spec.multiClusterTargetGroup
}

// Wait until every ready endpoint is a healthy target, with a floor of two.
// The targets here are healthy already, so the first look suffices; the
// progress callback sees each look.
func ExampleBinder_Wait() {
	elb := fakeELB{targets: []elbv2types.TargetHealthDescription{
		targetAt("10.0.100.1", 30080, elbv2types.TargetHealthStateEnumHealthy),
		targetAt("10.0.1.10", 8080, elbv2types.TargetHealthStateEnumHealthy),
		targetAt("10.0.1.11", 8080, elbv2types.TargetHealthStateEnumHealthy),
	}}
	b, _ := tgbind.New(tgbind.Options{ELBv2: elb, Reader: cluster()})
	ip := v1beta1.TargetTypeIP
	tgb := &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-http-legacy-web"},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: legacyARN, TargetType: &ip, MultiClusterTargetGroup: true,
			ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromString("http")},
		},
	}
	state, err := b.Wait(context.Background(), tgb,
		tgbind.WithMinHealthy(2),
		tgbind.WithOnProgress(func(s *tgbind.TargetState) { fmt.Println("progress:", s.Summary()) }))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("done:", state.Healthy, "of", state.Total, "pod targets healthy; node targets left:", len(state.Others))
	// Output:
	// progress: 2/2 healthy, 1 other target (1 healthy)
	// done: 2 of 2 pod targets healthy; node targets left: 1
}
