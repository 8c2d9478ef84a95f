package cutover_test

// readenv_test.go: PlanCutover through a ReadEnv whose ELBv2 client has
// only the Describe methods and whose cluster client is only a
// client.Reader plans exactly as through the full Env; a nil or malformed
// PlanEnv is an *InputError naming the field.

import (
	"context"
	"errors"
	"strings"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim"
)

// Both an Env and a ReadEnv are a PlanEnv.
var (
	_ cutover.PlanEnv = cutover.Env{}
	_ cutover.PlanEnv = cutover.ReadEnv{}
)

// getList is a client.Reader and nothing else: Get and List, no scheme,
// no writer.
type getList struct{ next client.Reader }

var _ client.Reader = getList{}

func (g getList) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return g.next.Get(ctx, key, obj, opts...)
}

func (g getList) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return g.next.List(ctx, list, opts...)
}

// readOnlyEnv is s.env as a ReadEnv on mocks.DescribeOnly and getList.
func readOnlyEnv(s *scenario) cutover.ReadEnv {
	re := s.env.ReadOnly()
	re.ELBv2 = mocks.DescribeOnly{Next: s.env.ELBv2}
	re.Client = getList{next: s.env.Client}
	return re
}

// TestPlanReadEnv: PlanCutover plans through a ReadEnv whose clients can
// only read, by type, making Describe calls only, and its plan is the
// full Env's in the same world (a world of the same seed), digest and all.
func TestPlanReadEnv(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		targetType string
		strategy   cutover.Strategy
	}{{"in-place", "ip", cutover.StrategyInPlace}, {"blue-green", "instance", cutover.StrategyBlueGreen}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := func(env func(*scenario) cutover.PlanEnv) (*cutover.Plan, []string) {
				cfg := smallWorld(131)
				cfg.Legacy.TargetType = tt.targetType
				s := newScenario(t, cfg)
				p, err := cutover.PlanCutover(t.Context(), env(s), s.request())
				if err != nil {
					t.Fatalf("PlanCutover: %v", err)
				}
				var ops []string
				for _, c := range s.w.ELBv2().Calls() {
					ops = append(ops, c.Op)
				}
				return p, ops
			}
			want, _ := plan(func(s *scenario) cutover.PlanEnv { return s.env })
			if want.Strategy != tt.strategy {
				t.Fatalf("strategy %s, want %s", want.Strategy, tt.strategy)
			}
			for name, env := range map[string]func(*scenario) cutover.PlanEnv{
				"ReadEnv":        func(s *scenario) cutover.PlanEnv { return readOnlyEnv(s) },
				"Env.ReadOnly()": func(s *scenario) cutover.PlanEnv { return s.env.ReadOnly() },
			} {
				got, ops := plan(env)
				if got.Digest != want.Digest {
					t.Errorf("%s: digest %s, want the Env's %s (-Env +%s):\n%s", name, got.Digest, want.Digest, name, cmp.Diff(want, got))
				}
				for _, op := range ops {
					if !strings.HasPrefix(op, "Describe") {
						t.Errorf("%s: planning made the call %s", name, op)
					}
				}
			}
		})
	}
}

// TestReadEnvTypes: the clients of readOnlyEnv can only read, by type:
// mocks.DescribeOnly is no ELBv2API, getList no client.Writer.
func TestReadEnvTypes(t *testing.T) {
	t.Parallel()
	re := readOnlyEnv(newScenario(t, sim.Config{Seed: 131}))
	if _, ok := re.ELBv2.(tgmigrate.ELBv2API); ok {
		t.Error("mocks.DescribeOnly implements ELBv2API")
	}
	if _, ok := re.Client.(client.Writer); ok {
		t.Error("getList implements client.Writer")
	}
}

// TestPlanEnvRefused: a nil PlanEnv, a nil *Env, and a ReadEnv without a
// client, with a typed-nil one or with a scheme that lacks the binding
// are each an *InputError naming the field, before any call. An Env's
// fields are named as Execute names them ("Env.ELBv2"), a ReadEnv's as
// "ReadEnv.ELBv2".
func TestPlanEnvRefused(t *testing.T) {
	t.Parallel()
	s := newScenario(t, sim.Config{Seed: 132})
	tests := []struct {
		name   string
		env    func() cutover.PlanEnv
		field  string
		reason string
	}{
		{name: "nil", env: func() cutover.PlanEnv { return nil }, field: "env", reason: "nil"},
		{name: "nil *Env", env: func() cutover.PlanEnv { return (*cutover.Env)(nil) }, field: "env", reason: "a nil *cutover.Env"},
		{name: "Env without ELBv2", env: func() cutover.PlanEnv {
			e := s.env
			e.ELBv2 = nil
			return e
		}, field: "Env.ELBv2", reason: "nil"},
		{name: "ReadEnv without ELBv2", env: func() cutover.PlanEnv {
			re := readOnlyEnv(s)
			re.ELBv2 = nil
			return re
		}, field: "ReadEnv.ELBv2", reason: "nil"},
		{name: "ReadEnv without Client", env: func() cutover.PlanEnv {
			re := readOnlyEnv(s)
			re.Client = nil
			return re
		}, field: "ReadEnv.Client", reason: "nil"},
		{name: "ReadEnv with a typed-nil ELBv2", env: func() cutover.PlanEnv {
			re := readOnlyEnv(s)
			re.ELBv2 = (*elbv2.Client)(nil)
			return re
		}, field: "ReadEnv.ELBv2", reason: "a nil *elasticloadbalancingv2.Client"},
		{name: "ReadEnv with a malformed VPC", env: func() cutover.PlanEnv {
			re := readOnlyEnv(s)
			re.ClusterVPCID = "vpc-nope"
			return re
		}, field: "ReadEnv.ClusterVPCID", reason: `"vpc-nope" is not a VPC ID`},
		{name: "ReadEnv whose scheme lacks the binding", env: func() cutover.PlanEnv {
			re := readOnlyEnv(s)
			re.Client = fake.NewClientBuilder().WithScheme(runtime.NewScheme()).Build()
			return re
		}, field: "ReadEnv.Client", reason: "its scheme does not register TargetGroupBinding: add tgbind/v1beta1.AddToScheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := cutover.PlanCutover(t.Context(), tt.env(), s.request())
			var ie *cutover.InputError
			if p != nil || !errors.As(err, &ie) || ie.Op != "plan" || ie.Field != tt.field || ie.Reason != tt.reason {
				t.Fatalf("PlanCutover: %v, %v: want an *InputError on %s: %s", p, err, tt.field, tt.reason)
			}
		})
	}
	if n := len(s.w.ELBv2().Calls()); n != 0 {
		t.Errorf("%d ELBv2 calls before the refusals", n)
	}
}
