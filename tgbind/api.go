package tgbind

// api.go: ELBv2API, the read-only ELBv2 interface tgbind takes (the
// root's ELBv2ReadAPI).

import (
	"github.com/qstools/tgmigrate"
)

// ELBv2API is the part of the ELBv2 API that tgbind calls:
// [tgmigrate.ELBv2ReadAPI], the one read-only ELBv2 interface of every read
// path. tgbind changes Kubernetes, never AWS: the interface is read-only.
// *elasticloadbalancingv2.Client satisfies it as it is.
//
// tgbind calls four of its methods (DescribeTargetGroups,
// DescribeTargetHealth, DescribeTags, and DescribeLoadBalancers only with
// [WithLoadBalancerSecurityGroups]). Before it was this alias, tgbind's
// interface held those four alone; it now asks for the seven Describe*
// methods, so that one read interface (and one mock of it) serves diagnose
// and tgbind alike. Anything that satisfied diagnose.ELBv2API or the SDK
// client satisfies it.
type ELBv2API = tgmigrate.ELBv2ReadAPI
