package tgmigrate

// This file holds the scheme a real cluster's client needs: [NewScheme]
// and [AddToScheme], the Kubernetes API types every package reads or
// writes, in one place.

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// AddToScheme registers in s the Kubernetes API types the packages use: the
// built-in groups client-go knows (core/v1 for Services, pods, nodes,
// ConfigMaps and Events; discovery/v1 for EndpointSlices; coordination/v1
// for the lock's Lease; authorization/v1 for the permission check; policy/v1
// for PodDisruptionBudgets) and elbv2.k8s.aws/v1beta1's
// TargetGroupBinding (package tgbind/v1beta1). Karpenter's NodeClaims and
// NodePools are read as unstructured objects and need no registration.
// An embedder with a scheme of its own adds these with it; the error is
// a registration's conflict with what s already holds.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1beta1.AddToScheme} {
		if err := add(s); err != nil {
			return fmt.Errorf("tgmigrate: add to scheme: %w", err)
		}
	}
	return nil
}

// NewScheme returns a new scheme with the types of [AddToScheme], for a
// real cluster's client:
//
//	scheme, err := tgmigrate.NewScheme()
//	...
//	c, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
//
// The client serves every package: diagnose's Cluster.Reader, cutover's
// and tgbind's Env.Client (a client that watches lets cutover react to a
// node's disruption as it happens). Each call returns a scheme of its own.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}
