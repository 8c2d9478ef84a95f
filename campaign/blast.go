package campaign

// blast.go: the blast radius of each target group (its Exposure: the
// listener rules diagnose read that forward to it, and the API Gateway
// routes that reach those listeners through a VPC link), reading it
// per account, the ordering option (WithOrder, LeastExposedFirst) and
// the LeastExposed canary chooser, and its lines in Plan.Text.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/internal/textcell"
)

// Exposure is what reaches a target group: the listener rules that
// forward to it and the API Gateway routes that reach those listeners.
// Its zero value (nothing read, nothing found) is left out of the JSON.
type Exposure struct {
	// Rules are the listener rules (and listeners' default actions) that
	// forward to it, weighted forwards included (Weight set), as
	// diagnose read them (its TargetGroupReport.Routes), sorted.
	Rules []diagnose.Route `json:"rules,omitempty"`
	// Routes are the HTTP API routes whose integration goes through a
	// VPC link to one of the listeners of Rules: a request on such a
	// route reaches the listener, whose rules may forward it here.
	// Sorted by account, API, route key.
	Routes []APIRoute `json:"routes,omitempty"`
	// APIGateway says how far its account's API Gateway was read; empty
	// when it was not ([Account].APIGateway nil): Routes then says
	// nothing.
	APIGateway APIGatewayState `json:"apiGateway,omitempty"`
}

// APIGatewayState says how far an account's API Gateway APIs were read.
type APIGatewayState string

// The states of an account's API Gateway read; the zero value is "not
// read" (no client given).
const (
	// APIGatewayRead: every HTTP API, its integrations and the routes of
	// those through a VPC link were read.
	APIGatewayRead APIGatewayState = "read"
	// APIGatewayPartial: the APIs were listed, but some integrations or
	// routes were not read (a refusal, MaxAPIPages): Routes are those
	// read; Plan.Errors says what was not.
	APIGatewayPartial APIGatewayState = "partial"
	// APIGatewayRefused: the APIs could not be listed (access denied,
	// throttled after retries...): nothing is known; Plan.Errors says
	// why.
	APIGatewayRefused APIGatewayState = "refused"
)

// APIRoute is an API Gateway HTTP API route that reaches a listener
// through a VPC link (an integration of ConnectionType VPC_LINK whose
// IntegrationUri is the listener's ARN).
type APIRoute struct {
	// AccountID and Region are the API's.
	AccountID string `json:"accountID"`
	Region    string `json:"region"`
	// APIID and APIName are the API's.
	APIID   string `json:"apiID"`
	APIName string `json:"apiName,omitempty"`
	// RouteID and RouteKey are the route's ("GET /orders", "$default").
	RouteID  string `json:"routeID"`
	RouteKey string `json:"routeKey"`
	// IntegrationID and VPCLinkID are the integration the route targets
	// and its VPC link.
	IntegrationID string `json:"integrationID"`
	VPCLinkID     string `json:"vpcLinkID,omitempty"`
	// ListenerARN is the listener the integration names.
	ListenerARN string `json:"listenerARN"`
}

// Order is how the waves after the canaries order their target groups
// ([WithOrder]).
type Order string

// The orders of [WithOrder].
const (
	// LongestFirst, the default: the longest cutovers first, so that list
	// scheduling fills in around them with the short ones.
	LongestFirst Order = "longest-first"
	// LeastExposedFirst: the least exposed first (see [LessExposed]), so
	// that what an early failure can reach is the least; the default
	// canary chooser is then [LeastExposed].
	LeastExposedFirst Order = "least-exposed-first"
)

// WithOrder sets the order of the target groups in the waves after the
// canaries. Default [LongestFirst]. With [LeastExposedFirst] the canaries
// are chosen by [LeastExposed] unless [WithCanaryChooser] or
// [WithCanaries] says otherwise. An unknown order is an [*InputError].
func WithOrder(o Order) Option {
	return func(cfg *config) {
		if o != LongestFirst && o != LeastExposedFirst {
			cfg.fail("WithOrder", "%q is not an Order", o)
			return
		}
		cfg.order = o
	}
}

