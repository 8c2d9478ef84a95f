package elbv2model

// routing.go: routing through a listener: Route, Selection, the routable
// targets.

import (
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// RouteKind is what a listener or rule does with a request.
type RouteKind int

const (
	// RouteForward sends the request to a target of one of the TargetGroups.
	RouteForward RouteKind = iota + 1
	// RouteFixedResponse answers with StatusCode itself.
	RouteFixedResponse
	// RouteRedirect answers with a redirect (StatusCode 301 or 302).
	RouteRedirect
)

// WeightedTargetGroup is one target group of a forward action.
type WeightedTargetGroup struct {
	// ARN is the target group's ARN.
	ARN string
	// Weight is its relative share of requests, 0-999.
	Weight int32
}

// Route is where a listener's default action or a rule sends requests, as
// the load balancer sees it now.
type Route struct {
	// Kind says what the action does.
	Kind RouteKind
	// TargetGroups are the forward action's target groups (RouteForward).
	TargetGroups []WeightedTargetGroup
	// StatusCode is the fixed response's or the redirect's HTTP status.
	StatusCode int
}

// Route returns the route of ruleARN, or of listenerARN's default action
// when ruleARN is empty. It fails with ListenerNotFound or RuleNotFound, and
// with ValidationError when the rule is not one of the listener's.
func (m *Model) Route(listenerARN, ruleARN string) (Route, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.listeners[listenerARN]
	if !ok {
		return Route{}, listenerNotFound(listenerARN)
	}
	actions := l.actions.actions
	if ruleARN != "" {
		r, ok := m.rules[ruleARN]
		if !ok {
			return Route{}, ruleNotFound(ruleARN)
		}
		if r.listener != l {
			return Route{}, validationf("rule %s is not a rule of listener %s", ruleARN, listenerARN)
		}
		actions = r.currentActions().actions
	}
	a := actions[len(actions)-1] // stored action lists hold one routing action
	switch a.Type {
	case types.ActionTypeEnumFixedResponse:
		code, _ := strconv.Atoi(*a.FixedResponseConfig.StatusCode)
		return Route{Kind: RouteFixedResponse, StatusCode: code}, nil
	case types.ActionTypeEnumRedirect:
		code := 302
		if a.RedirectConfig.StatusCode == types.RedirectActionStatusCodeEnumHttp301 {
			code = 301
		}
		return Route{Kind: RouteRedirect, StatusCode: code}, nil
	}
	r := Route{Kind: RouteForward, TargetGroups: make([]WeightedTargetGroup, 0, len(a.ForwardConfig.TargetGroups))}
	for _, tu := range a.ForwardConfig.TargetGroups {
		r.TargetGroups = append(r.TargetGroups, WeightedTargetGroup{ARN: *tu.TargetGroupArn, Weight: *tu.Weight})
	}
	return r, nil
}

// RoutingVersion changes whenever a listener's or a rule's actions do, so a
// caller can cache [Model.Route] results.
func (m *Model) RoutingVersion() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.routingVersion
}

// Endpoint is a target a request may be sent to.
type Endpoint struct {
	// ID is the registered target ID.
	ID string
	// IP and Port are where the request goes.
	IP   string
	Port int32
}

// Selection says which targets of a target group take new requests.
type Selection int

const (
	// SelectNone: no target may take a request; the load balancer answers 503.
	SelectNone Selection = iota
	// SelectHealthy: the healthy targets.
	SelectHealthy
	// SelectFailOpen: fewer targets are healthy than the target group's
	// minimum (default 1), so the load balancer fails open and routes to
	// every healthy and unhealthy target.
	SelectFailOpen
)

// String names the selection.
func (s Selection) String() string {
	switch s {
	case SelectHealthy:
		return "healthy"
	case SelectFailOpen:
		return "fail-open"
	}
	return "none"
}

// AppendRoutable appends to dst, in registration order, the targets of the
// target group that may take a new request now, and says which rule chose
// them: then, with a deregistration lag, the deregistered targets still in
// the rotation, in deregistration order. Targets that are initial (unless
// Options.FailOpenInitial applies), draining or unused never take new
// requests. An unknown target group has none.
func (m *Model) AppendRoutable(dst []Endpoint, tgARN string) ([]Endpoint, Selection) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, ok := m.tgs[tgARN]
	if !ok {
		return dst, SelectNone
	}
	sel, _ := m.selectionLocked(tg, m.clock.Now())
	if sel == SelectNone {
		return dst, sel
	}
	for _, t := range tg.order {
		if m.takesLocked(sel, t) {
			dst = append(dst, Endpoint{ID: t.key.id, IP: t.ip, Port: t.key.port})
		}
	}
	for _, s := range tg.stale {
		dst = append(dst, s.ep)
	}
	return dst, sel
}

// PickRoutable chooses one of the targets [Model.AppendRoutable] would
// list, without copying the list: pick gets their number n (at least 1)
// and returns the index of the chosen one, in [0, n). With no eligible
// target it returns SelectNone and does not call pick.
func (m *Model) PickRoutable(tgARN string, pick func(n int) int) (Endpoint, Selection) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tg, ok := m.tgs[tgARN]
	if !ok {
		return Endpoint{}, SelectNone
	}
	sel, n := m.selectionLocked(tg, m.clock.Now())
	if sel == SelectNone {
		return Endpoint{}, sel
	}
	i := pick(n)
	if i < 0 || i >= n {
		return Endpoint{}, SelectNone
	}
	for _, t := range tg.order {
		if !m.takesLocked(sel, t) {
			continue
		}
		if i == 0 {
			return Endpoint{ID: t.key.id, IP: t.ip, Port: t.key.port}, sel
		}
		i--
	}
	if i < len(tg.stale) {
		return tg.stale[i].ep, sel
	}
	return Endpoint{}, SelectNone // unreachable: n counted the same targets
}

// selectionLocked decides which targets take new requests now, and how many
// there are, the stale ones (deregistered, still in the rotation for the
// lag) included: the load balancer's nodes still count them as healthy.
// Stale entries whose lag has passed are dropped.
func (m *Model) selectionLocked(tg *targetGroup, now time.Time) (Selection, int) {
	if len(tg.stale) > 0 {
		tg.stale = slices.DeleteFunc(tg.stale, func(s staleTarget) bool { return !now.Before(s.until) })
	}
	healthy, unhealthy, initial := len(tg.stale), 0, 0
	for _, t := range tg.order {
		switch t.state {
		case types.TargetHealthStateEnumHealthy:
			healthy++
		case types.TargetHealthStateEnumUnhealthy:
			unhealthy++
		case types.TargetHealthStateEnumInitial:
			initial++
		}
	}
	if healthy >= tg.intAttr(AttrMinHealthyTargets) {
		return SelectHealthy, healthy
	}
	n := healthy + unhealthy
	if m.failOpenInit {
		n += initial
	}
	if n == 0 {
		return SelectNone, 0
	}
	return SelectFailOpen, n
}

// takesLocked reports whether a registered target takes new requests under
// the selection.
func (m *Model) takesLocked(s Selection, t *target) bool {
	switch t.state {
	case types.TargetHealthStateEnumHealthy:
		return s != SelectNone
	case types.TargetHealthStateEnumUnhealthy:
		return s == SelectFailOpen
	case types.TargetHealthStateEnumInitial:
		return s == SelectFailOpen && m.failOpenInit
	}
	return false
}
