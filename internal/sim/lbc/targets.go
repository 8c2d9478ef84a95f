package lbc

// targets.go: the targets cache.

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// DefaultTargetsCacheTTL is how long the controller keeps a target group's
// targets before it reads them all again: defaultTargetsCacheTTL in the
// LBC's pkg/targetgroupbinding/targets_manager.go.
const DefaultTargetsCacheTTL = 5 * time.Minute

// targetsCache is the controller's cache of the targets of each target
// group, as the LBC's cachedTargetsManager keeps it
// (pkg/targetgroupbinding/targets_manager.go):
//
//   - it is keyed by the target group's ARN, so bindings on one target group
//     share an entry;
//   - a miss (no entry, or an expired one) reads every target with one
//     DescribeTargetHealth and keeps the answer for the TTL; a hit never
//     extends the TTL;
//   - a hit keeps the healthy targets as they are and reads again, with one
//     DescribeTargetHealth that names them, every other target; those that
//     come back unused / Target.NotRegistered are dropped;
//   - a successful RegisterTargets adds its targets with no health (or
//     clears the health of those already there), a successful
//     DeregisterTargets clears the health of its targets; neither creates
//     an entry;
//   - nothing else invalidates an entry: not an error, not a binding's
//     deletion.
//
// So a target registered out of band is not seen, and not deregistered,
// until the entry expires; nor is a healthy target that left out of band.
// A restarted controller starts with an empty cache.
type targetsCache struct {
	ttl     time.Duration
	entries map[string]*targetsEntry
}

type targetsEntry struct {
	targets []elbv2types.TargetHealthDescription
	expires time.Time
}

func newTargetsCache(ttl time.Duration) *targetsCache {
	return &targetsCache{ttl: ttl, entries: map[string]*targetsEntry{}}
}

// listTargets returns the targets of arn through the cache.
func (c *Controller) listTargets(ctx context.Context, arn string) ([]elbv2types.TargetHealthDescription, error) {
	now := c.o.Clock.Now()
	e, ok := c.cache.entries[arn]
	if !ok || !now.Before(e.expires) {
		all, err := c.describeTargets(ctx, arn, nil)
		if err != nil {
			return nil, err
		}
		if c.cache.ttl > 0 {
			c.cache.entries[arn] = &targetsEntry{targets: all, expires: now.Add(c.cache.ttl)}
		}
		return cloneTargets(all), nil
	}
	c.stats.CacheHits++
	var kept []elbv2types.TargetHealthDescription
	var stale []elbv2types.TargetDescription
	for _, t := range e.targets {
		if healthState(t) == elbv2types.TargetHealthStateEnumHealthy {
			kept = append(kept, t)
		} else {
			stale = append(stale, elbv2types.TargetDescription{Id: t.Target.Id, Port: t.Target.Port})
		}
	}
	if len(stale) > 0 {
		fresh, err := c.describeTargets(ctx, arn, stale)
		if err != nil {
			return nil, err
		}
		for _, t := range fresh {
			if t.TargetHealth != nil && t.TargetHealth.State == elbv2types.TargetHealthStateEnumUnused &&
				t.TargetHealth.Reason == elbv2types.TargetHealthReasonEnumNotRegistered {
				continue
			}
			kept = append(kept, t)
		}
	}
	e.targets = kept
	return cloneTargets(kept), nil
}

func (c *Controller) describeTargets(ctx context.Context, arn string, only []elbv2types.TargetDescription) ([]elbv2types.TargetHealthDescription, error) {
	out, err := c.o.ELBv2.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn), Targets: only})
	if err != nil {
		return nil, fmt.Errorf("describe target health of %s: %w", arn, err)
	}
	if out == nil {
		return nil, fmt.Errorf("describe target health of %s: no response", arn)
	}
	return out.TargetHealthDescriptions, nil
}

// recordRegistered updates a cached entry after a successful
// RegisterTargets (recordSuccessfulRegisterTargetsOperation).
func (c *Controller) recordRegistered(arn string, ts []elbv2types.TargetDescription) {
	e, ok := c.cache.entries[arn]
	if !ok {
		return
	}
	at := e.index()
	for _, t := range ts {
		if i, ok := at[descID(t)]; ok {
			e.targets[i].TargetHealth = nil
			continue
		}
		e.targets = append(e.targets, elbv2types.TargetHealthDescription{Target: &elbv2types.TargetDescription{Id: t.Id, Port: t.Port}})
	}
}

// recordDeregistered updates a cached entry after a successful
// DeregisterTargets (recordSuccessfulDeregisterTargetsOperation): the
// targets stay, with no health, until a refresh finds them gone.
func (c *Controller) recordDeregistered(arn string, ts []elbv2types.TargetDescription) {
	e, ok := c.cache.entries[arn]
	if !ok {
		return
	}
	at := e.index()
	for _, t := range ts {
		if i, ok := at[descID(t)]; ok {
			e.targets[i].TargetHealth = nil
		}
	}
}

// index maps each cached target's IP:port to its position.
func (e *targetsEntry) index() map[string]int {
	at := make(map[string]int, len(e.targets))
	for i, t := range e.targets {
		at[targetID(t)] = i
	}
	return at
}

func descID(t elbv2types.TargetDescription) string {
	return aws.ToString(t.Id) + ":" + strconv.Itoa(int(aws.ToInt32(t.Port)))
}

func cloneTargets(ts []elbv2types.TargetHealthDescription) []elbv2types.TargetHealthDescription {
	out := make([]elbv2types.TargetHealthDescription, len(ts))
	for i, t := range ts {
		out[i] = t
		if t.Target != nil {
			d := *t.Target
			out[i].Target = &d
		}
		if t.TargetHealth != nil {
			h := *t.TargetHealth
			out[i].TargetHealth = &h
		}
	}
	return out
}
