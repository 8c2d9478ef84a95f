package tgmigrate

// This file holds the health check, once: [HealthCheck], the settings of a
// target group's health check with every field optional, its one
// conversion from the SDK's target group ([HealthCheckOf]), and its
// behaviour: a deep copy, the changes that turn one into another, its
// timing with ELBv2's defaults, and the optional fields of the SDK's
// requests. cutover's journal stores it (journal.HealthCheckSettings is an
// alias) and diagnose's report shows a view of it.

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// HealthCheck is a target group's health-check settings, as
// DescribeTargetGroups reports them and ModifyTargetGroup changes them. A
// nil pointer or an empty string means "not set" (or, in a change, "not
// changed"). Its JSON is part of cutover's plans and journals, whose
// digests cover it: its field names, tags and order are fixed.
type HealthCheck struct {
	// Enabled says whether health checks are on (they always are for ip
	// and instance target groups).
	Enabled *bool `json:"enabled,omitempty"`
	// Protocol is HTTP, HTTPS, TCP and so on.
	Protocol string `json:"protocol,omitempty"`
	// Port is a port number or "traffic-port".
	Port string `json:"port,omitempty"`
	// Path is the HTTP(S) path.
	Path string `json:"path,omitempty"`
	// IntervalSeconds is 5-300.
	IntervalSeconds *int32 `json:"intervalSeconds,omitempty"`
	// TimeoutSeconds is 2-120.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// HealthyThresholdCount is 2-10.
	HealthyThresholdCount *int32 `json:"healthyThresholdCount,omitempty"`
	// UnhealthyThresholdCount is 2-10.
	UnhealthyThresholdCount *int32 `json:"unhealthyThresholdCount,omitempty"`
	// Matcher is the HTTP success codes, for example "200-399".
	Matcher string `json:"matcher,omitempty"`
	// GRPCMatcher is the gRPC success codes, for gRPC target groups.
	GRPCMatcher string `json:"grpcMatcher,omitempty"`
}

// ELBv2's defaults for the health-check timing a target group does not set.
const (
	// DefaultHealthCheckIntervalSeconds is ELBv2's default interval.
	DefaultHealthCheckIntervalSeconds int32 = 30
	// DefaultHealthyThresholdCount is ELBv2's default healthy threshold.
	DefaultHealthyThresholdCount int32 = 5
	// DefaultUnhealthyThresholdCount is ELBv2's default unhealthy threshold.
	DefaultUnhealthyThresholdCount int32 = 2
)

// HealthCheckOf reads a target group's health-check settings: the one
// conversion from the SDK's model. The result shares no memory with tg.
func HealthCheckOf(tg *elbv2types.TargetGroup) HealthCheck {
	hc := HealthCheck{
		Enabled:                 clonePtr(tg.HealthCheckEnabled),
		Protocol:                string(tg.HealthCheckProtocol),
		Port:                    aws.ToString(tg.HealthCheckPort),
		Path:                    aws.ToString(tg.HealthCheckPath),
		IntervalSeconds:         clonePtr(tg.HealthCheckIntervalSeconds),
		TimeoutSeconds:          clonePtr(tg.HealthCheckTimeoutSeconds),
		HealthyThresholdCount:   clonePtr(tg.HealthyThresholdCount),
		UnhealthyThresholdCount: clonePtr(tg.UnhealthyThresholdCount),
	}
	if tg.Matcher != nil {
		hc.Matcher = aws.ToString(tg.Matcher.HttpCode)
		hc.GRPCMatcher = aws.ToString(tg.Matcher.GrpcCode)
	}
	return hc
}

// clonePtr returns a pointer to a copy of *p, nil for nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Clone returns a deep copy of h.
func (h HealthCheck) Clone() HealthCheck {
	c := h
	c.Enabled = clonePtr(h.Enabled)
	c.IntervalSeconds = clonePtr(h.IntervalSeconds)
	c.TimeoutSeconds = clonePtr(h.TimeoutSeconds)
	c.HealthyThresholdCount = clonePtr(h.HealthyThresholdCount)
	c.UnhealthyThresholdCount = clonePtr(h.UnhealthyThresholdCount)
	return c
}

