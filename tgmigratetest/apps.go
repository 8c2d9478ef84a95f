package tgmigratetest

// apps.go: a world's other applications (Options.Apps) and its per-load-
// balancer target quota (Options.TargetsPerLoadBalancer): App, their
// checks, their translation to the simulator, and what a test reads and
// does with them (Apps, RequestsOf, RequestsBetween, FailedUnderWay,
// FailedAtQuota, PeakTargets, DenyControllerOn).

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
)

// Bounds of Options.Apps and Options.TargetsPerLoadBalancer.
const (
	// MaxApps bounds len(Options.Apps) (the simulator's own bound).
	MaxApps = 32
	// MaxTargetsPerLoadBalancer bounds Options.TargetsPerLoadBalancer:
	// the AWS default of "Targets per Application Load Balancer".
	MaxTargetsPerLoadBalancer = 1000
	// MinNodePort and MaxNodePort bound App.NodePort: Kubernetes' default
	// NodePort range.
	MinNodePort = int32(30000)
	MaxNodePort = int32(32767)
)

// App is one more application of a world besides the seed's
// (Options.Apps): a NodePort Service with its pods (as the seed's: port
// 80 named "http", the pods' 8080), its own hand-made target group of
// every node's nodeIP:NodePort (Options.TargetType), reached through a
// listener rule of its own on the :80 listener of the world's ALB or of
// an ALB it shares with other apps, and its own client traffic
// ([World.RequestsOf]). Every zero value means the default its comment
// gives.
type App struct {
	// Name is the Service's name: a DNS label, unique in its namespace
	// ("web" is the seed's). Required.
	Name string
	// Namespace is the Service's namespace, a DNS label. Zero: the
	// seed's, "shop".
	Namespace string
	// ReadinessGateInjection labels a namespace of the apps' own for the
	// controller's pod readiness gate (Options.ReadinessGateInjection
	// does the seed's namespace, which an app there takes): without it,
	// cutover's plan of the app's target group has a pod-settings
	// precondition. Every app of one namespace gives the same value.
	// Zero: not labelled.
	ReadinessGateInjection bool
	// TargetGroupName is the hand-made target group's name, 1 to 32
	// letters, digits or hyphens, unique in the world (and in the account,
	// for a [Fleet] cluster that shares it). Zero: "<seed's target group
	// name>-<Name>": "legacy-web-<Name>", or "legacy-web-<cluster>-<Name>"
	// in a cluster that shares its account.
	TargetGroupName string
	// LoadBalancerName is the ALB in front of the target group. Zero: the
	// world's ALB, the seed's. Another name: an ALB of that name, created
	// for the first app naming it and shared by every app of the world
	// that names it (a [Fleet] cluster that shares its account needs names
	// no other cluster of the account uses).
	LoadBalancerName string
	// NodePort is the Service's NodePort, [MinNodePort] to [MaxNodePort],
	// distinct from the seed's (30080) and every other app's. Zero: the
	// lowest free port above 30080.
	NodePort int32
	// Pods is the app's replica count, 1 to [MaxPods]. Zero: Options.Pods.
	Pods int
	// RPS is the app's client traffic through its rule, at most [MaxRPS].
	// Zero: Options.RPS (none when that is negative). Negative: none.
	RPS int
}

// appNameRe is an ELBv2 name: a target group's or a load balancer's.
var appNameRe = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)

// checkApps refuses bad Apps and a TargetsPerLoadBalancer the world's
// load balancers would start above, naming the field; legacyName and
// lbName are the seed's target group's name (the derived names' prefix)
// and its ALB's.
func (o Options) checkApps(legacyName, lbName string) error {
	bad := func(field, format string, args ...any) error {
		return optionsError("new world", field, fmt.Sprintf(format, args...))
	}
	if q := o.TargetsPerLoadBalancer; q < 0 || q > MaxTargetsPerLoadBalancer {
		return bad("TargetsPerLoadBalancer", "%d is out of range: want 1 to %d (zero: %d)", q, MaxTargetsPerLoadBalancer, MaxTargetsPerLoadBalancer)
	}
	if len(o.Apps) == 0 {
		return o.checkTargetsAt(nil, lbName)
	}
	if len(o.Apps) > MaxApps {
		return bad("Apps", "%d apps: want at most %d", len(o.Apps), MaxApps)
	}
	if o.Fargate {
		return bad("Apps", "a Fargate world has the seed's application only")
	}
	if o.Move != nil {
		return bad("Apps", "a step-4 world (Move) has the seed's application only")
	}
	for i, a := range o.Apps {
		field := fmt.Sprintf("Apps[%d].", i)
		switch {
		case a.Pods < 0 || a.Pods > MaxPods:
			return bad(field+"Pods", "%d is out of range: want 1 to %d (zero: Options.Pods)", a.Pods, MaxPods)
		case a.RPS > MaxRPS:
			return bad(field+"RPS", "%d is above %d (negative: no traffic)", a.RPS, MaxRPS)
		case a.NodePort != 0 && (a.NodePort < MinNodePort || a.NodePort > MaxNodePort):
			return bad(field+"NodePort", "%d is out of range: want %d to %d (zero: a free one)", a.NodePort, MinNodePort, MaxNodePort)
		}
		if name := a.TargetGroupName; name == "" && a.Name != "" && !appNameRe.MatchString(legacyName+"-"+a.Name) {
			return bad(field+"Name", "%q makes the target group name %q, which is not 1 to 32 letters, digits or hyphens: give a shorter Name or a TargetGroupName", a.Name, legacyName+"-"+a.Name)
		}
	}
	// The rest (names, namespaces, ports, labels) as the simulator checks
	// it, before anything is built.
	cfg := sim.Config{Apps: o.appsSim(), ReadinessGateInjection: o.ReadinessGateInjection,
		Legacy: sim.LegacyTargetGroup{Name: legacyName, LoadBalancerName: lbName}}
	if err := cfg.Validate(); err != nil {
		var ce *sim.ConfigError
		if errors.As(err, &ce) {
			return bad(ce.Field, "%s", ce.Reason)
		}
		return err
	}
	return o.checkTargetsAt(o.Apps, lbName)
}

