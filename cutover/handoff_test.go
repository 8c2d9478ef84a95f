package cutover_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
)

// diagnoseHandoff runs Diagnose on the scenario's world (its legacy
// target group, its one cluster) and returns the handoff of the first
// finding whose next call carries one.
func (s *scenario) diagnoseHandoff() tgmigrate.Handoff {
	s.t.Helper()
	l := s.w.Legacy()
	rep, err := diagnose.Diagnose(s.t.Context(), diagnose.Sources{
		Accounts: []diagnose.Account{{ID: sim.DefaultAccountID, Region: sim.DefaultRegion, ELBv2: s.w.AWS()}},
		Clusters: []diagnose.Cluster{{Name: sim.ClusterName, Reader: s.w.Client(), VPCID: l.VPCID, CIDRs: []string{s.w.Cluster().VPCCIDR()}}},
	}, diagnose.Scope{TargetGroupARNs: []string{l.TargetGroupARN}}, diagnose.WithClock(s.w.Clock()))
	if err != nil {
		s.t.Fatal(err)
	}
	for _, f := range rep.AllFindings() {
		if f.Next.Handoff != nil {
			return *f.Next.Handoff
		}
	}
	s.t.Fatalf("no finding carries a handoff: %+v", rep.AllFindings())
	return tgmigrate.Handoff{}
}

// validHandoff is a handoff that passes Validate, made by hand.
func validHandoff() tgmigrate.Handoff {
	return tgmigrate.Handoff{
		TargetGroupARN: "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy-web/ae14fed025dbd571",
		AccountID:      "123456789012", Region: "eu-west-1", VPCID: "vpc-0a1b2c3d", TargetType: "ip", Strategy: "in-place",
		ClusterName: "prod", Service: tgmigrate.HandoffService{Namespace: "shop", Name: "web", Port: intstr.FromString("http")},
		LoadBalancerARNs: []string{"arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/edge/47909ec80d06f8f1"},
		Observed:         tgmigrate.HandoffObservation{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Targets: 5, Nodes: 3, Ghosts: 2, Healthy: 3},
	}
}

// TestRequestFrom: a valid handoff gives the Request it names, with From
// a copy; a bad one an *InputError naming the field of From, which
// unwraps to the *tgmigrate.HandoffError (and to the *ARNError of a
// malformed ARN). RequestFrom takes no client: it makes no call.
func TestRequestFrom(t *testing.T) {
	h := validHandoff()
	req, err := cutover.RequestFrom(h)
	if err != nil {
		t.Fatal(err)
	}
	want := cutover.Request{TargetGroupARN: h.TargetGroupARN, Namespace: "shop", Service: "web", Port: intstr.FromString("http"),
		Strategy: cutover.StrategyInPlace, AccountID: h.AccountID, Region: h.Region}
	from := req.From
	req.From = nil
	if d := cmp.Diff(want, req); d != "" || from == nil || from.TargetGroupARN != h.TargetGroupARN {
		t.Errorf("RequestFrom (-want +got):\n%s\nFrom %+v", d, from)
	}
	from.LoadBalancerARNs[0] = "edited"
	if h.LoadBalancerARNs[0] == "edited" {
		t.Error("Request.From shares the caller's slice")
	}

	for _, tt := range []struct {
		field string
		edit  func(*tgmigrate.Handoff)
		arn   bool // unwraps to an *ARNError
	}{
		{"From.TargetGroupARN", func(h *tgmigrate.Handoff) { h.TargetGroupARN = "legacy-web" }, true},
		{"From.AccountID", func(h *tgmigrate.Handoff) { h.AccountID = "210987654321" }, false},
		{"From.Region", func(h *tgmigrate.Handoff) { h.Region = "us-east-1" }, false},
		{"From.VPCID", func(h *tgmigrate.Handoff) { h.VPCID = "" }, false},
		{"From.TargetType", func(h *tgmigrate.Handoff) { h.TargetType = "lambda" }, false},
		{"From.Strategy", func(h *tgmigrate.Handoff) { h.TargetType = "instance" }, false},
		{"From.Strategy", func(h *tgmigrate.Handoff) { h.Strategy = "" }, false},
		{"From.ClusterName", func(h *tgmigrate.Handoff) { h.ClusterName = "" }, false},
		{"From.Service.Namespace", func(h *tgmigrate.Handoff) { h.Service.Namespace = "Shop" }, false},
		{"From.Service.Name", func(h *tgmigrate.Handoff) { h.Service.Name = "" }, false},
		{"From.Service.Port", func(h *tgmigrate.Handoff) { h.Service.Port = intstr.IntOrString{} }, false},
		{"From.Service.Port", func(h *tgmigrate.Handoff) { h.Service.Port = intstr.FromString("") }, false},
		{"From.LoadBalancerARNs[0]", func(h *tgmigrate.Handoff) { h.LoadBalancerARNs = []string{h.TargetGroupARN} }, true},
		{"From.Observed.At", func(h *tgmigrate.Handoff) { h.Observed.At = time.Time{} }, false},
		{"From.Observed.Ghosts", func(h *tgmigrate.Handoff) { h.Observed.Ghosts = -1 }, false},
		{"From.Observed.Targets", func(h *tgmigrate.Handoff) { h.Observed.Targets = 4 }, false},
		{"From.Observed.Healthy", func(h *tgmigrate.Handoff) { h.Observed.Healthy = 6 }, false},
	} {
		t.Run(tt.field, func(t *testing.T) {
			h := validHandoff()
			tt.edit(&h)
			req, err := cutover.RequestFrom(h)
			var ie *cutover.InputError
			var he *tgmigrate.HandoffError
			if !errors.As(err, &ie) || ie.Field != tt.field || !errors.As(err, &he) || "From."+he.Field != tt.field ||
				!errors.Is(err, cutover.ErrInvalidInput) || !errors.Is(err, tgmigrate.ErrInvalidHandoff) {
				t.Fatalf("RequestFrom: %v, want an *InputError on %s that unwraps to the *HandoffError", err, tt.field)
			}
			if errors.Is(err, tgmigrate.ErrInvalidARN) != tt.arn {
				t.Errorf("RequestFrom: %v: unwraps to ErrInvalidARN %v, want %v", err, !tt.arn, tt.arn)
			}
			if req.TargetGroupARN != "" || req.From != nil {
				t.Errorf("RequestFrom returned %+v with its error", req)
			}
		})
	}
}

