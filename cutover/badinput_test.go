package cutover_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/tgbind"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// worldState lists what a cutover could change: every target group with
// its health check, tags and targets, the listener's route, the bindings,
// ConfigMaps and Leases of the namespace, and the nodes' Karpenter
// annotations (the disruption hold's).
func worldState(t *testing.T, w *sim.World) string {
	t.Helper()
	var out []string
	m := w.Model()
	for _, arn := range m.TargetGroupARNs() {
		tg, err := m.DescribeTargetGroups(&elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tg.TargetGroups[0])
		out = append(out, string(b))
		tags, _ := m.DescribeTags(&elbv2.DescribeTagsInput{ResourceArns: []string{arn}})
		b, _ = json.Marshal(tags.TagDescriptions)
		out = append(out, string(b))
		for _, v := range m.Targets(arn) {
			out = append(out, arn+" "+v.String())
		}
	}
	r, err := m.Route(w.Legacy().ListenerARN, "")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	out = append(out, string(b))
	ns := client.InNamespace(w.Legacy().Namespace)
	var tgbs v1beta1.TargetGroupBindingList
	var cms corev1.ConfigMapList
	var leases coordinationv1.LeaseList
	for _, l := range []client.ObjectList{&tgbs, &cms, &leases} {
		if err := w.Client().List(context.Background(), l, ns); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range tgbs.Items {
		out = append(out, "binding "+o.Name+" "+o.ResourceVersion)
	}
	for _, o := range cms.Items {
		out = append(out, "configmap "+o.Name+" "+o.ResourceVersion)
	}
	var nodes corev1.NodeList
	if err := w.Client().List(context.Background(), &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		out = append(out, "node "+n.Name+" "+n.Annotations[cutover.AnnotationDoNotDisrupt]+" "+n.Annotations[cutover.AnnotationDisruptionHold])
	}
	for _, o := range leases.Items {
		out = append(out, "lease "+o.Name+" "+o.ResourceVersion)
	}
	sort.Strings(out)
	b, _ = json.MarshalIndent(out, "", " ")
	return string(b)
}

// TestBadInputChangesNothing: each bad input is a typed error, and the
// target group, the listener and the cluster are listed unchanged
// afterwards.
func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel() // a world of its own
	const otherVPC = "vpc-0fedcba9876543210"
	tests := []struct {
		name     string
		instance bool
		// tag tags the legacy target group before planning.
		tag    map[string]string
		env    func(*cutover.Env)
		req    func(*cutover.Request)
		check  func(error) bool
		noCall bool // not one AWS call may be made
	}{
		{name: "load balancer ARN as the target group", req: func(r *cutover.Request) {
			r.TargetGroupARN = arntest.LB(bogusLB)
		},
			check: func(err error) bool {
				return cutover.IsInvalidInput(err) && errors.Is(err, tgmigrate.ErrARNResourceType)
			}, noCall: true},
		{name: "hand-made target group ARN", req: func(r *cutover.Request) { r.TargetGroupARN = arntest.HandMadeTG(r.TargetGroupARN.Raw) },
			check: func(err error) bool { return cutover.IsInvalidInput(err) && errors.Is(err, tgmigrate.ErrARNMalformed) }, noCall: true},
		{name: "no target group ARN", req: func(r *cutover.Request) { r.TargetGroupARN = tgmigrate.ARN{} },
			check: func(err error) bool { return cutover.IsInvalidInput(err) && errors.Is(err, tgmigrate.ErrInvalidARN) }, noCall: true},
		{name: "missing Service", req: func(r *cutover.Request) { r.Service = "" },
			check: cutover.IsInvalidInput, noCall: true},
		{name: "Service that does not exist", req: func(r *cutover.Request) { r.Service = "nope" },
			check: func(err error) bool { return cutover.IsInvalidInput(err) && errors.Is(err, tgbind.ErrServiceNotFound) }},
		{name: "port the Service lacks", req: func(r *cutover.Request) { r.Port = intstr.FromString("grpc") },
			check: func(err error) bool { return errors.Is(err, tgbind.ErrPortNotFound) }},
		{name: "target group that does not exist", req: func(r *cutover.Request) {
			r.TargetGroupARN = arntest.TG("arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/ghost/0123456789abcdef")
		}, check: func(err error) bool { return errors.Is(err, tgmigrate.ErrNotFound) }},
		{name: "instance target group forced in-place", instance: true, req: func(r *cutover.Request) { r.Strategy = cutover.StrategyInPlace },
			check: cutover.IsStrategy},
		{name: "owned by another LBC stack", tag: map[string]string{cutover.TagIngressStack: "shop/web", cutover.TagLBCCluster: "prod"},
			check: func(err error) bool { return cutover.IsGuard(err) && errors.Is(err, cutover.ErrForeignOwner) }},
		{name: "owned by another cluster", tag: map[string]string{cutover.TagLBCCluster: "staging"}, env: func(e *cutover.Env) { e.ClusterName = "prod" },
			check: func(err error) bool {
				var g *cutover.GuardError
				return errors.As(err, &g) && g.Guard == cutover.GuardOwner && g.Force == cutover.ForceForeignOwner && !g.TargetGroupARN.IsZero()
			}},
		{name: "in another VPC", env: func(e *cutover.Env) { e.ClusterVPCID = otherVPC },
			check: func(err error) bool { return errors.Is(err, cutover.ErrVPCMismatch) }},
		{name: "in another account", req: func(r *cutover.Request) { r.AccountID = "210987654321" },
			check: func(err error) bool { return errors.Is(err, cutover.ErrAccountMismatch) }, noCall: true},
		{name: "in another region", req: func(r *cutover.Request) { r.Region = "eu-west-1" },
			check: func(err error) bool { return errors.Is(err, cutover.ErrAccountMismatch) }, noCall: true},
		{name: "floor above the ready endpoints", req: func(r *cutover.Request) { r.MinHealthy = 25 },
			check: cutover.IsInvalidInput},
		{name: "malformed expected Region", req: func(r *cutover.Request) { r.Region = "Ireland" },
			check: inputField("Region"), noCall: true},
		{name: "negative floor", req: func(r *cutover.Request) { r.MinHealthy = -4 },
			check: inputField("MinHealthy"), noCall: true},
		{name: "malformed expected account", req: func(r *cutover.Request) { r.AccountID = "12" },
			check: inputField("AccountID"), noCall: true},
		{name: "weights that do not end at 100", req: func(r *cutover.Request) { r.WeightSteps = []int32{10, 50} },
			check: cutover.IsInvalidInput, noCall: true},
		{name: "unknown force", req: func(r *cutover.Request) { r.Force = []cutover.Force{"everything"} },
			check: cutover.IsInvalidInput, noCall: true},
		{name: "malformed cluster VPC", env: func(e *cutover.Env) { e.ClusterVPCID = "vpc-nope" },
			check: cutover.IsInvalidInput, noCall: true},
		{name: "no ELBv2 client", env: func(e *cutover.Env) { e.ELBv2 = nil },
			check: cutover.IsInvalidInput, noCall: true},
		{name: "new-target checks out of range", req: func(r *cutover.Request) { r.Assumptions.NewTargetChecks = 11 },
			check: inputField("Assumptions.NewTargetChecks"), noCall: true},
		{name: "registration delay above a minute", req: func(r *cutover.Request) { r.Assumptions.RegistrationDelay = 2 * time.Minute },
			check: inputField("Assumptions.RegistrationDelay"), noCall: true},
		{name: "deregistration lag above an hour", req: func(r *cutover.Request) { r.Assumptions.DeregistrationLag = 2 * time.Hour },
			check: inputField("Assumptions.DeregistrationLag"), noCall: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallWorld(112)
			if tt.instance {
				cfg.Legacy.TargetType = "instance"
			}
			s := newScenario(t, cfg)
			if tt.tag != nil {
				var tags []elbv2types.Tag
				for k, v := range tt.tag {
					tags = append(tags, elbv2types.Tag{Key: aws.String(k), Value: aws.String(v)})
				}
				if _, err := s.w.Model().AddTags(&elbv2.AddTagsInput{ResourceArns: []string{s.w.Legacy().TargetGroupARN}, Tags: tags}); err != nil {
					t.Fatal(err)
				}
			}
			env := s.env
			reads := &countingReads{Client: s.w.Client()}
			env.Client = reads
			if tt.env != nil {
				tt.env(&env)
			}
			req := s.request()
			if tt.req != nil {
				tt.req(&req)
			}
			before := worldState(t, s.w)
			s.w.ELBv2().ResetCounts()
			p, err := cutover.PlanCutover(t.Context(), env, req)
			if err == nil || !tt.check(err) || p != nil {
				t.Fatalf("PlanCutover: %v (plan %v): not the expected typed error", err, p != nil)
			}
			t.Logf("%v", err)
			// Request.Validate is PlanCutover's check of the request:
			// the same error for a request refused before any call, none
			// for one refused later or for its environment.
			verr := req.Validate()
			switch {
			case tt.noCall && tt.req != nil && cutover.IsInvalidInput(err):
				if verr == nil || verr.Error() != err.Error() {
					t.Errorf("Request.Validate() = %v, want PlanCutover's %v", verr, err)
				}
			case verr != nil:
				t.Errorf("Request.Validate() = %v, want nil: PlanCutover refused the request after its input check", verr)
			}
			if d := cmp.Diff(before, worldState(t, s.w)); d != "" {
				t.Errorf("the world changed (-before +after):\n%s", d)
			}
			if n := mutatingOps(s.w.ELBv2().Counts()); n != 0 {
				t.Errorf("%d mutating calls", n)
			}
			if calls := s.w.ELBv2().Calls(); tt.noCall && len(calls) != 0 {
				t.Errorf("%d AWS calls, want none before validation: %+v", len(calls), calls)
			}
			if tt.noCall && reads.n != 0 {
				t.Errorf("%d Kubernetes reads, want none before validation", reads.n)
			}
		})
	}
}

