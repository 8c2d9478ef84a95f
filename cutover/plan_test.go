package cutover_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/cutover"
)

// TestPlanGolden: the plans of the seed's case, in-place and blue/green,
// as text and as versioned JSON; the JSON parses back to the same plan.
func TestPlanGolden(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			s := newScenario(t, matrixWorld(115, st.instance))
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
			// Same world, same request: same ID and digest.
			again := s.plan(nil)
			if again.ID != p.ID || again.Digest != p.Digest {
				t.Errorf("re-plan: %s %s, want %s %s", again.ID, again.Digest, p.ID, p.Digest)
			}
		})
	}
}

// TestParsePlanRefuses: an unknown schema version, an unknown field, an
// edited plan, and what is not JSON are each an *InputError.
func TestParsePlanRefuses(t *testing.T) {
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

// TestPlanPolicyCoversEveryCall: every ELBv2 call the simulator recorded
// during Execute and a Rollback after completion is allowed by the plan's
// least-privilege policy, and the policy denies what the plan never needs.
func TestPlanPolicyCoversEveryCall(t *testing.T) {
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			s := newScenario(t, matrixWorld(117, st.instance))
			p := s.plan(nil)
			if _, err := cutover.Execute(t.Context(), s.env, p); err != nil {
				t.Fatal(err)
			}
			if _, err := cutover.Rollback(t.Context(), s.env, p); err != nil {
				t.Fatal(err)
			}
			s.checkPolicy(p)
			pol, err := p.IAMPolicy()
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]bool{}
			for _, c := range s.w.ELBv2().Calls() {
				ops[c.Op] = true
			}
			t.Logf("%s: %d calls of %d operations, all allowed by %d statements", st.name, len(s.w.ELBv2().Calls()), len(ops), len(pol.Statement))
			if pol.Allows("elasticloadbalancing:DeleteTargetGroup", p.TargetGroup.ARN) {
				t.Error("the policy lets the plan delete its own target group")
			}
			if pol.Allows("elasticloadbalancing:DeregisterTargets", strings.Replace(p.TargetGroup.ARN, "legacy-web", "other", 1)) {
				t.Error("the policy lets the plan deregister another target group's targets")
			}
		})
	}
}
