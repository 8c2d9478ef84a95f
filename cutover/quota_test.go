package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	sqtypes "github.com/aws/aws-sdk-go-v2/service/servicequotas/types"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/lbc"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The quota scenarios run a small world (20 node targets, 30 pods, so 30
// pod targets in one controller batch) whose ELBv2 quotas on targets are
// lowered (sim.Config.Quotas) to put the in-place overlap, 50 targets,
// past them; a fake Service Quotas client tells PlanCutover the same
// values, as the account's would.

const (
	quotaNodes = 20
	quotaPods  = 30
)

// TestBoundedWaves: the bounded overlap's waves, for counts at the scale
// of the issue and small ones; each wave keeps the floor healthy and the
// target group within the room, and an overlap whose floor leaves no room
// for one batch cannot be bounded.
func TestBoundedWaves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                                            string
		room, kept, idle, serving, adding, floor, batch int
		want                                            []cutover.QuotaWave
		ok                                              bool
	}{
		{
			name: "the issue's scale: ghosts first, then down to the floor as pods come",
			room: 1000, idle: 10, serving: 490, adding: 1000, floor: 490, batch: 200,
			want: []cutover.QuotaWave{
				{Deregister: 10, Nodes: 490, Register: 400, Pods: 400, Healthy: 490},
				{Deregister: 400, Nodes: 90, Register: 400, Pods: 800, Healthy: 490},
				{Deregister: 90, Nodes: 0, Register: 200, Pods: 1000, Healthy: 800},
			},
			ok: true,
		},
		{
			name: "room for every pod: nothing healthy goes",
			room: 1000, serving: 100, adding: 300, floor: 100, batch: 200,
			want: []cutover.QuotaWave{{Deregister: 0, Nodes: 100, Register: 300, Pods: 300, Healthy: 100}},
			ok:   true,
		},
		{
			name: "one batch smaller than the controller's: down to the floor at once",
			room: 40, serving: 20, adding: 30, floor: 10, batch: 200,
			want: []cutover.QuotaWave{{Deregister: 10, Nodes: 10, Register: 30, Pods: 30, Healthy: 10}},
			ok:   true,
		},
		{
			name: "kept targets hold room",
			room: 100, kept: 20, serving: 30, adding: 60, floor: 10, batch: 200,
			want: []cutover.QuotaWave{{Deregister: 10, Nodes: 20, Register: 60, Pods: 60, Healthy: 20}},
			ok:   true,
		},
		{
			name: "small batches: the first wave's pods let more nodes go",
			room: 40, serving: 20, adding: 30, floor: 15, batch: 10,
			want: []cutover.QuotaWave{
				{Deregister: 5, Nodes: 15, Register: 20, Pods: 20, Healthy: 15},
				{Deregister: 5, Nodes: 10, Register: 10, Pods: 30, Healthy: 30},
			},
			ok: true,
		},
		{
			name: "nothing to add",
			room: 40, serving: 20, adding: 0, floor: 20, batch: 200,
			ok: true,
		},
		{
			name: "the floor leaves room for less than one batch",
			room: 1000, kept: 50, serving: 800, adding: 1000, floor: 800, batch: 200,
			ok: false,
		},
		{
			name: "the default floor on a small world: the one batch of 30 does not fit beside 20 node targets",
			room: 40, serving: 20, adding: 30, floor: 20, batch: 200,
			ok: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := cutover.BoundedWaves(tt.room, tt.kept, tt.idle, tt.serving, tt.adding, tt.floor, tt.batch)
			if ok != tt.ok {
				t.Fatalf("ok = %t, want %t (waves %+v)", ok, tt.ok, got)
			}
			if !ok {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("waves (-want +got):\n%s", d)
			}
			deregistered := 0
			for i, w := range got {
				deregistered += w.Deregister
				if w.Healthy < tt.floor {
					t.Errorf("wave %d: %d healthy, below the floor of %d", i+1, w.Healthy, tt.floor)
				}
				if n := w.Nodes + w.Pods + tt.kept; n > tt.room {
					t.Errorf("wave %d: %d node + %d pod + %d kept targets = %d, over the room of %d", i+1, w.Nodes, w.Pods, tt.kept, n, tt.room)
				}
				if w.Register%tt.batch != 0 && w.Pods != tt.adding {
					t.Errorf("wave %d registers %d: not whole batches of %d", i+1, w.Register, tt.batch)
				}
			}
			if len(got) > 0 {
				last := got[len(got)-1]
				if last.Pods != tt.adding || deregistered != tt.idle+tt.serving-last.Nodes {
					t.Errorf("last wave %+v, %d deregistered: want %d pods, and every node target but the %d kept deregistered", last, deregistered, tt.adding, last.Nodes)
				}
			}
		})
	}
}

