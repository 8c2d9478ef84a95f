package tgbind_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/tgbind"
)

// TestRequestFrom: a valid handoff of an ip target group gives the
// Request that binds it in multi-cluster mode; a malformed one, or one of
// an instance target group, a *ValidationError with one FieldError naming
// the handoff's field. RequestFrom takes no client: it makes no call.
func TestRequestFrom(t *testing.T) {
	valid := func() tgmigrate.Handoff {
		return tgmigrate.Handoff{
			TargetGroupARN: "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/ae14fed025dbd571",
			AccountID:      "123456789012", Region: "eu-west-1", VPCID: "vpc-0a1b2c3d", TargetType: "ip", Strategy: "in-place",
			ClusterName: "prod", Service: tgmigrate.HandoffService{Namespace: "shop", Name: "web", Port: intstr.FromInt32(80)},
			Observed: tgmigrate.HandoffObservation{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Targets: 3, Nodes: 3, Healthy: 3},
		}
	}
	got, err := tgbind.RequestFrom(valid())
	want := tgbind.Request{TargetGroupARN: valid().TargetGroupARN, Namespace: "shop", Service: "web", Port: intstr.FromInt32(80), MultiCluster: true}
	if d := cmp.Diff(want, got); err != nil || d != "" {
		t.Fatalf("RequestFrom: %v (-want +got):\n%s", err, d)
	}
	for _, tt := range []struct {
		field string
		edit  func(*tgmigrate.Handoff)
	}{
		{"handoff.TargetGroupARN", func(h *tgmigrate.Handoff) { h.TargetGroupARN = "" }},
		{"handoff.Service.Name", func(h *tgmigrate.Handoff) { h.Service.Name = "" }},
		{"handoff.Observed.Nodes", func(h *tgmigrate.Handoff) { h.Observed.Nodes = -1 }},
		{"handoff.TargetType", func(h *tgmigrate.Handoff) { h.TargetType, h.Strategy = "instance", "blue-green" }},
	} {
		t.Run(tt.field, func(t *testing.T) {
			h := valid()
			tt.edit(&h)
			req, err := tgbind.RequestFrom(h)
			var ve *tgbind.ValidationError
			if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Field != tt.field || ve.Errors[0].Check != tgbind.CheckHandoff ||
				!errors.Is(err, tgbind.ErrInvalidRequest) || req.TargetGroupARN != "" {
				t.Fatalf("RequestFrom: %+v, %v; want a *ValidationError on %s", req, err, tt.field)
			}
		})
	}
}
