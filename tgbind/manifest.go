package tgbind

// manifest.go: Manifest and Binding.Manifest, which render bindings as YAML
// for a GitOps repository instead of applying them.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// Manifest renders bindings as a multi-document YAML stream, for a GitOps
// repository, instead of applying them. Each document holds apiVersion,
// kind, metadata and spec, and none of the fields the server owns. Manifest
// does not validate: run [Binder.Validate] against the target cluster first.
func Manifest(tgbs ...*v1beta1.TargetGroupBinding) ([]byte, error) {
	var out bytes.Buffer
	for i, tgb := range tgbs {
		if tgb == nil {
			return nil, errors.New("tgbind: manifest: nil binding")
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		if err := writeDoc(&out, tgb); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

// Manifest renders the binding as YAML, headed by comments that say which
// target group it binds and why multiClusterTargetGroup has its value.
func (b *Binding) Manifest() ([]byte, error) {
	if b == nil || b.TargetGroupBinding == nil {
		return nil, errors.New("tgbind: manifest: nil binding")
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# TargetGroupBinding for target group %s, made by tgmigrate.\n", b.TargetGroup.Name)
	fmt.Fprintf(&out, "# multiClusterTargetGroup: %t (%s): %s\n", b.MultiCluster.Enabled, b.MultiCluster.Reason, oneLine(b.MultiCluster.Detail))
	for _, n := range b.Notes {
		fmt.Fprintf(&out, "# note: %s\n", oneLine(n))
	}
	if err := writeDoc(&out, b.TargetGroupBinding); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func writeDoc(out *bytes.Buffer, tgb *v1beta1.TargetGroupBinding) error {
	u, err := toUnstructured(tgb)
	if err != nil {
		return fmt.Errorf("tgbind: manifest %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	y, err := yaml.Marshal(u.Object)
	if err != nil {
		return fmt.Errorf("tgbind: manifest %s/%s: %w", tgb.Namespace, tgb.Name, err)
	}
	out.Write(y)
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