// TestQuotaPlan: PlanCutover near a quota. A target group near its own
// quota, and a load balancer near its quota because of another target
// group, are bounded (waves, a make-room step before the bind, the count
// in the text); raised quotas read through Service Quotas fit unbounded;
// without a Service Quotas client, AWS's defaults, and the plan says so.
func TestQuotaPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		quotas elbv2model.Quotas // the account's (the simulator's)
		// sq is what Service Quotas answers (nil: the quotas above);
		// noSQ: no Service Quotas client.
		sq     appliedQuotas
		noSQ   bool
		others int // targets of another target group on the ALB
		// defaults: the plan warns that it counts against AWS's
		// documented defaults.
		defaults bool
		// want: the target group's and the load balancer's headroom
		// (Now, Others, Adding, Peak, Room, After, quota), the room, and
		// whether the plan is bounded.
		tg, lb  quotaCounts
		room    int
		bounded bool
		source  string
	}{
		{
			name: "a target group near its quota", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40},
			tg:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: -10, After: 30, Quota: 40},
			lb:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			room: 40, bounded: true, source: "read through Service Quotas",
		},
		{
			name: "a load balancer near its quota because of another target group", quotas: elbv2model.Quotas{TargetsPerLoadBalancer: 60}, others: 20,
			tg:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			lb:   quotaCounts{Now: 40, Others: 20, Adding: 30, Peak: 70, Room: -10, After: 50, Quota: 60},
			room: 40, bounded: true, source: "read through Service Quotas",
		},
		{
			name: "the first case with its quotas raised, read through Service Quotas", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40},
			sq:   appliedQuotas{diagnose.QuotaCodeTargetsPerTargetGroup: 2000, diagnose.QuotaCodeTargetsPerALB: 2000, diagnose.QuotaCodeTargetsPerNLB: 3000},
			tg:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: 1950, After: 30, Quota: 2000},
			lb:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: 1950, After: 30, Quota: 2000},
			room: 2000, bounded: false, source: "read through Service Quotas",
		},
		{
			name: "the target group's quota alone read through Service Quotas", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40},
			sq:   appliedQuotas{diagnose.QuotaCodeTargetsPerTargetGroup: 40},
			tg:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: -10, After: 30, Quota: 40},
			lb:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			room: 40, bounded: true, source: "partly read through Service Quotas; the others are AWS's documented defaults",
		},
		{
			name: "no Service Quotas client: AWS's defaults, said so", noSQ: true, others: 20, defaults: true,
			tg:   quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: 950, After: 30, Quota: 1000},
			lb:   quotaCounts{Now: 40, Others: 20, Adding: 30, Peak: 70, Room: 930, After: 50, Quota: 1000},
			room: 980, bounded: false, source: "AWS's documented defaults: Service Quotas was not read (no client given); an account whose quotas were raised has more",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newQuotaScenario(t, uint64(310+i), tt.quotas)
			switch {
			case tt.noSQ:
				s.env.ServiceQuotas = nil
			case tt.sq != nil:
				s.env.ServiceQuotas = tt.sq
			}
			var other string
			if tt.others > 0 {
				other = addOtherTargetGroup(t, s.w, tt.others)
			}
			p := s.plan(func(r *cutover.Request) { r.MinHealthy = 10 })
			q := p.Quota
			if q == nil {
				t.Fatal("the plan has no Quota")
			}
			if len(q.Headroom) != 2 || q.Headroom[0].Scope != diagnose.ScopeTargetGroup || q.Headroom[0].ARN != p.TargetGroup.ARN.Raw ||
				q.Headroom[1].Scope != diagnose.ScopeLoadBalancer || q.Headroom[1].ARN != s.w.Legacy().LoadBalancerARN {
				t.Fatalf("headroom %+v: want the target group's, then the ALB's", q.Headroom)
			}
			if got := countsOf(q.Headroom[0]); got != tt.tg {
				t.Errorf("target group's headroom %+v, want %+v", got, tt.tg)
			}
			if got := countsOf(q.Headroom[1]); got != tt.lb {
				t.Errorf("load balancer's headroom %+v, want %+v", got, tt.lb)
			}
			if q.Room != tt.room || q.Bounded != tt.bounded || q.Source != tt.source {
				t.Errorf("room %d, bounded %t, source %q; want %d, %t, %q", q.Room, q.Bounded, q.Source, tt.room, tt.bounded, tt.source)
			}
			if want := diagnose.QuotaCodeTargetsPerALB; q.Headroom[1].Quota.Code != want || q.Headroom[0].Quota.Code != diagnose.QuotaCodeTargetsPerTargetGroup {
				t.Errorf("quota codes %s, %s", q.Headroom[0].Quota.Code, q.Headroom[1].Quota.Code)
			}
			defaults := slices.ContainsFunc(p.Warnings, func(w string) bool {
				return strings.Contains(w, "ELBv2 quotas") && strings.Contains(w, "AWS's documented defaults") && strings.Contains(w, "no client given")
			})
			if defaults != tt.defaults {
				t.Errorf("warnings %q: a warning of AWS's documented defaults: %t, want %t", p.Warnings, defaults, tt.defaults)
			}
			if tt.noSQ && (q.Quotas.PerTargetGroup.Source != diagnose.QuotaDocumentedDefault || q.Quotas.PerApplicationLoadBalancer.Value != 1000) {
				t.Errorf("quotas %+v: want AWS's documented defaults", q.Quotas)
			}
			text := p.Text()
			for _, line := range []string{
				fmt.Sprintf("quotas:        %d targets per target group, %d per Application Load Balancer (%s)", tt.tg.Quota, tt.lb.Quota, tt.source),
				fmt.Sprintf("peak %d of %d (%d now + %d pod targets), room %d; %d after", tt.tg.Peak, tt.tg.Quota, tt.tg.Now, tt.tg.Adding, tt.tg.Room, tt.tg.After),
				fmt.Sprintf("peak %d of %d (%d now + %d pod targets), room %d; %d after", tt.lb.Peak, tt.lb.Quota, tt.lb.Now, tt.lb.Adding, tt.lb.Room, tt.lb.After),
			} {
				if !strings.Contains(text, line) {
					t.Errorf("the plan's text has no line %q:\n%s", line, text)
				}
			}
			if tt.others > 0 && !strings.Contains(text, fmt.Sprintf("%d of them in its other target groups", tt.others)) {
				t.Errorf("the text does not name the other target groups' %d targets", tt.others)
			}
			// The count is part of the plan: it survives the JSON, and
			// the digest covers it.
			b, err := p.JSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := cutover.ParsePlan(b)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(p, back); d != "" {
				t.Errorf("JSON round trip (-plan +parsed):\n%s", d)
			}
			roomField := fmt.Sprintf(`"room": %d,`, tt.room)
			if edited := strings.Replace(string(b), roomField, `"room": 100000,`, 1); edited == string(b) {
				t.Errorf("the plan's JSON has no %s", roomField)
			} else if _, err := cutover.ParsePlan([]byte(edited)); err == nil {
				t.Error("a plan whose quota room was edited parses: the digest does not cover Plan.Quota")
			}
			ids := p.StepIDs()
			room, bind := slices.Index(ids, cutover.StepMakeRoom), slices.Index(ids, cutover.StepBind)
			if !tt.bounded {
				if room >= 0 || len(q.Waves) != 0 || strings.Contains(text, "overlap:") {
					t.Errorf("steps %v, waves %+v: want no make-room step and no waves", ids, q.Waves)
				}
				return
			}
			if room < 0 || bind < 0 || room > bind {
				t.Errorf("steps %v: want make-room before bind", ids)
			}
			if st := p.Step(cutover.StepMakeRoom); st == nil || !st.Mutates {
				t.Errorf("make-room step %+v: want a mutating step", st)
			}
			want := []cutover.QuotaWave{{Deregister: 10, Nodes: 10, Register: 30, Pods: 30, Healthy: 10}}
			if d := cmp.Diff(want, q.Waves); d != "" {
				t.Errorf("waves (-want +got):\n%s", d)
			}
			for _, line := range []string{
				"overlap:       bounded to 40 targets, in 1 wave:",
				"1. deregister 10, keep 10 node targets, register 30 pod targets (30 in all); at least 10 healthy",
			} {
				if !strings.Contains(text, line) {
					t.Errorf("the plan's text has no line %q:\n%s", line, text)
				}
			}
			if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "bounds it in 1 wave") }) {
				t.Errorf("warnings %q: want one that says the overlap is bounded", p.Warnings)
			}
			if other != "" {
				if n := len(s.w.Model().Targets(other)); n != tt.others {
					t.Errorf("the other target group holds %d targets after planning, want %d", n, tt.others)
				}
			}
		})
	}
}

