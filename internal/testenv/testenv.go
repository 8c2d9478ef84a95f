package testenv

// testenv.go: Env, a kube-apiserver and etcd under envtest with the
// TargetGroupBinding CRD installed: Binaries, New, Start (one per test),
// Namespace and Stop.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Env is a running control plane.
type Env struct {
	// Config reaches the API server as an administrator.
	Config *rest.Config
	// Scheme knows the core types and TargetGroupBinding.
	Scheme *k8sruntime.Scheme
	// Client is a controller-runtime client with Scheme.
	Client client.Client
	// Discovery is a client-go discovery client.
	Discovery *discovery.DiscoveryClient
	// ServerVersion is what the API server reported, for example "v1.37.2".
	ServerVersion string

	env *envtest.Environment
}

// Binaries returns the paths of kube-apiserver and etcd, or an error naming
// what is missing and how to get it.
func Binaries() (apiserver, etcd string, err error) {
	apiserver = os.Getenv("TGMIGRATE_KUBE_APISERVER")
	if apiserver == "" {
		apiserver = filepath.Join(repoRoot(), "bin", "kube-apiserver")
	}
	if _, statErr := os.Stat(apiserver); statErr != nil {
		return "", "", fmt.Errorf("testenv: kube-apiserver not found at %s: run `make envtest` (or set TGMIGRATE_KUBE_APISERVER)", apiserver)
	}
	etcd = os.Getenv("TGMIGRATE_ETCD")
	if etcd == "" {
		etcd, err = exec.LookPath("etcd")
		if err != nil {
			return "", "", fmt.Errorf("testenv: etcd not on PATH: run `make envtest` (or set TGMIGRATE_ETCD)")
		}
	}
	return apiserver, etcd, nil
}

// New starts a control plane with the TargetGroupBinding CRD installed.
// The caller stops it with [Env.Stop].
func New() (*Env, error) {
	apiserver, etcd, err := Binaries()
	if err != nil {
		return nil, err
	}
	crd, err := v1beta1.CRD()
	if err != nil {
		return nil, err
	}
	e := &envtest.Environment{
		CRDInstallOptions: envtest.CRDInstallOptions{
			CRDs: []*apiextensionsv1.CustomResourceDefinition{crd},
		},
		ErrorIfCRDPathMissing: true,
	}
	e.ControlPlane.GetAPIServer().Path = apiserver
	e.ControlPlane.Etcd = &envtest.Etcd{Path: etcd}

	cfg, err := e.Start()
	if err != nil {
		return nil, fmt.Errorf("testenv: start control plane: %w", err)
	}
	env := &Env{Config: cfg, env: e, Scheme: k8sruntime.NewScheme()}
	if err := setUp(env); err != nil {
		_ = e.Stop()
		return nil, err
	}
	return env, nil
}

func setUp(env *Env) error {
	if err := clientgoscheme.AddToScheme(env.Scheme); err != nil {
		return err
	}
	if err := apiextensionsv1.AddToScheme(env.Scheme); err != nil {
		return err
	}
	if err := v1beta1.AddToScheme(env.Scheme); err != nil {
		return err
	}
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		return fmt.Errorf("testenv: client: %w", err)
	}
	env.Client = c
	d, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		return fmt.Errorf("testenv: discovery: %w", err)
	}
	env.Discovery = d
	v, err := d.ServerVersion()
	if err != nil {
		return fmt.Errorf("testenv: server version: %w", err)
	}
	env.ServerVersion = v.GitVersion
	return nil
}

// Stop stops the control plane.
func (e *Env) Stop() error { return e.env.Stop() }

// Start starts a control plane for one test and stops it when the test ends.
// A missing binary fails the test; it is never skipped.
func Start(tb testing.TB) *Env {
	tb.Helper()
	env, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := env.Stop(); err != nil {
			tb.Errorf("testenv: stop: %v", err)
		}
	})
	tb.Logf("testenv: kube-apiserver %s", env.ServerVersion)
	return env
}

// Namespace creates a namespace with a generated name and returns its name.
func (e *Env) Namespace(ctx context.Context, tb testing.TB, prefix string) string {
	tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	if err := e.Client.Create(ctx, ns); err != nil {
		tb.Fatalf("testenv: create namespace: %v", err)
	}
	return ns.Name
}

func repoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "."
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}
