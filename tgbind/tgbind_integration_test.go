//go:build integration

package tgbind

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// rig is the integration rig: a real kube-apiserver and etcd with the
// generated CRD, a namespace holding the Service web and its EndpointSlice,
// and the gomock ELBv2 mock answering from an awsWorld.
type rig struct {
	env    *testenv.Env
	ns     string
	world  *awsWorld
	binder *Binder
}

func newRig(t *testing.T, opts ...func(*Options)) *rig {
	t.Helper()
	env := testenv.Start(t)
	r := &rig{env: env, world: newAWSWorld()}
	r.ns = env.Namespace(t.Context(), t, "shop")
	r.addService(t, testService)
	elb := mocks.NewMockELBv2API(gomock.NewController(t))
	r.world.wire(elb)
	o := Options{ELBv2: elb, Reader: env.Client, Writer: env.Client, Discovery: env.Discovery, ClusterVPCID: testVPC}
	for _, f := range opts {
		f(&o)
	}
	b, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.binder = b
	return r
}

// addService creates a NodePort Service (port 80 "http" -> "http") and an
// EndpointSlice with the three ready pods, in IPv4 and IPv6. No endpoint
// controller runs in envtest, so the slices stay as written.
func (r *rig) addService(t *testing.T, name string) {
	t.Helper()
	ctx := t.Context()
	svc := service(r.ns)
	svc.Name = name
	svc.Spec.Ports[0].NodePort = 0 // let the API server pick a free one
	if err := r.env.Client.Create(ctx, svc); err != nil {
		t.Fatalf("create service: %v", err)
	}
	v4 := endpointSlice(r.ns)
	v4.Name = name + "-v4"
	v4.Labels[discoveryv1.LabelServiceName] = name
	v6 := endpointSlice(r.ns)
	v6.Name = name + "-v6"
	v6.Labels[discoveryv1.LabelServiceName] = name
	v6.AddressType = discoveryv1.AddressTypeIPv6
	for i := range v6.Endpoints {
		v6.Endpoints[i].Addresses = []string{fmt.Sprintf("2001:db8::%d", i+10)}
	}
	for _, es := range []*discoveryv1.EndpointSlice{v4, v6} {
		if err := r.env.Client.Create(ctx, es); err != nil {
			t.Fatalf("create endpointslice: %v", err)
		}
	}
}

func (r *rig) snapshot(t *testing.T) map[string]string {
	t.Helper()
	return snapshot(t, t.Context(), r.env.Client, r.ns)
}

func (r *rig) get(t *testing.T, name string) *v1beta1.TargetGroupBinding {
	t.Helper()
	return getTGB(t, r.env.Client, types.NamespacedName{Namespace: r.ns, Name: name})
}

// arnFor makes a distinct target group ARN per name.
func arnFor(name string, n int) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/%s/%016x", name, n)
}

