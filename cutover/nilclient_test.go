package cutover_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim"
)

// nilAnswers is an ELBv2 client that answers the operations in nil with
// neither an output nor an error, as a broken client or fake may.
type nilAnswers struct {
	cutover.ELBv2API
	nil map[string]bool
}

func (n nilAnswers) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	if n.nil["DescribeTargetGroups"] {
		return nil, nil
	}
	return n.ELBv2API.DescribeTargetGroups(ctx, in, o...)
}

func (n nilAnswers) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	if n.nil["DescribeTargetHealth"] {
		return nil, nil
	}
	return n.ELBv2API.DescribeTargetHealth(ctx, in, o...)
}

// TestPlanNilAnswer: an ELBv2 call that returns neither an output nor an
// error gives a typed error (tgmigrate.ErrNilResponse, an ErrUnknown), not
// a panic, and PlanCutover changes nothing.
func TestPlanNilAnswer(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"DescribeTargetGroups", "DescribeTargetHealth"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, sim.Config{Seed: 71})
			before := len(s.w.ELBv2().Calls())
			s.env.ELBv2 = nilAnswers{ELBv2API: s.env.ELBv2, nil: map[string]bool{op: true}}
			p, err := cutover.PlanCutover(t.Context(), s.env, s.request())
			if p != nil || !errors.Is(err, tgmigrate.ErrNilResponse) || !errors.Is(err, tgmigrate.ErrUnknown) {
				t.Fatalf("PlanCutover: %v, %v: want ErrNilResponse", p, err)
			}
			if !strings.Contains(err.Error(), op) {
				t.Errorf("error %q does not name %s", err, op)
			}
			for _, c := range s.w.ELBv2().Calls()[before:] {
				if !strings.HasPrefix(c.Op, "Describe") {
					t.Errorf("PlanCutover made the call %s", c.Op)
				}
			}
		})
	}
}

// TestEnvTypedNil: a typed-nil client in Env is refused with an
// *InputError naming the field, before any call.
func TestEnvTypedNil(t *testing.T) {
	t.Parallel()
	s := newScenario(t, sim.Config{Seed: 72})
	cases := map[string]func(*cutover.Env){
		"Env.ELBv2":         func(e *cutover.Env) { e.ELBv2 = (*elbv2.Client)(nil) },
		"Env.ServiceQuotas": func(e *cutover.Env) { e.ServiceQuotas = (*servicequotas.Client)(nil) },
	}
	for field, set := range cases {
		env := s.env
		set(&env)
		_, err := cutover.PlanCutover(t.Context(), env, s.request())
		var ie *cutover.InputError
		if !errors.As(err, &ie) || ie.Field != field {
			t.Errorf("%s typed nil: %v: want an *InputError on %s", field, err, field)
		}
	}
	if n := len(s.w.ELBv2().Calls()); n != 0 {
		t.Errorf("%d ELBv2 calls before the refusal", n)
	}
}

// foreignSource has a Ref, as a *Plan and a *State do, but is neither.
type foreignSource struct{}

func (foreignSource) Ref() cutover.PlanRef { return cutover.PlanRef{ID: "x", Digest: "y"} }

// TestRollbackSourceRefused: Rollback starts from a *Plan or a *State; a
// nil source, a typed-nil one or another type with a Ref is refused with
// an *InputError on "source" (or "state"), before any call.
func TestRollbackSourceRefused(t *testing.T) {
	t.Parallel()
	s := newScenario(t, sim.Config{Seed: 73})
	for name, src := range map[string]cutover.Source{
		"nil":         nil,
		"typed nil":   (*cutover.State)(nil),
		"foreign Ref": foreignSource{},
	} {
		_, err := cutover.Rollback(t.Context(), s.env, src)
		var ie *cutover.InputError
		if !errors.As(err, &ie) || (ie.Field != "source" && ie.Field != "state") {
			t.Errorf("%s: %v: want an *InputError on source or state", name, err)
		}
		if name == "foreign Ref" && !strings.Contains(err.Error(), "cutover_test.foreignSource") {
			t.Errorf("foreign Ref: %v: want the type named", err)
		}
	}
	if n := len(s.w.ELBv2().Calls()); n != 0 {
		t.Errorf("%d ELBv2 calls before the refusal", n)
	}
}
