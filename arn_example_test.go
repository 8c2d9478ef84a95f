package tgmigrate_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/qstools/tgmigrate"
)

func ExampleParseTargetGroupARN() {
	a, err := tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef")
	fmt.Println(a.AccountID, a.Region, a.Name, err)

	_, err = tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/0123456789abcdef")
	var ae *tgmigrate.ARNError
	fmt.Println(errors.Is(err, tgmigrate.ErrInvalidARN), errors.Is(err, tgmigrate.ErrARNResourceType), errors.As(err, &ae) && ae.Part == tgmigrate.ARNPartResourceType)
	fmt.Println(err)
	// Output:
	// 123456789012 eu-west-1 legacy-web <nil>
	// true true true
	// invalid arn "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/0123456789abcdef": resource type "loadbalancer" is not targetgroup
}

// An ARN is parsed once, where it comes in: a flag, a JSON field, a user's
// string. Its JSON is the ARN as given; a struct literal is not an ARN the
// packages accept.
func ExampleARN() {
	var in struct {
		TargetGroupARN tgmigrate.ARN `json:"targetGroupARN"`
	}
	err := json.Unmarshal([]byte(`{"targetGroupARN":"arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"}`), &in)
	fmt.Println(in.TargetGroupARN.Name, err, in.TargetGroupARN.ValidTargetGroup())

	out, _ := json.Marshal(in)
	fmt.Println(string(out))

	err = json.Unmarshal([]byte(`{"targetGroupARN":"legacy-web"}`), &in)
	fmt.Println(errors.Is(err, tgmigrate.ErrARNMalformed))

	handMade := tgmigrate.ARN{Raw: "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef", Kind: "targetgroup"}
	fmt.Println(handMade.ValidTargetGroup())
	// Output:
	// legacy-web <nil> <nil>
	// {"targetGroupARN":"arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"}
	// true
	// invalid arn "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef": not parsed: use tgmigrate.ParseTargetGroupARN
}
