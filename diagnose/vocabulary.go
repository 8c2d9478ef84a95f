package diagnose

// This file builds diagnose's report views from the root vocabulary: a
// target group as [TargetGroupReport] starts it, from
// [tgmigrate.TargetGroup], and its health check as [HealthCheck] shows it,
// from [tgmigrate.HealthCheck]; the root holds the one conversion of each
// from the SDK.

import (
	"cmp"
	"slices"

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

// targetGroupReport is the part of g's report that g holds: its identity,
// type, protocol, VPC, health check, and its load balancers, sorted.
func targetGroupReport(g tgmigrate.TargetGroup) TargetGroupReport {
	return TargetGroupReport{
		ARN: g.ARN, Name: g.Name, Account: g.AccountID, Region: g.Region,
		VPCID: g.VPCID, TargetType: string(g.TargetType), Protocol: g.Protocol,
		Port: g.Port, ProtocolVersion: g.ProtocolVersion, IPAddressType: g.IPAddressType,
		HealthCheck:      healthCheckView(g.HealthCheck),
		LoadBalancerARNs: slices.Sorted(slices.Values(g.LoadBalancerARNs)),
	}
}
