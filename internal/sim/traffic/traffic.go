package traffic

// traffic.go: the Generator: Options, New, outcomes, requests, and the
// record of the failed ones.

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/simopt"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// Defaults of [Options].
const (
	// DefaultRPS is the request rate when Options.RPS is zero.
	DefaultRPS = 10
	// MaxRPS is the highest request rate a Generator accepts.
	MaxRPS = 1000
)

// ErrInvalidOptions is the category of every error [New] returns for bad options.
// It is [simopt.ErrInvalidOptions], the category every package of the
// simulator shares.
var ErrInvalidOptions = simopt.ErrInvalidOptions

// OptionsError names the option at fault. It unwraps to [ErrInvalidOptions].
// It is the simulator's one [simopt.OptionsError]: this package's have Pkg
// "traffic", Op "new" and Field an Options field (or "model", "network").
type OptionsError = simopt.OptionsError

// Options configure a [Generator]. ListenerARN is required; every other zero
// value means the default documented on the field.
type Options struct {
	// ListenerARN is the listener of the load balancer the requests arrive
	// on. Required.
	ListenerARN string
	// RuleARN is the listener rule the requests match. Zero: the listener's
	// default action. Rule conditions are not evaluated.
	RuleARN string
	// RPS is the number of requests per second of virtual time, evenly
	// spaced, 1 to [MaxRPS]. Zero: [DefaultRPS].
	RPS int
	// Start is the virtual time of the first request, not before the
	// clock's time. Zero: the clock's time when New is called.
	Start time.Time
	// Seed seeds the choice of target group and target (PCG). Zero is a
	// valid seed.
	Seed uint64
	// OnRequest, when set, is called after every request, inside the world
	// event that sent it: it must not wait on the clock.
	OnRequest func(Request)
	// ConnectTimeout is how long the load balancer waits for a connection
	// to an address nobody holds before it answers 504 (the request is
	// counted when it was sent). Zero: such a request fails at once with
	// 502, as a refused connection does.
	ConnectTimeout time.Duration
	// App is the application the requests are meant for (the cluster's
	// workload "namespace/name"): a request another application serves, at
	// an address handed out again, is Misrouted. Zero: any application
	// that answers serves.
	App string
}

// Outcome is how one request ended.
type Outcome int

const (
	// Served: a target answered, or the load balancer answered with a
	// redirect or a fixed response below 500.
	Served Outcome = iota
	// NoTarget: the chosen target group had no target that takes requests
	// (none healthy and none unhealthy to fail open to); the load balancer
	// answered 503.
	NoTarget
	// TargetFailed: the chosen target did not serve the request: the
	// connection was refused (the host is there, but nothing listens on
	// the port: the app does not listen yet or any more, or on another
	// port; a NodePort with no endpoint behind it), or nothing holds the
	// address and Options.ConnectTimeout is zero; 502. Readiness plays no
	// part: a pod serves while its app listens, so one still waiting on its
	// readiness probe or gate, or sleeping in preStop, serves.
	TargetFailed
	// ErrorResponse: a fixed-response action answered 5XX.
	ErrorResponse
	// NoRoute: the listener or rule could not be resolved; 503.
	NoRoute
	// TargetTimeout: nothing holds the chosen target's address (the node
	// or the pod is gone); the load balancer waited Options.ConnectTimeout
	// and answered 504.
	TargetTimeout
	// Misrouted: an application other than Options.App served the request
	// (the target's address was handed out again); a failure, whatever its
	// status.
	Misrouted
)

// String names the outcome.
func (o Outcome) String() string {
	switch o {
	case Served:
		return "served"
	case NoTarget:
		return "no-target"
	case TargetFailed:
		return "target-failed"
	case ErrorResponse:
		return "error-response"
	case NoRoute:
		return "no-route"
	case TargetTimeout:
		return "target-timeout"
	case Misrouted:
		return "misrouted"
	}
	return "unknown"
}

// Request is the record of one request, given to Options.OnRequest.
type Request struct {
	// At is the virtual time it was sent.
	At time.Time
	// TargetGroupARN is the target group chosen, "" when none was.
	TargetGroupARN string
	// Target is the target chosen, zero when none was.
	Target elbv2model.Endpoint
	// Selection says which targets of the group were eligible.
	Selection elbv2model.Selection
	// Outcome and Status say how it ended (Status is the HTTP status).
	Outcome Outcome
	Status  int
}

// Generator sends client requests through a listener of the simulated ALB
// at a fixed rate, as world events on the virtual clock, and counts the
// outcomes per second. It is safe for concurrent use.
type Generator struct {
	model   *elbv2model.Model
	network elbv2model.Network
	clock   *vclock.Clock
	opts    Options
	start   time.Time
	handle  vclock.Handle

	// Used only inside the request event, which the clock runs serially.
	rng          *rand.Rand
	route        elbv2model.Route
	routeErr     error
	routeVersion uint64
	routeCached  bool
	pick         func(n int) int // g.rng.IntN, bound once

	mu      sync.Mutex
	seconds []Second
	failed  []Request
}