// TestQuotaPlanRefuses: where no plan fits, PlanCutover refuses with a
// *QuotaError that names the quota and the increase to request, with its
// numbers, and nothing changed in AWS or in the cluster.
func TestQuotaPlanRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		quotas     elbv2model.Quotas
		others     int
		minHealthy int
		scope      diagnose.QuotaScope
		counts     quotaCounts
		need       int
		code       string
		reason     string
	}{
		{
			name: "the pods alone pass the target group's quota", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 25}, minHealthy: 10,
			scope: diagnose.ScopeTargetGroup, counts: quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: -25, After: 30, Quota: 25},
			need: 30, code: diagnose.QuotaCodeTargetsPerTargetGroup, reason: "no order of the steps fits",
		},
		{
			name: "the floor keeps every node target: no room for the controller's batch", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40},
			scope: diagnose.ScopeTargetGroup, counts: quotaCounts{Now: 20, Adding: 30, Peak: 50, Room: -10, After: 30, Quota: 40},
			need: 50, code: diagnose.QuotaCodeTargetsPerTargetGroup, reason: "the floor of 20 healthy targets keeps 20 node targets registered",
		},
		{
			name: "another target group: the pods pass the load balancer's quota", quotas: elbv2model.Quotas{TargetsPerLoadBalancer: 45}, others: 20, minHealthy: 10,
			scope: diagnose.ScopeLoadBalancer, counts: quotaCounts{Now: 40, Others: 20, Adding: 30, Peak: 70, Room: -25, After: 50, Quota: 45},
			need: 50, code: diagnose.QuotaCodeTargetsPerALB, reason: "no order of the steps fits",
		},
		{
			name: "another target group: the floor leaves no room under the load balancer's quota", quotas: elbv2model.Quotas{TargetsPerLoadBalancer: 60}, others: 20,
			scope: diagnose.ScopeLoadBalancer, counts: quotaCounts{Now: 40, Others: 20, Adding: 30, Peak: 70, Room: -10, After: 50, Quota: 60},
			need: 70, code: diagnose.QuotaCodeTargetsPerALB, reason: "the floor of 20 healthy targets keeps 20 node targets registered",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _ := newQuotaScenario(t, uint64(320+i), tt.quotas)
			if tt.others > 0 {
				addOtherTargetGroup(t, s.w, tt.others)
			}
			before := s.snapshot()
			req := s.request()
			req.MinHealthy = tt.minHealthy
			p, err := cutover.PlanCutover(t.Context(), s.env, req)
			var qe *cutover.QuotaError
			if !errors.As(err, &qe) || !cutover.IsQuota(err) || !errors.Is(err, cutover.ErrQuota) {
				t.Fatalf("PlanCutover = %v, %v: want a *QuotaError", p, err)
			}
			if p != nil {
				t.Errorf("PlanCutover returned a plan with its refusal: %s", p.ID)
			}
			if qe.Op != "plan" || qe.TargetGroupARN.Raw != s.w.Legacy().TargetGroupARN || qe.Need != tt.need || qe.Headroom.Scope != tt.scope || countsOf(qe.Headroom) != tt.counts {
				t.Errorf("refusal %+v (counts %+v): want op plan, need %d, %s headroom %+v", qe, countsOf(qe.Headroom), tt.need, tt.scope, tt.counts)
			}
			if !strings.Contains(qe.Reason, tt.reason) {
				t.Errorf("reason %q, want it to say %q", qe.Reason, tt.reason)
			}
			hint := qe.Hint()
			for _, want := range []string{tt.code, "request-service-quota-increase", "--service-code elasticloadbalancing",
				fmt.Sprintf("--desired-value %d", tt.need), "--region " + sim.DefaultRegion, "Service Quotas console"} {
				if !strings.Contains(hint, want) {
					t.Errorf("hint %q does not say %q", hint, want)
				}
			}
			if !strings.Contains(err.Error(), hint) || !strings.HasPrefix(err.Error(), "cutover: plan: ") {
				t.Errorf("error %q: want it to begin with the operation and carry the hint", err)
			}
			if d := cmp.Diff(before, s.snapshot()); d != "" {
				t.Errorf("the refused plan changed the world (-before +after):\n%s", d)
			}
		})
	}
}

