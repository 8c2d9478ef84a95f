package tgbind

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// wantTGB is the binding Build makes for shop/web on legacy-web; each case
// edits a copy.
func wantTGB(name string, port intstr.IntOrString, multi bool, reason MultiClusterReason) *v1beta1.TargetGroupBinding {
	ip := v1beta1.TargetTypeIP
	ipv4 := v1beta1.IPAddressTypeIPv4
	http := v1beta1.ProtocolHTTP
	return &v1beta1.TargetGroupBinding{
		TypeMeta: metav1.TypeMeta{APIVersion: "elbv2.k8s.aws/v1beta1", Kind: "TargetGroupBinding"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: testNS,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "tgmigrate"},
			Annotations: map[string]string{
				"tgmigrate.qstools.io/target-group-arn":     testARN,
				"tgmigrate.qstools.io/multi-cluster-reason": string(reason),
			},
		},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN:          testARN,
			TargetType:              &ip,
			ServiceRef:              v1beta1.ServiceReference{Name: testService, Port: port},
			VpcID:                   testVPC,
			IPAddressType:           &ipv4,
			TargetGroupProtocol:     &http,
			MultiClusterTargetGroup: multi,
		},
	}
}

func TestBuild(t *testing.T) {
	sharedMulti := binding("other", "other-web", testARN, true, false)
	ownExisting := binding(testNS, "web-http-legacy-web", testARN, true, true)
	ownExisting.Annotations = map[string]string{AnnotationMultiClusterReason: string(ReasonForeignTargets)}

	ipv6Slice := endpointSlice(testNS)
	ipv6Slice.Name = "web-v6"
	ipv6Slice.AddressType = discoveryv1.AddressTypeIPv6
	ipv6Slice.Endpoints = ipv6Slice.Endpoints[:1]
	ipv6Slice.Endpoints[0].Addresses = []string{"2001:db8:0:0::10"}

	tests := []struct {
		name        string
		req         Request
		tg          elbv2types.TargetGroup
		targets     []elbv2types.TargetHealthDescription
		objs        []client.Object
		want        func() *v1beta1.TargetGroupBinding
		wantReason  MultiClusterReason
		wantForeign []string
		wantReady   int
		wantNote    string
	}{
		{
			name: "legacy target group with node targets: multi-cluster",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")},
			tg:   targetGroup(testARN), targets: nodeTargets(),
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonForeignTargets)
			},
			wantReason: ReasonForeignTargets, wantForeign: []string{"10.0.100.1:30080", "10.0.100.2:30080"}, wantReady: 3,
		},
		{
			name: "port by number",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromInt32(80)},
			tg:   targetGroup(testARN), targets: nodeTargets(),
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-80-legacy-web", intstr.FromInt32(80), true, ReasonForeignTargets)
			},
			wantReason: ReasonForeignTargets, wantForeign: []string{"10.0.100.1:30080", "10.0.100.2:30080"}, wantReady: 3,
		},
		{
			name: "zero port means the only port",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService},
			tg:   targetGroup(testARN), targets: nodeTargets(),
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-80-legacy-web", intstr.FromInt32(80), true, ReasonForeignTargets)
			},
			wantReason: ReasonForeignTargets, wantForeign: []string{"10.0.100.1:30080", "10.0.100.2:30080"}, wantReady: 3,
		},
		{
			name: "empty target group: default mode",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")},
			tg:   targetGroup(testARN),
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-http-legacy-web", intstr.FromString("http"), false, ReasonEmptyTargetGroup)
			},
			wantReason: ReasonEmptyTargetGroup, wantReady: 3,
		},
		{
			name: "empty target group, multi-cluster requested",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http"), MultiCluster: true},
			tg:   targetGroup(testARN),
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonRequested)
			},
			wantReason: ReasonRequested, wantReady: 3,
		},
		{
			name: "only pod targets: still multi-cluster",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")},
			tg:   targetGroup(testARN), targets: podTargets(elbv2types.TargetHealthStateEnumHealthy, ""),
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonNonEmptyTargetGroup)
			},
			wantReason: ReasonNonEmptyTargetGroup, wantReady: 3,
		},
		{
			name: "shared with a multi-cluster binding",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")},
			tg:   targetGroup(testARN), objs: []client.Object{sharedMulti},
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonSharedTargetGroup)
			},
			wantReason: ReasonSharedTargetGroup, wantReady: 3,
		},
		{
			name: "own existing binding: flag and reason kept",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")},
			tg:   targetGroup(testARN), targets: podTargets(elbv2types.TargetHealthStateEnumHealthy, ""),
			objs: []client.Object{ownExisting},
			want: func() *v1beta1.TargetGroupBinding {
				return wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonForeignTargets)
			},
			wantReason: ReasonForeignTargets, wantReady: 3,
		},
		{
			name: "ingress from the ALB's security groups, to the named target port",
			req: Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http"),
				IngressSecurityGroups: []string{testSG, "sg-0a1b2c3d"}},
			tg: targetGroup(testARN), targets: nodeTargets(),
			want: func() *v1beta1.TargetGroupBinding {
				w := wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonForeignTargets)
				tcp := v1beta1.NetworkingProtocolTCP
				port := intstr.FromString("http")
				w.Spec.Networking = &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
					From: []v1beta1.NetworkingPeer{
						{SecurityGroup: &v1beta1.SecurityGroup{GroupID: testSG}},
						{SecurityGroup: &v1beta1.SecurityGroup{GroupID: "sg-0a1b2c3d"}},
					},
					Ports: []v1beta1.NetworkingPort{{Protocol: &tcp, Port: &port}},
				}}}
				return w
			},
			wantReason: ReasonForeignTargets, wantForeign: []string{"10.0.100.1:30080", "10.0.100.2:30080"}, wantReady: 3,
		},
		{
			name: "name, labels and annotations from the request; ownership wins",
			req: Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http"),
				Name: "web-binding", Labels: map[string]string{"team": "shop", LabelManagedBy: "helm"},
				Annotations: map[string]string{"owner": "shop-team", AnnotationTargetGroupARN: "spoofed"}},
			tg: targetGroup(testARN),
			want: func() *v1beta1.TargetGroupBinding {
				w := wantTGB("web-binding", intstr.FromString("http"), false, ReasonEmptyTargetGroup)
				w.Labels["team"] = "shop"
				w.Annotations["owner"] = "shop-team"
				return w
			},
			wantReason: ReasonEmptyTargetGroup, wantReady: 3,
		},
		{
			name: "ipv6 target group uses the IPv6 EndpointSlices",
			req:  Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")},
			tg:   targetGroup(testARN, withIPv6()),
			targets: []elbv2types.TargetHealthDescription{
				target("2001:db8::10", testPodPort, elbv2types.TargetHealthStateEnumHealthy, ""),
			},
			objs: []client.Object{ipv6Slice},
			want: func() *v1beta1.TargetGroupBinding {
				w := wantTGB("web-http-legacy-web", intstr.FromString("http"), true, ReasonNonEmptyTargetGroup)
				ipv6 := v1beta1.IPAddressTypeIPv6
				w.Spec.IPAddressType = &ipv6
				return w
			},
			wantReason: ReasonNonEmptyTargetGroup, wantReady: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnit(t, withObjects(append(standardObjects(), tt.objs...)...))
			u.world.addTG(tt.tg, tt.targets...)
			before := snapshot(t, t.Context(), u.raw, testNS)

			got, err := u.binder.Build(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("Build() error = %v", err)
			}
			if diff := cmp.Diff(tt.want(), got.TargetGroupBinding); diff != "" {
				t.Errorf("binding (-want +got):\n%s", diff)
			}
			if got.Version != BindingVersion {
				t.Errorf("Version = %q", got.Version)
			}
			if got.MultiCluster.Reason != tt.wantReason || got.MultiCluster.Detail == "" {
				t.Errorf("MultiCluster = %+v, want reason %s with a detail", got.MultiCluster, tt.wantReason)
			}
			if diff := cmp.Diff(tt.wantForeign, got.MultiCluster.ForeignTargets); diff != "" {
				t.Errorf("ForeignTargets (-want +got):\n%s", diff)
			}
			if got.Service.ReadyEndpoints != tt.wantReady {
				t.Errorf("ReadyEndpoints = %d, want %d", got.Service.ReadyEndpoints, tt.wantReady)
			}
			if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
				t.Errorf("Build changed the cluster (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBuildTwoPortsNeedsAPort(t *testing.T) {
	svc := service(testNS)
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090)})
	u := newUnit(t, withObjects(svc, endpointSlice(testNS))).legacy()
	_, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService})
	if !IsPortNotFound(err) || !strings.Contains(err.Error(), "http=80, metrics=9090") {
		t.Fatalf("err = %v, want ErrPortNotFound listing the ports", err)
	}
}

