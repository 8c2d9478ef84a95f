// Package testenv starts a real kube-apiserver and etcd for tgmigrate's
// integration tier (build tag integration) through controller-runtime's
// envtest, with the TargetGroupBinding CRD installed.
//
// # Files
//
//   - doc.go: this comment.
//   - testenv.go: [Env], [New], [Start], [Binaries] and [Env.Namespace].
//   - karpenter.go: [Env.InstallKarpenterCRDs], Karpenter's kinds served
//     with tgmigrate's own structural CRDs (internal/karpenterapi).
//
// Tests: example_test.go (the example).
//
// # Binaries
//
// Neither binary can be downloaded on the project's machines, so `make test`
// provides them (see hack/envtest.sh):
//
//   - kube-apiserver: built from the Go module proxy into bin/kube-apiserver;
//     override with $TGMIGRATE_KUBE_APISERVER.
//   - etcd: Debian's etcd-server package, found on $PATH; override with
//     $TGMIGRATE_ETCD.
//
// A missing binary fails the test with a message naming the make target. It
// never skips: an integration test that did not run must not pass.
package testenv
