package diagnose

// This file builds diagnose's report views from the root vocabulary: a
// target group's health check as [HealthCheck] shows it, from
// [tgmigrate.HealthCheck], the one model of a health check and its one
// conversion from the SDK.

import (
	"cmp"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/qstools/tgmigrate"
)

// healthCheckView is h as the report shows it: plain values (ELBv2 sets
// every one on a target group it describes), and one matcher, the HTTP
// codes or else the gRPC codes.
func healthCheckView(h tgmigrate.HealthCheck) HealthCheck {
	return HealthCheck{
		Enabled: aws.ToBool(h.Enabled), Protocol: h.Protocol, Port: h.Port, Path: h.Path,
		Matcher:         cmp.Or(h.Matcher, h.GRPCMatcher),
		IntervalSeconds: aws.ToInt32(h.IntervalSeconds), TimeoutSeconds: aws.ToInt32(h.TimeoutSeconds),
		HealthyThreshold: aws.ToInt32(h.HealthyThresholdCount), UnhealthyThreshold: aws.ToInt32(h.UnhealthyThresholdCount),
	}
}