// TestQuotaBoundedExecute: a plan that fits by bounding the overlap runs
// to the end: no request fails, the target group (and the load balancer)
// never holds more targets than its quota, each step deregisters what the
// plan's waves say (make-room the first wave's, the gate the later
// waves', the deregister step the node targets left), and the target
// group ends with the pods' targets only. The controller's TooManyTargets
// refusals are allowed; in two waves they are expected: the gate makes
// the second wave's room once the first batch is healthy.
func TestQuotaBoundedExecute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		quotas     elbv2model.Quotas
		others     int
		pods       int
		minHealthy int
		waves      []cutover.QuotaWave
	}{
		{
			name: "the target group's quota", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40}, pods: quotaPods, minHealthy: 10,
			waves: []cutover.QuotaWave{{Deregister: 10, Nodes: 10, Register: 30, Pods: 30, Healthy: 10}},
		},
		{
			name: "the load balancer's quota, shared with another target group", quotas: elbv2model.Quotas{TargetsPerLoadBalancer: 60}, others: 20, pods: quotaPods, minHealthy: 10,
			waves: []cutover.QuotaWave{{Deregister: 10, Nodes: 10, Register: 30, Pods: 30, Healthy: 10}},
		},
		{
			name: "two waves: the gate makes room as the first batch turns healthy", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 260}, pods: 250,
			waves: []cutover.QuotaWave{
				{Deregister: 0, Nodes: 20, Register: 200, Pods: 200, Healthy: 20},
				{Deregister: 10, Nodes: 10, Register: 50, Pods: 250, Healthy: 210},
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, reg := newQuotaScenarioPods(t, uint64(330+i), tt.quotas, tt.pods)
			other := ""
			if tt.others > 0 {
				other = addOtherTargetGroup(t, s.w, tt.others)
			}
			p := s.plan(func(r *cutover.Request) { r.MinHealthy = tt.minHealthy })
			if q := p.Quota; q == nil || !q.Bounded {
				t.Fatalf("plan's quota %+v: want a bounded overlap", q)
			}
			if d := cmp.Diff(tt.waves, p.Quota.Waves); d != "" {
				t.Fatalf("waves (-want +got):\n%s", d)
			}
			api := &timedAPI{ELBv2API: s.env.ELBv2, clock: s.w.Clock().Now, after: reg.note}
			s.env.ELBv2 = api
			// make-room and deregister report the healthy targets left
			// serving: never below the floor.
			var low []string
			obs := cutover.ObserverFuncs{OnTargets: func(pr cutover.Progress) {
				if (pr.Step == cutover.StepMakeRoom || pr.Step == cutover.StepDeregister) && pr.Healthy < p.Floor {
					low = append(low, fmt.Sprintf("%s at %s: %s", pr.Step, pr.At.Format(time.TimeOnly), pr.Summary))
				}
			}}
			res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithObserver(obs))
			if err != nil || !res.Completed || res.RolledBack {
				t.Fatalf("Execute: %+v, %v", res, err)
			}
			if len(low) > 0 {
				t.Errorf("below the floor of %d: %q", p.Floor, low)
			}
			if st := s.w.Traffic(); st.Failed != 0 || st.Total == 0 {
				t.Errorf("traffic: %s", st.String())
			}
			s.checkPodsOnly(p.TargetGroup.ARN.Raw)
			if n := len(s.w.Model().Targets(p.TargetGroup.ARN.Raw)); n != tt.pods {
				t.Errorf("the target group ends with %d targets, want the %d pods'", n, tt.pods)
			}
			tgMax, lbMax, refused := reg.peaks()
			tgQuota, lbQuota := orDefault(tt.quotas.TargetsPerTargetGroup), orDefault(tt.quotas.TargetsPerLoadBalancer)
			if tgMax > tgQuota || lbMax > lbQuota || tgMax > p.Quota.Room {
				t.Errorf("peaks: %d targets in the target group (quota %d, room %d), %d on the load balancer (quota %d)", tgMax, tgQuota, p.Quota.Room, lbMax, lbQuota)
			}
			if tgMax < tt.pods {
				t.Errorf("peak %d in the target group: the controller's registrations were not seen", tgMax)
			}
			if len(tt.waves) > 1 && refused == 0 {
				t.Error("two waves and the controller was never refused: the gate's room-making was not exercised")
			}
			// Each step deregisters what the waves planned.
			later := 0
			for _, w := range tt.waves[1:] {
				later += w.Deregister
			}
			first := tt.waves[0].Deregister
			got := map[string]int{}
			for _, st := range []string{cutover.StepMakeRoom, cutover.StepGate, cutover.StepDeregister} {
				got[st] = api.deregisteredDuring(res, st)
			}
			want := map[string]int{cutover.StepMakeRoom: first, cutover.StepGate: later, cutover.StepDeregister: quotaNodes - first - later}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("node targets deregistered by step (-the plan's waves +the run):\n%s\ncalls: %v", d, api.timeline())
			}
			if res.Deregistered != quotaNodes {
				t.Errorf("Result.Deregistered %d, want %d", res.Deregistered, quotaNodes)
			}
			// The plan's floor counts every wait of the run: make-room
			// waits for its deregistered targets to drain (they count
			// against the quota until then) before the bind.
			if res.Ratio > 1.05 {
				t.Errorf("cutover %.0fs for a floor of %.0fs: ratio %.3f, want at most 1.05 (make-room took %v; the estimate's waits: %+v)",
					res.CutoverSeconds, res.FloorSeconds, res.Ratio, stepTook(res, cutover.StepMakeRoom), p.Estimate.Waits)
			}
			if other != "" {
				if n := len(s.w.Model().Targets(other)); n != tt.others {
					t.Errorf("the other target group ends with %d targets, want its %d", n, tt.others)
				}
			}
			s.api.mu.Lock()
			if len(s.api.violations) > 0 {
				t.Errorf("call contract violated: %v", s.api.violations)
			}
			s.api.mu.Unlock()
			var tgb v1beta1.TargetGroupBinding
			if err := s.w.Client().Get(t.Context(), types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &tgb); err != nil {
				t.Fatal(err)
			}
			t.Logf("bounded: %s; peaks %d in the target group, %d on the load balancer; %d TooManyTargets refusals of the controller; binding touched at %q; cutover %.0fs, floor %.0fs",
				s.w.Traffic().String(), tgMax, lbMax, refused, tgb.Annotations[cutover.AnnotationNudge], res.CutoverSeconds, res.FloorSeconds)
		})
	}
}

