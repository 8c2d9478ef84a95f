package elbv2sim

// throttle.go: throttling: operation classes and token buckets.

import (
	"fmt"
	"sort"
	"time"

	"golang.org/x/time/rate"
)

// OpClass groups operations that share a throttling bucket.
type OpClass string

// The operation classes.
const (
	// ClassDescribe: every Describe* operation.
	ClassDescribe OpClass = "describe"
	// ClassTargets: RegisterTargets and DeregisterTargets.
	ClassTargets OpClass = "targets"
	// ClassMutate: every other operation that changes state (Create*,
	// Modify*, Delete*, AddTags).
	ClassMutate OpClass = "mutate"
)

// ClassOf returns the class of an operation name such as "RegisterTargets".
func ClassOf(op string) OpClass {
	switch op {
	case OpRegisterTargets, OpDeregisterTargets:
		return ClassTargets
	case OpDescribeTargetGroups, OpDescribeTargetHealth, OpDescribeTargetGroupAttributes,
		OpDescribeTags, OpDescribeLoadBalancers, OpDescribeListeners, OpDescribeRules:
		return ClassDescribe
	}
	return ClassMutate
}

// Bucket is a token bucket: it holds at most Capacity tokens, refills at
// RefillPerSecond tokens per second of virtual time, starts full, and each
// call takes one token or is throttled.
type Bucket struct {
	// Capacity is the burst a full bucket allows. Must be positive.
	Capacity int
	// RefillPerSecond is the sustained rate. Must be positive.
	RefillPerSecond float64
}

// DocumentedDescribeBucket is the example bucket the ELBv2 documentation
// gives for Describe* operations: 40 tokens, refilled at 10 per second. AWS
// does not publish the buckets of the other operations; see
// [LBCHintBuckets] for an assumption.
var DocumentedDescribeBucket = Bucket{Capacity: 40, RefillPerSecond: 10}

// LBCHintBuckets returns buckets derived from the AWS Load Balancer
// Controller's client-side throttle defaults (Register/Deregister 4/s burst
// 20, Modify 3/s burst 20), which hint at what AWS tolerates, with the
// documented Describe* bucket. They are an assumption, not AWS's table.
func LBCHintBuckets() map[OpClass]Bucket {
	return map[OpClass]Bucket{
		ClassDescribe: DocumentedDescribeBucket,
		ClassTargets:  {Capacity: 20, RefillPerSecond: 4},
		ClassMutate:   {Capacity: 20, RefillPerSecond: 3},
	}
}

// Throttle is the request-rate throttle of one account in one region: a
// token bucket per operation class, on the virtual clock. Every [Client]
// that shares a Throttle draws from the same buckets, as every caller of
// one account does in AWS. A Throttle is safe for concurrent use.
type Throttle struct {
	limiters map[OpClass]*rate.Limiter
}

// NewThrottle returns a throttle with a bucket for each class in buckets;
// classes without one are never rate-throttled. It fails with an
// [*OptionsError] for an unknown class or a non-positive bucket.
func NewThrottle(buckets map[OpClass]Bucket) (*Throttle, error) {
	classes := make([]string, 0, len(buckets))
	for c := range buckets {
		classes = append(classes, string(c))
	}
	sort.Strings(classes)
	t := &Throttle{limiters: make(map[OpClass]*rate.Limiter, len(buckets))}
	for _, cs := range classes {
		c := OpClass(cs)
		b := buckets[c]
		if c != ClassDescribe && c != ClassTargets && c != ClassMutate {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new throttle", Field: "buckets", Reason: fmt.Sprintf("unknown operation class %q", c)}
		}
		if b.Capacity <= 0 || b.RefillPerSecond <= 0 {
			return nil, &OptionsError{Pkg: "elbv2sim", Op: "new throttle", Field: "buckets", Reason: fmt.Sprintf("class %s: capacity %d and refill %v/s must be positive", c, b.Capacity, b.RefillPerSecond)}
		}
		t.limiters[c] = rate.NewLimiter(rate.Limit(b.RefillPerSecond), b.Capacity)
	}
	return t, nil
}

// Allow takes a token for one call of class at virtual time now, and
// reports false when the bucket is empty (the call is throttled).
func (t *Throttle) Allow(class OpClass, now time.Time) bool {
	if t == nil {
		return true
	}
	l, ok := t.limiters[class]
	if !ok {
		return true
	}
	return l.AllowN(now, 1)
}
