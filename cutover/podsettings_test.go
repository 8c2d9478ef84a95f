package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
)

// TestPodSettingsOnTheSimulator: the seed's original pods (a 15 s preStop,
// sim.LegacyPreStop, a 30 s grace period, no readiness gate; the world's
// pods default to the safe settings for its own timings, so the unsafe
// world says so explicitly) under the default assumptions (a
// deregistration lag of up to 120 s): the plan carries the pod-settings
// precondition, with what it saw and what it needs; Execute refuses it
// before any call, and goes ahead with the named option. The same Service
// with safe pods (a 130 s preStop, a 160 s grace period, the namespace
// labelled for the readiness gate) plans with no precondition, and warns
// that the pods running now have no gate.
func TestPodSettingsOnTheSimulator(t *testing.T) {
	t.Parallel() // worlds of their own
	t.Run("unsafe", func(t *testing.T) {
		cfg := smallWorld(141)
		cfg.Workload.PreStop, cfg.Workload.TerminationGracePeriod = sim.LegacyPreStop, 30*time.Second
		s := newScenario(t, cfg)
		p := s.plan(func(r *cutover.Request) { r.Assumptions = cutover.Assumptions{} })
		if len(p.Preconditions) != 1 || p.Preconditions[0].Kind != cutover.PreconditionPodSettings {
			t.Fatalf("preconditions %+v, want one of pod settings", p.Preconditions)
		}
		type got struct {
			Setting    cutover.PodSetting
			Seen, Need int64
			AtFault    int
		}
		var checks []got
		for _, c := range p.Preconditions[0].Settings {
			g := got{Setting: c.Setting, Need: c.NeedSeconds, AtFault: c.PodsAtFault}
			if c.SeenSeconds != nil {
				g.Seen = *c.SeenSeconds
			}
			checks = append(checks, g)
		}
		want := []got{
			{cutover.SettingPreStop, 15, 130, 24},
			{cutover.SettingTerminationGracePeriod, 30, 160, 24},
			{cutover.SettingReadinessGate, 0, 0, 0},
		}
		if d := cmp.Diff(want, checks); d != "" {
			t.Errorf("settings (-want +got):\n%s", d)
		}
		for _, line := range []string{"Precondition pod-settings:", "preStop: seen 15 s on 24 of 24 pods; need a preStop sleep of at least 130 s",
			"Execute refuses the plan unless accepted: WithAcceptPreconditions(PreconditionPodSettings)"} {
			if !strings.Contains(p.Text(), line) {
				t.Errorf("the plan's text lacks %q", line)
			}
		}
		b, err := p.JSON()
		if err != nil || !strings.Contains(string(b), `"needSeconds": 130`) {
			t.Errorf("the plan's JSON lacks the precondition (%v)", err)
		}

		before := worldState(t, s.w)
		s.w.ELBv2().ResetCounts()
		res, err := cutover.Execute(t.Context(), s.env, p)
		var pe *cutover.PreconditionError
		if !errors.As(err, &pe) || !errors.Is(err, cutover.ErrPrecondition) || res != nil {
			t.Fatalf("Execute: %+v, %v: want a *PreconditionError", res, err)
		}
		if n := len(s.w.ELBv2().Calls()); n != 0 {
			t.Errorf("%d ELBv2 calls before the refusal", n)
		}
		if d := cmp.Diff(before, worldState(t, s.w)); d != "" {
			t.Errorf("the refusal changed the world (-before +after):\n%s", d)
		}
		res, err = cutover.Execute(t.Context(), s.env, p, cutover.WithAcceptPreconditions(cutover.PreconditionPodSettings))
		if err != nil || !res.Completed {
			t.Fatalf("Execute with the option: %+v, %v", res, err)
		}
		if st := s.w.Traffic(); st.Failed != 0 {
			t.Errorf("traffic: %s", st.String())
		}
		t.Logf("refused: %v", pe)
	})
	t.Run("safe", func(t *testing.T) {
		cfg := smallWorld(142)
		cfg.ReadinessGateInjection = true
		cfg.Workload.PreStop = 130 * time.Second
		cfg.Workload.TerminationGracePeriod = 160 * time.Second
		s := newScenario(t, cfg)
		p := s.plan(func(r *cutover.Request) { r.Assumptions = cutover.Assumptions{} })
		if len(p.Preconditions) != 0 || strings.Contains(p.Text(), "Precondition") {
			t.Errorf("preconditions %+v, want none", p.Preconditions)
		}
		if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, "24 of the Service's 24 pods have none; restart them") }) {
			t.Errorf("warnings %q: want the pods without a readiness gate named", p.Warnings)
		}
	})
}

// readRecorder records the Kubernetes calls made through it, as "verb
// resource".
type readRecorder struct {
	client.Client
	calls []string
}

func (r *readRecorder) note(verb string, obj any, dryRun bool) {
	kind := reflect.TypeOf(obj).Elem().Name()
	if u, ok := obj.(interface{ GetKind() string }); ok && u.GetKind() != "" {
		kind = u.GetKind()
	}
	kind = strings.TrimSuffix(kind, "List")
	call := fmt.Sprintf("%s %s", verb, strings.ToLower(kind)+"s")
	if dryRun {
		call += " (dry run)"
	}
	r.calls = append(r.calls, call)
}

func (r *readRecorder) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r.note("get", obj, false)
	return r.Client.Get(ctx, key, obj, opts...)
}

func (r *readRecorder) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r.note("list", list, false)
	return r.Client.List(ctx, list, opts...)
}

func (r *readRecorder) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	co := &client.CreateOptions{}
	co.ApplyOptions(opts)
	r.note("create", obj, len(co.DryRun) > 0)
	return r.Client.Create(ctx, obj, opts...)
}

// TestPlanReadsAreWhatPlanningCalls: every Kubernetes call PlanCutover
// makes is among the plan's Reads (what the operator who plans needs in
// RBAC), and none of them writes.
func TestPlanReadsAreWhatPlanningCalls(t *testing.T) {
	t.Parallel() // a world of its own
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			s := newScenario(t, matrixWorld(143, st.instance, nil))
			rec := &readRecorder{Client: s.w.Client()}
			s.env.Client = rec
			p := s.plan(nil)
			granted := map[string]bool{}
			for _, r := range p.Reads {
				verbs, resources, ok := strings.Cut(strings.TrimPrefix(r, "kubernetes:"), " ")
				if !ok {
					t.Fatalf("read %q is not 'kubernetes:VERB RESOURCES'", r)
				}
				dry := strings.HasSuffix(resources, " (dry run)")
				resources = strings.TrimSuffix(resources, " (dry run)")
				for _, v := range strings.Split(verbs, ",") {
					for _, res := range strings.Split(resources, ",") {
						res, _, _ = strings.Cut(res, ".") // the group
						call := v + " " + res
						if dry {
							call += " (dry run)"
						}
						granted[call] = true
					}
				}
			}
			for _, c := range slices.Compact(slices.Sorted(slices.Values(rec.calls))) {
				if !granted[c] {
					t.Errorf("PlanCutover called %q, which the plan's Reads %v do not name", c, p.Reads)
				}
				if strings.HasPrefix(c, "create") && !strings.HasSuffix(c, "(dry run)") {
					t.Errorf("PlanCutover wrote: %s", c)
				}
			}
			t.Logf("%s: planning called %v", st.name, slices.Compact(slices.Sorted(slices.Values(rec.calls))))
		})
	}
}
