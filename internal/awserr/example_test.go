package awserr_test

import (
	"errors"
	"fmt"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/awserr"
)

// Classify turns SDK errors into the project's categories, by type or by
// code, never by message text.
func ExampleClassify() {
	arn := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef"
	notFound := awserr.Classify("DescribeTargetHealth", arn, &elbv2types.TargetGroupNotFoundException{Message: new("One or more target groups not found")})
	throttled := awserr.Classify("DescribeTargetHealth", arn, &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"})
	fmt.Println(errors.Is(notFound, awserr.ErrNotFound), awserr.IsRetryable(notFound, false))
	fmt.Println(errors.Is(throttled, awserr.ErrThrottled), awserr.IsRetryable(throttled, false))
	fmt.Println(throttled)
	// Output:
	// true false
	// true true
	// DescribeTargetHealth arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/0123456789abcdef: throttled: api error Throttling: Rate exceeded
}