// TestRequestValidateTargetGroupLast: Request.Validate checks the target
// group last, so that a caller that resolves a target group name later
// checks every other field first with the zero ARN.
func TestRequestValidateTargetGroupLast(t *testing.T) {
	t.Parallel()
	good := cutover.Request{Namespace: "shop", Service: "web", MinHealthy: 2, AccountID: "123456789012", Region: "eu-west-1"}
	tests := []struct {
		name  string
		edit  func(*cutover.Request)
		field string
	}{
		{"every other field good", func(*cutover.Request) {}, "TargetGroupARN"},
		{"negative floor", func(r *cutover.Request) { r.MinHealthy = -1 }, "MinHealthy"},
		{"malformed account", func(r *cutover.Request) { r.AccountID = "12" }, "AccountID"},
		{"malformed Region", func(r *cutover.Request) { r.Region = "Ireland" }, "Region"},
		{"no Service", func(r *cutover.Request) { r.Service = "" }, "Service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := good
			tt.edit(&req)
			err := req.Validate()
			if !inputField(tt.field)(err) {
				t.Fatalf("Validate() = %v, want an *InputError on %s", err, tt.field)
			}
			var in *cutover.InputError
			if errors.As(err, &in); tt.field == "TargetGroupARN" && in.Reason != "empty" {
				t.Errorf("Reason = %q, want empty", in.Reason)
			}
		})
	}
	req := good
	req.TargetGroupARN = arntest.TG("arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/legacy/0123456789abcdef")
	if err := req.Validate(); err != nil {
		t.Errorf("Validate() of a good request = %v", err)
	}
}

