package karpenter

// expiry.go: expiry: each NodeClaim's expiry at its creationTimestamp plus
// spec.expireAfter, and the expiry churn shape (the NodePool's expireAfter
// and the live nodes' ages spread so that one node expires per interval).

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// scheduleExpiry sets c's expiry where Karpenter's expiration controller
// finds it (nodeclaim/expiration/controller.go: creationTimestamp plus
// spec.expireAfter; the creationTimestamp an API server stores is to the
// second) and schedules it: at that instant the node is disrupted for
// Expired, forcefully, whatever the budgets and do-not-disrupt (the
// controller deletes the NodeClaim without looking at either). A
// NodePool expireAfter of Never (negative) schedules nothing.
func (k *Karpenter) scheduleExpiry(c *claim) {
	c.expiry.Cancel()
	c.expireAt = time.Time{}
	if k.pool.ExpireAfter <= 0 {
		return
	}
	c.expireAt = c.createdAt.Truncate(time.Second).Add(k.pool.ExpireAfter)
	node := c.node
	c.expiry = k.clock.At(c.expireAt, "karpenter expire "+c.name, func(time.Time) {
		_ = k.ReplaceNode(node, ReasonExpired)
	})
}

// ExpiresAt returns when a node's NodeClaim expires (creationTimestamp
// plus expireAfter), false when the node is not Karpenter's, is gone, or
// never expires.
func (k *Karpenter) ExpiresAt(node string) (time.Time, bool) {
	c := k.claims[node]
	if c == nil || c.state == claimTerminated || c.expireAt.IsZero() {
		return time.Time{}, false
	}
	return c.expireAt, true
}

// startExpiry starts the expiry shape: the NodePool's expireAfter becomes
// the number of live nodes times the interval, and the live nodes, oldest
// first, are given the creation times that make node i expire at start +
// i x interval (start rounded up to the second; each creation time is to
// the second, so with an interval of whole seconds the expiries are
// exactly one interval apart). With PublishObjects the NodePool and the
// NodeClaims are written again with the new expireAfter and
// creationTimestamp: the world starts as if the nodes had been launched at
// those times under that NodePool. The NodeClaims' spec is immutable on a
// real Karpenter and their creationTimestamp is the API server's; the
// rewrite stands for their history, and on a real API server the server
// keeps its own creationTimestamp.
func (k *Karpenter) startExpiry(ch Churn) error {
	live := k.live()
	if len(live) == 0 {
		return &ConfigError{Op: "start churn", Field: "Shape", Reason: "expiry needs at least one node"}
	}
	start := ch.Start.Truncate(time.Second)
	if start.Before(ch.Start) {
		start = start.Add(time.Second)
	}
	k.pool.ExpireAfter = time.Duration(len(live)) * ch.Interval
	for i, c := range live {
		c.createdAt = start.Add(time.Duration(i)*ch.Interval - k.pool.ExpireAfter).Truncate(time.Second)
		k.scheduleExpiry(c)
	}
	k.event("ExpiryChurn", "nodepool/"+k.pool.Name, "expireAfter %s; %d nodes expire one every %v from %s",
		duration(k.pool.ExpireAfter), len(live), ch.Interval, live[0].expireAt.UTC().Format(time.RFC3339))
	if !k.o.PublishObjects {
		return nil
	}
	ctx := k.ctx()
	pool, err := k.get(ctx, NodePoolGVK, k.pool.Name)
	if err == nil {
		err = unstructured.SetNestedField(pool.Object, duration(k.pool.ExpireAfter), "spec", "template", "spec", "expireAfter")
	}
	if err == nil {
		err = k.c.Update(ctx, pool)
	}
	if err != nil {
		k.event("Error", "nodepool/"+k.pool.Name, "expireAfter: %v", err)
	}
	for _, c := range live {
		created := metav1.NewTime(c.createdAt)
		k.updateClaim(ctx, c, func(u *unstructured.Unstructured) {
			u.SetCreationTimestamp(created)
			if err := unstructured.SetNestedField(u.Object, duration(k.pool.ExpireAfter), "spec", "expireAfter"); err != nil {
				k.event("Error", "nodeclaim/"+c.name, "expireAfter: %v", err)
			}
		})
	}
	return nil
}
