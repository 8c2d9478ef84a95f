package lbc_test

// consistency_test.go: the webhooks meet ELBv2's eventual consistency: a
// target group the controller does not see yet denies the binding, as the
// real webhooks deny it.

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestWebhooksEventualConsistency: the system under test creates a target
// group and sees it after 1 s; the controller, sharing the world's
// Consistency, sees it only after 10 s. Until then each webhook that reads
// it denies the binding with the real webhook's message (the defaulting or
// checking step's, then the SDK's TargetGroupNotFound) and a 403; then the
// binding is admitted and the controller registers the pods in it.
func TestWebhooksEventualConsistency(t *testing.T) {
	cs, err := elbv2sim.NewConsistency(elbv2sim.ConsistencyOptions{Delay: time.Second, ClientDelay: map[string]time.Duration{"lbc": 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, sim.Config{Seed: 1, SUT: elbv2sim.Options{Consistency: cs}})
	ctx := t.Context()
	out, err := w.ELBv2().CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{
		Name: aws.String("fresh"), TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String(w.Legacy().VPCID),
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	w.Run(time.Second)
	if _, err := w.ELBv2().DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}}); err != nil {
		t.Fatalf("the system under test does not see its target group after its delay: %v", err)
	}
	ipv4 := v1beta1.IPAddressTypeIPv4
	binding := func(name string, mod func(*v1beta1.TargetGroupBinding)) *v1beta1.TargetGroupBinding {
		b := w.NewBinding(name, true)
		b.Spec.TargetGroupARN, b.Spec.IPAddressType = arn, &ipv4
		if mod != nil {
			mod(b)
		}
		return b
	}
	tests := []struct {
		name    string
		binding *v1beta1.TargetGroupBinding
		webhook string
		prefix  string // of the webhook's message, after the API server's
	}{
		{"every field set: the validator reads it", binding("all", nil), lbc.WebhookValidateTGB, "unable to get target group IP address type: "},
		{"ipAddressType to fill", binding("ipfamily", func(b *v1beta1.TargetGroupBinding) { b.Spec.IPAddressType = nil }), lbc.WebhookMutateTGB, "unable to get target group IP address type: "},
		{"targetType to fill", binding("type", func(b *v1beta1.TargetGroupBinding) { b.Spec.TargetType = nil }), lbc.WebhookMutateTGB, "couldn't determine TargetType: "},
		{"by name", binding("name", func(b *v1beta1.TargetGroupBinding) { b.Spec.TargetGroupARN, b.Spec.TargetGroupName = "", "fresh" }), lbc.WebhookMutateTGB, "operation error Elastic Load Balancing v2: DescribeTargetGroups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := w.Client().Create(ctx, tt.binding.DeepCopy())
			want := `admission webhook "` + tt.webhook + `" denied the request: ` + tt.prefix
			if !lbc.IsDenied(err) || !apierrors.IsForbidden(err) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "TargetGroupNotFound") {
				t.Errorf("create: %v\nwant a 403 denial beginning %q and saying TargetGroupNotFound", err, want)
			}
		})
	}
	if got := bindings(t, w); len(got) != 0 {
		t.Fatalf("bindings %v after the denials, want none", got)
	}

	w.Run(9 * time.Second) // the controller's delay has passed
	if err := w.Client().Create(ctx, binding("all", nil)); err != nil {
		t.Fatalf("create once the controller sees the target group: %v", err)
	}
	w.Run(time.Minute)
	var b v1beta1.TargetGroupBinding
	if err := w.Client().Get(ctx, client.ObjectKey{Namespace: w.Legacy().Namespace, Name: "all"}, &b); err != nil {
		t.Fatal(err)
	}
	if n, want := len(w.Targets(arn)), len(w.PodKeys()); n != want {
		t.Errorf("the controller registered %d targets in the new target group, want the %d pods", n, want)
	}
}
