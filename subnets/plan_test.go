package subnets_test

// plan_test.go: PlanMove's plan (steps, budgets, digest, renderings) and
// its refusals.

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/subnets"
)

func TestPlanMoveIsDataWithADigest(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	r := mvReadiness(2, nil)
	r.NodeGroups = []subnets.NodeGroupReport{{Name: "legacy", Nodes: 2, PublicNodes: 2, Steps: []string{"create a node group in the private subnets", "drain and delete legacy"}}}
	p := mvPlan(t, w, r, subnets.MoveBudget("1"))
	var ids []string
	for _, s := range p.Steps {
		ids = append(ids, s.ID)
	}
	want := []string{subnets.StepTightenBudgets, subnets.StepPatchNodeClasses, subnets.StepWatchReplacement, subnets.StepVerifyPrivate, subnets.StepRestoreBudgets}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("steps = %v, want %v", ids, want)
	}
	pool := p.NodePools[0]
	if pool.From != nil || !reflect.DeepEqual(pool.Move, []karpenterapi.Budget{{Nodes: "1", Reasons: []string{"Drifted"}}, {Nodes: "10%"}}) || pool.AllowedDrift != 1 {
		t.Errorf("pool change = %+v: want absent budgets kept absent, and the move's budget in front of Karpenter's default", pool)
	}
	nc := p.NodeClasses[0]
	if nc.To.AssociatePublicIPAddress == nil || *nc.To.AssociatePublicIPAddress || nc.From.AssociatePublicIPAddress == nil || !*nc.From.AssociatePublicIPAddress {
		t.Errorf("node class change = %+v", nc)
	}
	if !strings.HasPrefix(p.ID, "move-prod-") || len(p.Digest) != 64 || p.Validate() != nil {
		t.Errorf("id %q digest %q validate %v", p.ID, p.Digest, p.Validate())
	}
	if again := mvPlan(t, w, r, subnets.MoveBudget("1")); again.Digest != p.Digest {
		t.Error("the same report planned twice gave two digests")
	}
	if other := mvPlan(t, w, r, subnets.MoveBudget("2")); other.Digest == p.Digest {
		t.Error("another budget gave the same digest")
	}
	if notes := strings.Join(p.Notes, "\n"); !strings.Contains(notes, "node group legacy") || !strings.Contains(notes, "1. create a node group") || !strings.Contains(notes, "fails until its nodes are private") {
		t.Errorf("notes = %q", notes)
	}
	text := p.Text()
	for _, s := range []string{"Step 1 tighten-budgets", "NodePool/default: budgets absent (Karpenter's 10%) -> [1 for Drifted; 10%]",
		"EC2NodeClass/default: [tags{tier=public}], true -> [tags{tier=private}], false", "healthy >= 4", "Step 5 restore-budgets"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	data, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := subnets.DecodePlan(data)
	if err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("decode: %v, equal %v", err, reflect.DeepEqual(back, p))
	}
	edited := strings.Replace(string(data), `"nodes": "1"`, `"nodes": "5"`, 1)
	if _, err := subnets.DecodePlan([]byte(edited)); !errors.Is(err, subnets.ErrMoveInput) || !strings.Contains(err.Error(), "Digest") {
		t.Errorf("edited plan: %v, want a digest mismatch", err)
	}
	unknown := strings.Replace(string(data), `"schemaVersion": 1,`, `"schemaVersion": 1, "extra": true,`, 1)
	if _, err := subnets.DecodePlan([]byte(unknown)); !errors.Is(err, subnets.ErrMoveInput) {
		t.Errorf("unknown field: %v", err)
	}
}

func TestPlanMoveWithoutBudgetLeavesThePoolsAlone(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	p := mvPlan(t, w, mvReadiness(2, nil))
	if len(p.Steps) != 3 || p.Steps[0].ID != subnets.StepPatchNodeClasses || p.NodePools[0].Move != nil {
		t.Fatalf("plan = %+v", p)
	}
}

