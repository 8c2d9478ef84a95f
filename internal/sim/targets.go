package sim

// targets.go: the ground truth of targets: every registered target with what
// holds its address now and what held it at registration, the ghosts among
// them, the node targets, every registration's span (registered,
// deregistered, removed), the failed requests no call at an instant
// could have saved (UnderWayOf), and those lost to a load balancer's
// target quota (AtQuotaOf).

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

// Target is a registered target, with what held its address.
type Target struct {
	// TargetGroupARN, IP and Port identify the target.
	TargetGroupARN string
	IP             string
	Port           int32
	// State and Reason are what DescribeTargetHealth reports.
	State  elbv2types.TargetHealthStateEnum
	Reason elbv2types.TargetHealthReasonEnum
	// Owner is what answers at IP now ("node/<name>", "pod/<ns>/<name>"),
	// "" for nobody.
	Owner string
	// FormerOwner is what held IP last, "" for an address the cluster never
	// handed out.
	FormerOwner string
	// Registered is what held IP when the target was registered ("" when
	// nothing did); Reused says the address has been handed out again
	// since, to another holder (which may hold it now, or have let it go
	// too).
	Registered string
	Reused     bool
}

// String renders the target as "IP:port state owner".
func (t Target) String() string {
	owner := t.Owner
	if owner == "" {
		owner = "nobody (was " + t.FormerOwner + ")"
	}
	if t.Reused {
		owner += " (reused; registered for " + t.Registered + ")"
	}
	return fmt.Sprintf("%s:%d %s %s", t.IP, t.Port, t.State, owner)
}

