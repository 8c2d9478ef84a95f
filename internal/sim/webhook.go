package sim

// webhook.go: the LBC's webhooks on the world's client: admission of pods
// and TargetGroupBindings, and the webhook service going down.

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/sim/cluster"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// admit runs the LBC's webhooks on the world's client.
func (w *World) admit(ctx context.Context, op cluster.Op, obj client.Object) error {
	switch o := obj.(type) {
	case *corev1.Pod:
		if op == cluster.OpCreate {
			return w.lbc.InjectReadinessGates(ctx, o)
		}
	case *v1beta1.TargetGroupBinding:
		if w.webhookDown && (op == cluster.OpCreate || op == cluster.OpUpdate) {
			return webhookUnavailable()
		}
		if !o.DeletionTimestamp.IsZero() {
			return nil
		}
		if op == cluster.OpCreate {
			if err := w.lbc.MutateTargetGroupBinding(ctx, o); err != nil {
				return err
			}
			return w.lbc.ValidateTargetGroupBinding(ctx, nil, o)
		}
		old := &v1beta1.TargetGroupBinding{}
		if err := w.cl.Client().Get(ctx, client.ObjectKeyFromObject(o), old); err != nil {
			return nil // the update fails on its own
		}
		return w.lbc.ValidateTargetGroupBinding(ctx, old, o)
	}
	return nil
}

// MutatingWebhook is the name of the LBC's mutating webhook for
// TargetGroupBindings, the first the API server calls.
const MutatingWebhook = "mtargetgroupbinding.elbv2.k8s.aws"

// SetWebhookDown makes the LBC's webhook service unreachable (down: true)
// or reachable again: while it is down, every create and update of a
// TargetGroupBinding is refused as the API server refuses it when a
// webhook with failurePolicy Fail cannot be called (k8s.io/apiserver's
// webhook dispatchers: apierrors.NewInternalError of ErrCallingWebhook).
// The controller's own updates of bindings (its finalizer) fail too. The
// pod webhook (readiness gates) is not modelled as down.
func (w *World) SetWebhookDown(down bool) { w.webhookDown = down }

func webhookUnavailable() error {
	return apierrors.NewInternalError(fmt.Errorf(`failed calling webhook %q: failed to call webhook: Post "https://aws-load-balancer-webhook-service.kube-system.svc:443/mutate-elbv2-k8s-aws-v1beta1-targetgroupbinding?timeout=10s": dial tcp 10.100.48.17:443: connect: connection refused`, MutatingWebhook))
}
