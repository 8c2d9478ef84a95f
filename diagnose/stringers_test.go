package diagnose_test

// stringers_test.go: the one-line String of NextCall and Finding, and the
// JSON of their typed target group ARNs, byte for byte what it was as a
// string (omitzero where omitempty was).

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
)

const stringersTG = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"

func TestNextCallAndFindingString(t *testing.T) {
	tg, err := tgmigrate.ParseTargetGroupARN(stringersTG)
	if err != nil {
		t.Fatal(err)
	}
	svc := &diagnose.ServiceRef{Cluster: "prod", Namespace: "shop", Name: "web", PortName: "http"}
	tests := []struct {
		name string
		v    interface{ String() string }
		want string
	}{
		{"plan cutover", diagnose.NextCall{Op: diagnose.OpPlanCutover, TargetGroupARN: tg, Strategy: "in-place", Service: svc},
			"cutover.PlanCutover targetGroup=" + stringersTG + " strategy=in-place service=prod/shop/web:http"},
		{"missing service", diagnose.NextCall{Op: diagnose.OpBuildBinding, TargetGroupARN: tg, Missing: []string{"service"}},
			"tgbind.Build targetGroup=" + stringersTG + " missing=service"},
		{"op alone", diagnose.NextCall{Op: diagnose.OpInstallController, Cluster: "prod"}, "install-controller cluster=prod"},
		{"none, target group only", diagnose.NextCall{Op: diagnose.OpNone, TargetGroupARN: tg}, "none targetGroup=" + stringersTG},
		{"target group finding", diagnose.Finding{Severity: diagnose.SeverityHigh, Code: diagnose.CodeStaticNodeTarget, TargetGroupARN: tg,
			Message: "4 of 4 targets\n are node IPs"}, "high StaticNodeTarget " + stringersTG + ": 4 of 4 targets are node IPs"},
		{"cluster finding", diagnose.Finding{Severity: diagnose.SeverityCritical, Code: diagnose.CodeBindingCRDMissing, Cluster: "prod",
			Message: "no controller"}, "critical TargetGroupBindingCRDMissing cluster prod: no controller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("String() = %q\nwant       %q", got, tt.want)
			}
		})
	}
}

// TestTypedARNJSON: a Finding and its NextCall marshal as they did when
// their ARNs were strings with omitempty, with an ARN and without one, and
// read back to the same values.
func TestTypedARNJSON(t *testing.T) {
	tg, err := tgmigrate.ParseTargetGroupARN(stringersTG)
	if err != nil {
		t.Fatal(err)
	}
	// before mirrors the fields as they were.
	type beforeNext struct {
		Op             diagnose.Operation `json:"op"`
		TargetGroupARN string             `json:"targetGroupARN,omitempty"`
	}
	type before struct {
		Code           diagnose.Code `json:"code"`
		TargetGroupARN string        `json:"targetGroupARN,omitempty"`
		Cluster        string        `json:"cluster,omitempty"`
		Next           beforeNext    `json:"next"`
	}
	type after struct {
		Code           diagnose.Code     `json:"code"`
		TargetGroupARN tgmigrate.ARN     `json:"targetGroupARN,omitzero"`
		Cluster        string            `json:"cluster,omitempty"`
		Next           diagnose.NextCall `json:"next"`
	}
	for _, withARN := range []bool{true, false} {
		b := before{Code: diagnose.CodeStaticNodeTarget, Cluster: "prod", Next: beforeNext{Op: diagnose.OpPlanCutover}}
		a := after{Code: diagnose.CodeStaticNodeTarget, Cluster: "prod", Next: diagnose.NextCall{Op: diagnose.OpPlanCutover}}
		if withARN {
			b.TargetGroupARN, b.Next.TargetGroupARN = stringersTG, stringersTG
			a.TargetGroupARN, a.Next.TargetGroupARN = tg, tg
		}
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("with ARN %t: JSON\n%s\nwant\n%s", withARN, got, want)
		}
		var back after
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(a, back); d != "" {
			t.Errorf("with ARN %t: round trip (-want +got):\n%s", withARN, d)
		}
	}
	// The real types, through a whole Finding: the field is there with
	// an ARN, absent without.
	f := diagnose.Finding{Code: diagnose.CodeStaticNodeTarget, TargetGroupARN: tg, Next: diagnose.NextCall{Op: diagnose.OpNone}}
	js, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if m["targetGroupARN"] != stringersTG {
		t.Errorf("finding JSON targetGroupARN = %v, want %s", m["targetGroupARN"], stringersTG)
	}
	if _, ok := m["next"].(map[string]any)["targetGroupARN"]; ok {
		t.Error("a zero next ARN is in the JSON")
	}
}