// TestBuildCallContract pins the AWS calls Build makes: one
// DescribeTargetGroups and one DescribeTargetHealth, for the ARN asked.
func TestBuildCallContract(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...), strictAWS())
	tg := targetGroup(testARN)
	gomock.InOrder(
		u.elb.EXPECT().DescribeTargetGroups(gomock.Any(), &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{testARN}}).
			Return(&elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{tg}}, nil).Times(1),
		u.elb.EXPECT().DescribeTargetHealth(gomock.Any(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(testARN)}).
			Return(&elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: nodeTargets()}, nil).Times(1),
	)
	if _, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService}); err != nil {
		t.Fatal(err)
	}
}

func TestBuildRejects(t *testing.T) {
	good := Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")}
	with := func(f func(*Request)) Request { r := good; f(&r); return r }
	tests := []struct {
		name       string
		req        Request
		tg         *elbv2types.TargetGroup
		strict     bool // no AWS call may happen
		wantKinds  []error
		wantFields []string
	}{
		{"missing ARN never reaches AWS", with(func(r *Request) { r.TargetGroupARN = tgmigrate.ARN{} }),
			nil, true, []error{ErrInvalidARN}, []string{"spec.targetGroupARN"}},
		{"hand-made ARN never reaches AWS", with(func(r *Request) { r.TargetGroupARN = arntest.HandMadeTG(testARN) }),
			nil, true, []error{ErrInvalidARN}, []string{"spec.targetGroupARN"}},
		{"load balancer ARN", with(func(r *Request) {
			r.TargetGroupARN = arntest.LB("arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/fedcba9876543210")
		}), nil, true, []error{ErrInvalidARN}, []string{"spec.targetGroupARN"}},
		{"target group not found", good, nil, false, []error{ErrTargetGroupNotFound}, []string{"spec.targetGroupARN"}},
		{"instance target group", good, ptrTo(targetGroup(testARN, withType(elbv2types.TargetTypeEnumInstance))), false,
			[]error{ErrInstanceTargetGroup}, []string{"spec.targetType"}},
		{"lambda target group", good, ptrTo(targetGroup(testARN, withType(elbv2types.TargetTypeEnumLambda))), false,
			[]error{ErrUnsupportedTargetGroup}, []string{"spec.targetType"}},
		{"GENEVE protocol", good, ptrTo(targetGroup(testARN, withProtocol(elbv2types.ProtocolEnumGeneve))), false,
			[]error{ErrUnsupportedTargetGroup}, []string{"spec.targetGroupProtocol"}},
		{"missing Service", with(func(r *Request) { r.Service = "nope" }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrServiceNotFound}, []string{"spec.serviceRef.name"}},
		{"wrong port name", with(func(r *Request) { r.Port = intstr.FromString("https") }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrPortNotFound}, []string{"spec.serviceRef.port"}},
		{"wrong port number", with(func(r *Request) { r.Port = intstr.FromInt32(8080) }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrPortNotFound}, []string{"spec.serviceRef.port"}},
		{"empty namespace and Service", with(func(r *Request) { r.Namespace, r.Service = "", "" }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrInvalidRequest, ErrInvalidRequest}, []string{"metadata.namespace", "spec.serviceRef.name"}},
		{"bad name", with(func(r *Request) { r.Name = "Web_Binding" }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrInvalidRequest}, []string{"metadata.name"}},
		{"LBC stack label", with(func(r *Request) { r.Labels = map[string]string{"service.k8s.aws/stack-name": "web"} }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrLBCStackLabel}, []string{"metadata.labels[service.k8s.aws/stack-name]"}},
		{"bad security group", with(func(r *Request) { r.IngressSecurityGroups = []string{testSG, "web-sg"} }), ptrTo(targetGroup(testARN)), false,
			[]error{ErrInvalidSpec}, []string{"spec.networking.ingress[0].from[1].securityGroup.groupID"}},
		{"every failure at once", with(func(r *Request) { r.Service = "nope"; r.Labels = map[string]string{"ingress.k8s.aws/stack": "x"} }),
			ptrTo(targetGroup(testARN, withType(elbv2types.TargetTypeEnumInstance))), false,
			[]error{ErrLBCStackLabel, ErrInstanceTargetGroup, ErrServiceNotFound},
			[]string{"metadata.labels[ingress.k8s.aws/stack]", "spec.targetType", "spec.serviceRef.name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []unitOpt{withObjects(standardObjects()...)}
			if tt.strict {
				opts = append(opts, strictAWS())
			}
			u := newUnit(t, opts...)
			if tt.tg != nil {
				u.world.addTG(*tt.tg, nodeTargets()...)
			}
			before := snapshot(t, t.Context(), u.raw, testNS)
			got, err := u.binder.Build(t.Context(), tt.req)
			if got != nil {
				t.Errorf("Build() returned a binding with an error")
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Build() error = %v, want *ValidationError", err)
			}
			var kinds []error
			var fields []string
			for _, fe := range ve.Errors {
				kinds = append(kinds, fe.Kind)
				fields = append(fields, fe.Field)
				if fe.Check == "" || fe.Detail == "" {
					t.Errorf("field error %+v lacks a check or a detail", fe)
				}
			}
			if diff := cmp.Diff(tt.wantKinds, kinds, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			for _, k := range tt.wantKinds {
				if !errors.Is(err, k) {
					t.Errorf("errors.Is(err, %v) = false", k)
				}
			}
			if !strings.HasPrefix(err.Error(), "tgbind: build: ") {
				t.Errorf("message %q does not start with the operation", err)
			}
			if tt.strict && u.world.count("DescribeTargetGroups")+u.world.count("DescribeTargetHealth") != 0 {
				t.Errorf("AWS was called")
			}
			if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
				t.Errorf("Build changed the cluster (-before +after):\n%s", diff)
			}
		})
	}
}

