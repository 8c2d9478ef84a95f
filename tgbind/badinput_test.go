package tgbind

import (
	"errors"
	"sync/atomic"
	"testing"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestBadInputCreatesNothing runs the bad inputs of the issue through Build
// and Apply on the fake client: each gives its own typed error, no apply is
// sent, and the objects listed afterwards are the ones listed before.
// TestIntegrationBadInput does the same against a real API server.
func TestBadInputCreatesNothing(t *testing.T) {
	instanceARN := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/instance-web/0000000000000002"
	foreignARN := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/foreign-web/0000000000000003"
	good := Request{TargetGroupARN: arntest.TG(testARN), Namespace: testNS, Service: testService, Port: intstr.FromString("http")}
	with := func(f func(*Request)) Request { q := good; f(&q); return q }
	tests := []struct {
		name     string
		req      Request
		existing []client.Object
		want     error
	}{
		{"hand-made ARN", with(func(q *Request) { q.TargetGroupARN = arntest.HandMadeTG(testARN) }), nil, ErrInvalidARN},
		{"missing Service", with(func(q *Request) { q.Service = "checkout" }), nil, ErrServiceNotFound},
		{"wrong port", with(func(q *Request) { q.Port = intstr.FromInt32(8443) }), nil, ErrPortNotFound},
		{"instance target group", with(func(q *Request) { q.TargetGroupARN = arntest.TG(instanceARN) }), nil, ErrInstanceTargetGroup},
		{"target group in another VPC", with(func(q *Request) { q.TargetGroupARN = arntest.TG(foreignARN) }), nil, ErrVPCMismatch},
		{"default-mode binding on the same ARN", good, []client.Object{binding("other", "legacy-by-hand", testARN, false, false)}, ErrConflictingBinding},
		{"default-mode binding on the same target group by name", good,
			[]client.Object{byName(binding("other", "legacy-by-name", "", false, false), "legacy-web")}, ErrConflictingBinding},
	}
	seen := map[error]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var applies atomic.Int32
			u := newUnit(t, withObjects(append(standardObjects(), tt.existing...)...), withInterceptor(countApplies(&applies)),
				withOptions(func(o *Options) { o.ClusterVPCID = testVPC }))
			u.world.addTG(targetGroup(testARN), nodeTargets()...)
			u.world.addTG(targetGroup(instanceARN, withType(elbv2types.TargetTypeEnumInstance)))
			foreign := targetGroup(foreignARN)
			foreign.VpcId = ptrTo(otherVPC)
			u.world.addTG(foreign)
			before := snapshot(t, t.Context(), u.raw, testNS)

			b, err := u.binder.Build(t.Context(), tt.req)
			if err == nil {
				_, err = u.binder.Apply(t.Context(), b.TargetGroupBinding)
			}
			var ve *ValidationError
			if !errors.Is(err, tt.want) || !errors.As(err, &ve) || len(ve.Errors) != 1 {
				t.Fatalf("err = %v, want exactly %v", err, tt.want)
			}
			// Each bad input has its own sentinel; the two spellings of a
			// conflicting binding (by ARN, by name) are one bad input.
			if other, dup := seen[tt.want]; dup && tt.want != ErrConflictingBinding {
				t.Errorf("sentinel shared with %q", other)
			}
			seen[tt.want] = tt.name
			if applies.Load() != 0 {
				t.Errorf("%d applies sent", applies.Load())
			}
			if diff := cmp.Diff(before, snapshot(t, t.Context(), u.raw, testNS)); diff != "" {
				t.Errorf("cluster changed (-before +after):\n%s", diff)
			}
			var list v1beta1.TargetGroupBindingList
			if err := u.raw.List(t.Context(), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Items) != len(tt.existing) {
				t.Errorf("%d bindings, want %d", len(list.Items), len(tt.existing))
			}
		})
	}
}
