package v1beta1

// crd.go: the TargetGroupBinding CRD that controller-gen generated, embedded,
// and CRDYAML and CRD, which return it as YAML or parsed.

import (
	_ "embed"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed crd/elbv2.k8s.aws_targetgroupbindings.yaml
var crdYAML []byte

// CRDYAML returns the TargetGroupBinding CRD manifest that controller-gen
// generated from this package's types.
func CRDYAML() []byte { return append([]byte(nil), crdYAML...) }

// CRD returns the TargetGroupBinding CRD, parsed. Each call returns a new object.
func CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(crdYAML, crd); err != nil {
		return nil, fmt.Errorf("v1beta1: parse embedded CRD: %w", err)
	}
	return crd, nil
}
