package tgbind

import (
	"context"
	"fmt"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/internal/arntest"
)

// staticELB answers from fixed data, without gomock's bookkeeping, so the
// benchmark measures tgbind. The Describe* methods tgbind never calls come
// from the nil ELBv2API it embeds (a call would panic).
type staticELB struct {
	ELBv2API
	tg      elbv2types.TargetGroup
	targets []elbv2types.TargetHealthDescription
}

func (s staticELB) DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	return &elbv2.DescribeTargetGroupsOutput{TargetGroups: []elbv2types.TargetGroup{s.tg}}, nil
}

func (s staticELB) DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	return &elbv2.DescribeTargetHealthOutput{TargetHealthDescriptions: s.targets}, nil
}

func (s staticELB) DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	return &elbv2.DescribeTagsOutput{}, nil
}

func (s staticELB) DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	return &elbv2.DescribeLoadBalancersOutput{}, nil
}

// BenchmarkBuildManifest measures Build then Manifest for a Service with
// `pods` ready endpoints and a target group at the default quota of 1,000
// targets' scale: the pods plus as many node targets.
func BenchmarkBuildManifest(b *testing.B) {
	for _, pods := range []int{3, 100, 500} {
		b.Run(fmt.Sprintf("pods=%d", pods), func(b *testing.B) {
			es := endpointSlice(testNS)
			es.Endpoints = nil
			var targets []elbv2types.TargetHealthDescription
			ready := true
			for i := range pods {
				ip := fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
				es.Endpoints = append(es.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
				targets = append(targets, target(ip, testPodPort, elbv2types.TargetHealthStateEnumHealthy, ""))
				targets = append(targets, target(fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), testNodePort, elbv2types.TargetHealthStateEnumHealthy, ""))
			}
			c := fake.NewClientBuilder().WithScheme(testScheme(b)).WithObjects([]client.Object{service(testNS), es}...).Build()
			binder, err := New(Options{ELBv2: staticELB{tg: targetGroup(testARN), targets: targets}, Reader: c})
			if err != nil {
				b.Fatal(err)
			}
			req := Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				got, err := binder.Build(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := got.Manifest(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