func TestBuildInstanceTargetGroupPointsAtBlueGreen(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...))
	u.world.addTG(targetGroup(testARN, withType(elbv2types.TargetTypeEnumInstance)))
	_, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService})
	if !IsInstanceTargetGroup(err) || !strings.Contains(err.Error(), "blue/green") {
		t.Fatalf("err = %v, want ErrInstanceTargetGroup pointing at cutover's blue/green path", err)
	}
}

// TestBuildOperationalErrors shows that AWS and API failures are returned as
// they are (classified), not as validation failures.
func TestBuildOperationalErrors(t *testing.T) {
	denied := &smithy.GenericAPIError{Code: "AccessDenied", Message: "not allowed"}
	tests := []struct {
		name string
		set  func(*unit)
		want error
	}{
		{"DescribeTargetGroups denied", func(u *unit) {
			u.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).Return(nil, denied)
		}, awserr.ErrAccessDenied},
		{"DescribeTargetHealth throttled", func(u *unit) {
			u.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any()).
				Return(&elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{targetGroup(testARN)}}, nil)
			u.elb.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).
				Return(nil, &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"})
		}, awserr.ErrThrottled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnit(t, withObjects(standardObjects()...), strictAWS())
			tt.set(u)
			_, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService})
			if !errors.Is(err, tt.want) || IsValidationError(err) {
				t.Fatalf("err = %v, want %v and not a validation error", err, tt.want)
			}
		})
	}
}

