package testenv_test

import (
	"testing"

	"github.com/qstools/tgmigrate/internal/testenv"
)

// An integration test (build tag integration, a name starting with
// TestIntegration) starts a real kube-apiserver and etcd with the
// TargetGroupBinding CRD installed, and works in a namespace of its own.
func ExampleStart() {
	var t *testing.T // the test's *testing.T
	env := testenv.Start(t)
	ns := env.Namespace(t.Context(), t, "smoke")
	_ = ns // create objects through env.Client in ns
}
