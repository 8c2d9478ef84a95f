package testenv

// karpenter.go: InstallKarpenterCRDs, which serves Karpenter's NodePool,
// NodeClaim and EC2NodeClass on the control plane with tgmigrate's own
// structural CRDs.

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
)

// InstallKarpenterCRDs installs internal/karpenterapi's CRDs (NodePool,
// NodeClaim, EC2NodeClass) and returns once the API server serves them.
// Their schemas validate the fields tgmigrate writes as Karpenter's do.
func (e *Env) InstallKarpenterCRDs() error {
	if _, err := envtest.InstallCRDs(e.Config, envtest.CRDInstallOptions{CRDs: karpenterapi.CRDs()}); err != nil {
		return fmt.Errorf("testenv: install Karpenter CRDs: %w", err)
	}
	return nil
}