// TestIntegrationCRDAdmitsBuildOutputs applies every kind of binding Build
// makes to a real API server with the generated CRD, and reads each back.
func TestIntegrationCRDAdmitsBuildOutputs(t *testing.T) {
	r := newRig(t)
	longService := strings.Repeat("checkout-frontend-", 3) + "web" // 57 characters
	r.addService(t, longService)

	tests := []struct {
		name    string
		req     Request
		tg      []tgOpt
		targets []elbv2types.TargetHealthDescription
		multi   bool
	}{
		{name: "legacy, port by name", req: Request{Service: testService, Port: intstr.FromString("http")}, targets: nodeTargets(), multi: true},
		{name: "port by number", req: Request{Service: testService, Port: intstr.FromInt32(80)}, targets: nodeTargets(), multi: true},
		{name: "only port", req: Request{Service: testService}, targets: nodeTargets(), multi: true},
		{name: "empty target group, default mode", req: Request{Service: testService, Port: intstr.FromString("http")}},
		{name: "multi-cluster requested", req: Request{Service: testService, Port: intstr.FromString("http"), MultiCluster: true}, multi: true},
		{name: "ingress from security groups", req: Request{Service: testService, Port: intstr.FromString("http"),
			IngressSecurityGroups: []string{testSG, "sg-0a1b2c3d"}}, targets: nodeTargets(), multi: true},
		{name: "HTTPS", req: Request{Service: testService, Port: intstr.FromString("http")}, tg: []tgOpt{withProtocol(elbv2types.ProtocolEnumHttps)}, multi: false},
		{name: "TCP", req: Request{Service: testService, Port: intstr.FromString("http")}, tg: []tgOpt{withProtocol(elbv2types.ProtocolEnumTcp)}, targets: nodeTargets(), multi: true},
		{name: "IPv6", req: Request{Service: testService, Port: intstr.FromString("http")}, tg: []tgOpt{withIPv6()}, multi: false},
		{name: "custom name, labels, annotations", req: Request{Service: testService, Port: intstr.FromString("http"), Name: "web-binding",
			Labels: map[string]string{"team": "shop"}, Annotations: map[string]string{"owner": "shop-team"}}, multi: false},
		{name: "long name truncated with a hash", req: Request{Service: longService, Port: intstr.FromString("http")}, targets: nodeTargets(), multi: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			tgName := fmt.Sprintf("tg-%d", i)
			arn := arnFor(tgName, i+1)
			tg := targetGroup(arn, tt.tg...)
			tg.TargetGroupName = &tgName
			r.world.addTG(tg, tt.targets...)
			req := tt.req
			req.TargetGroupARN, req.Namespace = arntest.TG(arn), r.ns

			b, err := r.binder.Build(ctx, req)
			if err != nil {
				t.Fatalf("Build() = %v", err)
			}
			if b.TargetGroupBinding.Spec.MultiClusterTargetGroup != tt.multi {
				t.Errorf("multiClusterTargetGroup = %t, want %t (%s)", !tt.multi, tt.multi, b.MultiCluster.Detail)
			}
			res, err := r.binder.Apply(ctx, b.TargetGroupBinding)
			if err != nil {
				t.Fatalf("Apply() = %v\n%s", err, res.Preflight)
			}
			if res.Operation != OperationCreated {
				t.Errorf("Operation = %s", res.Operation)
			}
			got := r.get(t, b.TargetGroupBinding.Name)
			if diff := cmp.Diff(b.TargetGroupBinding.Spec, got.Spec); diff != "" {
				t.Errorf("stored spec (-built +stored):\n%s", diff)
			}
			if diff := cmp.Diff(b.TargetGroupBinding.Labels, got.Labels); diff != "" {
				t.Errorf("stored labels (-built +stored):\n%s", diff)
			}
			if diff := cmp.Diff(b.TargetGroupBinding.Annotations, got.Annotations); diff != "" {
				t.Errorf("stored annotations (-built +stored):\n%s", diff)
			}
			if len(got.Name) > MaxNameLength {
				t.Errorf("name %q is longer than %d", got.Name, MaxNameLength)
			}
		})
	}
}