// LessExposed compares two target groups by their exposure: fewer API
// routes first, then fewer listener rules, then fewer targets. It
// returns a negative number when a is less exposed than b, zero when
// they tie. Routes not read count none.
func LessExposed(a, b Exposure, aTargets, bTargets int) int {
	return cmp.Or(cmp.Compare(len(a.Routes), len(b.Routes)), cmp.Compare(len(a.Rules), len(b.Rules)), cmp.Compare(aTargets, bTargets))
}

// LeastExposed is a [CanaryChooser]: in each cluster, the runnable
// target group with the fewest API routes, then the fewest listener
// rules, then the fewest targets ([LessExposed]), then the first ARN.
func LeastExposed(_ string, candidates []Candidate) []tgmigrate.ARN {
	if len(candidates) == 0 {
		return nil
	}
	best := slices.MinFunc(candidates, func(a, b Candidate) int {
		return cmp.Or(LessExposed(a.Exposure, b.Exposure, a.Targets, b.Targets), cmp.Compare(a.TargetGroupARN.Raw, b.TargetGroupARN.Raw))
	})
	return []tgmigrate.ARN{best.TargetGroupARN}
}

// readExposure reads, in each account that has an API Gateway client,
// the HTTP APIs that reach the entries' listeners through a VPC link,
// and sets each entry's Routes and its account's APIGateway state. A
// refusal is one of the returned errors, never fatal; only a cancelled
// context fails it.
func readExposure(ctx context.Context, in Input, entries []Entry, cfg config) ([]diagnose.ResourceError, error) {
	byListener := map[string][]int{}
	for i, e := range entries {
		for _, r := range e.Exposure.Rules {
			if !slices.Contains(byListener[r.ListenerARN], i) {
				byListener[r.ListenerARN] = append(byListener[r.ListenerARN], i)
			}
		}
	}
	listeners := map[string]bool{}
	for l := range byListener {
		listeners[l] = true
	}
	var errs []diagnose.ResourceError
	for _, a := range in.Accounts {
		if a.APIGateway == nil {
			continue
		}
		r := &apiReader{api: a.APIGateway, acct: a, c: read.NewCaller(read.Options{
			Clock: cfg.clock, Log: cfg.log, LastOnGiveUp: true, JoinCanceled: true,
			Policy:  retry.Policy{Initial: 500 * time.Millisecond, Max: 20 * time.Second, MaxAttempts: diagnose.DefaultMaxAttempts},
			Limiter: read.NewLimiter(cfg.clock, APIGatewayRateLimit, 1),
		})}
		state := APIGatewayRead
		links, refused, err := r.links(ctx, listeners)
		if err != nil {
			return nil, fmt.Errorf("campaign: plan: read API Gateway of %s in %s: %w", a.ID, a.Region, err)
		}
		routes, err := r.routes(ctx, links)
		if err != nil {
			return nil, fmt.Errorf("campaign: plan: read API Gateway of %s in %s: %w", a.ID, a.Region, err)
		}
		switch {
		case refused:
			state = APIGatewayRefused
		case len(r.errs) > 0:
			state = APIGatewayPartial
		}
		errs = append(errs, r.errs...)
		for k, l := range links {
			for _, i := range byListener[l.listener] {
				entries[i].Exposure.Routes = append(entries[i].Exposure.Routes, routes[k]...)
			}
		}
		for i := range entries {
			if entries[i].AccountID == a.ID && entries[i].Region == a.Region {
				entries[i].Exposure.APIGateway = state
			}
		}
	}
	for i := range entries {
		slices.SortFunc(entries[i].Exposure.Routes, func(x, y APIRoute) int {
			return cmp.Or(cmp.Compare(x.AccountID, y.AccountID), cmp.Compare(x.Region, y.Region), cmp.Compare(x.APIID, y.APIID),
				cmp.Compare(x.RouteKey, y.RouteKey), cmp.Compare(x.RouteID, y.RouteID), cmp.Compare(x.ListenerARN, y.ListenerARN))
		})
		entries[i].Exposure.Routes = slices.Compact(entries[i].Exposure.Routes)
	}
	return errs, nil
}

