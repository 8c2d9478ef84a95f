package tgmigrate_test

import (
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
