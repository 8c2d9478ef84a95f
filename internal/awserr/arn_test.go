package awserr

import (
	"encoding/json"
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
		name, arn string
		kind      error
		part      ARNPart
	}{
		{"empty", "", ErrARNMalformed, ARNPartWhole},
		{"not an arn", "legacy-web", ErrARNMalformed, ARNPartWhole},
		{"wrong service", "arn:aws:ec2:eu-west-1:123456789012:targetgroup/x/0123456789abcdef", ErrARNService, ARNPartService},
		{"load balancer", goodLB, ErrARNResourceType, ARNPartResourceType},
		{"bad account", "arn:aws:elasticloadbalancing:eu-west-1:1234:targetgroup/x/0123456789abcdef", ErrARNMalformed, ARNPartAccount},
		{"bad region", "arn:aws:elasticloadbalancing:EU:123456789012:targetgroup/x/0123456789abcdef", ErrARNMalformed, ARNPartRegion},
		{"missing id", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/x", ErrARNMalformed, ARNPartResource},
		{"bad id", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/x/xyz", ErrARNMalformed, ARNPartID},
		{"bad name", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/-x/0123456789abcdef", ErrARNMalformed, ARNPartName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTargetGroupARN(tt.arn)
			checkARNError(t, err, tt.arn, tt.kind, tt.part)
		})
	}
}

// narrowARNKinds are the narrow categories; an ARNError matches exactly one.
var narrowARNKinds = []error{ErrARNMalformed, ErrARNService, ErrARNResourceType, ErrWrongRegion}

// checkARNError checks that err is an *ARNError about arn, of the category
// kind and no other narrow one, about part, and that it matches the broad
// category of kind: ErrInvalidARN for the three parse categories,
// ErrWrongAccount for ErrWrongRegion and ErrWrongAccount, never both.
func checkARNError(t *testing.T, err error, arn string, kind error, part ARNPart) {
	t.Helper()
	var ae *ARNError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want *ARNError", err)
	}
	if ae.ARN != arn || ae.Part != part || ae.Reason == "" {
		t.Errorf("err = %#v, want ARN %q, part %q and a reason", ae, arn, part)
	}
	if !errors.Is(err, kind) {
		t.Errorf("err = %v, want errors.Is %v", err, kind)
	}
	for _, other := range narrowARNKinds {
		if other != kind && errors.Is(err, other) {
			t.Errorf("err = %v is also %v", err, other)
		}
	}
	invalid, foreign := errors.Is(err, ErrInvalidARN), errors.Is(err, ErrWrongAccount)
	wantInvalid := kind == ErrARNMalformed || kind == ErrARNService || kind == ErrARNResourceType
	if invalid != wantInvalid || foreign == wantInvalid {
		t.Errorf("err = %v: errors.Is ErrInvalidARN %v, ErrWrongAccount %v; want %v, %v", err, invalid, foreign, wantInvalid, !wantInvalid)
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
	for _, tt := range []struct {
		arn  string
		kind error
		part ARNPart
	}{
		{goodTG, ErrARNResourceType, ARNPartResourceType},
		{"arn:aws:s3:::bucket", ErrARNService, ARNPartService},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/xyz/edge/fedcba9876543210", ErrARNMalformed, ARNPartLoadBalancerType},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge", ErrARNMalformed, ARNPartResource},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app//fedcba9876543210", ErrARNMalformed, ARNPartName},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/FEDCBA", ErrARNMalformed, ARNPartID},
	} {
		t.Run(tt.arn, func(t *testing.T) {
			_, err := ParseLoadBalancerARN(tt.arn)
			checkARNError(t, err, tt.arn, tt.kind, tt.part)
		})
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
	t.Run("other account", func(t *testing.T) {
		checkARNError(t, a.Expect("999999999999", ""), goodTG, ErrWrongAccount, ARNPartAccount)
	})
	t.Run("other region", func(t *testing.T) {
		checkARNError(t, a.Expect("", "us-east-1"), goodTG, ErrWrongRegion, ARNPartRegion)
	})
	t.Run("other account and region", func(t *testing.T) {
		checkARNError(t, a.Expect("999999999999", "us-east-1"), goodTG, ErrWrongAccount, ARNPartAccount)
	})
}

