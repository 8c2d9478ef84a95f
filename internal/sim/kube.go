package sim

// kube.go: the Kubernetes side the system under test meets: the world's
// client with its API latency and its watches, a TargetGroupBinding of the
// seed's case (or of an app's, Legacy.NewBinding), and the Service's pods.

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Client returns the Kubernetes client of the world (the LBC's webhooks run
// on it): give it to the system under test. Each call but Watch spends the
// Timings.KubeLatency on the virtual clock first, in the caller's
// goroutine, so it must not be called from a world event.
//
// Watch (cluster.Hub.Watch) serves every kind the cluster serves: the
// kinds of its scheme (Nodes, Pods, EndpointSlices...) and, when Karpenter
// publishes its objects, karpenter.sh/v1 NodeClaims and NodePools and
// karpenter.k8s.aws/v1 EC2NodeClasses as unstructured lists; another kind
// is a cluster.WatchError (cluster.IsKindNotServed). It starts at once,
// without latency, and every write of the world or the system under test
// lands on its channel during the write: drain it without blocking after
// each wait on the clock to see what happened until then, the same on
// every run of a Config.
func (w *World) Client() client.WithWatch { return w.kube }

// withWatch gives a client.Client the Watch of the client it wraps when
// that is a client.WithWatch (the hub's observed client is), so that
// interceptor.NewClient takes it.
type withWatch struct{ client.Client }

func (c withWatch) Watch(ctx context.Context, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
	if ww, ok := c.Client.(client.WithWatch); ok {
		return ww.Watch(ctx, list, opts...)
	}
	return nil, errors.New("sim: the world's client does not watch")
}

// latencyClient returns c with every call but Watch spending d on waits
// first, in the caller's goroutine (interceptor.Funcs from
// controller-runtime).
func latencyClient(c client.Client, waits clock.Clock, d time.Duration) client.WithWatch {
	if d <= 0 {
		return withWatch{c}
	}
	wait := func() { waits.Sleep(d) }
	return interceptor.NewClient(withWatch{c}, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			wait()
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			wait()
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			wait()
			return c.Create(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			wait()
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			wait()
			return c.DeleteAllOf(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			wait()
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			wait()
			return c.Patch(ctx, obj, patch, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			wait()
			return c.Apply(ctx, obj, opts...)
		},
		SubResourceGet: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceGetOption) error {
			wait()
			return c.SubResource(sub).Get(ctx, obj, subObj, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			wait()
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			wait()
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			wait()
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
}

// NewBinding returns a TargetGroupBinding of the legacy target group to the
// Service, targetType ip, in multiClusterTargetGroup mode or not. Create it
// through [World.Client]: the LBC's webhooks admit it and the LBC reacts.
func (w *World) NewBinding(name string, multiCluster bool) *v1beta1.TargetGroupBinding {
	return w.legacy.NewBinding(name, multiCluster)
}

// NewBinding returns a TargetGroupBinding of l's target group to its
// Service, in its namespace, targetType ip, in multiClusterTargetGroup
// mode or not: [World.NewBinding] for the seed's case, the same for an
// app's ([World.Apps]).
func (l Legacy) NewBinding(name string, multiCluster bool) *v1beta1.TargetGroupBinding {
	ip := v1beta1.TargetTypeIP
	return &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: name},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN:          l.TargetGroupARN,
			TargetType:              &ip,
			ServiceRef:              v1beta1.ServiceReference{Name: l.Service, Port: intstr.FromInt32(l.ServicePort)},
			MultiClusterTargetGroup: multiCluster,
		},
	}
}

// PodKeys returns the keys of the Service's pods now, in creation order.
func (w *World) PodKeys() []types.NamespacedName {
	var out []types.NamespacedName
	for _, p := range w.cl.Pods() {
		if p.Workload != w.legacy.Service {
			continue
		}
		out = append(out, p.Key())
	}
	return out
}
