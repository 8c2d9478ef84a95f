// Package tgbind hands an existing target group to the AWS Load Balancer
// Controller: it builds a TargetGroupBinding for a (target group, Service)
// pair, validates it before it lands, applies it, and waits until the LBC has
// registered every ready endpoint as a healthy target.
//
// The TargetGroupBinding API types live in the subpackage
// [github.com/qstools/tgmigrate/tgbind/v1beta1]. tgbind writes to Kubernetes
// only; its [ELBv2API] is read-only.
package tgbind
