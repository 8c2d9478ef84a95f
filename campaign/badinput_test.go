package campaign_test

// badinput_test.go: a bad input or option is an *InputError naming its
// field, returned before any call.

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

// nilReader makes a typed-nil client.Reader.
type nilReader struct{ client.Reader }

func TestPlanCampaignBadInput(t *testing.T) {
	f := newFleet(t)
	good := func() campaign.Input { return inputOf(f, campaign.Selection{All: true}) }
	with := func(edit func(*campaign.Input)) campaign.Input {
		in := good()
		edit(&in)
		return in
	}
	other, err := tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:eu-west-1:444444444444:targetgroup/web/0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		in    campaign.Input
		opts  []campaign.Option
		field string
	}{
		{"no accounts", with(func(in *campaign.Input) { in.Accounts = nil }), nil, "Input.Accounts"},
		{"bad account ID", with(func(in *campaign.Input) { in.Accounts[1].ID = "12" }), nil, "Input.Accounts[1].ID"},
		{"bad Region", with(func(in *campaign.Input) { in.Accounts[0].Region = "moon" }), nil, "Input.Accounts[0].Region"},
		{"nil ELBv2", with(func(in *campaign.Input) { in.Accounts[2].ELBv2 = nil }), nil, "Input.Accounts[2].ELBv2"},
		{"typed-nil ELBv2", with(func(in *campaign.Input) { in.Accounts[0].ELBv2 = (*elbv2.Client)(nil) }), nil, "Input.Accounts[0].ELBv2"},
		{"typed-nil APIGateway", with(func(in *campaign.Input) { in.Accounts[1].APIGateway = (*apigatewayv2.Client)(nil) }), nil, "Input.Accounts[1].APIGateway"},
		{"account twice", with(func(in *campaign.Input) { in.Accounts[1].ID = in.Accounts[0].ID }), nil, "Input.Accounts[1]"},
		{"no clusters", with(func(in *campaign.Input) { in.Clusters = nil }), nil, "Input.Clusters"},
		{"no cluster name", with(func(in *campaign.Input) { in.Clusters[1].Name = "" }), nil, "Input.Clusters[1].Name"},
		{"cluster twice", with(func(in *campaign.Input) { in.Clusters[2].Name = in.Clusters[0].Name }), nil, "Input.Clusters[2].Name"},
		{"nil reader", with(func(in *campaign.Input) { in.Clusters[0].Reader = nil }), nil, "Input.Clusters[0].Reader"},
		{"typed-nil reader", with(func(in *campaign.Input) { in.Clusters[1].Reader = (*nilReader)(nil) }), nil, "Input.Clusters[1].Reader"},
		{"bad VPC", with(func(in *campaign.Input) { in.Clusters[0].VPCID = "vpc" }), nil, "Input.Clusters[0].VPCID"},
		{"bad CIDR", with(func(in *campaign.Input) { in.Clusters[0].CIDRs = []string{"10.0.0.0/8", "ten"} }), nil, "Input.Clusters[0].CIDRs[1]"},
		{"bad assumptions", with(func(in *campaign.Input) { in.Clusters[2].Assumptions.NewTargetChecks = 11 }), nil, "Input.Clusters[2].Assumptions"},
		{"unknown account", with(func(in *campaign.Input) { in.Clusters[1].AccountID = "999999999999" }), nil, "Input.Clusters[1].AccountID"},
		{"account of no cluster", with(func(in *campaign.Input) { in.Clusters[2].AccountID = in.Accounts[0].ID }), nil, "Input.Accounts[2]"},
		{"no selection", with(func(in *campaign.Input) { in.Selection = campaign.Selection{} }), nil, "Input.Selection"},
		{"All and ARNs", with(func(in *campaign.Input) {
			in.Selection.TargetGroupARNs = []tgmigrate.ARN{f.Worlds()[0].Legacy().TargetGroupARN}
		}), nil, "Input.Selection"},
		{"unparsed ARN", with(func(in *campaign.Input) {
			in.Selection = campaign.Selection{TargetGroupARNs: []tgmigrate.ARN{{Raw: "arn:aws:elasticloadbalancing:x"}}}
		}), nil, "Input.Selection.TargetGroupARNs[0]"},
		{"ARN of another account", with(func(in *campaign.Input) { in.Selection = campaign.Selection{TargetGroupARNs: []tgmigrate.ARN{other}} }), nil, "Input.Selection.TargetGroupARNs[0]"},
		{"empty name", with(func(in *campaign.Input) { in.Selection = campaign.Selection{TargetGroupNames: []string{""}} }), nil, "Input.Selection.TargetGroupNames[0]"},
		{"empty tag key", with(func(in *campaign.Input) { in.Selection = campaign.Selection{Tags: map[string]string{"": "x"}} }), nil, "Input.Selection.Tags"},
		{"nil clock", good(), []campaign.Option{campaign.WithClock(nil)}, "WithClock"},
		{"nil chooser", good(), []campaign.Option{campaign.WithCanaryChooser(nil)}, "WithCanaryChooser"},
		{"unparsed canary", good(), []campaign.Option{campaign.WithCanaries(tgmigrate.ARN{})}, "WithCanaries[0]"},
		{"negative wave size", good(), []campaign.Option{campaign.WithMaxPerWave(-1)}, "WithMaxPerWave"},
		{"no concurrency", good(), []campaign.Option{campaign.WithConcurrency(0)}, "WithConcurrency"},
		{"no account concurrency", good(), []campaign.Option{campaign.WithPerAccount(0)}, "WithPerAccount"},
		{"no cluster concurrency", good(), []campaign.Option{campaign.WithPerCluster(-2)}, "WithPerCluster"},
		{"unknown precondition", good(), []campaign.Option{campaign.WithAcceptPreconditions(cutover.PreconditionPodSettings, "pods")}, "WithAcceptPreconditions[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := calls(f)
			opts := append([]campaign.Option{campaign.WithClock(f.Clock())}, tt.opts...)
			p, err := campaign.PlanCampaign(t.Context(), tt.in, opts...)
			var ie *campaign.InputError
			if p != nil || !errors.As(err, &ie) || ie.Field != tt.field || !campaign.IsInvalidInput(err) ||
				!strings.HasPrefix(err.Error(), "campaign: plan: invalid input: "+tt.field+": ") {
				t.Errorf("PlanCampaign() = %v, %v; want an *InputError on %s", p, err, tt.field)
			}
			if n := calls(f) - before; n != 0 {
				t.Errorf("%d AWS calls before the input error", n)
			}
		})
	}
}