// APIGatewayRateLimit is the pace, in calls per second, of the API
// Gateway reads of one account: one call at a time, a conservative pace,
// since API Gateway throttles its management API per account and the
// campaign shares it with the account's other tools. A throttled call is
// retried as diagnose retries (diagnose.DefaultMaxAttempts attempts,
// backing off from half a second to 20 s); one throttled to the end is a
// refusal (APIGatewayRefused or APIGatewayPartial), never fatal.
const APIGatewayRateLimit = 2

// exposureText is the plan's exposure section: one row per entry that
// any rule or route reaches, its rules and routes under it.
func exposureText(p *Plan) string {
	var b strings.Builder
	nread := 0
	for _, a := range p.Accounts {
		if a.APIGateway {
			nread++
		}
	}
	rows := [][]string{{"#", "TARGET GROUP", "ACCOUNT", "RULES", "API ROUTES", "API GATEWAY"}}
	var details []string
	for _, e := range p.Entries {
		x := e.Exposure
		if len(x.Rules)+len(x.Routes) == 0 && x.APIGateway == "" {
			continue
		}
		n := fmt.Sprint(len(rows))
		state := string(x.APIGateway)
		if state == "" {
			state = "not read"
		}
		rows = append(rows, []string{n, e.Name, e.AccountID, fmt.Sprint(len(x.Rules)), fmt.Sprint(len(x.Routes)), state})
		var parts []string
		for _, r := range x.Rules {
			parts = append(parts, ruleLabel(r))
		}
		parts = append(parts, routeGroups(x)...)
		if len(parts) > 0 {
			details = append(details, textcell.Wrap(n+". "+textcell.OneLine(strings.Join(parts, "; ")), TextColumns, "  ", "     "))
		}
	}
	if len(rows) == 1 {
		return ""
	}
	fmt.Fprintf(&b, "\nExposure (API Gateway read in %d of %s):\n", nread, textcell.Plural(len(p.Accounts), "account", "accounts"))
	b.WriteString(indent(textcell.Table(rows, TextColumns-2, 1)))
	for _, d := range details {
		b.WriteString(d)
	}
	return b.String()
}

// routeGroups says x's routes grouped by API and listener: "API shop
// (a1b2c3) via app/web HTTP:80: "GET /orders", "$default"".
func routeGroups(x Exposure) []string {
	var keys []string
	keysOf := map[string][]string{}
	head := map[string]string{}
	for _, r := range x.Routes {
		k := r.AccountID + " " + r.Region + " " + r.APIID + " " + r.ListenerARN
		if _, ok := head[k]; !ok {
			via := r.ListenerARN
			if i := slices.IndexFunc(x.Rules, func(l diagnose.Route) bool { return l.ListenerARN == r.ListenerARN }); i >= 0 {
				l := x.Rules[i]
				via = fmt.Sprintf("%s/%s %s:%d", l.LoadBalancerType, l.LoadBalancerName, textcell.OrDash(l.ListenerProtocol), l.ListenerPort)
			}
			head[k] = fmt.Sprintf("API %s (%s) via %s", textcell.OrDash(r.APIName), r.APIID, via)
			keys = append(keys, k)
		}
		keysOf[k] = append(keysOf[k], fmt.Sprintf("%q", r.RouteKey))
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = head[k] + ": " + strings.Join(keysOf[k], ", ")
	}
	return out
}

// ruleLabel says a listener rule in a few words: "app/web HTTP:80 rule
// 10 [path-pattern=/api/*] (weight 50)".
func ruleLabel(r diagnose.Route) string {
	s := fmt.Sprintf("%s/%s %s:%d", r.LoadBalancerType, r.LoadBalancerName, textcell.OrDash(r.ListenerProtocol), r.ListenerPort)
	switch {
	case r.Default:
		s += " default"
	case r.Priority != "":
		s += " rule " + r.Priority
	}
	if len(r.Conditions) > 0 {
		s += " [" + strings.Join(r.Conditions, " ") + "]"
	}
	if r.Weight != nil {
		s += fmt.Sprintf(" (weight %d)", *r.Weight)
	}
	return s
}