// TestQuotaExecuteStopsAtOnce: a plan made when the overlap fit; by the
// time the controller registers, it does not (the account's quota was
// lower than the plan knew, or another target group filled the load
// balancer). The gate stops with a *QuotaError from the controller's
// TooManyTargets event well before the controller's patience: it never
// waits out a timeout. The rollback then leaves the node targets serving.
func TestQuotaExecuteStopsAtOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		quotas elbv2model.Quotas
		// noSQ plans with AWS's defaults; fill adds another target group
		// of that many targets to the load balancer after the plan.
		noSQ bool
		fill int
	}{
		{name: "the account's quota is lower than the plan knew", quotas: elbv2model.Quotas{TargetsPerTargetGroup: 40}, noSQ: true},
		{name: "another target group fills the load balancer after the plan", quotas: elbv2model.Quotas{TargetsPerLoadBalancer: 60}, fill: 20},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, reg := newQuotaScenario(t, uint64(340+i), tt.quotas)
			if tt.noSQ {
				s.env.ServiceQuotas = nil
			}
			p := s.plan(nil)
			if q := p.Quota; q == nil || q.Bounded {
				t.Fatalf("plan's quota %+v: want an overlap that fits at plan time", q)
			}
			if tt.fill > 0 {
				addOtherTargetGroup(t, s.w, tt.fill)
			}
			res, err := cutover.Execute(t.Context(), s.env, p, simPods)
			var qe *cutover.QuotaError
			if !errors.As(err, &qe) || !cutover.IsQuota(err) {
				t.Fatalf("Execute = %v: want a *QuotaError", err)
			}
			var se *cutover.StepError
			if !errors.As(err, &se) || se.Step != cutover.StepGate || qe.Op != cutover.StepGate {
				t.Errorf("error %v: want the gate's", err)
			}
			if !strings.Contains(qe.Message, "TooManyTargets") || !strings.Contains(qe.Reason, "did not bound the overlap") {
				t.Errorf("refusal %+v: want the controller's TooManyTargets event and why", qe)
			}
			gate := stepResult(res, cutover.StepGate)
			if gate == nil || gate.Status != cutover.StepFailed {
				t.Fatalf("gate %+v: want failed", gate)
			}
			if d := gate.FinishedAt.Sub(gate.StartedAt); d >= cutover.DefaultControllerPatience || d > time.Minute {
				t.Errorf("the gate stopped after %v: want well within the controller's patience (%v)", d, cutover.DefaultControllerPatience)
			}
			if _, _, refused := reg.peaks(); refused == 0 {
				t.Error("the controller was never refused: the scenario proves nothing")
			}
			if !res.RolledBack {
				t.Errorf("result %+v: want rolled back", res)
			}
			if st := s.w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic: %s", st.String())
			}
			s.checkLegacyNodesOnly()
			if s.bindingExists(p) {
				t.Error("the binding is still there after the rollback")
			}
			t.Logf("stopped after %v in the gate: %v", gate.FinishedAt.Sub(gate.StartedAt), err)
		})
	}
}

