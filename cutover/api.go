package cutover

// api.go: cutover's names for the ELBv2 interfaces, which the root
// package declares once: ELBv2API (read and write) and its writer roles.

import (
	"github.com/qstools/tgmigrate"
)

// The ELBv2 interfaces are declared once, in package tgmigrate; cutover
// re-exports them under the names it has always had.

// TargetWriter registers and deregisters targets: [tgmigrate.TargetWriter].
type TargetWriter = tgmigrate.TargetWriter

// TargetGroupWriter creates target groups, changes their health checks,
// attributes and tags, and deletes them (a blue/green rollback deletes the
// target group it created, and only that one): [tgmigrate.TargetGroupWriter].
type TargetGroupWriter = tgmigrate.TargetGroupWriter

// ListenerWriter replaces the actions of listeners and rules, which is how
// weighted forwarding shifts traffic between target groups:
// [tgmigrate.ListenerWriter].
type ListenerWriter = tgmigrate.ListenerWriter

// ELBv2API is everything cutover calls, [tgmigrate.ELBv2API]: the
// read-only [tgmigrate.ELBv2ReadAPI] (which diagnose.ELBv2API names too) and
// the three writer roles. Each method has the SDK's own signature, so
// *elasticloadbalancingv2.Client satisfies it as it is.
type ELBv2API = tgmigrate.ELBv2API