// countingReads counts the Kubernetes reads made through it.
type countingReads struct {
	client.Client
	n int
}

func (c *countingReads) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c.n++
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *countingReads) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.n++
	return c.Client.List(ctx, list, opts...)
}

// inputField returns a check that err is an *InputError naming field.
func inputField(field string) func(error) bool {
	return func(err error) bool {
		var in *cutover.InputError
		return errors.As(err, &in) && in.Field == field && cutover.IsInvalidInput(err)
	}
}

// TestGuardsForced: each guard yields to its named override, and the plan
// records it.
func TestGuardsForced(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(113))
	if _, err := s.w.Model().AddTags(&elbv2.AddTagsInput{ResourceArns: []string{s.w.Legacy().TargetGroupARN},
		Tags: []elbv2types.Tag{{Key: aws.String(cutover.TagServiceStack), Value: aws.String("shop/web")}}}); err != nil {
		t.Fatal(err)
	}
	env := s.env
	env.ClusterVPCID = "vpc-0fedcba9876543210"
	req := s.request()
	req.AccountID = "210987654321"
	req.Force = []cutover.Force{cutover.ForceForeignOwner, cutover.ForceVPCMismatch, cutover.ForceAccountMismatch}
	p, err := cutover.PlanCutover(t.Context(), env, req)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]cutover.GuardStatus{}
	for _, g := range p.Guards {
		got[g.ID] = g.Status
	}
	want := map[string]cutover.GuardStatus{cutover.GuardOwner: cutover.GuardForced, cutover.GuardVPC: cutover.GuardForced, cutover.GuardAccount: cutover.GuardForced}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("guards (-want +got):\n%s", d)
	}
}

