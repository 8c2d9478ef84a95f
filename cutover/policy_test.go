package cutover

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/awserr"
)

func TestPolicyForGolden(t *testing.T) {
	tests := []struct {
		name string
		in   PolicyInput
	}{
		{"policy-inplace.json", PolicyInput{TargetGroupARN: arntest.TG(testTG), ModifyHealthCheck: true}},
		{"policy-bluegreen.json", PolicyInput{
			TargetGroupARN:           arntest.TG(testTG),
			ListenerARNs:             []string{testListener},
			RuleARNs:                 []string{testRule},
			NewTargetGroupName:       "legacy-web-pods",
			NewTargetGroupAttributes: true,
			DeleteNewTargetGroup:     true,
			DescribeEC2:              true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := PolicyFor(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			b, err := p.JSON()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b)

			// Building twice gives the same bytes.
			p2, _ := PolicyFor(tt.in)
			b2, _ := p2.JSON()
			if string(b) != string(b2) {
				t.Error("PolicyFor is not deterministic")
			}
			// The JSON reads back into the same policy.
			var back Policy
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, &back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyForAllows(t *testing.T) {
	inPlace, err := PolicyFor(PolicyInput{TargetGroupARN: arntest.TG(testTG), ModifyHealthCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	aligned, err := PolicyFor(PolicyInput{TargetGroupARN: arntest.TG(testTG)})
	if err != nil {
		t.Fatal(err)
	}
	blueGreen, err := PolicyFor(PolicyInput{
		TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{testListener}, RuleARNs: []string{testRule},
		NewTargetGroupName: "legacy-web-pods", DeleteNewTargetGroup: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := PolicyFor(PolicyInput{
		TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{testListener},
		NewTargetGroupName: "legacy-web-pods", NewTargetGroupAttributes: true, DeleteNewTargetGroup: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	noDelete, err := PolicyFor(PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupName: "legacy-web-pods"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		p        *Policy
		action   string
		resource string
		want     bool
	}{
		{"describe anything", inPlace, "elasticloadbalancing:DescribeTargetHealth", "*", true},
		{"describe lower case", inPlace, "ELASTICLOADBALANCING:describetargetgroups", "*", true},
		{"deregister on the TG", inPlace, "elasticloadbalancing:DeregisterTargets", testTG, true},
		{"register on the TG", inPlace, "elasticloadbalancing:RegisterTargets", testTG, true},
		{"deregister on another TG", inPlace, "elasticloadbalancing:DeregisterTargets", testOtherTG, false},
		{"modify TG health check", inPlace, "elasticloadbalancing:ModifyTargetGroup", testTG, true},
		{"health check already aligned: no modify", aligned, "elasticloadbalancing:ModifyTargetGroup", testTG, false},
		{"in-place never sets attributes", inPlace, "elasticloadbalancing:ModifyTargetGroupAttributes", testTG, false},
		{"in-place never tags", inPlace, "elasticloadbalancing:AddTags", testTG, false},
		{"blue/green leaves the old TG's health check", blueGreen, "elasticloadbalancing:ModifyTargetGroup", testTG, false},
		{"blue/green leaves the old TG's attributes", attrs, "elasticloadbalancing:ModifyTargetGroupAttributes", testTG, false},
		{"blue/green never tags the old TG", attrs, "elasticloadbalancing:AddTags", testTG, false},
		{"blue/green never modifies the new TG's health check", attrs, "elasticloadbalancing:ModifyTargetGroup", testNewTG, false},
		{"new TG attributes when they differ", attrs, "elasticloadbalancing:ModifyTargetGroupAttributes", testNewTG, true},
		{"new TG attributes not asked for", blueGreen, "elasticloadbalancing:ModifyTargetGroupAttributes", testNewTG, false},
		{"in-place cannot create", inPlace, "elasticloadbalancing:CreateTargetGroup", testNewTG, false},
		{"in-place cannot touch listeners", inPlace, "elasticloadbalancing:ModifyListener", testListener, false},
		{"nobody deletes the legacy TG", blueGreen, "elasticloadbalancing:DeleteTargetGroup", testTG, false},
		{"remove tags is not granted", inPlace, "elasticloadbalancing:RemoveTags", testTG, false},
		{"ec2 not granted by default", inPlace, "ec2:DescribeInstances", "*", false},
		{"create the new TG", blueGreen, "elasticloadbalancing:CreateTargetGroup", testNewTG, true},
		{"tag the new TG", blueGreen, "elasticloadbalancing:AddTags", testNewTG, true},
		{"create another name", blueGreen, "elasticloadbalancing:CreateTargetGroup", testOtherTG, false},
		{"create in another account", blueGreen, "elasticloadbalancing:CreateTargetGroup",
			"arn:aws:elasticloadbalancing:eu-west-1:999999999999:targetgroup/legacy-web-pods/1111222233334444", false},
		{"delete the new TG", blueGreen, "elasticloadbalancing:DeleteTargetGroup", testNewTG, true},
		{"delete not asked for", noDelete, "elasticloadbalancing:DeleteTargetGroup", testNewTG, false},
		{"deregister on the new TG is not needed", blueGreen, "elasticloadbalancing:DeregisterTargets", testNewTG, false},
		{"modify listener", blueGreen, "elasticloadbalancing:ModifyListener", testListener, true},
		{"modify rule", blueGreen, "elasticloadbalancing:ModifyRule", testRule, true},
		{"modify listener on a rule ARN", blueGreen, "elasticloadbalancing:ModifyListener", testRule, false},
		{"modify rule on a listener ARN", blueGreen, "elasticloadbalancing:ModifyRule", testListener, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Allows(tt.action, tt.resource); got != tt.want {
				t.Errorf("Allows(%s, %s) = %v, want %v", tt.action, tt.resource, got, tt.want)
			}
		})
	}
}

func TestPolicyNeedsErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       PolicyInput
		wantKind error
	}{
		{"no target group", PolicyInput{}, awserr.ErrInvalidARN},
		{"load balancer as target group", PolicyInput{TargetGroupARN: arntest.LB("arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/0123456789abcdef")}, awserr.ErrInvalidARN},
		{"listener not an ARN", PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{"web-alb"}}, awserr.ErrInvalidARN},
		{"rule given as listener", PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{testRule}}, awserr.ErrInvalidARN},
		{"listener given as rule", PolicyInput{TargetGroupARN: arntest.TG(testTG), RuleARNs: []string{testListener}}, awserr.ErrInvalidARN},
		{"listener wildcard", PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web-alb/*/*"}}, awserr.ErrInvalidARN},
		{"listener of another service", PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{"arn:aws:ec2:eu-west-1:123456789012:listener/app/a/b/c"}}, awserr.ErrInvalidARN},
		{"listener in another account", PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{"arn:aws:elasticloadbalancing:eu-west-1:999999999999:listener/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2"}}, awserr.ErrWrongAccount},
		{"rule in another region", PolicyInput{TargetGroupARN: arntest.TG(testTG), RuleARNs: []string{"arn:aws:elasticloadbalancing:us-east-1:123456789012:listener-rule/app/web-alb/50dc6c495c0c9188/f2f7dc8efc522ab2/9683b2d02a6cabee"}}, awserr.ErrWrongAccount},
		{"new TG name too long", PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupName: "a23456789012345678901234567890123"}, ErrInvalidInput},
		{"new TG name with slash", PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupName: "web/*"}, ErrInvalidInput},
		{"new TG name ends with hyphen", PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupName: "web-"}, ErrInvalidInput},
		{"new TG pattern matches the legacy TG", PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupName: "legacy-*", DeleteNewTargetGroup: true}, ErrInvalidInput},
		{"new TG name is the legacy TG's", PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupName: "legacy-web"}, ErrInvalidInput},
		{"delete without new TG", PolicyInput{TargetGroupARN: arntest.TG(testTG), DeleteNewTargetGroup: true}, ErrInvalidInput},
		{"attributes without new TG", PolicyInput{TargetGroupARN: arntest.TG(testTG), NewTargetGroupAttributes: true}, ErrInvalidInput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			needs, err := PolicyNeeds(tt.in)
			if needs != nil {
				t.Errorf("needs = %v, want none", needs)
			}
			if !IsInvalidInput(err) || !errors.Is(err, tt.wantKind) {
				t.Fatalf("err = %v, want ErrInvalidInput and %v", err, tt.wantKind)
			}
			var ie *InputError
			if !errors.As(err, &ie) || ie.Field == "" {
				t.Errorf("err = %#v, want an *InputError naming the field", err)
			}
			if p, err := PolicyFor(tt.in); p != nil || err == nil {
				t.Errorf("PolicyFor() = %v, %v; want an error", p, err)
			}
		})
	}
}

func TestNewPolicy(t *testing.T) {
	tests := []struct {
		name    string
		needs   []PolicyNeed
		want    []Statement
		wantErr bool
	}{
		{
			name: "same resources share a statement, others do not",
			needs: []PolicyNeed{
				{Action: ActionDeregisterTargets, Resources: []string{testTG, testOtherTG}},
				{Action: ActionRegisterTargets, Resources: []string{testTG}},
			},
			want: []Statement{
				{Sid: "TargetWrites", Effect: "Allow", Action: StringList{ActionRegisterTargets}, Resource: StringList{testTG}},
				{Sid: "TargetWrites2", Effect: "Allow", Action: StringList{ActionDeregisterTargets}, Resource: StringList{testTG, testOtherTG}},
			},
		},
		{
			name: "needs for one action merge and deduplicate",
			needs: []PolicyNeed{
				{Action: ActionDeregisterTargets, Resources: []string{testTG}},
				{Action: ActionDeregisterTargets, Resources: []string{testOtherTG, testTG}},
				{Action: ActionRegisterTargets, Resources: []string{testOtherTG, testTG}},
			},
			want: []Statement{
				{Sid: "TargetWrites", Effect: "Allow", Action: StringList{ActionDeregisterTargets, ActionRegisterTargets}, Resource: StringList{testTG, testOtherTG}},
			},
		},
		{
			name: "groups in fixed order whatever the input order",
			needs: []PolicyNeed{
				{Action: "sts:GetCallerIdentity", Resources: []string{"*"}},
				{Action: ActionModifyRule, Resources: []string{testRule}},
				{Action: ActionModifyListener, Resources: []string{testListener}},
				{Action: ActionDescribeELBv2, Resources: []string{"*"}},
			},
			want: []Statement{
				{Sid: "ReadELBv2", Effect: "Allow", Action: StringList{ActionDescribeELBv2}, Resource: StringList{"*"}},
				{Sid: "ListenerWrites", Effect: "Allow", Action: StringList{ActionModifyListener}, Resource: StringList{testListener}},
				{Sid: "RuleWrites", Effect: "Allow", Action: StringList{ActionModifyRule}, Resource: StringList{testRule}},
				{Sid: "Other", Effect: "Allow", Action: StringList{"sts:GetCallerIdentity"}, Resource: StringList{"*"}},
			},
		},
		{
			name:  "a star resource absorbs the others",
			needs: []PolicyNeed{{Action: ActionDescribeELBv2, Resources: []string{testTG, "*"}}},
			want:  []Statement{{Sid: "ReadELBv2", Effect: "Allow", Action: StringList{ActionDescribeELBv2}, Resource: StringList{"*"}}},
		},
		{name: "no needs", wantErr: true},
		{name: "action without service", needs: []PolicyNeed{{Action: "DeregisterTargets", Resources: []string{testTG}}}, wantErr: true},
		{name: "action with spaces", needs: []PolicyNeed{{Action: "elasticloadbalancing:Deregister Targets", Resources: []string{testTG}}}, wantErr: true},
		{name: "no resources", needs: []PolicyNeed{{Action: ActionDeregisterTargets}}, wantErr: true},
		{name: "resource not an ARN", needs: []PolicyNeed{{Action: ActionDeregisterTargets, Resources: []string{"legacy-web"}}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.needs...)
			if tt.wantErr {
				if !IsInvalidInput(err) || p != nil {
					t.Fatalf("NewPolicy() = %v, %v; want an *InputError", p, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Version != PolicyVersion {
				t.Errorf("Version = %q", p.Version)
			}
			if diff := cmp.Diff(tt.want, p.Statement); diff != "" {
				t.Errorf("statements (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewPolicyLeastPrivilege checks that every (action, resource) pair a
// statement grants was asked for by a need: grouping never over-grants.
func TestNewPolicyLeastPrivilege(t *testing.T) {
	needs, err := PolicyNeeds(PolicyInput{
		TargetGroupARN: arntest.TG(testTG), ModifyHealthCheck: true, ListenerARNs: []string{testListener}, RuleARNs: []string{testRule},
		NewTargetGroupName: "legacy-web-pods", NewTargetGroupAttributes: true, DeleteNewTargetGroup: true, DescribeEC2: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	needs = append(needs, PolicyNeed{Action: ActionDeregisterTargets, Resources: []string{testOtherTG}})
	p, err := NewPolicy(needs...)
	if err != nil {
		t.Fatal(err)
	}
	asked := func(action, resource string) bool {
		return slices.ContainsFunc(needs, func(n PolicyNeed) bool {
			return n.Action == action && slices.Contains(n.Resources, resource)
		})
	}
	for _, st := range p.Statement {
		for _, a := range st.Action {
			for _, r := range st.Resource {
				if !asked(a, r) {
					t.Errorf("statement %s grants %s on %s, which no need asked for", st.Sid, a, r)
				}
			}
		}
	}
	for _, n := range needs {
		for _, r := range n.Resources {
			if !p.Allows(n.Action, r) {
				t.Errorf("need %s on %s is not allowed", n.Action, r)
			}
		}
	}
	if p.Allows(ActionRegisterTargets, testOtherTG) {
		t.Error("RegisterTargets on the other TG was granted with DeregisterTargets")
	}
}

func TestPolicyAllowsEvaluation(t *testing.T) {
	p := &Policy{Version: PolicyVersion, Statement: []Statement{
		{Effect: "Allow", Action: StringList{"elasticloadbalancing:*"}, Resource: StringList{"arn:aws:elasticloadbalancing:*:123456789012:targetgroup/web-?/*"}},
		{Effect: "Allow", Action: StringList{"elasticloadbalancing:Describe*"}, Resource: StringList{"*"}},
		{Effect: "Allow", Action: StringList{"elasticloadbalancing:ModifyListener"}, Resource: StringList{"arn:aws:elasticloadbalancing:*"}},
		{Effect: "Deny", Action: StringList{"elasticloadbalancing:DeleteTargetGroup"}, Resource: StringList{"*"}},
		{Effect: "Allow", Action: StringList{"s3:Get?bject"}, Resource: StringList{"arn:aws:s3:::bucket/*"}},
	}}
	tests := []struct {
		name, action, resource string
		want                   bool
	}{
		{"wildcard action and ? in name", "elasticloadbalancing:RegisterTargets", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web-a/0123456789abcdef", true},
		{"? is exactly one character", "elasticloadbalancing:RegisterTargets", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web-ab/0123456789abcdef", false},
		{"other account", "elasticloadbalancing:RegisterTargets", "arn:aws:elasticloadbalancing:eu-west-1:999999999999:targetgroup/web-a/0123456789abcdef", false},
		{"* in region does not cross a colon", "elasticloadbalancing:RegisterTargets", "arn:aws:elasticloadbalancing:eu-west-1:x:123456789012:targetgroup/web-a/1", false},
		{"trailing * covers the rest", "elasticloadbalancing:ModifyListener", testListener, true},
		{"trailing * is not a prefix of another service", "elasticloadbalancing:ModifyListener", "arn:aws:ec2:eu-west-1:123456789012:instance/i-1", false},
		{"action case-insensitive", "ElasticLoadBalancing:modifylistener", testListener, true},
		{"resource case-sensitive", "elasticloadbalancing:RegisterTargets", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/WEB-a/0123456789abcdef", false},
		{"deny wins over allow", "elasticloadbalancing:DeleteTargetGroup", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web-a/0123456789abcdef", false},
		{"? in action", "s3:GetObject", "arn:aws:s3:::bucket/key/with:colon", true},
		{"no statement for the action", "s3:PutObject", "arn:aws:s3:::bucket/key", false},
		{"empty resource", "elasticloadbalancing:RegisterTargets", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Allows(tt.action, tt.resource); got != tt.want {
				t.Errorf("Allows(%q, %q) = %v, want %v", tt.action, tt.resource, got, tt.want)
			}
		})
	}
}

func TestWildcardMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"*", "anything", true},
		{"?", "", false},
		{"?", "a", true},
		{"a*b", "ab", true},
		{"a*b", "axxxb", true},
		{"a*b", "axxxbc", false},
		{"a*b*c", "abxbyc", true},
		{"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"**", "x", true},
	}
	for _, tt := range tests {
		if got := wildcardMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("wildcardMatch(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestPolicyParseAndValidate(t *testing.T) {
	var p Policy
	in := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"elasticloadbalancing:Describe*","Resource":"*"}]}`
	if err := json.Unmarshal([]byte(in), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if !p.Allows("elasticloadbalancing:DescribeRules", "*") {
		t.Error("a policy with single-string Action and Resource does not allow what it names")
	}
	if err := json.Unmarshal([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":7,"Resource":"*"}]}`), &p); err == nil {
		t.Error("a number as Action was accepted")
	}

	bad := []Policy{
		{Version: "2008-10-17", Statement: []Statement{{Effect: "Allow", Action: StringList{"a:b"}, Resource: StringList{"*"}}}},
		{Version: PolicyVersion, Statement: []Statement{{Effect: "allow", Action: StringList{"a:b"}, Resource: StringList{"*"}}}},
		{Version: PolicyVersion, Statement: []Statement{{Sid: "has-hyphen", Effect: "Allow", Action: StringList{"a:b"}, Resource: StringList{"*"}}}},
		{Version: PolicyVersion, Statement: []Statement{{Effect: "Allow", Resource: StringList{"*"}}}},
		{Version: PolicyVersion, Statement: []Statement{{Effect: "Allow", Action: StringList{"a:b"}}}},
	}
	for i, b := range bad {
		if err := b.Validate(); err == nil {
			t.Errorf("bad[%d]: Validate() = nil", i)
		}
	}
}

func TestPolicyActions(t *testing.T) {
	p, err := PolicyFor(PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{testListener}, NewTargetGroupName: "legacy-web-pods"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		ActionAddTags, ActionCreateTargetGroup, ActionDeregisterTargets, ActionDescribeELBv2, ActionModifyListener,
		ActionRegisterTargets,
	}
	if diff := cmp.Diff(want, p.Actions()); diff != "" {
		t.Errorf("Actions() (-want +got):\n%s", diff)
	}
}

// BenchmarkPolicyAllows measures one evaluation against the blue/green policy.
func BenchmarkPolicyAllows(b *testing.B) {
	p, err := PolicyFor(PolicyInput{TargetGroupARN: arntest.TG(testTG), ListenerARNs: []string{testListener}, RuleARNs: []string{testRule},
		NewTargetGroupName: "legacy-web-pods", DeleteNewTargetGroup: true})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !p.Allows(ActionDeleteTargetGroup, testNewTG) {
			b.Fatal("not allowed")
		}
	}
}
