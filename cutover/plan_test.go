package cutover_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
)

// TestPlanGolden: the plans of the seed's case, in-place and blue/green,
// as text and as versioned JSON; the JSON parses back to the same plan,
// and planning again gives the same plan. The plans record the world's
// assumptions (worldAssumptions: a new target healthy after one passing
// check, a deregistration lag of 15 s) and the readiness gate as the
// pod-settings precondition's only setting: the world's pods have the
// safe preStop and grace period for those timings.
func TestPlanGolden(t *testing.T) {
	t.Parallel() // a world of its own
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			s := newScenario(t, matrixWorld(115, st.instance, nil))
			s.env.EC2 = s.w.EC2() // the security-group check runs
			p := s.plan(nil)
			cutover.Golden(t, "plan-"+st.name+".txt", []byte(p.Text()))
			b, err := p.JSON()
			if err != nil {
				t.Fatal(err)
			}
			cutover.Golden(t, "plan-"+st.name+".json", b)
			back, err := cutover.ParsePlan(b)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(p, back); d != "" {
				t.Errorf("round trip (-plan +parsed):\n%s", d)
			}
			// Same world, same request, a moment later: the same ID, and
			// the same plan but for when it was made. Every call of the
			// planning takes virtual time (Timings.ELBv2Latency and
			// KubeLatency), so the clock moved, and the digest covers
			// CreatedAt: made at the first plan's time, the re-plan is the
			// first plan, digest included.
			again := s.plan(nil)
			if again.ID != p.ID || !again.CreatedAt.After(p.CreatedAt) {
				t.Errorf("re-plan: %s made %s, want %s made after %s", again.ID, again.CreatedAt, p.ID, p.CreatedAt)
			}
			again.CreatedAt, again.Digest = p.CreatedAt, p.Digest
			ab, err := again.JSON()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(b), string(ab)); d != "" {
				t.Errorf("re-plan at the first plan's time (-plan +re-plan):\n%s", d)
			}
		})
	}
}

// TestParsePlanRefuses: an unknown schema version, an unknown field, an
// edited plan, and what is not JSON are each an *InputError.
func TestParsePlanRefuses(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(116))
	b, err := s.plan(nil).JSON()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
	}{
		{"not JSON", "{"},
		{"no schemaVersion", `{"id": "x"}`},
		{"schemaVersion 2", strings.Replace(string(b), `"schemaVersion": 1`, `"schemaVersion": 2`, 1)},
		{"unknown field", strings.Replace(string(b), `"schemaVersion": 1,`, `"schemaVersion": 1, "surprise": true,`, 1)},
		{"edited floor", strings.Replace(string(b), `"floor": 8`, `"floor": 1`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.data == string(b) {
				t.Fatal("the edit did not apply")
			}
			_, err := cutover.ParsePlan([]byte(tt.data))
			var ie *cutover.InputError
			if !errors.As(err, &ie) {
				t.Errorf("err = %v, want an *InputError", err)
			}
		})
	}
}