// ChangesFrom returns the settings of h (the wanted ones) that differ from
// cur: what a ModifyTargetGroup must send to make cur into h. Its zero
// value ([HealthCheck.IsZero]) means nothing to change.
func (h HealthCheck) ChangesFrom(cur HealthCheck) HealthCheck {
	var d HealthCheck
	if h.Enabled != nil && (cur.Enabled == nil || *h.Enabled != *cur.Enabled) {
		d.Enabled = clonePtr(h.Enabled)
	}
	str := func(w, c string) string {
		if w != "" && w != c {
			return w
		}
		return ""
	}
	num := func(w, c *int32) *int32 {
		if w != nil && (c == nil || *w != *c) {
			return clonePtr(w)
		}
		return nil
	}
	d.Protocol, d.Port, d.Path = str(h.Protocol, cur.Protocol), str(h.Port, cur.Port), str(h.Path, cur.Path)
	d.Matcher, d.GRPCMatcher = str(h.Matcher, cur.Matcher), str(h.GRPCMatcher, cur.GRPCMatcher)
	d.IntervalSeconds, d.TimeoutSeconds = num(h.IntervalSeconds, cur.IntervalSeconds), num(h.TimeoutSeconds, cur.TimeoutSeconds)
	d.HealthyThresholdCount = num(h.HealthyThresholdCount, cur.HealthyThresholdCount)
	d.UnhealthyThresholdCount = num(h.UnhealthyThresholdCount, cur.UnhealthyThresholdCount)
	return d
}

// Timing returns the interval and the healthy and unhealthy thresholds,
// ELBv2's defaults (30 s, 5, 2) for those h does not set.
func (h HealthCheck) Timing() (interval, healthy, unhealthy int32) {
	interval, healthy, unhealthy = DefaultHealthCheckIntervalSeconds, DefaultHealthyThresholdCount, DefaultUnhealthyThresholdCount
	if h.IntervalSeconds != nil {
		interval = *h.IntervalSeconds
	}
	if h.HealthyThresholdCount != nil {
		healthy = *h.HealthyThresholdCount
	}
	if h.UnhealthyThresholdCount != nil {
		unhealthy = *h.UnhealthyThresholdCount
	}
	return interval, healthy, unhealthy
}

// IsZero reports whether no setting of h is set.
func (h HealthCheck) IsZero() bool {
	return h.Enabled == nil && h.Protocol == "" && h.Port == "" && h.Path == "" && h.Matcher == "" && h.GRPCMatcher == "" &&
		h.IntervalSeconds == nil && h.TimeoutSeconds == nil && h.HealthyThresholdCount == nil && h.UnhealthyThresholdCount == nil
}

// RequestFields returns the request fields of h that the SDK takes only
// when set: the protocol, port, path and matcher, each zero when h leaves
// it empty. ModifyTargetGroup and CreateTargetGroup take them alike.
func (h HealthCheck) RequestFields() (elbv2types.ProtocolEnum, *string, *string, *elbv2types.Matcher) {
	var (
		protocol   elbv2types.ProtocolEnum
		port, path *string
		matcher    *elbv2types.Matcher
	)
	if h.Protocol != "" {
		protocol = elbv2types.ProtocolEnum(h.Protocol)
	}
	if h.Port != "" {
		port = aws.String(h.Port)
	}
	if h.Path != "" {
		path = aws.String(h.Path)
	}
	if h.Matcher != "" || h.GRPCMatcher != "" {
		matcher = &elbv2types.Matcher{}
		if h.Matcher != "" {
			matcher.HttpCode = aws.String(h.Matcher)
		}
		if h.GRPCMatcher != "" {
			matcher.GrpcCode = aws.String(h.GRPCMatcher)
		}
	}
	return protocol, port, path, matcher
}