// New validates the options, resolves the route once (so a wrong listener
// or rule fails here), and schedules the requests on the model's clock.
// Stop ends them.
func New(model *elbv2model.Model, network elbv2model.Network, opts Options) (*Generator, error) {
	if model == nil {
		return nil, &OptionsError{Pkg: "traffic", Op: "new", Field: "model", Reason: "required"}
	}
	if network == nil {
		return nil, &OptionsError{Pkg: "traffic", Op: "new", Field: "network", Reason: "required"}
	}
	if opts.ListenerARN == "" {
		return nil, &OptionsError{Pkg: "traffic", Op: "new", Field: "ListenerARN", Reason: "required"}
	}
	if opts.RPS == 0 {
		opts.RPS = DefaultRPS
	}
	if opts.ConnectTimeout < 0 {
		return nil, &OptionsError{Pkg: "traffic", Op: "new", Field: "ConnectTimeout", Reason: fmt.Sprintf("%v is negative", opts.ConnectTimeout)}
	}
	if opts.RPS < 1 || opts.RPS > MaxRPS {
		return nil, &OptionsError{Pkg: "traffic", Op: "new", Field: "RPS", Reason: fmt.Sprintf("%d is outside 1-%d", opts.RPS, MaxRPS)}
	}
	if _, err := model.Route(opts.ListenerARN, opts.RuleARN); err != nil {
		return nil, fmt.Errorf("traffic: new: resolve the route: %w", err)
	}
	clock := model.Clock()
	start := opts.Start
	if start.IsZero() {
		start = clock.Now()
	}
	if now := clock.Now(); start.Before(now) {
		return nil, &OptionsError{Pkg: "traffic", Op: "new", Field: "Start", Reason: fmt.Sprintf("%s is before the clock's time %s", start.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano))}
	}
	g := &Generator{
		model:   model,
		network: network,
		clock:   clock,
		opts:    opts,
		start:   start,
		rng:     rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x7a11c)),
	}
	g.pick = g.rng.IntN
	g.handle = clock.Every(start, time.Second/time.Duration(opts.RPS), "traffic: request", g.send)
	return g, nil
}

// Stop ends the requests. Stats stay readable.
func (g *Generator) Stop() { g.handle.Cancel() }

// Failures returns every failed request so far, in the order sent: when
// it was sent, the target group and the target chosen (zero when none
// was), the selection, the outcome and the status. Only failures are kept.
func (g *Generator) Failures() []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Request(nil), g.failed...)
}

// routeNow returns the current route, resolving it again only when the
// model's listeners or rules changed.
func (g *Generator) routeNow() (elbv2model.Route, error) {
	v := g.model.RoutingVersion()
	if !g.routeCached || v != g.routeVersion {
		g.route, g.routeErr = g.model.Route(g.opts.ListenerARN, g.opts.RuleARN)
		g.routeVersion, g.routeCached = v, true
	}
	return g.route, g.routeErr
}

// send sends one request.
func (g *Generator) send(now time.Time) {
	req := Request{At: now}
	route, err := g.routeNow()
	switch {
	case err != nil:
		req.Outcome, req.Status = NoRoute, 503
	case route.Kind == elbv2model.RouteFixedResponse:
		req.Status = route.StatusCode
		if route.StatusCode >= 500 {
			req.Outcome = ErrorResponse
		}
	case route.Kind == elbv2model.RouteRedirect:
		req.Status = route.StatusCode
	default:
		g.forward(route, &req)
	}
	g.record(req)
	if g.opts.OnRequest != nil {
		g.opts.OnRequest(req)
	}
}

// forward picks a target group by weight, then one of its eligible targets
// uniformly, and sends the request there. The ALB does not retry a failed
// request on another target.
func (g *Generator) forward(route elbv2model.Route, req *Request) {
	total := 0
	for _, tg := range route.TargetGroups {
		total += int(tg.Weight)
	}
	if total == 0 {
		req.Outcome, req.Status = NoTarget, 503
		return
	}
	n := g.rng.IntN(total)
	var tgARN string
	for _, tg := range route.TargetGroups {
		if n < int(tg.Weight) {
			tgARN = tg.ARN
			break
		}
		n -= int(tg.Weight)
	}
	req.TargetGroupARN = tgARN
	req.Target, req.Selection = g.model.PickRoutable(tgARN, g.pick)
	if req.Selection == elbv2model.SelectNone {
		req.Outcome, req.Status = NoTarget, 503
		return
	}
	a := g.network.Serve(req.Target.IP, req.Target.Port)
	switch {
	case a.Served() && (g.opts.App == "" || a.App == g.opts.App):
		req.Outcome, req.Status = Served, 200
	case a.Served():
		req.Outcome, req.Status = Misrouted, 200
	case a.Result == elbv2model.ProbeTimeout && g.opts.ConnectTimeout > 0:
		req.Outcome, req.Status = TargetTimeout, 504
	default:
		req.Outcome, req.Status = TargetFailed, 502
	}
}

func (g *Generator) record(req Request) {
	i := int(req.At.Sub(g.start) / time.Second)
	if i < 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for len(g.seconds) <= i {
		g.seconds = append(g.seconds, Second{Start: g.start.Add(time.Duration(len(g.seconds)) * time.Second)})
	}
	s := &g.seconds[i]
	s.Requests++
	if req.Outcome == Served {
		s.Served++
		return
	}
	s.Failed++
	g.failed = append(g.failed, req)
	switch req.Outcome {
	case NoTarget:
		s.NoTarget++
	case TargetFailed, TargetTimeout:
		s.TargetFailed++
	default:
		s.Other++
	}
	switch {
	case req.Outcome == Misrouted:
		s.Misrouted++
	case req.Status == 502:
		s.Status502++
	case req.Status == 503:
		s.Status503++
	case req.Status == 504:
		s.Status504++
	default: // a fixed response's other 5XX
		s.OtherStatus++
	}
}