// TestExecuteRefusesBadPlans: a nil plan, an edited plan, and a plan whose
// guard fails at execution time (the target group changed hands since)
// are refused before any change.
func TestExecuteRefusesBadPlans(t *testing.T) {
	t.Parallel() // a world of its own
	tests := []struct {
		name  string
		edit  func(*scenario, *cutover.Plan) *cutover.Plan
		check func(error) bool
	}{
		{"nil plan", func(*scenario, *cutover.Plan) *cutover.Plan { return nil }, cutover.IsInvalidInput},
		{"edited plan", func(_ *scenario, p *cutover.Plan) *cutover.Plan { p.Floor = 1; return p }, cutover.IsInvalidInput},
		{"unknown schema version", func(_ *scenario, p *cutover.Plan) *cutover.Plan { p.SchemaVersion = 2; return p }, cutover.IsInvalidInput},
		{"assumptions out of range, the digest made to match", func(s *scenario, p *cutover.Plan) *cutover.Plan {
			p.Request.Assumptions.NewTargetChecks = 12
			p.Digest = ""
			b, err := json.Marshal(p)
			if err != nil {
				s.t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			p.Digest = "sha256:" + hex.EncodeToString(sum[:])
			return p
		}, func(err error) bool {
			return cutover.IsInvalidInput(err) && strings.Contains(err.Error(), "NewTargetChecks")
		}},
		{"tagged by another stack since the plan", func(s *scenario, p *cutover.Plan) *cutover.Plan {
			if _, err := s.w.Model().AddTags(&elbv2.AddTagsInput{ResourceArns: []string{p.TargetGroup.ARN.Raw},
				Tags: []elbv2types.Tag{{Key: aws.String(cutover.TagIngressStack), Value: aws.String("other")}}}); err != nil {
				s.t.Fatal(err)
			}
			return p
		}, func(err error) bool { return errors.Is(err, cutover.ErrForeignOwner) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScenario(t, smallWorld(114))
			p := tt.edit(s, s.plan(nil))
			before := worldState(t, s.w)
			s.w.ELBv2().ResetCounts()
			_, err := cutover.Execute(t.Context(), s.env, p, simPods)
			if !tt.check(err) {
				t.Fatalf("Execute: %v: not the expected typed error", err)
			}
			if d := cmp.Diff(before, worldState(t, s.w)); d != "" {
				t.Errorf("the world changed (-before +after):\n%s", d)
			}
			if n := mutatingOps(s.w.ELBv2().Counts()); n != 0 {
				t.Errorf("%d mutating calls", n)
			}
		})
	}
}