func TestBuildCRDMissingIsANote(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...), withInterceptor(noTGBKind()))
	u.legacy()
	got, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) == 0 || !strings.Contains(got.Notes[0], "CRD is not installed") {
		t.Errorf("Notes = %q, want a note about the CRD", got.Notes)
	}
}

// TestBuildLoadBalancerSecurityGroups: with WithLoadBalancerSecurityGroups,
// Build makes exactly one DescribeLoadBalancers call, for the load
// balancers the target group names, and admits their security groups next
// to the caller's; without it, it makes none (the mock has no expectation
// for it, so a call fails the test).
func TestBuildLoadBalancerSecurityGroups(t *testing.T) {
	const (
		lbARN  = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/0123456789abcdef"
		nlbARN = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/net/tcp/fedcba9876543210"
		sgA    = "sg-0aaaaaaaaaaaaaaaa"
		sgB    = "sg-0bbbbbbbbbbbbbbbb"
	)
	withLBs := func(arns ...string) tgOpt {
		return func(tg *elbv2types.TargetGroup) { tg.LoadBalancerArns = arns }
	}
	alb := elbv2types.LoadBalancer{LoadBalancerArn: aws.String(lbARN), LoadBalancerName: aws.String("edge"),
		Type: elbv2types.LoadBalancerTypeEnumApplication, SecurityGroups: []string{sgB, sgA, testSG}}
	nlb := elbv2types.LoadBalancer{LoadBalancerArn: aws.String(nlbARN), LoadBalancerName: aws.String("tcp"),
		Type: elbv2types.LoadBalancerTypeEnumNetwork}
	tests := []struct {
		name      string
		tgOpts    []tgOpt
		given     []string // Request.IngressSecurityGroups
		opts      []Option
		describe  []string // the ARNs of the one DescribeLoadBalancers call; nil: no call
		answer    []elbv2types.LoadBalancer
		wantFrom  []string // networking.ingress[0].from, in order; nil: no networking
		wantLBs   []LoadBalancerInfo
		wantNote  string
		wantInStr string
	}{
		{name: "the ALB's groups, after the caller's, without duplicates", tgOpts: []tgOpt{withLBs(lbARN)},
			given: []string{testSG}, opts: []Option{WithLoadBalancerSecurityGroups()},
			describe: []string{lbARN}, answer: []elbv2types.LoadBalancer{alb},
			wantFrom:  []string{testSG, sgA, sgB},
			wantLBs:   []LoadBalancerInfo{{ARN: lbARN, Name: "edge", Type: "application", SecurityGroups: []string{testSG, sgA, sgB}}},
			wantInStr: "load balancer: edge (application): security groups " + testSG + ", " + sgA + ", " + sgB},
		{name: "an NLB without security groups adds nothing", tgOpts: []tgOpt{withLBs(nlbARN)},
			opts: []Option{WithLoadBalancerSecurityGroups()}, describe: []string{nlbARN}, answer: []elbv2types.LoadBalancer{nlb},
			wantLBs:  []LoadBalancerInfo{{ARN: nlbARN, Name: "tcp", Type: "network"}},
			wantNote: "load balancer tcp has no security groups"},
		{name: "no load balancer: no call, a note", opts: []Option{WithLoadBalancerSecurityGroups()},
			given: []string{testSG}, wantFrom: []string{testSG}, wantLBs: []LoadBalancerInfo{},
			wantNote: "no load balancer forwards to target group legacy-web"},
		{name: "near miss: not asked, no call", tgOpts: []tgOpt{withLBs(lbARN)}, given: []string{testSG}, wantFrom: []string{testSG}},
		{name: "near miss: not asked, no groups given, no networking", tgOpts: []tgOpt{withLBs(lbARN)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUnit(t, withObjects(standardObjects()...))
			u.world.addTG(targetGroup(testARN, tt.tgOpts...), nodeTargets()...)
			if tt.describe != nil {
				u.elb.EXPECT().DescribeLoadBalancers(gomock.Any(), &elbv2.DescribeLoadBalancersInput{LoadBalancerArns: tt.describe}).
					Return(&elbv2.DescribeLoadBalancersOutput{LoadBalancers: tt.answer}, nil).Times(1)
			}
			got, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService,
				Port: intstr.FromString("http"), IngressSecurityGroups: tt.given}, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var from []string
			if n := got.TargetGroupBinding.Spec.Networking; n != nil {
				if len(n.Ingress) != 1 || len(n.Ingress[0].Ports) != 1 || n.Ingress[0].Ports[0].Port.String() != "http" {
					t.Errorf("networking = %+v, want one rule to the pods' port", n)
				}
				for _, p := range n.Ingress[0].From {
					from = append(from, p.SecurityGroup.GroupID)
				}
			}
			if diff := cmp.Diff(tt.wantFrom, from); diff != "" {
				t.Errorf("ingress from (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLBs, got.LoadBalancers); diff != "" {
				t.Errorf("LoadBalancers (-want +got):\n%s", diff)
			}
			if notes := strings.Join(got.Notes, "\n"); (tt.wantNote == "") == strings.Contains(notes, "load balancer") || !strings.Contains(notes, tt.wantNote) {
				t.Errorf("notes = %q, want %q", got.Notes, tt.wantNote)
			}
			if !strings.Contains(got.String(), tt.wantInStr) {
				t.Errorf("String() = %q, want %q", got.String(), tt.wantInStr)
			}
		})
	}
}

// TestBuildLoadBalancerSecurityGroupsError: a failed lookup fails Build
// with the classified AWS error, not a validation error.
func TestBuildLoadBalancerSecurityGroupsError(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...))
	u.world.addTG(targetGroup(testARN, func(tg *elbv2types.TargetGroup) {
		tg.LoadBalancerArns = []string{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/gone/0123456789abcdef"}
	}), nodeTargets()...)
	u.elb.EXPECT().DescribeLoadBalancers(gomock.Any(), gomock.Any()).
		Return(nil, &elbv2types.LoadBalancerNotFoundException{Message: aws.String("Load balancers not found")}).Times(1)
	_, err := u.binder.Build(t.Context(), Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService,
		Port: intstr.FromString("http")}, WithLoadBalancerSecurityGroups())
	if !errors.Is(err, awserr.ErrNotFound) || IsValidationError(err) {
		t.Fatalf("err = %v, want ErrNotFound and not a validation error", err)
	}
}