// TestARNErrorMessage: the message names the broad category, as it did
// before the narrow ones, and the reason.
func TestARNErrorMessage(t *testing.T) {
	_, err := ParseTargetGroupARN(goodLB)
	want := `invalid arn "` + goodLB + `": resource type "loadbalancer" is not targetgroup`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	a, _ := ParseTargetGroupARN(goodTG)
	err = a.Expect("", "us-east-1")
	want = `arn outside the expected account or region "` + goodTG + `": region eu-west-1, expected us-east-1`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	// An ARNError built elsewhere on the broad category still matches it.
	legacy := &ARNError{ARN: "x", Reason: "not an ARN", Kind: ErrInvalidARN}
	if !errors.Is(legacy, ErrInvalidARN) || errors.Is(legacy, ErrARNMalformed) || legacy.Error() != `invalid arn "x": not an ARN` {
		t.Errorf("legacy ARNError %v", legacy)
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

// TestARNText: an ARN's text and JSON are the ARN as given; UnmarshalText
// parses either kind, gives the zero ARN for "", and refuses a malformed
// one naming the part at fault, leaving the value as it was.
func TestARNText(t *testing.T) {
	for _, s := range []string{goodTG, goodLB} {
		var a ARN
		if err := a.UnmarshalText([]byte(s)); err != nil {
			t.Fatalf("UnmarshalText(%q) = %v", s, err)
		}
		want, _ := ParseTargetGroupARN(s)
		if a.Kind == "loadbalancer" {
			want, _ = ParseLoadBalancerARN(s)
		}
		if a != want {
			t.Errorf("UnmarshalText(%q) = %+v, want %+v", s, a, want)
		}
		b, err := json.Marshal(struct{ A ARN }{a})
		if err != nil || string(b) != `{"A":"`+s+`"}` {
			t.Errorf("json = %s, %v", b, err)
		}
	}
	var zero ARN
	if err := zero.UnmarshalText(nil); err != nil || !zero.IsZero() {
		t.Errorf(`UnmarshalText("") = %v, %+v; want the zero ARN`, err, zero)
	}
	if b, _ := zero.MarshalText(); len(b) != 0 {
		t.Errorf("zero MarshalText = %q", b)
	}
	kept, _ := ParseTargetGroupARN(goodTG)
	for _, tt := range []struct {
		text string
		kind error
		part ARNPart
	}{
		{"legacy-web", ErrARNMalformed, ARNPartWhole},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/edge/fedcba9876543210/0123456789abcdef", ErrARNResourceType, ARNPartResourceType},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/x/xyz", ErrARNMalformed, ARNPartID},
		{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/xyz/edge/fedcba9876543210", ErrARNMalformed, ARNPartLoadBalancerType},
	} {
		a := kept
		err := a.UnmarshalText([]byte(tt.text))
		checkARNError(t, err, tt.text, tt.kind, tt.part)
		if a != kept {
			t.Errorf("UnmarshalText(%q) changed the value to %+v", tt.text, a)
		}
	}
}

// TestARNValid: only a parser's ARN of the right kind passes; the zero ARN
// is empty, a struct literal is not parsed, another kind is refused by kind.
func TestARNValid(t *testing.T) {
	tg, _ := ParseTargetGroupARN(goodTG)
	lb, _ := ParseLoadBalancerARN(goodLB)
	if err := tg.ValidTargetGroup(); err != nil {
		t.Errorf("ValidTargetGroup(parsed) = %v", err)
	}
	if err := lb.ValidLoadBalancer(); err != nil {
		t.Errorf("ValidLoadBalancer(parsed) = %v", err)
	}
	literal := ARN{Raw: tg.Raw, Partition: tg.Partition, Region: tg.Region, AccountID: tg.AccountID, Kind: tg.Kind, Name: tg.Name, ID: tg.ID}
	if literal.Equal(tg) || !tg.Equal(tg) {
		t.Error("Equal does not tell a parsed ARN from a struct literal")
	}
	t.Run("zero", func(t *testing.T) {
		err := ARN{}.ValidTargetGroup()
		checkARNError(t, err, "", ErrARNMalformed, ARNPartWhole)
		if !strings.HasSuffix(err.Error(), ": empty") {
			t.Errorf("err = %v, want empty", err)
		}
	})
	t.Run("struct literal", func(t *testing.T) {
		err := literal.ValidTargetGroup()
		checkARNError(t, err, goodTG, ErrARNMalformed, ARNPartWhole)
		if !strings.Contains(err.Error(), "not parsed: use tgmigrate.ParseTargetGroupARN") {
			t.Errorf("err = %v, want not parsed", err)
		}
	})
	t.Run("load balancer as target group", func(t *testing.T) {
		checkARNError(t, lb.ValidTargetGroup(), goodLB, ErrARNResourceType, ARNPartResourceType)
	})
	t.Run("target group as load balancer", func(t *testing.T) {
		checkARNError(t, tg.ValidLoadBalancer(), goodTG, ErrARNResourceType, ARNPartResourceType)
	})
}
