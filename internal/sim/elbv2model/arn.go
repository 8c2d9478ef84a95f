package elbv2model

// arn.go: ARNs: minting, their kinds, TargetGroupARNPattern.

import (
	"fmt"
	"regexp"
	"strings"
)

// lbNameRe is a load balancer name: 1-32 letters, digits or hyphens, not
// beginning or ending with a hyphen.
var lbNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)

// nextID returns a fresh 16-hex-digit resource ID. IDs depend only on the
// order of creation, so that the same scenario gives the same ARNs.
func (m *Model) nextIDLocked() (uint64, string) {
	m.seq++
	// splitmix64 spreads consecutive sequence numbers over the ID space.
	z := m.seq + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return m.seq, fmt.Sprintf("%016x", z)
}

func (m *Model) arnPrefix() string {
	return fmt.Sprintf("arn:%s:elasticloadbalancing:%s:%s:", m.partition, m.region, m.accountID)
}

// Resource kinds, as they appear in ARNs.
type resourceKind int

const (
	kindUnknown resourceKind = iota
	kindTargetGroup
	kindLoadBalancer
	kindListener
	kindRule
)

// kindOfARN tells the kind of an ELBv2 ARN of this model's partition,
// region and account; kindUnknown when it is not one.
func (m *Model) kindOfARN(arn string) resourceKind {
	rest, ok := strings.CutPrefix(arn, m.arnPrefix())
	if !ok {
		return kindUnknown
	}
	switch {
	case strings.HasPrefix(rest, "targetgroup/"):
		return kindTargetGroup
	case strings.HasPrefix(rest, "loadbalancer/"):
		return kindLoadBalancer
	case strings.HasPrefix(rest, "listener/"):
		return kindListener
	case strings.HasPrefix(rest, "listener-rule/"):
		return kindRule
	}
	return kindUnknown
}

// TargetGroupARNPattern returns the ARN pattern an IAM policy uses for the
// target group name (targetgroup/NAME/*): the resource of a
// CreateTargetGroup call before the ID exists.
func (m *Model) TargetGroupARNPattern(name string) string {
	return m.arnPrefix() + "targetgroup/" + name + "/*"
}
