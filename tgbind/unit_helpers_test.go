package tgbind

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"go.uber.org/mock/gomock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire/wiretest"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// unit is the unit-test rig: the gomock ELBv2 mock answering from an
// awsWorld, the controller-runtime fake client, a fake discovery and a
// virtual clock.
type unit struct {
	world *awsWorld
	elb   *mocks.MockELBv2API
	// client is what the Binder uses: raw behind the test's interceptors.
	client client.WithWatch
	// raw is the fake client itself, for the test's own reads.
	raw    client.WithWatch
	binder *Binder
	clock  *vclock.Clock
}

type unitConfig struct {
	objects     []client.Object
	funcs       *interceptor.Funcs
	discovery   Discoverer
	noDiscovery bool
	opts        Options
	readOnly    bool
	noWire      bool
}

type unitOpt func(*unitConfig)

func withObjects(objs ...client.Object) unitOpt {
	return func(c *unitConfig) { c.objects = append(c.objects, objs...) }
}
func withInterceptor(f interceptor.Funcs) unitOpt { return func(c *unitConfig) { c.funcs = &f } }
func withDiscovery(d Discoverer) unitOpt          { return func(c *unitConfig) { c.discovery = d } }
func withoutDiscovery() unitOpt                   { return func(c *unitConfig) { c.noDiscovery = true } }
func withOptions(f func(*Options)) unitOpt        { return func(c *unitConfig) { f(&c.opts) } }
func readOnly() unitOpt                           { return func(c *unitConfig) { c.readOnly = true } }

// strictAWS leaves the mock without expectations: any AWS call fails the test.
func strictAWS() unitOpt { return func(c *unitConfig) { c.noWire = true } }

// standardObjects are the Service shop/web and its EndpointSlice.
func standardObjects() []client.Object {
	return []client.Object{service(testNS), endpointSlice(testNS)}
}

// viaELBv2 is the ELBv2 client the Binder gets for the rig's mock. Here
// it is the mock itself; wire_test.go puts the real SDK client and an
// elbv2wire endpoint in between, to run the suites through the wire.
var viaELBv2 wiretest.Via = wiretest.Direct

func newUnit(t *testing.T, opts ...unitOpt) *unit {
	t.Helper()
	cfg := unitConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	ctrl := gomock.NewController(t)
	u := &unit{world: newAWSWorld(), elb: mocks.NewMockELBv2API(ctrl), clock: vclock.New(vclock.Epoch)}
	if !cfg.noWire {
		u.world.wire(u.elb)
	}
	u.raw = fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(cfg.objects...).WithReturnManagedFields().Build()
	funcs := interceptor.Funcs{}
	if cfg.funcs != nil {
		funcs = *cfg.funcs
	}
	if funcs.Apply == nil {
		funcs.Apply = honourDryRunApply
	}
	u.client = interceptor.NewClient(u.raw, funcs)
	o := cfg.opts
	o.ELBv2 = viaELBv2(t, u.elb)
	o.Reader = u.client
	if !cfg.readOnly {
		o.Writer = u.client
	}
	switch {
	case cfg.discovery != nil:
		o.Discovery = cfg.discovery
	case !cfg.noDiscovery:
		o.Discovery = discoveryWithCRD(true)
	}
	o.Clock = u.clock
	binder, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	u.binder = binder
	return u
}

// legacy adds legacy-web holding the two node targets.
func (u *unit) legacy(opts ...tgOpt) *unit {
	u.world.addTG(targetGroup(testARN, opts...), nodeTargets()...)
	return u
}

// honourDryRunApply works around the fake client of controller-runtime
// v0.25.3, which ignores DryRunAll on Apply: it puts dryRun only into
// PatchOptions.Raw, which its patch path does not read, and persists the
// object. Like the fake's own dry-run patch, it returns without a change.
// The integration tier checks the real API server's dry run.
func honourDryRunApply(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	ao := &client.ApplyOptions{}
	ao.ApplyOptions(opts)
	if len(ao.DryRun) > 0 {
		return nil
	}
	return c.Apply(ctx, obj, opts...)
}

// noTGBKind makes the fake API server answer as one without the
// TargetGroupBinding CRD: no match for the kind.
func noTGBKind() interceptor.Funcs {
	noMatch := &meta.NoKindMatchError{GroupKind: v1beta1.GroupVersion.WithKind(v1beta1.Kind).GroupKind(), SearchedVersions: []string{"v1beta1"}}
	return interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*v1beta1.TargetGroupBindingList); ok {
				return noMatch
			}
			return c.List(ctx, list, opts...)
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*v1beta1.TargetGroupBinding); ok {
				return noMatch
			}
			return c.Get(ctx, key, obj, opts...)
		},
	}
}

func keyOf(o client.Object) client.ObjectKey { return client.ObjectKeyFromObject(o) }
