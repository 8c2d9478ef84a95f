package awserr

import (
	"errors"
	"strings"
	"testing"
)

const (
	goodTG = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	goodLB = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/fedcba9876543210"
)

func TestParseTargetGroupARN(t *testing.T) {
	a, err := ParseTargetGroupARN(goodTG)
	if err != nil {
		t.Fatalf("ParseTargetGroupARN(good) = %v", err)
	}
	if a.Region != "eu-west-1" || a.AccountID != "123456789012" || a.Name != "legacy-web" || a.ID != "0123456789abcdef" || a.Kind != "targetgroup" {
		t.Errorf("parsed %+v", a)
	}
	tests := []struct {
		name, arn, reason string
	}{
		{"empty", "", "empty"},
		{"not an arn", "legacy-web", "not an ARN"},
		{"wrong service", "arn:aws:ec2:eu-west-1:123456789012:targetgroup/x/0123456789abcdef", "service"},
		{"load balancer", goodLB, "resource type"},
		{"bad account", "arn:aws:elasticloadbalancing:eu-west-1:1234:targetgroup/x/0123456789abcdef", "account"},
		{"bad region", "arn:aws:elasticloadbalancing:EU:123456789012:targetgroup/x/0123456789abcdef", "region"},
		{"missing id", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/x", "targetgroup/NAME/ID"},
		{"bad id", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/x/xyz", "hexadecimal"},
		{"bad name", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/-x/0123456789abcdef", "name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTargetGroupARN(tt.arn)
			var ae *ARNError
			if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidARN) {
				t.Fatalf("err = %v, want *ARNError wrapping ErrInvalidARN", err)
			}
			if ae.ARN != tt.arn || !strings.Contains(ae.Reason, tt.reason) {
				t.Errorf("err = %v, want reason mentioning %q", err, tt.reason)
			}
		})
	}
}

func TestParseLoadBalancerARN(t *testing.T) {
	a, err := ParseLoadBalancerARN(goodLB)
	if err != nil {
		t.Fatalf("ParseLoadBalancerARN(good) = %v", err)
	}
	if a.LoadBalancerType != "app" || a.Name != "edge" || a.ID != "fedcba9876543210" {
		t.Errorf("parsed %+v", a)
	}
	for _, bad := range []string{
		goodTG,
		"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/xyz/edge/fedcba9876543210",
		"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge",
	} {
		if _, err := ParseLoadBalancerARN(bad); !errors.Is(err, ErrInvalidARN) {
			t.Errorf("ParseLoadBalancerARN(%q) = %v, want ErrInvalidARN", bad, err)
		}
	}
}

func TestExpect(t *testing.T) {
	a, _ := ParseTargetGroupARN(goodTG)
	if err := a.Expect("", ""); err != nil {
		t.Errorf("empty expectation: %v", err)
	}
	if err := a.Expect("123456789012", "eu-west-1"); err != nil {
		t.Errorf("matching expectation: %v", err)
	}
	if err := a.Expect("999999999999", ""); !errors.Is(err, ErrWrongAccount) {
		t.Errorf("other account: %v", err)
	}
	if err := a.Expect("", "us-east-1"); !errors.Is(err, ErrWrongAccount) {
		t.Errorf("other region: %v", err)
	}
}

func TestValidTargetGroupName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "legacy-web": true, strings.Repeat("a", 32): true,
		"": false, "-a": false, "a-": false, strings.Repeat("a", 33): false, "internal-x": false, "a_b": false,
	} {
		if got := ValidTargetGroupName(name); got != want {
			t.Errorf("ValidTargetGroupName(%q) = %v, want %v", name, got, want)
		}
	}
}
