//go:build integration

package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/qstools/tgmigrate/internal/testenv"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestIntegrationHelmCheckCluster runs helm check --cluster against a real
// kube-apiserver: a kind the cluster does not serve (a Karpenter NodePool,
// then the TargetGroupBinding once its CRD is deleted) is a TGM-H012 error;
// a served one is not.
func TestIntegrationHelmCheckCluster(t *testing.T) {
	env := testenv.Start(t)
	isolate(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: env.Config.CAData}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: env.Config.CertData, ClientKeyData: env.Config.KeyData,
		Token: env.Config.BearerToken}
	cfg.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	cfg.CurrentContext = "envtest"
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	manifests := filepath.Join(t.TempDir(), "rendered.yaml")
	if err := os.WriteFile(manifests, []byte(`apiVersion: elbv2.k8s.aws/v1beta1
kind: TargetGroupBinding
metadata: {name: web, namespace: shop}
spec: {targetType: ip, multiClusterTargetGroup: true, serviceRef: {name: web, port: 80}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join("..", "..", "helmgov", "testdata", "charts", "legacy-nodeport")

	h012 := func(args ...string) []string {
		t.Helper()
		code, found, stderr := helmFindings(t, append([]string{"--kubeconfig", kubeconfig, "helm", "check", "--cluster"}, args...)...)
		if code != exitFindings {
			t.Fatalf("helm check %v: exit %d, stderr %q", args, code, stderr)
		}
		return objectsOf(found, "TGM-H012")
	}
	if got, want := h012("--manifests", manifests), []string{"NodePool default/default"}; !slices.Equal(got, want) {
		t.Errorf("TGM-H012 on %v, want %v (the CRD of TargetGroupBinding is installed, Karpenter's is not)", got, want)
	}
	if got := h012(chart); len(got) != 0 {
		t.Errorf("TGM-H012 on %v with the TargetGroupBinding CRD installed", got)
	}

	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: v1beta1.Resource + "." + v1beta1.GroupVersion.Group}}
	if err := env.Client.Delete(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := env.Discovery.ServerResourcesForGroupVersion(v1beta1.GroupVersion.String()); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the TargetGroupBinding CRD is still served a minute after its deletion")
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got, want := h012(chart), []string{"TargetGroupBinding default/release-name-legacy-web"}; !slices.Equal(got, want) {
		t.Errorf("TGM-H012 on %v after the CRD's deletion, want %v", got, want)
	}
}