// TestPlanFromHandoff: on the simulator, Diagnose's handoff, through
// RequestFrom, gives PlanCutover the very plan (digest and all) of the
// same request written by hand in a world of the same seed, for either
// strategy; the plan does not record the handoff.
func TestPlanFromHandoff(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		targetType string
		strategy   cutover.Strategy
	}{{"ip", cutover.StrategyInPlace}, {"instance", cutover.StrategyBlueGreen}} {
		t.Run(tt.targetType, func(t *testing.T) {
			t.Parallel()
			world := func() *scenario {
				cfg := smallWorld(171)
				cfg.Legacy.TargetType = tt.targetType
				return newScenario(t, cfg)
			}
			// Both worlds are diagnosed, so that both plans start at the
			// same virtual time.
			s := world()
			h := s.diagnoseHandoff()
			req, err := cutover.RequestFrom(h)
			if err != nil {
				t.Fatal(err)
			}
			req.Assumptions = worldAssumptions(s.w)
			got, err := cutover.PlanCutover(t.Context(), s.env, req)
			if err != nil {
				t.Fatalf("PlanCutover from the handoff: %v", err)
			}

			s2 := world()
			s2.diagnoseHandoff()
			l := s2.w.Legacy()
			want, err := cutover.PlanCutover(t.Context(), s2.env, cutover.Request{
				TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName),
				Strategy: tt.strategy, AccountID: sim.DefaultAccountID, Region: sim.DefaultRegion, Assumptions: worldAssumptions(s2.w),
			})
			if err != nil {
				t.Fatalf("PlanCutover by hand: %v", err)
			}
			if got.Digest != want.Digest {
				t.Errorf("digest %s, want the hand-written request's %s (-hand +handoff):\n%s", got.Digest, want.Digest, cmp.Diff(want, got))
			}
			if got.Request.From != nil {
				t.Error("the plan records the handoff")
			}
			if got.Strategy != tt.strategy {
				t.Errorf("strategy %s, want %s", got.Strategy, tt.strategy)
			}
		})
	}
}

// retyped reports the target groups as of another type than they are:
// the target group behind the handoff's ARN is not what diagnose saw.
type retyped struct {
	cutover.ELBv2API
	to elbv2types.TargetTypeEnum
}

func (r retyped) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	out, err := r.ELBv2API.DescribeTargetGroups(ctx, in, o...)
	if err == nil {
		for i := range out.TargetGroups {
			out.TargetGroups[i].TargetType = r.to
		}
	}
	return out, err
}

