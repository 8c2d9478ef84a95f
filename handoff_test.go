package tgmigrate_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
)

// TestHandoffJSON: a handoff survives its JSON (a script may store it
// between diagnose and cutover), with the port by name or by number, and
// an edited one is refused by Validate with the field named.
func TestHandoffJSON(t *testing.T) {
	for _, port := range []intstr.IntOrString{intstr.FromString("http"), intstr.FromInt32(8080)} {
		h := tgmigrate.Handoff{
			TargetGroupARN: "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/ae14fed025dbd571",
			AccountID:      "123456789012", Region: "eu-west-1", VPCID: "vpc-0a1b2c3d", TargetType: "instance", Strategy: "blue-green",
			ClusterName: "prod", Service: tgmigrate.HandoffService{Namespace: "shop", Name: "web", Port: port},
			Observed: tgmigrate.HandoffObservation{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Targets: 4, Nodes: 3, Foreign: 1, Healthy: 2},
		}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var back tgmigrate.Handoff
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(h, back); d != "" {
			t.Errorf("JSON round trip (-want +got):\n%s", d)
		}
		edited := strings.Replace(string(b), `"strategy":"blue-green"`, `"strategy":"in-place"`, 1)
		if err := json.Unmarshal([]byte(edited), &back); err != nil {
			t.Fatal(err)
		}
		var he *tgmigrate.HandoffError
		if err := back.Validate(); !errors.As(err, &he) || he.Field != "Strategy" || !errors.Is(err, tgmigrate.ErrInvalidHandoff) {
			t.Errorf("Validate of %s: %v, want a *HandoffError on Strategy", edited, err)
		}
	}
}