// checkTargetsAt refuses a TargetsPerLoadBalancer below the targets a
// load balancer starts with: one per node for each target group behind
// it (and, with Fargate, the seed's pinned pods); lbName is the world's
// ALB.
func (o Options) checkTargetsAt(apps []App, lbName string) error {
	quota := o.TargetsPerLoadBalancer
	if quota == 0 {
		return nil
	}
	groups := map[string]int{"": 1} // the world's ALB: the seed's target group
	for _, a := range apps {
		groups[lbOf(a, lbName)]++
	}
	for _, name := range append([]string{""}, lbNames(apps, lbName)...) {
		n, extra := groups[name]*o.nodes(), ""
		if name == "" && o.Fargate && o.TargetType != "instance" {
			// The seed's ip target group pins each Fargate pod too.
			n, extra = n+o.pods(), fmt.Sprintf(" and %d Fargate pods", o.pods())
		}
		if n > quota {
			what := "the world's ALB"
			if name != "" {
				what = "ALB " + name
			}
			return optionsError("new world", "TargetsPerLoadBalancer", fmt.Sprintf("%d is below the %d targets %s starts with (%d target groups of %d nodes%s)", quota, n, what, groups[name], o.nodes(), extra))
		}
	}
	return nil
}

// lbNames are the apps' own load balancers' names, in order of first
// use; lbName is the world's ALB, not among them.
func lbNames(apps []App, lbName string) []string {
	var out []string
	seen := map[string]bool{"": true}
	for _, a := range apps {
		if n := lbOf(a, lbName); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// lbOf is the name of a's own load balancer, "" for the world's ALB
// (named lbName).
func lbOf(a App, lbName string) string {
	if a.LoadBalancerName == lbName {
		return ""
	}
	return a.LoadBalancerName
}

// appsSim is the simulator's form of o.Apps.
func (o Options) appsSim() []sim.App {
	if len(o.Apps) == 0 {
		return nil
	}
	out := make([]sim.App, len(o.Apps))
	for i, a := range o.Apps {
		out[i] = sim.App{Name: a.Name, Namespace: a.Namespace, ReadinessGateInjection: a.ReadinessGateInjection,
			TargetGroupName: a.TargetGroupName, LoadBalancerName: a.LoadBalancerName, NodePort: a.NodePort, Pods: a.Pods, RPS: a.RPS}
	}
	return out
}

// Apps returns the case of each app of Options.Apps, in their order: its
// target group, the ALB, listener and rule in front of it, and its
// Service. The seed's case is [World.Legacy].
func (w *World) Apps() []Legacy { return append([]Legacy(nil), w.apps...) }

// RequestsOf returns the client requests so far of the application whose
// hand-made target group is tg: the seed's ([World.Requests]) or an
// app's, counted through its listener or rule wherever they go since.
// Zero for another target group.
func (w *World) RequestsOf(tg tgmigrate.ARN) Requests {
	return requestsOf(w.w.TrafficOf(tg.Raw).Seconds)
}

// RequestsBetween returns the requests of the application whose hand-made
// target group is tg sent in [from, to), on the world's clock, by the
// second they were sent in (a second counts when it starts in the
// window). Zero for another target group or an empty window.
func (w *World) RequestsBetween(tg tgmigrate.ARN, from, to time.Time) Requests {
	var in []traffic.Second
	for _, s := range w.w.TrafficOf(tg.Raw).Seconds {
		if !s.Start.Before(from) && s.Start.Before(to) {
			in = append(in, s)
		}
	}
	return requestsOf(in)
}

// UnderWay is what [World.FailedUnderWay] finds: of an application's
// failed requests from an instant on, those no call made at that instant
// could have saved.
type UnderWay struct {
	// Failed counts them.
	Failed int
	// Nodes are the nodes their targets were registered for, by name.
	Nodes []string
}

// FailedUnderWay returns, of the failed requests of the application whose
// hand-made target group is tg, those no call made at start could have
// saved: the requests sent from start until start plus the world's
// deregistration lag (Timings.DeregistrationLag) to a target registered
// for a node whose disruption Karpenter began before start, gone by then
// or still draining. A target takes new requests for the lag after it
// leaves the target group, so that even deregistered at start it stays in
// the load balancer's rotation until then, and its node may be gone
// sooner; a disruption Karpenter has begun runs to its end whatever
// karpenter.sh/do-not-disrupt says. A failure after that, or to another
// target, is not counted: a call at start could have prevented it.
// Requests are placed by the second they were sent in, as RequestsBetween
// places them, so Failed is at most RequestsBetween(tg, start, start plus
// the lag).Failed. Zero for another target group.
func (w *World) FailedUnderWay(tg tgmigrate.ARN, start time.Time) UnderWay {
	seconds := w.w.TrafficOf(tg.Raw).Seconds
	if len(seconds) == 0 {
		return UnderWay{}
	}
	var u UnderWay
	for holder, n := range w.w.UnderWayOf(tg.Raw, seconds[0].Start, start) {
		u.Failed += n
		u.Nodes = append(u.Nodes, strings.TrimPrefix(holder, "node/"))
	}
	slices.Sort(u.Nodes)
	return u
}

// AtQuota is what [World.FailedAtQuota] finds: of an application's
// failed requests from an instant on, those lost to its load balancer's
// target quota.
type AtQuota struct {
	// Failed counts them.
	Failed int
	// Nodes are the nodes whose drains killed their targets, by name.
	Nodes []string
}

// FailedAtQuota returns, of the failed requests of the application whose
// hand-made target group is tg sent at or after from, those lost to the
// target quota of the load balancer in front of it (Options'
// TargetsPerLoadBalancer, draining targets counted): sent to the target
// of a pod Karpenter's drain killed at its deadline (a spot
// interruption's two minutes), the drain's evictions refused by a
// PodDisruptionBudget while ELBv2 refused a RegisterTargets on the
// target group for the quota. The controller could not register the
// replacement pods, so their readiness gates stayed False, the budget
// held the drain, and the pods still registered were killed: no call of
// the code under test's could save those requests; headroom under the
// quota would. Zero for another target group.
func (w *World) FailedAtQuota(tg tgmigrate.ARN, from time.Time) AtQuota {
	var q AtQuota
	for holder, n := range w.w.AtQuotaOf(tg.Raw, from) {
		q.Failed += n
		q.Nodes = append(q.Nodes, strings.TrimPrefix(holder, "node/"))
	}
	slices.Sort(q.Nodes)
	return q
}

// requestsOf sums seconds of traffic, in time order.
func requestsOf(seconds []traffic.Second) Requests {
	var r Requests
	run := time.Duration(0)
	var last time.Time
	for _, s := range seconds {
		r.Total += s.Requests
		r.Served += s.Served
		r.Failed += s.Failed
		switch {
		case s.Failed == 0:
			run = 0
		case run > 0 && s.Start.Sub(last) == time.Second:
			run += time.Second
		default:
			run = time.Second
		}
		last = s.Start
		r.LongestOutage = max(r.LongestOutage, run)
	}
	return r
}

// PeakTargets returns the most targets the load balancer lb has had at
// once since it was created, summed over the target groups it used then,
// counted as its quota (Options.TargetsPerLoadBalancer) is enforced:
// every registered target, draining ones included. Zero for a load
// balancer the world's ELBv2 does not hold.
func (w *World) PeakTargets(lb tgmigrate.ARN) int { return w.w.Model().PeakTargets(lb.Raw) }

// DenyControllerOn takes an ELBv2 action from the AWS Load Balancer
// Controller stand-in's IAM role on the target group tg only, as a policy
// scoped down by resource does: op is "RegisterTargets" or
// "DeregisterTargets" (the controller's actions IAM authorizes per target
// group). Its calls of op on tg fail with AccessDenied from then on, and
// on any other target group go through: a binding of tg never gets its
// pod targets (RegisterTargets), so a cutover of tg fails and is rolled
// back, while the world's other target groups migrate. Another op, or a
// target group not of the world, is an [*OptionsError].
func (w *World) DenyControllerOn(op string, tg tgmigrate.ARN) error {
	if err := w.w.DenyControllerOn(op, tg.Raw); err != nil {
		var ce *sim.ConfigError
		if errors.As(err, &ce) {
			field := "op"
			if op == "RegisterTargets" || op == "DeregisterTargets" {
				field = "tg"
			}
			return optionsError("deny controller", field, ce.Reason)
		}
		return err
	}
	return nil
}