// TestQuotaBoundedRollback: a bounded cutover stopped once the pod
// targets are in (the room full: 10 node targets and 30 pod targets under
// a quota of 40) rolls back within the quota: it registers the node
// targets that fit beside the pod targets (none), deletes the binding,
// then registers the others as the pod targets drain. No request fails,
// and every live node ends with a healthy target.
func TestQuotaBoundedRollback(t *testing.T) {
	t.Parallel()
	s, reg := newQuotaScenario(t, 350, elbv2model.Quotas{TargetsPerTargetGroup: 40})
	p := s.plan(func(r *cutover.Request) { r.MinHealthy = 10 })
	if q := p.Quota; q == nil || !q.Bounded || !strings.Contains(q.Rollback, "room for 10 node targets beside them") {
		t.Fatalf("plan's quota %+v: want a bounded overlap whose rollback has room for 10 node targets", q)
	}
	// The estimate counts both phases' checks and, between them, the pod
	// targets' drain.
	est, err := cutover.EstimateRollback(p)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, w := range est.Waits {
		steps = append(steps, w.Step)
	}
	if want := []string{cutover.RollbackWaitNodes, cutover.RollbackRegisterRest, cutover.RollbackRegisterRest}; !slices.Equal(steps, want) ||
		est.Waits[1].Seconds != p.TargetGroup.DeregistrationDelaySeconds {
		t.Errorf("estimate %+v: want the waits %v, the drain of %d s between", est, want, p.TargetGroup.DeregistrationDelaySeconds)
	}
	api := &timedAPI{ELBv2API: s.env.ELBv2, clock: s.w.Clock().Now, after: reg.note}
	s.env.ELBv2 = api
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate))
	if err != nil || !res.Stopped {
		t.Fatalf("Execute: %+v, %v: want stopped after the gate", res, err)
	}
	if n := len(s.w.Model().Targets(p.TargetGroup.ARN.Raw)); n != 40 {
		t.Fatalf("after the gate the target group holds %d targets, want 40: its room full", n)
	}
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	if err != nil {
		t.Fatalf("Rollback: %+v, %v", rb, err)
	}
	s.checkRolledBack(rb)
	if len(rb.Registered) != 10 {
		t.Errorf("the rollback registered %d node targets, want the 10 make-room deregistered", len(rb.Registered))
	}
	var rest *cutover.StepResult
	for i := range rb.Actions {
		if rb.Actions[i].ID == cutover.RollbackRegisterRest {
			rest = &rb.Actions[i]
		}
	}
	if rest == nil || rest.Skipped || rest.MutatingCalls == 0 {
		t.Errorf("register-rest %+v: want it to register the node targets that did not fit", rest)
	}
	if tgMax, _, _ := reg.peaks(); tgMax > 40 {
		t.Errorf("peak %d targets in the target group, over its quota of 40", tgMax)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
	// Its floor counts the wait for room: the pod targets drain before
	// the rest of the node targets fit.
	if rb.Ratio > 1.2 {
		t.Errorf("rollback %.0fs for a floor of %.0fs: ratio %.3f, want at most 1.2 (register-rest took %v)", rb.Seconds, rb.FloorSeconds, rb.Ratio, rest.FinishedAt.Sub(rest.StartedAt))
	}
	// Its first phase found no room: it waited for no node target before
	// the binding went, so its floor is the estimate less that wait.
	if want := float64(est.Seconds - est.Waits[0].Seconds); rb.FloorSeconds != want {
		t.Errorf("rollback floor %.0fs, want the estimate %d s less wait-nodes' %d s", rb.FloorSeconds, est.Seconds, est.Waits[0].Seconds)
	}
	t.Logf("rollback %.0fs (floor %.0fs, estimate %s), %d registered; warnings %q", rb.Seconds, rb.FloorSeconds, est, len(rb.Registered), rb.Warnings)
}

// TestQuotaBoundedRollbackFromJournal: the rollback of
// TestQuotaBoundedRollback from the journal's State alone, with no plan
// (as "tgmigrate rollback --target-group ... -n ..." runs it), completes
// the same way: register-rest reads the deregistration delay, which the
// journal does not record, from the target group (it dereferenced the
// missing plan and panicked). Its floor is the plan-started one's, and
// the estimate from the State counts the drain it cannot know as 0 s,
// saying so.
func TestQuotaBoundedRollbackFromJournal(t *testing.T) {
	t.Parallel()
	s, _ := newQuotaScenario(t, 350, elbv2model.Quotas{TargetsPerTargetGroup: 40})
	p := s.plan(func(r *cutover.Request) { r.MinHealthy = 10 })
	if res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepGate)); err != nil || !res.Stopped {
		t.Fatalf("Execute: %+v, %v: want stopped after the gate", res, err)
	}
	st := s.journal(p)
	est, err := cutover.EstimateRollback(st)
	if err != nil || len(est.Waits) != 3 || est.Waits[1].Seconds != 0 || !strings.Contains(est.Waits[1].From, "not counted") {
		t.Errorf("estimate from the State: %+v, %v: want the drain not counted, and said so", est, err)
	}
	rb, err := cutover.Rollback(t.Context(), s.env, st)
	if err != nil || !rb.Completed {
		t.Fatalf("Rollback from the State: %+v, %v", rb, err)
	}
	s.checkRolledBack(rb)
	if len(rb.Registered) != 10 {
		t.Errorf("the rollback registered %d node targets, want 10", len(rb.Registered))
	}
	if want := float64(p.TargetGroup.DeregistrationDelaySeconds + est.Waits[2].Seconds); rb.FloorSeconds != want {
		t.Errorf("floor %.0fs, want the drain %d s and the checks %d s", rb.FloorSeconds, p.TargetGroup.DeregistrationDelaySeconds, est.Waits[2].Seconds)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}

// checkLegacyNodesOnly is checkNodesOnly for the legacy target group
// alone (other-web's targets are on addresses nobody holds: ghosts to
// checkNodesOnly): every target a healthy target of a live node on the
// NodePort, and every live node with one.
func (s *scenario) checkLegacyNodesOnly() {
	s.t.Helper()
	l := s.w.Legacy()
	live := map[string]bool{}
	for _, n := range s.w.Cluster().Nodes() {
		live[n.InternalIP] = true
	}
	for _, v := range s.w.Model().Targets(l.TargetGroupARN) {
		if !live[v.ID] || v.Port != l.NodePort || v.State != elbv2types.TargetHealthStateEnumHealthy {
			s.t.Errorf("target %v: want only healthy live node targets on %d", v, l.NodePort)
		}
		delete(live, v.ID)
	}
	for id := range live {
		s.t.Errorf("live node %s has no target", id)
	}
}

