package cutover_test

// bindretry_test.go: the bind's retry of the controller's webhook denying
// a target group it cannot see yet, when the denial never clears: its
// bound, its typed error, its journal, and the rollback that follows.

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/tgbind"
)

// TestBindDenialNeverClears: the controller would see the new target group
// only after an hour, so its webhook denies every apply of the binding.
// The bind applies it again, backing off to the poll interval, for the
// bound (the default's 2 minutes, or WithBindVisibilityTimeout's), and
// journals each denial; then the step fails with a *BindDeniedError
// (ErrTimeout, the last denial inside) and Execute rolls back: the new
// target group is deleted, the listener forwards to the old one alone, no
// binding is left, the hold is released, and no request failed. A negative
// bound fails the step at the first denial, with tgbind's error.
func TestBindDenialNeverClears(t *testing.T) {
	t.Parallel() // worlds of their own
	tests := []struct {
		name  string
		opts  []cutover.Option
		bound time.Duration // zero: no retry
	}{
		{"the default bound", nil, cutover.DefaultBindVisibilityTimeout},
		{"WithBindVisibilityTimeout", []cutover.Option{cutover.WithBindVisibilityTimeout(30 * time.Second)}, 30 * time.Second},
		{"no retry", []cutover.Option{cutover.WithBindVisibilityTimeout(-1)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // a world of its own
			cfg := smallWorld(121)
			cfg.Legacy.TargetType = "instance"
			cs, err := elbv2sim.NewConsistency(elbv2sim.ConsistencyOptions{ClientDelay: map[string]time.Duration{"lbc": time.Hour}})
			if err != nil {
				t.Fatal(err)
			}
			cfg.SUT = elbv2sim.Options{Consistency: cs}
			s := newScenario(t, cfg)
			p := s.plan(nil)
			var waits []cutover.Wait
			obs := cutover.ObserverFuncs{OnWaiting: func(w cutover.Wait) {
				if w.Step == cutover.StepBind {
					waits = append(waits, w)
				}
			}}
			opts := append([]cutover.Option{simPods, cutover.WithObserver(obs)}, tt.opts...)
			res, err := cutover.Execute(t.Context(), s.env, p, opts...)
			if err == nil || res.Completed || !res.RolledBack {
				t.Fatalf("Execute: %+v, %v; want the bind step failed and rolled back", res, err)
			}
			var se *cutover.StepError
			if !errors.As(err, &se) || se.Step != cutover.StepBind || !tgbind.IsWebhookRejected(err) {
				t.Fatalf("Execute: %v; want the bind step's failure, a webhook's denial inside", err)
			}
			var bd *cutover.BindDeniedError
			var wd *tgbind.WebhookDeniedError
			if !errors.As(err, &wd) || !wd.LBC || wd.Webhook != "vtargetgroupbinding.elbv2.k8s.aws" {
				t.Errorf("the denial %+v: want the LBC's validating webhook's", wd)
			}
			var notes []string
			for _, n := range s.journal(p).Notes {
				if strings.HasPrefix(n, cutover.StepBind+": denial ") {
					notes = append(notes, n)
				}
			}
			switch {
			case tt.bound == 0:
				if errors.As(err, &bd) || cutover.IsTimeout(err) || len(notes) != 0 || len(waits) != 0 {
					t.Errorf("no retry: %v, %d notes, %d waits; want tgbind's error at the first denial, nothing journaled", err, len(notes), len(waits))
				}
			case !errors.As(err, &bd) || !cutover.IsTimeout(err):
				t.Errorf("Execute: %v; want a *BindDeniedError (ErrTimeout)", err)
			default:
				if bd.Bound != tt.bound || bd.Elapsed > tt.bound || bd.Elapsed < tt.bound-2*cutover.DefaultPollInterval || bd.Attempts < 2 {
					t.Errorf("gave up after %d denials in %v, bound %v; want several denials, within the bound %v and less than two polls short of it", bd.Attempts, bd.Elapsed, bd.Bound, tt.bound)
				}
				if len(notes) != bd.Attempts {
					t.Errorf("the journal notes %d denials, the error counts %d", len(notes), bd.Attempts)
				}
				var started time.Time
				for _, sr := range res.Steps {
					if sr.ID == cutover.StepBind {
						started = sr.StartedAt
					}
				}
				// The first denial comes within seconds of the step's start
				// (a Build and a preflight), and the wait ends the bound after it.
				if len(waits) != 1 || waits[0].Until.Before(started.Add(tt.bound)) || waits[0].Until.After(started.Add(tt.bound+5*time.Second)) ||
					!strings.Contains(waits[0].From, tt.bound.String()) {
					t.Errorf("waits %+v; want one, until the bound %v after the first denial (the step started at %v)", waits, tt.bound, started)
				}
				if n := s.w.LBCELBv2().Counts()[elbv2sim.OpDescribeTargetGroups]; n != bd.Attempts {
					t.Errorf("the controller's webhook read the target group %d times for %d denials", n, bd.Attempts)
				}
			}

			// The state afterwards.
			out, derr := s.w.Model().DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{})
			if derr != nil {
				t.Fatal(derr)
			}
			var names []string
			for _, tg := range out.TargetGroups {
				names = append(names, *tg.TargetGroupName)
			}
			if !slices.Equal(names, []string{s.w.Legacy().TargetGroupName}) {
				t.Errorf("target groups after the rollback: %v, want the old one alone", names)
			}
			if r := s.route(); len(r) != 1 || r[0].ARN != p.TargetGroup.ARN.Raw {
				t.Errorf("route after the rollback: %v, want the old target group alone", r)
			}
			if s.bindingExists(p) {
				t.Error("a binding exists after the rollback")
			}
			st := s.journal(p)
			status := map[string]cutover.StepStatus{}
			for _, rec := range st.Steps {
				status[rec.ID] = rec.Status
			}
			s.checkRolledBack(res.Rollback)
			if bd != nil {
				t.Logf("bind gave up after %d denials in %v (bound %v)", bd.Attempts, bd.Elapsed, bd.Bound)
			}
			t.Logf("Execute: %v\nafterwards: target groups %v, route %v, steps %v, binding %t", err, names, s.route(), status, s.bindingExists(p))
		})
	}
}