func (w *World) targets(keep func(Target) bool) []Target {
	var out []Target
	arns := w.model.TargetGroupARNs()
	sort.Strings(arns)
	for _, arn := range arns {
		if !w.owns(arn) {
			continue
		}
		for _, v := range w.model.Targets(arn) {
			t := Target{TargetGroupARN: arn, IP: v.IP, Port: v.Port, State: v.State, Reason: v.Reason}
			t.Owner, _ = w.cl.Owner(v.IP)
			t.FormerOwner, _ = w.cl.FormerOwner(v.IP)
			w.mu.Lock()
			t.Registered = w.regOwner[regKey(arn, v.IP, v.Port)]
			w.mu.Unlock()
			t.Reused = t.Registered != "" && t.FormerOwner != "" && t.FormerOwner != t.Registered
			if keep(t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// Ghosts returns the ground truth of ghost targets: every target, in any
// target group and any state (draining included), whose IP no node and no
// pod holds now, or whose IP was handed out again (Target.Reused) to a
// holder that does not serve the target group's application on that port
// (another application's pod; a new node still serves the NodePort, a new
// pod of the Service its port: those targets work again). A target
// group's application is an app's for its hand-made target group
// (Config.Apps), the seed's for any other.
func (w *World) Ghosts() []Target {
	return w.targets(func(t Target) bool {
		if t.Owner == "" {
			return true
		}
		if !t.Reused {
			return false
		}
		served, ok := w.cl.Answers(t.IP, t.Port)
		return !ok || served != w.appOf(t.TargetGroupARN)
	})
}

// NodeTargets returns the targets, in any target group, whose IP is or was
// a node's: the nodeIP:NodePort targets of the seed's case, live or ghost.
func (w *World) NodeTargets() []Target {
	return w.targets(func(t Target) bool {
		return strings.HasPrefix(t.Owner, "node/") || (t.Owner == "" && strings.HasPrefix(t.FormerOwner, "node/"))
	})
}

// TargetGroupARNs returns the ARNs of the world's target groups, in
// creation order: every target group of its ELBv2 service, or with an
// Account those in the world's VPC.
func (w *World) TargetGroupARNs() []string {
	var out []string
	for _, arn := range w.model.TargetGroupARNs() {
		if w.owns(arn) {
			out = append(out, arn)
		}
	}
	return out
}

// Targets returns the targets of one target group.
func (w *World) Targets(tgARN string) []Target {
	return w.targets(func(t Target) bool { return t.TargetGroupARN == tgARN })
}

func regKey(tgARN, ip string, port int32) string {
	return tgARN + " " + ip + ":" + strconv.Itoa(int(port))
}

// TargetSpan is one registration of a target in a target group, from its
// registration to its removal: when the target group held it, and what
// held its address then. With [World.FailedRequests] and
// World.Karpenter().Disruptions() it attributes a failed request to its
// target, the target to its holder, and the holder to its disruption.
type TargetSpan struct {
	// TargetGroupARN, ID and Port identify the target (ID is the IP of an
	// ip target, the instance ID of an instance target).
	TargetGroupARN string
	ID             string
	Port           int32
	// Registered is what held the address when the target was registered
	// ("node/<name>", "pod/<ns>/<name>"; "" for nobody, and for an
	// instance target), as [Target].Registered.
	Registered string
	// RegisteredAt is the registration. DeregisteredAt is the
	// deregistration: the model's transition to draining, from which the
	// target takes new requests only for the deregistration lag. RemovedAt
	// is when it left the target group (its draining ended, the target
	// group was deleted, or it was registered again while draining, which
	// starts a new span). Zero while not reached.
	RegisteredAt, DeregisteredAt, RemovedAt time.Time
}

// recordSpan writes a target transition to the spans.
func (w *World) recordSpan(t elbv2model.Transition) {
	key := regKey(t.TargetGroupARN, t.ID, t.Port)
	owner := ""
	if !t.Removed && (t.From == "" || t.From == elbv2types.TargetHealthStateEnumDraining) {
		owner, _ = w.cl.Owner(t.ID)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.openSpan == nil {
		w.openSpan = map[string]int{}
	}
	i, open := w.openSpan[key]
	again := open && t.From == elbv2types.TargetHealthStateEnumDraining && !t.Removed && t.To != elbv2types.TargetHealthStateEnumDraining
	switch {
	case t.Removed || again:
		if open {
			w.spans[i].RemovedAt = t.At
			delete(w.openSpan, key)
		}
	case t.To == elbv2types.TargetHealthStateEnumDraining:
		if open && w.spans[i].DeregisteredAt.IsZero() {
			w.spans[i].DeregisteredAt = t.At
		}
	}
	if (t.From == "" && !t.Removed) || again {
		w.openSpan[key] = len(w.spans)
		w.spans = append(w.spans, TargetSpan{TargetGroupARN: t.TargetGroupARN, ID: t.ID, Port: t.Port,
			Registered: owner, RegisteredAt: t.At})
	}
}

// TargetSpans returns every registration of a target in the target group
// tgARN ("" for every target group) so far, in registration order.
func (w *World) TargetSpans(tgARN string) []TargetSpan {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []TargetSpan
	for _, s := range w.spans {
		if tgARN == "" || s.TargetGroupARN == tgARN {
			out = append(out, s)
		}
	}
	return out
}

// TargetSpanAt returns the registration of the target id:port in tgARN that
// was in force at the instant at (registered at or before it, not removed
// by then): the span a request sent to that target at that instant went
// to.
func (w *World) TargetSpanAt(tgARN, id string, port int32, at time.Time) (TargetSpan, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.spans) - 1; i >= 0; i-- {
		s := w.spans[i]
		if s.TargetGroupARN != tgARN || s.ID != id || s.Port != port || s.RegisteredAt.After(at) {
			continue
		}
		if s.RemovedAt.IsZero() || at.Before(s.RemovedAt) {
			return s, true
		}
	}
	return TargetSpan{}, false
}

// UnderWayOf returns, of the failed requests of the application whose
// hand-made target group is tgARN (the seed's or an app's, wherever its
// requests went), those no call made at start could have saved, counted
// by what their target was registered for ("node/<name>"): the requests
// sent from start until start plus the world's deregistration lag to a
// target registered for a node whose disruption Karpenter started before
// start (whether the node is gone by then or still draining). Such a
// target takes requests for the lag after it leaves the target group,
// however early that is: deregistered at start, it would still be in the
// load balancer's rotation until start plus the lag, and its node may be
// gone before. A failure after that, or to any other target, is not
// counted. A request is placed by the second it was sent in, counted from
// origin (the windows' origin). Nil when there is none.
func (w *World) UnderWayOf(tgARN string, origin, start time.Time) map[string]int {
	began := map[string]bool{}
	for _, d := range w.Karpenter().Disruptions() {
		if d.StartedAt.Before(start) {
			began["node/"+d.Node] = true
		}
	}
	if len(began) == 0 {
		return nil
	}
	until := start.Add(w.Timings().Lag())
	var out map[string]int
	for _, f := range w.FailedRequestsOf(tgARN) {
		sec := origin.Add(f.At.Sub(origin).Truncate(time.Second))
		if sec.Before(start) || !sec.Before(until) {
			continue
		}
		if sp, ok := w.TargetSpanAt(f.TargetGroupARN, f.Target.IP, f.Target.Port, f.At); ok && began[sp.Registered] {
			if out == nil {
				out = map[string]int{}
			}
			out[sp.Registered]++
		}
	}
	return out
}

// AtQuotaOf returns, of the failed requests of the application whose
// hand-made target group is tgARN sent at or after from, those lost to
// the target quota of the load balancer in front of their target group,
// counted by the node whose drain killed their target ("node/<name>"):
// requests sent, at or after the node's termination, to the target of a
// pod Karpenter's drain of that node killed at its deadline
// (karpenter.Disruption.CutOff), a drain that had evictions refused (a
// PodDisruptionBudget) while the controller's registration of other pods
// in the request's target group stood refused for its load balancer's
// target quota, draining targets counted
// (elbv2model.Model.QuotaRefusals): a RegisterTargets on it was refused
// during the drain, or before it with none registered since. That
// refusal is the chain's first link: the replacement pods stay
// unregistered (the controller retries a failed reconcile with its
// per-item exponential back-off, up to 1000 s, and nothing tells it when
// draining targets leave), so their readiness gates stay False, the
// budget counts them unavailable and refuses the drain's evictions, and
// the deadline kills the node's pods still registered, which the load
// balancer keeps sending requests to until their deregistration and its
// lag. Nil when there is none.
func (w *World) AtQuotaOf(tgARN string, from time.Time) map[string]int {
	type cutOff struct {
		node        string
		drain, gone time.Time
	}
	cuts := map[string]cutOff{}
	for _, d := range w.Karpenter().Disruptions() {
		if d.BlockedEvictions == 0 || d.TerminatedAt.IsZero() {
			continue
		}
		for _, p := range d.CutOff {
			cuts["pod/"+p] = cutOff{node: "node/" + d.Node, drain: d.DrainStartedAt, gone: d.TerminatedAt}
		}
	}
	if len(cuts) == 0 {
		return nil
	}
	type history struct{ refused, registered []time.Time }
	histories := map[string]history{}
	// standing reports whether a registration on tg stood refused for the
	// quota during [drain, gone].
	standing := func(tg string, c cutOff) bool {
		h, ok := histories[tg]
		if !ok {
			h.refused = w.model.QuotaRefusals(tg)
			for _, sp := range w.TargetSpans(tg) {
				h.registered = append(h.registered, sp.RegisteredAt)
			}
			histories[tg] = h
		}
		var last time.Time
		for _, t := range h.refused {
			if !t.After(c.gone) {
				last = t
			}
		}
		switch {
		case last.IsZero():
			return false
		case !last.Before(c.drain):
			return true
		}
		return !slices.ContainsFunc(h.registered, func(t time.Time) bool { return t.After(last) && !t.After(c.drain) })
	}
	var out map[string]int
	for _, f := range w.FailedRequestsOf(tgARN) {
		if f.At.Before(from) || f.TargetGroupARN == "" {
			continue
		}
		sp, ok := w.TargetSpanAt(f.TargetGroupARN, f.Target.IP, f.Target.Port, f.At)
		if !ok {
			continue
		}
		c, ok := cuts[sp.Registered]
		if !ok || f.At.Before(c.gone) || !standing(f.TargetGroupARN, c) {
			continue
		}
		if out == nil {
			out = map[string]int{}
		}
		out[c.node]++
	}
	return out
}