func TestPlanMoveRefusals(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	old := mvReadiness(2, nil)
	old.CheckedAt = mvStart.Add(-2 * time.Hour)
	notReady := mvReadiness(2, nil)
	notReady.Ready = false
	notReady.Findings = append(notReady.Findings,
		diagnose.Finding{Code: "SubnetNoEgress", Severity: diagnose.SeverityCritical},
		diagnose.Finding{Code: "LoadBalancerZoneMissing", Severity: diagnose.SeverityHigh},
		diagnose.Finding{Code: "SubnetNoEgress", Severity: diagnose.SeverityCritical})
	readyButBlocked := mvReadiness(2, nil)
	readyButBlocked.Findings = append(readyButBlocked.Findings, diagnose.Finding{Code: "LoadBalancerZoneMissing", Severity: diagnose.SeverityHigh})
	publicPrivate := mvReadiness(2, nil)
	publicPrivate.PrivateSubnets = []subnets.Subnet{{ID: "subnet-x", CIDR: "10.0.9.0/24", Public: true}}
	badCIDR := mvReadiness(2, nil)
	badCIDR.PrivateSubnets = []subnets.Subnet{{ID: "subnet-x", CIDR: "10.0.9/24"}}
	badTerm := mvReadiness(2, nil)
	badTerm.SelectorTerms = []karpenterapi.SelectorTerm{{}}
	schema := mvReadiness(2, nil)
	schema.SchemaVersion = 99
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		r     *subnets.Readiness
		opts  []subnets.PlanOption
		want  error
		field string
	}{
		{name: "nil report", r: nil, want: subnets.ErrMoveInput, field: "readiness"},
		{name: "nil ctx", ctx: nilCtx(), r: mvReadiness(2, nil), want: subnets.ErrMoveInput, field: "ctx"},
		{name: "not ready", r: notReady, want: subnets.ErrNotReady},
		{name: "ready with a blocking finding", r: readyButBlocked, want: subnets.ErrNotReady},
		{name: "stale", r: old, want: subnets.ErrStaleReadiness},
		{name: "malformed budget", r: mvReadiness(2, nil), opts: []subnets.PlanOption{subnets.MoveBudget("ten")}, want: subnets.ErrMoveInput, field: "MoveBudget"},
		{name: "zero budget", r: mvReadiness(2, nil), opts: []subnets.PlanOption{subnets.MoveBudget("0%")}, want: subnets.ErrMoveInput, field: "MoveBudget"},
		{name: "negative max age", r: mvReadiness(2, nil), opts: []subnets.PlanOption{subnets.MaxAge(-time.Second)}, want: subnets.ErrMoveInput, field: "MaxAge"},
		{name: "unknown schema", r: schema, want: subnets.ErrMoveInput, field: "readiness.SchemaVersion"},
		{name: "public 'private' subnet", r: publicPrivate, want: subnets.ErrMoveInput, field: "readiness.PrivateSubnets[0]"},
		{name: "malformed CIDR", r: badCIDR, want: subnets.ErrMoveInput, field: "readiness.PrivateSubnets[0].CIDR"},
		{name: "empty term", r: badTerm, want: subnets.ErrMoveInput, field: "readiness.SelectorTerms[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil && tc.field != "ctx" {
				ctx = t.Context()
			}
			opts := append([]subnets.PlanOption{subnets.PlanClock(w.clock)}, tc.opts...)
			p, err := subnets.PlanMove(ctx, tc.r, opts...)
			if p != nil || !errors.Is(err, tc.want) {
				t.Fatalf("PlanMove = %v, %v; want %v", p, err, tc.want)
			}
			var in *subnets.MoveInputError
			if tc.field != "" && (!errors.As(err, &in) || in.Field != tc.field) {
				t.Errorf("err = %v, want field %s", err, tc.field)
			}
		})
	}
	_, err := subnets.PlanMove(t.Context(), notReady, subnets.PlanClock(w.clock))
	var nr *subnets.NotReadyError
	if !errors.As(err, &nr) || !reflect.DeepEqual(nr.Codes, []diagnose.Code{"LoadBalancerZoneMissing", "SubnetNoEgress"}) ||
		!strings.Contains(err.Error(), "blocked by LoadBalancerZoneMissing, SubnetNoEgress") {
		t.Errorf("not ready: %v, want the blocking codes sorted, each once", err)
	}
	var stale *subnets.StaleReadinessError
	if _, err := subnets.PlanMove(t.Context(), old, subnets.PlanClock(w.clock)); !errors.As(err, &stale) || stale.Age != 2*time.Hour || stale.MaxAge != subnets.DefaultMaxAge {
		t.Errorf("stale: %v", err)
	}
	if _, err := subnets.PlanMove(t.Context(), old, subnets.PlanClock(w.clock), subnets.MaxAge(3*time.Hour)); err != nil {
		t.Errorf("MaxAge 3h accepts a report 2h old: %v", err)
	}
	// PlanMove holds no client: the world is as it was.
	if got := w.nodeNames(); got != "old-0(public) old-1(public)" {
		t.Errorf("nodes = %s", got)
	}
	if j, l := w.journalAndLease(); j || l {
		t.Errorf("journal %v lease %v", j, l)
	}
}

// nilCtx returns a nil context without the literal nil a linter flags.
func nilCtx() context.Context {
	var ctx context.Context
	return ctx
}
