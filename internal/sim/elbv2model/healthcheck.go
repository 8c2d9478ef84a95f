package elbv2model

// healthcheck.go: health-check settings, their defaults and matchers.

import (
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// trafficPort is the HealthCheckPort value that means "the target's own port".
const trafficPort = "traffic-port"

// Health-check defaults of an HTTP or HTTPS target group of type ip or
// instance, as CreateTargetGroup applies them.
const (
	defaultHCInterval  = 30
	defaultHCTimeout   = 5
	defaultHCHealthy   = 5
	defaultHCUnhealthy = 2
	defaultHCPath      = "/"
	defaultHCMatcher   = "200"
)

// healthCheck is a target group's health-check configuration.
type healthCheck struct {
	protocol  types.ProtocolEnum
	port      string // trafficPort or a number
	portNum   int32  // 0 for trafficPort
	path      string
	interval  int32
	timeout   int32
	healthy   int32
	unhealthy int32
	matcher   string
	// accepts200 caches whether the matcher accepts the 200 that a passing
	// probe ([ProbeOK]) stands for.
	accepts200 bool
}

// hcFields are the health-check members that CreateTargetGroupInput and
// ModifyTargetGroupInput share. A nil or empty member leaves the value as it is.
type hcFields struct {
	enabled   *bool
	interval  *int32
	path      *string
	port      *string
	protocol  types.ProtocolEnum
	timeout   *int32
	healthy   *int32
	unhealthy *int32
	matcher   *types.Matcher
}

func defaultHealthCheck(protocol types.ProtocolEnum) healthCheck {
	return healthCheck{
		protocol:   protocol,
		port:       trafficPort,
		path:       defaultHCPath,
		interval:   defaultHCInterval,
		timeout:    defaultHCTimeout,
		healthy:    defaultHCHealthy,
		unhealthy:  defaultHCUnhealthy,
		matcher:    defaultHCMatcher,
		accepts200: true,
	}
}

// merge applies f over hc and validates the result. It never changes hc.
func (hc healthCheck) merge(f hcFields) (healthCheck, error) {
	if f.enabled != nil && !*f.enabled {
		return hc, invalidConfig("health checks cannot be disabled for target groups of type ip or instance")
	}
	rangeCheck := func(name string, v *int32, lo, hi int32, dst *int32) error {
		if v == nil {
			return nil
		}
		if *v < lo || *v > hi {
			return validationf("%s %d is outside %d-%d", name, *v, lo, hi)
		}
		*dst = *v
		return nil
	}
	if err := rangeCheck("HealthCheckIntervalSeconds", f.interval, 5, 300, &hc.interval); err != nil {
		return hc, err
	}
	if err := rangeCheck("HealthCheckTimeoutSeconds", f.timeout, 2, 120, &hc.timeout); err != nil {
		return hc, err
	}
	if err := rangeCheck("HealthyThresholdCount", f.healthy, 2, 10, &hc.healthy); err != nil {
		return hc, err
	}
	if err := rangeCheck("UnhealthyThresholdCount", f.unhealthy, 2, 10, &hc.unhealthy); err != nil {
		return hc, err
	}
	if hc.timeout >= hc.interval {
		return hc, validationf("health check timeout %d s must be smaller than the interval %d s", hc.timeout, hc.interval)
	}
	if f.protocol != "" {
		switch f.protocol {
		case types.ProtocolEnumHttp, types.ProtocolEnumHttps:
			hc.protocol = f.protocol
		default:
			return hc, invalidConfig("health check protocol %s is not supported by a target group of protocol HTTP or HTTPS", f.protocol)
		}
	}
	if f.path != nil {
		p := *f.path
		if !strings.HasPrefix(p, "/") || len(p) > 1024 {
			return hc, validationf("HealthCheckPath %q must start with / and have at most 1024 characters", p)
		}
		hc.path = p
	}
	if f.port != nil {
		p := *f.port
		if p == trafficPort {
			hc.port, hc.portNum = trafficPort, 0
		} else {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 65535 {
				return hc, validationf("HealthCheckPort %q is neither %s nor a port 1-65535", p, trafficPort)
			}
			hc.port, hc.portNum = strconv.Itoa(n), int32(n)
		}
	}
	if f.matcher != nil {
		if f.matcher.GrpcCode != nil {
			return hc, validationf("Matcher.GrpcCode is not modelled by the simulator (HTTP1/HTTP2 target groups only)")
		}
		if f.matcher.HttpCode == nil {
			return hc, validationf("Matcher.HttpCode is required")
		}
		ok200, err := parseMatcher(*f.matcher.HttpCode)
		if err != nil {
			return hc, err
		}
		hc.matcher, hc.accepts200 = *f.matcher.HttpCode, ok200
	}
	return hc, nil
}

// parseMatcher validates an HttpCode matcher ("200", "200,202", "200-299";
// every code 200-499) and reports whether it accepts 200.
func parseMatcher(s string) (bool, error) {
	bad := func() (bool, error) {
		return false, validationf("Matcher.HttpCode %q is not a list of codes or ranges within 200-499", s)
	}
	if s == "" {
		return bad()
	}
	accepts := false
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return bad()
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return bad()
			}
		}
		if a < 200 || b > 499 || a > b {
			return bad()
		}
		if a <= 200 && 200 <= b {
			accepts = true
		}
	}
	return accepts, nil
}