// TestIntegrationApplyIdempotent: a second apply of the same binding, and
// of a fresh Build of it, leaves the resourceVersion where it was.
func TestIntegrationApplyIdempotent(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.world.addTG(targetGroup(testARN), nodeTargets()...)
	req := Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService, Port: intstr.FromString("http"), IngressSecurityGroups: []string{testSG}}
	b, err := r.binder.Build(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	first, err := r.binder.Apply(ctx, b.TargetGroupBinding)
	if err != nil || first.Operation != OperationCreated {
		t.Fatalf("first Apply() = %+v, %v", first, err)
	}
	second, err := r.binder.Apply(ctx, b.TargetGroupBinding)
	if err != nil {
		t.Fatal(err)
	}
	if second.Operation != OperationUnchanged || second.ResourceVersion != first.ResourceVersion {
		t.Errorf("second apply: %s at resourceVersion %s, want unchanged at %s", second.Operation, second.ResourceVersion, first.ResourceVersion)
	}
	rebuilt, err := r.binder.Build(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt.MultiCluster.Reason != ReasonForeignTargets {
		t.Errorf("rebuilt reason = %s, want the recorded ForeignTargets", rebuilt.MultiCluster.Reason)
	}
	third, err := r.binder.Apply(ctx, rebuilt.TargetGroupBinding)
	if err != nil || third.Operation != OperationUnchanged {
		t.Fatalf("apply of a fresh Build = %+v, %v", third, err)
	}
	dry, err := r.binder.Apply(ctx, rebuilt.TargetGroupBinding, WithDryRun())
	if err != nil || dry.Operation != OperationUnchanged || !dry.DryRun {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if got := r.get(t, b.TargetGroupBinding.Name); got.ResourceVersion != first.ResourceVersion {
		t.Errorf("resourceVersion moved from %s to %s", first.ResourceVersion, got.ResourceVersion)
	}
}

// TestIntegrationFieldManagerConflict: a GitOps tool applied the binding
// with its own field manager and another security group. tgmigrate's apply
// stops at the preflight's dry run with a *ConflictError naming that
// manager, and changes nothing; WithForce takes the field over.
func TestIntegrationFieldManagerConflict(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.world.addTG(targetGroup(testARN), nodeTargets()...)
	req := Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService, Port: intstr.FromString("http")}

	theirs := req
	theirs.IngressSecurityGroups = []string{"sg-0aaaaaaaaaaaaaaaa"}
	tb, err := r.binder.Build(ctx, theirs)
	if err != nil {
		t.Fatal(err)
	}
	u, err := toUnstructured(tb.TargetGroupBinding)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.env.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("gitops")); err != nil {
		t.Fatalf("gitops apply: %v", err)
	}
	before := r.snapshot(t)

	mine := req
	mine.IngressSecurityGroups = []string{testSG}
	mb, err := r.binder.Build(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.binder.Apply(ctx, mb.TargetGroupBinding)
	var ce *ConflictError
	if !errors.As(err, &ce) || !IsConflict(err) {
		t.Fatalf("Apply() = %v, want a *ConflictError", err)
	}
	if diff := cmp.Diff([]string{"gitops"}, ce.Managers); diff != "" {
		t.Errorf("managers (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.Join(ce.Fields, " "), ".spec.networking") {
		t.Errorf("fields = %v", ce.Fields)
	}
	if statuses(res.Preflight)[CheckDryRun] != CheckFailed {
		t.Errorf("the conflict was not caught by the dry run:\n%s", res.Preflight)
	}
	if diff := cmp.Diff(before, r.snapshot(t)); diff != "" {
		t.Errorf("cluster changed (-before +after):\n%s", diff)
	}

	forced, err := r.binder.Apply(ctx, mb.TargetGroupBinding, WithForce())
	if err != nil || forced.Operation != OperationUpdated {
		t.Fatalf("Apply(WithForce) = %+v, %v", forced, err)
	}
	got := r.get(t, mb.TargetGroupBinding.Name)
	if diff := cmp.Diff(mb.TargetGroupBinding.Spec.Networking, got.Spec.Networking); diff != "" {
		t.Errorf("networking after force (-want +got):\n%s", diff)
	}
}

// TestIntegrationBadInput: each bad input gives its own typed error and
// creates nothing; the cluster is listed before and after to prove it.
func TestIntegrationBadInput(t *testing.T) {
	r := newRig(t)
	r.world.addTG(targetGroup(testARN), nodeTargets()...)
	instanceARN := arnFor("instance-web", 2)
	r.world.addTG(targetGroup(instanceARN, withType(elbv2types.TargetTypeEnumInstance)))
	foreignARN := arnFor("foreign-web", 3)
	foreign := targetGroup(foreignARN)
	foreign.VpcId = ptrTo(otherVPC)
	r.world.addTG(foreign)

	good := Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService, Port: intstr.FromString("http")}
	with := func(f func(*Request)) Request { q := good; f(&q); return q }
	tests := []struct {
		name     string
		req      Request
		existing *v1beta1.TargetGroupBinding // created first, by someone else
		want     error
	}{
		{"hand-made ARN", with(func(q *Request) { q.TargetGroupARN = arntest.HandMadeTG(testARN) }), nil, ErrInvalidARN},
		{"missing Service", with(func(q *Request) { q.Service = "checkout" }), nil, ErrServiceNotFound},
		{"wrong port", with(func(q *Request) { q.Port = intstr.FromInt32(8443) }), nil, ErrPortNotFound},
		{"instance target group", with(func(q *Request) { q.TargetGroupARN = arntest.TG(instanceARN) }), nil, ErrInstanceTargetGroup},
		{"target group in another VPC", with(func(q *Request) { q.TargetGroupARN = arntest.TG(foreignARN) }), nil, ErrVPCMismatch},
		{"default-mode binding on the same ARN", good, binding(r.ns, "legacy-by-hand", testARN, false, false), ErrConflictingBinding},
		{"default-mode binding on the same target group by name", good, byName(binding(r.ns, "legacy-by-name", "", false, false), "legacy-web"), ErrConflictingBinding},
	}
	seen := map[error]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.existing != nil {
				obj := tt.existing.DeepCopy()
				obj.UID = ""
				if err := r.env.Client.Create(ctx, obj); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = r.env.Client.Delete(context.Background(), obj) })
			}
			before := r.snapshot(t)

			var err error
			b, err := r.binder.Build(ctx, tt.req)
			if err == nil {
				_, err = r.binder.Apply(ctx, b.TargetGroupBinding)
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) != 1 {
				t.Errorf("err = %v, want a *ValidationError with exactly this failure", err)
			}
			// The two spellings of a conflicting binding (by ARN, by name)
			// are one bad input.
			if seen[tt.want] && tt.want != ErrConflictingBinding {
				t.Errorf("sentinel %v is shared with another case", tt.want)
			}
			seen[tt.want] = true

			after := r.snapshot(t)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("cluster changed (-before +after):\n%s", diff)
			}
			var list v1beta1.TargetGroupBindingList
			if err := r.env.Client.List(ctx, &list); err != nil {
				t.Fatal(err)
			}
			want := 0
			if tt.existing != nil {
				want = 1
			}
			if len(list.Items) != want {
				t.Errorf("%d bindings in the cluster, want %d", len(list.Items), want)
			}
		})
	}
}

