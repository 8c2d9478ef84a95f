package tgmigrate

import "github.com/qstools/tgmigrate/internal/awserr"

// ARN is a parsed Elastic Load Balancing ARN (a target group or a load
// balancer): partition, region, account, kind, name and ID.
type ARN = awserr.ARN

// ARNError says what is wrong with an ARN; it unwraps to [ErrInvalidARN] or
// [ErrWrongAccount].
type ARNError = awserr.ARNError

// ParseTargetGroupARN validates
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:targetgroup/NAME/ID and
// returns its parts, or an [*ARNError] naming the part at fault. It makes no
// call: use it to reject bad input before anything else runs.
func ParseTargetGroupARN(s string) (ARN, error) { return awserr.ParseTargetGroupARN(s) }

// ParseLoadBalancerARN validates
// arn:PARTITION:elasticloadbalancing:REGION:ACCOUNT:loadbalancer/TYPE/NAME/ID.
func ParseLoadBalancerARN(s string) (ARN, error) { return awserr.ParseLoadBalancerARN(s) }
