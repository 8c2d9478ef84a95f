package kube

// discovery.go: TargetGroupBindingInstalled (is the CRD served, through
// Discoverer), and Webhook with TargetGroupBindingWebhooks and
// TargetGroupBindingMutatingWebhooks (which admission webhooks cover a
// binding's create).

import (
	"context"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Discoverer is the one discovery call tgmigrate makes. client-go's
// *discovery.DiscoveryClient and its fake satisfy it.
type Discoverer interface {
	// ServerResourcesForGroupVersionWithContext lists the resources the API
	// server serves in groupVersion, as client-go's discovery does.
	ServerResourcesForGroupVersionWithContext(ctx context.Context, groupVersion string) (*metav1.APIResourceList, error)
}

var _ Discoverer = (*discovery.DiscoveryClient)(nil)

// TargetGroupBindingInstalled reports whether the API server serves
// targetgroupbindings in elbv2.k8s.aws/v1beta1.
func TargetGroupBindingInstalled(ctx context.Context, d Discoverer) (bool, error) {
	list, err := d.ServerResourcesForGroupVersionWithContext(ctx, v1beta1.GroupVersion.String())
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("kube: discover %s: %w", v1beta1.GroupVersion, err)
	}
	return slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool {
		return r.Name == v1beta1.Resource
	}), nil
}

// Webhook names an admission webhook that covers TargetGroupBindings.
type Webhook struct {
	// Configuration is the name of the webhook configuration holding it.
	Configuration string
	// Name is the webhook's name inside it.
	Name string
	// Mutating is true for a MutatingWebhookConfiguration's webhook, false
	// for a ValidatingWebhookConfiguration's.
	Mutating bool
}

// TargetGroupBindingWebhooks lists the validating webhooks whose rules match
// CREATE of elbv2.k8s.aws targetgroupbindings. When the LBC is installed
// there is one; a server-side dry-run create then runs it with no side
// effects. The reader needs list access to validatingwebhookconfigurations.
func TargetGroupBindingWebhooks(ctx context.Context, r client.Reader) ([]Webhook, error) {
	var list admissionregistrationv1.ValidatingWebhookConfigurationList
	if err := r.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("kube: list validating webhook configurations: %w", err)
	}
	var out []Webhook
	for _, cfg := range list.Items {
		for _, wh := range cfg.Webhooks {
			if slices.ContainsFunc(wh.Rules, coversTGBCreate) {
				out = append(out, Webhook{Configuration: cfg.Name, Name: wh.Name})
			}
		}
	}
	return out, nil
}

// TargetGroupBindingMutatingWebhooks lists the mutating webhooks whose rules
// match CREATE of elbv2.k8s.aws targetgroupbindings (the LBC has one,
// mtargetgroupbinding.elbv2.k8s.aws). The API server calls them before the
// validating ones, so when the LBC's webhook Service is down it is the one
// named in the refusal. The reader needs list access to
// mutatingwebhookconfigurations.
func TargetGroupBindingMutatingWebhooks(ctx context.Context, r client.Reader) ([]Webhook, error) {
	var list admissionregistrationv1.MutatingWebhookConfigurationList
	if err := r.List(ctx, &list); err != nil {
		return nil, fmt.Errorf("kube: list mutating webhook configurations: %w", err)
	}
	var out []Webhook
	for _, cfg := range list.Items {
		for _, wh := range cfg.Webhooks {
			if slices.ContainsFunc(wh.Rules, coversTGBCreate) {
				out = append(out, Webhook{Configuration: cfg.Name, Name: wh.Name, Mutating: true})
			}
		}
	}
	return out, nil
}

func coversTGBCreate(r admissionregistrationv1.RuleWithOperations) bool {
	match := func(list []string, want string) bool {
		return slices.Contains(list, want) || slices.Contains(list, "*")
	}
	ops := make([]string, len(r.Operations))
	for i, op := range r.Operations {
		ops[i] = string(op)
	}
	return match(r.APIGroups, v1beta1.GroupVersion.Group) &&
		match(r.APIVersions, v1beta1.GroupVersion.Version) &&
		match(r.Resources, v1beta1.Resource) &&
		match(ops, string(admissionregistrationv1.Create))
}