// TestPlanFromStaleHandoff: PlanCutover refuses a request whose handoff
// no longer holds, with an *InputError naming the field of From: before
// any call when it is malformed or names another target group, after
// DescribeTargetGroups alone when the live target group's type or VPC is
// not what diagnose saw (ErrStaleHandoff), or when the Env's cluster is
// not the handoff's. A drift in the targets' counts is a plan warning
// with both figures and the handoff's time.
func TestPlanFromStaleHandoff(t *testing.T) {
	t.Parallel()
	s := newScenario(t, smallWorld(172))
	h := s.diagnoseHandoff()
	fresh := func() cutover.Request {
		req, err := cutover.RequestFrom(h)
		if err != nil {
			t.Fatal(err)
		}
		req.Assumptions = worldAssumptions(s.w)
		return req
	}
	for _, tt := range []struct {
		name  string
		field string
		stale bool
		calls []string // the ELBv2 calls made, in order
		edit  func(*cutover.Request, *cutover.Env)
	}{
		{"malformed", "From.Observed.At", false, nil, func(r *cutover.Request, _ *cutover.Env) { r.From.Observed.At = time.Time{} }},
		{"another target group", "From.TargetGroupARN", false, nil, func(r *cutover.Request, _ *cutover.Env) {
			r.From.TargetGroupARN = strings.Replace(r.From.TargetGroupARN, "/"+s.w.Legacy().TargetGroupName+"/", "/other/", 1)
		}},
		{"another account", "From.AccountID", false, nil, func(r *cutover.Request, _ *cutover.Env) {
			r.From.TargetGroupARN = strings.Replace(r.From.TargetGroupARN, sim.DefaultAccountID, "210987654321", 1)
			r.TargetGroupARN = r.From.TargetGroupARN
		}},
		{"another type", "From.TargetType", true, []string{"DescribeTargetGroups"}, func(_ *cutover.Request, e *cutover.Env) {
			e.ELBv2 = retyped{ELBv2API: e.ELBv2, to: elbv2types.TargetTypeEnumInstance}
		}},
		{"another VPC", "From.VPCID", true, []string{"DescribeTargetGroups"}, func(r *cutover.Request, _ *cutover.Env) { r.From.VPCID = "vpc-0123abcd" }},
		{"another cluster", "From.ClusterName", false, []string{"DescribeTargetGroups"}, func(_ *cutover.Request, e *cutover.Env) { e.ClusterName = "other" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, env := fresh(), s.env
			tt.edit(&req, &env)
			s.w.ELBv2().ResetCounts()
			before := worldState(t, s.w)
			_, err := cutover.PlanCutover(t.Context(), env, req)
			var ie *cutover.InputError
			if !errors.As(err, &ie) || ie.Field != tt.field || errors.Is(err, cutover.ErrStaleHandoff) != tt.stale {
				t.Fatalf("PlanCutover: %v, want an *InputError on %s (stale: %v)", err, tt.field, tt.stale)
			}
			var ops []string
			for _, c := range s.w.ELBv2().Calls() {
				ops = append(ops, c.Op)
			}
			if d := cmp.Diff(tt.calls, ops); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(before, worldState(t, s.w)); d != "" {
				t.Errorf("the world changed:\n%s", d)
			}
		})
	}

	t.Run("count drift", func(t *testing.T) {
		// A ghost joins after diagnose: a pod's address on the legacy
		// NodePort, which the pod does not serve (as in
		// TestPlanDeregistersAReusedGhost).
		l := s.w.Legacy()
		var pods corev1.PodList
		if err := s.w.Client().List(t.Context(), &pods, client.InNamespace(l.Namespace)); err != nil || len(pods.Items) == 0 || pods.Items[0].Status.PodIP == "" {
			t.Fatalf("pods: %v, %d", err, len(pods.Items))
		}
		if _, err := s.w.Model().RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(l.TargetGroupARN),
			Targets: []elbv2types.TargetDescription{{Id: aws.String(pods.Items[0].Status.PodIP), Port: aws.Int32(l.NodePort)}}}); err != nil {
			t.Fatal(err)
		}
		p, err := cutover.PlanCutover(t.Context(), s.env, fresh())
		if err != nil {
			t.Fatal(err)
		}
		at := h.Observed.At.UTC().Format(time.RFC3339)
		var found string
		for _, w := range p.Warnings {
			if strings.Contains(w, "since diagnose saw it at "+at) {
				found = w
			}
		}
		t.Log(found)
		for _, want := range []string{
			"targets " + strconv.Itoa(h.Observed.Targets) + " then, " + strconv.Itoa(h.Observed.Targets+1) + " now",
			"ghost targets " + strconv.Itoa(h.Observed.Ghosts) + " then, " + strconv.Itoa(h.Observed.Ghosts+1) + " now",
		} {
			if !strings.Contains(found, want) {
				t.Errorf("warnings %q: want one at %s saying %q", p.Warnings, at, want)
			}
		}
	})
}