func stepTook(res *cutover.Result, id string) time.Duration {
	st := stepResult(res, id)
	if st == nil {
		return 0
	}
	return st.FinishedAt.Sub(st.StartedAt)
}

// quotaCounts is the comparable part of a headroom.
type quotaCounts struct{ Now, Others, Adding, Peak, Room, After, Quota int }

func countsOf(h diagnose.Headroom) quotaCounts {
	return quotaCounts{h.Now, h.Others, h.Adding, h.Peak, h.Room, h.After, h.Quota.Value}
}

func orDefault(v int) int {
	if v <= 0 {
		return 1000
	}
	return v
}

// newQuotaScenario is a world of 20 node targets and 30 pods under quotas
// q, with a Service Quotas client that answers q (AWS's defaults for its
// zero fields). The controller's registrations are watched.
func newQuotaScenario(t *testing.T, seed uint64, q elbv2model.Quotas) (*scenario, *regWatch) {
	t.Helper()
	return newQuotaScenarioPods(t, seed, q, quotaPods)
}

// newQuotaScenarioPods is newQuotaScenario with pods pods.
func newQuotaScenarioPods(t *testing.T, seed uint64, q elbv2model.Quotas, pods int) (*scenario, *regWatch) {
	t.Helper()
	reg := &regWatch{}
	cfg := sim.Config{Seed: seed, Nodes: quotaNodes, Pods: pods, RPS: 20, Quotas: q,
		WrapLBCELBv2: func(api lbc.ELBv2API) lbc.ELBv2API { reg.ELBv2API = api; return reg }}
	s := newScenario(t, cfg)
	reg.model = s.w.Model()
	reg.tg = s.w.Legacy().TargetGroupARN
	s.env.ServiceQuotas = appliedQuotas{
		diagnose.QuotaCodeTargetsPerTargetGroup: float64(orDefault(q.TargetsPerTargetGroup)),
		diagnose.QuotaCodeTargetsPerALB:         float64(orDefault(q.TargetsPerLoadBalancer)),
		diagnose.QuotaCodeTargetsPerNLB:         3000,
	}
	return s, reg
}

// appliedQuotas is a Service Quotas client that answers the applied value
// of each quota in it, and NoSuchResource for the others.
type appliedQuotas map[string]float64

var _ diagnose.ServiceQuotasAPI = appliedQuotas{}

func (q appliedQuotas) GetServiceQuota(_ context.Context, in *servicequotas.GetServiceQuotaInput, _ ...func(*servicequotas.Options)) (*servicequotas.GetServiceQuotaOutput, error) {
	v, ok := q[aws.ToString(in.QuotaCode)]
	if !ok || aws.ToString(in.ServiceCode) != diagnose.QuotaServiceCode {
		return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota")}
	}
	return &servicequotas.GetServiceQuotaOutput{Quota: &sqtypes.ServiceQuota{QuotaCode: in.QuotaCode, Value: aws.Float64(v)}}, nil
}

func (q appliedQuotas) GetAWSDefaultServiceQuota(context.Context, *servicequotas.GetAWSDefaultServiceQuotaInput, ...func(*servicequotas.Options)) (*servicequotas.GetAWSDefaultServiceQuotaOutput, error) {
	return nil, &sqtypes.NoSuchResourceException{Message: aws.String("no such quota")}
}

