package tgmigrate

// This file holds the target group and its targets, once: [TargetGroup],
// what every package knows of a target group, and [Target], one registered
// target with its health, each with its one conversion from the SDK
// ([TargetGroupOf], [TargetOf]); and a target group's type, [TargetType],
// with its constants. diagnose's
// TargetGroupReport, cutover's and tgbind's TargetGroupInfo are JSON
// contracts of their own, each built from a TargetGroup by one function.

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// TargetType is a target group's type, as ELBv2 spells it.
type TargetType string

// The target types. tgmigrate migrates ip and instance target groups;
// lambda and alb ones are reported and left alone.
const (
	// TargetTypeIP: targets are IP addresses (pods, or nodes by IP).
	TargetTypeIP TargetType = "ip"
	// TargetTypeInstance: targets are EC2 instance IDs.
	TargetTypeInstance TargetType = "instance"
	// TargetTypeLambda: the target is a Lambda function.
	TargetTypeLambda TargetType = "lambda"
	// TargetTypeALB: the target is an Application Load Balancer.
	TargetTypeALB TargetType = "alb"
)

// TargetGroup is what every package knows of a target group: its identity,
// its type and protocol, its VPC, the load balancers that use it and its
// health check. It holds no tags, attributes or targets: those are read
// separately.
type TargetGroup struct {
	// ARN and Name identify it; AccountID and Region come from its ARN.
	ARN       string
	Name      string
	AccountID string
	Region    string
	// VPCID is its VPC.
	VPCID string
	// TargetType is ip, instance, lambda or alb.
	TargetType TargetType
	// Protocol, ProtocolVersion and Port are its defaults for its targets
	// (ProtocolVersion is HTTP1, HTTP2 or GRPC for HTTP(S) target groups).
	Protocol        string
	ProtocolVersion string
	Port            int32
	// IPAddressType is ipv4 or ipv6.
	IPAddressType string
	// LoadBalancerARNs are the load balancers that forward to it, in the
	// order DescribeTargetGroups gave them.
	LoadBalancerARNs []string
	// HealthCheck is its health check.
	HealthCheck HealthCheck
}

// TargetGroupOf reads tg, which DescribeTargetGroups returned, with arn,
// its ARN as the caller parsed it (the account and Region come from it; a
// zero ARN leaves them empty): the one conversion from the SDK's model.
// The result shares no memory with tg.
func TargetGroupOf(tg *elbv2types.TargetGroup, arn ARN) TargetGroup {
	return TargetGroup{
		ARN: aws.ToString(tg.TargetGroupArn), Name: aws.ToString(tg.TargetGroupName),
		AccountID: arn.AccountID, Region: arn.Region,
		VPCID: aws.ToString(tg.VpcId), TargetType: TargetType(tg.TargetType),
		Protocol: string(tg.Protocol), ProtocolVersion: aws.ToString(tg.ProtocolVersion), Port: aws.ToInt32(tg.Port),
		IPAddressType:    string(tg.IpAddressType),
		LoadBalancerARNs: slices.Clone(tg.LoadBalancerArns),
		HealthCheck:      HealthCheckOf(tg),
	}
}

// Target is one registered target, as DescribeTargetHealth returns it. Its
// JSON is part of diagnose's report schema.
type Target struct {
	// ID is the IP address, or the instance ID in an instance target group.
	ID string `json:"id"`
	// Port is the target's port.
	Port int32 `json:"port"`
	// AvailabilityZone is the target's zone; "all" for an IP outside the
	// target group's VPC.
	AvailabilityZone string `json:"availabilityZone,omitempty"`
	// State and Reason are the ELB target health, for example "unhealthy"
	// and "Target.Timeout".
	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// TargetOf reads one of DescribeTargetHealth's descriptions: the one
// conversion from the SDK's model. It reports false when d names no
// target.
func TargetOf(d elbv2types.TargetHealthDescription) (Target, bool) {
	if d.Target == nil {
		return Target{}, false
	}
	t := Target{ID: aws.ToString(d.Target.Id), Port: aws.ToInt32(d.Target.Port), AvailabilityZone: aws.ToString(d.Target.AvailabilityZone)}
	if d.TargetHealth != nil {
		t.State, t.Reason = string(d.TargetHealth.State), string(d.TargetHealth.Reason)
	}
	return t, true
}

// Key returns "ID:Port", the identity the LBC diffs targets on.
func (t Target) Key() string { return fmt.Sprintf("%s:%d", t.ID, t.Port) }

// Draining reports whether ELB is draining the target: it is deregistered
// already, takes no new requests and leaves by itself when the
// deregistration delay ends. The LBC ignores such targets.
func (t Target) Draining() bool { return t.State == "draining" || t.State == "unhealthy.draining" }