// TestPlanPolicyIsWhatTheRunCalls: the plan's least-privilege policy is
// exactly what Execute and Rollback call, both ways. In each scenario the
// cutover runs under churn to completion and is then rolled back; every
// ELBv2 call the simulator recorded is allowed by the policy, and every
// action of every statement, on every resource, was called (a
// CreateTargetGroup with tags counts as AddTags on the group it created:
// IAM authorizes tags on creation as AddTags). The scenarios cover what
// the policy depends on: a health check aligned or already right
// (ModifyTargetGroup or not), and blue/green attributes equal to a new
// group's defaults or not (ModifyTargetGroupAttributes or not).
func TestPlanPolicyIsWhatTheRunCalls(t *testing.T) {
	t.Parallel() // a world of its own
	delay := time.Minute
	tests := []struct {
		name     string
		instance bool
		config   func(*sim.Config)
		// grants and denies name actions on the plan's own target group
		// (in-place) or the new one (blue/green) the policy must grant or
		// deny.
		grants, denies []string
	}{
		{name: "in-place, health check aligned", grants: []string{cutover.ActionModifyTargetGroup},
			denies: []string{cutover.ActionModifyTargetGroupAttributes, cutover.ActionAddTags}},
		{name: "in-place, health check already right", config: func(c *sim.Config) { c.Legacy.HealthCheckPath = "/healthz" },
			denies: []string{cutover.ActionModifyTargetGroup, cutover.ActionModifyTargetGroupAttributes, cutover.ActionAddTags}},
		{name: "blue/green, default attributes", instance: true,
			grants: []string{cutover.ActionCreateTargetGroup, cutover.ActionAddTags, cutover.ActionDeleteTargetGroup},
			denies: []string{cutover.ActionModifyTargetGroupAttributes, cutover.ActionModifyTargetGroup}},
		{name: "blue/green, attributes to copy", instance: true, config: func(c *sim.Config) { c.Legacy.DeregistrationDelay = &delay },
			grants: []string{cutover.ActionCreateTargetGroup, cutover.ActionAddTags, cutover.ActionModifyTargetGroupAttributes, cutover.ActionDeleteTargetGroup},
			denies: []string{cutover.ActionModifyTargetGroup}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := matrixWorld(117, tt.instance, nil)
			if tt.config != nil {
				tt.config(&cfg)
			}
			s := newScenario(t, cfg)
			p := s.plan(nil)
			pol, err := p.IAMPolicy()
			if err != nil {
				t.Fatal(err)
			}
			s.churn()
			if res, err := cutover.Execute(t.Context(), s.env, p, simPods); err != nil || !res.Completed {
				t.Fatalf("Execute: %v", err)
			}
			if rb, err := cutover.Rollback(t.Context(), s.env, p); err != nil || !rb.Completed {
				t.Fatalf("Rollback: %v", err)
			}
			// Recorded ⊆ policy.
			s.checkPolicy(p)
			// Policy ⊆ recorded.
			type use struct{ action, resource string }
			var used []use
			for _, c := range s.w.ELBv2().Calls() {
				res := c.Resources
				if len(res) == 0 {
					res = []string{"*"}
				}
				for _, r := range res {
					used = append(used, use{"elasticloadbalancing:" + c.Op, r})
					if c.Op == "CreateTargetGroup" && s.api.taggedOnCreate(r) {
						used = append(used, use{cutover.ActionAddTags, r})
					}
				}
			}
			for _, st := range pol.Statement {
				for _, a := range st.Action {
					for _, r := range st.Resource {
						one := &cutover.Policy{Version: cutover.PolicyVersion, Statement: []cutover.Statement{
							{Effect: "Allow", Action: cutover.StringList{a}, Resource: cutover.StringList{r}}}}
						if !slices.ContainsFunc(used, func(u use) bool { return one.Allows(u.action, u.resource) }) {
							t.Errorf("statement %s grants %s on %s, which neither Execute nor Rollback called", st.Sid, a, r)
						}
					}
				}
			}
			tg := p.TargetGroup.ARN.Raw
			if tt.instance {
				tg = strings.Replace(tg, "targetgroup/"+p.TargetGroup.Name+"/", "targetgroup/"+p.BlueGreen.NewTargetGroup.Name+"/", 1)
			}
			for _, a := range tt.grants {
				if !pol.Allows(a, tg) {
					t.Errorf("the policy denies %s on %s", a, tg)
				}
			}
			if tt.instance {
				// Blue/green changes nothing of the old target group but
				// its targets.
				for _, a := range []string{cutover.ActionModifyTargetGroup, cutover.ActionModifyTargetGroupAttributes, cutover.ActionAddTags} {
					if pol.Allows(a, p.TargetGroup.ARN.Raw) {
						t.Errorf("the policy grants %s on the old target group", a)
					}
				}
			}
			for _, a := range tt.denies {
				if pol.Allows(a, tg) {
					t.Errorf("the policy grants %s on %s, which the plan never calls", a, tg)
				}
			}
			if pol.Allows(cutover.ActionDeleteTargetGroup, p.TargetGroup.ARN.Raw) {
				t.Error("the policy lets the plan delete its own target group")
			}
			if pol.Allows(cutover.ActionDeregisterTargets, strings.Replace(p.TargetGroup.ARN.Raw, "legacy-web", "other", 1)) {
				t.Error("the policy lets the plan deregister another target group's targets")
			}
			t.Logf("%s: %d calls, %d statements: %v", tt.name, len(s.w.ELBv2().Calls()), len(pol.Statement), pol.Actions())
		})
	}
}