// addOtherTargetGroup creates target group other-web, with n ip targets on
// addresses of the VPC that no node or pod holds (its fourth /19, which no
// zone's subnet uses), and forwards a rule of the legacy ALB's listener to
// it: its targets count against the ALB's quota. It works on the model
// (setup: not a call of the system under test).
func addOtherTargetGroup(t *testing.T, w *sim.World, n int) string {
	t.Helper()
	m := w.Model()
	out, err := m.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("other-web"), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(9000),
		VpcId: aws.String(w.Legacy().VPCID), TargetType: elbv2types.TargetTypeEnumIp,
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	var ts []elbv2types.TargetDescription
	for i := range n {
		ts = append(ts, elbv2types.TargetDescription{Id: aws.String(fmt.Sprintf("10.0.100.%d", 10+i)), Port: aws.Int32(9000)})
	}
	if _, err := m.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: ts}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddRule(w.Legacy().ListenerARN, 10, []elbv2types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/other/*"}}},
		[]elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(arn)}}); err != nil {
		t.Fatal(err)
	}
	if got := len(m.Targets(arn)); got != n {
		t.Fatalf("other-web holds %d targets, want %d", got, n)
	}
	return arn
}

// worldSnapshot is what a refused plan must leave as it was: every target
// group's targets, the bindings, the nodes' annotations, and the system
// under test's mutating calls.
type worldSnapshot struct {
	Targets  map[string][]string
	Bindings []string
	Held     []string
	Mutating int
}

func (s *scenario) snapshot() worldSnapshot {
	s.t.Helper()
	snap := worldSnapshot{Targets: map[string][]string{}, Held: s.heldNodes(), Mutating: mutatingOps(s.w.AWSCounts())}
	for _, arn := range s.w.Model().TargetGroupARNs() {
		for _, v := range s.w.Model().Targets(arn) {
			snap.Targets[arn] = append(snap.Targets[arn], fmt.Sprintf("%s:%d", v.ID, v.Port))
		}
		slices.Sort(snap.Targets[arn])
	}
	var tgbs v1beta1.TargetGroupBindingList
	if err := s.w.Client().List(context.Background(), &tgbs); err != nil {
		s.t.Fatal(err)
	}
	for _, b := range tgbs.Items {
		snap.Bindings = append(snap.Bindings, b.Namespace+"/"+b.Name)
	}
	return snap
}

// regWatch wraps the controller's ELBv2 client: after each of its
// RegisterTargets it counts the targets of the legacy target group and of
// the whole model (every target group of these worlds is on the legacy
// ALB), and it counts the calls refused as TooManyTargets.
type regWatch struct {
	lbc.ELBv2API
	model *elbv2model.Model
	tg    string

	mu                    sync.Mutex
	tgMax, lbMax, tooMany int
}

func (r *regWatch) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	out, err := r.ELBv2API.RegisterTargets(ctx, in, o...)
	var tmt *elbv2types.TooManyTargetsException
	if errors.As(err, &tmt) {
		r.mu.Lock()
		r.tooMany++
		r.mu.Unlock()
	}
	r.note()
	return out, err
}

// note counts the targets now.
func (r *regWatch) note() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.model != nil {
		all := 0
		for _, arn := range r.model.TargetGroupARNs() {
			n := len(r.model.Targets(arn))
			all += n
			if arn == r.tg {
				r.tgMax = max(r.tgMax, n)
			}
		}
		r.lbMax = max(r.lbMax, all)
	}
}

// peaks returns the most targets seen in the legacy target group and on
// the load balancer, and the TooManyTargets refusals.
func (r *regWatch) peaks() (tg, lb, refused int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tgMax, r.lbMax, r.tooMany
}

// timedAPI notes when the system under test's DeregisterTargets calls
// succeeded and how many targets each named, and calls after (when set)
// after each of its RegisterTargets.
type timedAPI struct {
	cutover.ELBv2API
	clock func() time.Time
	after func()

	mu    sync.Mutex
	calls []timedCall
}

type timedCall struct {
	at time.Time
	n  int
}

func (a *timedAPI) DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error) {
	out, err := a.ELBv2API.DeregisterTargets(ctx, in, o...)
	if err == nil {
		a.mu.Lock()
		a.calls = append(a.calls, timedCall{a.clock(), len(in.Targets)})
		a.mu.Unlock()
	}
	return out, err
}

func (a *timedAPI) RegisterTargets(ctx context.Context, in *elbv2.RegisterTargetsInput, o ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error) {
	out, err := a.ELBv2API.RegisterTargets(ctx, in, o...)
	if a.after != nil {
		a.after()
	}
	return out, err
}

// timeline lists the DeregisterTargets calls: when, and how many.
func (a *timedAPI) timeline() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, c := range a.calls {
		out = append(out, fmt.Sprintf("%s %d", c.at.Format(time.TimeOnly), c.n))
	}
	return out
}

// deregisteredDuring sums the targets deregistered while the step ran.
func (a *timedAPI) deregisteredDuring(res *cutover.Result, step string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return targetsDuring(a.calls, res, step)
}

// targetsDuring sums the targets of the calls made while the step ran.
func targetsDuring(calls []timedCall, res *cutover.Result, step string) int {
	st := stepResult(res, step)
	if st == nil {
		return 0
	}
	n := 0
	for _, c := range calls {
		if !c.at.Before(st.StartedAt) && !c.at.After(st.FinishedAt) {
			n += c.n
		}
	}
	return n
}

func stepResult(res *cutover.Result, id string) *cutover.StepResult {
	if res == nil {
		return nil
	}
	for i := range res.Steps {
		if res.Steps[i].ID == id {
			return &res.Steps[i]
		}
	}
	return nil
}

// TestQuotaRollbackRefused: after a bounded cutover of 250 pods under a
// target group quota of 260, no floor of node targets fits beside the pod
// targets. Rollback stops with a *QuotaError that names the quota and the
// value to request, before any change: the targets, the binding and the
// mutating calls are as they were.
func TestQuotaRollbackRefused(t *testing.T) {
	t.Parallel()
	s, _ := newQuotaScenarioPods(t, 360, elbv2model.Quotas{TargetsPerTargetGroup: 260}, 250)
	p := s.plan(nil)
	if q := p.Quota; q == nil || !q.Bounded || !strings.Contains(q.Rollback, "below the floor") {
		t.Fatalf("plan's quota %+v: want a bounded overlap whose rollback has no room for the floor", q)
	}
	res, err := cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("Execute: %+v, %v", res, err)
	}
	targets := func() []string {
		var out []string
		for _, v := range s.w.Model().Targets(p.TargetGroup.ARN.Raw) {
			out = append(out, fmt.Sprintf("%s:%d", v.ID, v.Port))
		}
		slices.Sort(out)
		return out
	}
	before, calls := targets(), len(s.w.ELBv2().Calls())
	rb, err := cutover.Rollback(t.Context(), s.env, p)
	var qe *cutover.QuotaError
	if !errors.As(err, &qe) || !cutover.IsQuota(err) || qe.Need <= 260 || !strings.Contains(qe.Hint(), "L-A0D0B863") {
		t.Fatalf("Rollback: %+v, %v: want a *QuotaError naming L-A0D0B863 and a value over 260", rb, err)
	}
	if d := cmp.Diff(before, targets()); d != "" {
		t.Errorf("the target group changed (-before +after):\n%s", d)
	}
	for _, c := range s.w.ELBv2().Calls()[calls:] {
		if !strings.HasPrefix(c.Op, "Describe") {
			t.Errorf("the refused rollback made the call %s", c.Op)
		}
	}
	var tgb v1beta1.TargetGroupBinding
	if err := s.w.Client().Get(t.Context(), types.NamespacedName{Namespace: p.Binding.Namespace, Name: p.Binding.Name}, &tgb); err != nil || !tgb.DeletionTimestamp.IsZero() {
		t.Errorf("the binding: %v, deleting %v: want it in place", err, tgb.DeletionTimestamp)
	}
	t.Logf("refused: %v", err)
}