// TestPlanCampaignUnknownCanary: an explicit canary that is not a
// runnable target group of the plan is an *InputError once planned.
func TestPlanCampaignUnknownCanary(t *testing.T) {
	f := newFleet(t)
	staging := f.World("staging").Legacy().TargetGroupARN
	_, err := campaign.PlanCampaign(t.Context(), inputOf(f, campaign.Selection{All: true}), campaign.WithClock(f.Clock()), campaign.WithCanaries(staging))
	var ie *campaign.InputError
	if !errors.As(err, &ie) || ie.Field != "WithCanaries[0]" {
		t.Errorf("PlanCampaign() = %v; want an *InputError on WithCanaries[0] (staging is blocked)", err)
	}
}

// TestValidateOptions: ValidateOptions and ValidateExecuteOptions refuse
// a bad option with PlanCampaign's and Execute's own error, naming it,
// and pass good ones and none.
func TestValidateOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		field string // "": no error
	}{
		{"none", campaign.ValidateOptions(), ""},
		{"good", campaign.ValidateOptions(campaign.WithConcurrency(3), campaign.WithPerCluster(1), nil), ""},
		{"concurrency 0", campaign.ValidateOptions(campaign.WithConcurrency(0)), "WithConcurrency"},
		{"the first bad one", campaign.ValidateOptions(campaign.WithPerAccount(2), campaign.WithMaxPerWave(-1), campaign.WithPerCluster(0)), "WithMaxPerWave"},
		{"execute none", campaign.ValidateExecuteOptions(), ""},
		{"execute good", campaign.ValidateExecuteOptions(campaign.WithErrorBudget(2)), ""},
		{"error budget -1", campaign.ValidateExecuteOptions(campaign.WithErrorBudget(-1)), "WithErrorBudget"},
	} {
		var in *campaign.InputError
		switch {
		case tc.field == "" && tc.err != nil:
			t.Errorf("%s: %v, want nil", tc.name, tc.err)
		case tc.field != "" && (!errors.As(tc.err, &in) || in.Field != tc.field || !campaign.IsInvalidInput(tc.err)):
			t.Errorf("%s: %v, want an *InputError of field %s", tc.name, tc.err, tc.field)
		}
	}
}