// TestIntegrationDeleteOwnershipGuard: Delete refuses a binding tgmigrate
// does not own and deletes its own.
func TestIntegrationDeleteOwnershipGuard(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	r.world.addTG(targetGroup(testARN), nodeTargets()...)

	foreign := binding(r.ns, "by-hand", otherARN, true, false)
	foreign.UID = ""
	if err := r.env.Client.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	if _, err := r.binder.Delete(ctx, client.ObjectKeyFromObject(foreign)); !IsNotOwned(err) {
		t.Fatalf("Delete(foreign) = %v, want ErrNotOwned", err)
	}
	r.get(t, "by-hand") // still there

	b, err := r.binder.Build(ctx, Request{TargetGroupARN: arntest.TG(testARN), Namespace: r.ns, Service: testService, Port: intstr.FromString("http")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.binder.Apply(ctx, b.TargetGroupBinding); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(b.TargetGroupBinding)
	dry, err := r.binder.Delete(ctx, key, WithDryRun())
	if err != nil || !dry.Deleted || !dry.DryRun {
		t.Fatalf("dry-run Delete = %+v, %v", dry, err)
	}
	r.get(t, key.Name) // a dry run keeps it
	res, err := r.binder.Delete(ctx, key)
	if err != nil || !res.Deleted || !res.MultiCluster || len(res.Warnings) == 0 {
		t.Fatalf("Delete = %+v, %v", res, err)
	}
	var got v1beta1.TargetGroupBinding
	if err := r.env.Client.Get(ctx, key, &got); err == nil {
		t.Errorf("binding still exists")
	}
}
