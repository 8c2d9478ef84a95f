package kube

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrNoKubeconfig means no usable kubeconfig was found: no file at the
// explicit path, none on $KUBECONFIG or ~/.kube/config, and no in-cluster
// service account.
var ErrNoKubeconfig = errors.New("no kubeconfig")

// LoadConfig returns the REST config for a kubeconfig file and context,
// following client-go's loading rules: an empty path means $KUBECONFIG, then
// ~/.kube/config, then the in-cluster service account; an empty context means
// the kubeconfig's current context.
func LoadConfig(path, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	switch {
	case err == nil:
		return cfg, nil
	case clientcmd.IsEmptyConfig(err):
		return nil, fmt.Errorf("kube: %w: set --kubeconfig or $KUBECONFIG", ErrNoKubeconfig)
	default:
		return nil, fmt.Errorf("kube: load kubeconfig: %w", err)
	}
}
