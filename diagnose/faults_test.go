package diagnose

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	"go.uber.org/mock/gomock"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/read"
	"github.com/qstools/tgmigrate/internal/vclock"
)

func (r *Report) errorFor(resource string) *ResourceError {
	for i := range r.Errors {
		if r.Errors[i].Resource == resource {
			return &r.Errors[i]
		}
	}
	return nil
}

func threeGroups() world {
	w := baseWorld()
	for _, n := range []string{"alpha", "beta"} {
		w.TargetGroups = append(w.TargetGroups, tgFix{Name: n, Port: 30080, Targets: []targetFix{{ID: "10.0.3.10", Port: 30080}}})
	}
	return w
}

func TestUnknownARNIsIsolated(t *testing.T) {
	w := threeGroups()
	ghost := strings.Replace(w.tgARN("alpha"), "alpha", "gone", 1)
	h := newHarness(t, w)
	// [alpha beta gone legacy-web] → NotFound → [alpha beta] ok, [gone legacy-web] → NotFound → [gone] NotFound, [legacy-web] ok.
	h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Not(gomock.Cond(func(in *elbv2.DescribeTargetGroupsInput) bool {
		return in.LoadBalancerArn != nil
	})), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(5)
	expectRest(h.elb, w, w.TargetGroups)
	expectLBMembers(h.elb, w, "edge") // legacy-web's cutover overlap: edge's other target groups
	rep, err := h.run(t, Scope{TargetGroupARNs: arntest.TGs(w.tgARN("legacy-web"), w.tgARN("alpha"), w.tgARN("beta"), ghost)})
	if err != nil {
		t.Fatalf("Diagnose() = %v, want partial results and no error", err)
	}
	if len(rep.TargetGroups) != 3 {
		t.Errorf("scanned %d target groups, want 3", len(rep.TargetGroups))
	}
	e := rep.errorFor(ghost)
	if e == nil || e.Category != "not-found" || e.Code != "TargetGroupNotFound" || e.Kind != KindTargetGroup || !errors.Is(e, awserr.ErrNotFound) {
		t.Fatalf("error for the unknown ARN = %+v, errors %+v", e, rep.Errors)
	}
}

func TestForeignAccounts(t *testing.T) {
	w := baseWorld()
	w.TargetGroups = append(w.TargetGroups, tgFix{Name: "theirs", Account: "999999999999", Port: 30080, Targets: []targetFix{{ID: "10.0.3.10", Port: 30080}}})
	h := newHarness(t, w)
	// The listing returns a target group whose ARN names another account:
	// it is reported, and gets no tags or health call.
	expectAll(h.elb, w)
	otherRegion := strings.Replace(w.tgARN("legacy-web"), testRegion, "us-east-1", 1)
	// A load balancer's ARN and a hand-made one in the scope are refused
	// each as an invalid ARN; a malformed string cannot be in it.
	handMade := strings.Replace(w.tgARN("legacy-web"), "legacy-web", "hand-made", 1)
	scope := append(arntest.TGs(otherRegion), arntest.LB(w.lbARN("edge")), arntest.HandMadeTG(handMade))
	rep, err := h.run(t, Scope{All: true, TargetGroupARNs: scope})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.TargetGroups) != 1 || rep.TargetGroups[0].Name != "legacy-web" {
		t.Errorf("target groups = %+v", rep.TargetGroups)
	}
	for resource, cat := range map[string]string{
		w.tgARN("theirs"): "wrong-account",
		otherRegion:       "wrong-region",
		w.lbARN("edge"):   "invalid-arn",
		handMade:          "invalid-arn",
	} {
		e := rep.errorFor(resource)
		if e == nil || e.Category != cat {
			t.Errorf("error for %s = %+v, want category %s", resource, e, cat)
		}
	}
	if e := rep.errorFor(otherRegion); e == nil || !errors.Is(e, awserr.ErrWrongRegion) || !strings.Contains(e.Message, "no ELBv2 client for account 123456789012 in us-east-1") {
		t.Errorf("error = %+v", e)
	}
}

func TestUnknownLoadBalancerAndName(t *testing.T) {
	w := baseWorld()
	h := newHarness(t, w)
	lb := strings.Replace(w.lbARN("edge"), "edge", "nope", 1)
	// The load balancer: 1 call. The names: [legacy-web missing] → NotFound → each alone.
	h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(4)
	expectRest(h.elb, w, w.TargetGroups)
	expectLBMembers(h.elb, w, "edge") // legacy-web's cutover overlap: edge's other target groups
	rep, err := h.run(t, Scope{LoadBalancerARNs: arntest.LBs(lb), TargetGroupNames: []string{"legacy-web", "missing", "-bad-"}})
	if err != nil {
		t.Fatal(err)
	}
	for resource, cat := range map[string]string{lb: "not-found", "missing": "not-found", "-bad-": "invalid-input"} {
		if e := rep.errorFor(resource); e == nil || e.Category != cat {
			t.Errorf("error for %s = %+v, want %s", resource, e, cat)
		}
	}
	if len(rep.TargetGroups) != 1 {
		t.Errorf("target groups = %d", len(rep.TargetGroups))
	}
}

func TestNothingScanned(t *testing.T) {
	w := baseWorld()
	h := newHarness(t, w)
	h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
	gone := strings.Replace(w.tgARN("legacy-web"), "legacy-web", "gone", 1)
	rep, err := h.run(t, Scope{TargetGroupARNs: arntest.TGs(gone)})
	if !errors.Is(err, ErrNothingScanned) || !errors.Is(err, awserr.ErrNotFound) {
		t.Fatalf("Diagnose() = %v, want ErrNothingScanned and ErrNotFound", err)
	}
	if rep == nil || len(rep.Errors) != 1 || !strings.Contains(err.Error(), gone) {
		t.Fatalf("report = %+v, err = %v: want the report and the ARN named", rep, err)
	}
}

func TestThrottling(t *testing.T) {
	w := threeGroups()
	h := newHarness(t, w)
	throttle := &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
	m := h.elb
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
	m.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, throttle).Times(1)
	m.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTags).Times(1)
	health := map[string][]error{
		w.tgARN("alpha"): {throttle, throttle},                                         // then succeeds
		w.tgARN("beta"):  {throttle, throttle, throttle, throttle, throttle, throttle}, // outlasts 6 attempts
	}
	calls := map[string]int{}
	m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
			arn := aws.ToString(in.TargetGroupArn)
			calls[arn]++
			if errs := health[arn]; calls[arn] <= len(errs) {
				return nil, errs[calls[arn]-1]
			}
			tg, _ := w.tgByARN(arn)
			return w.health(tg), nil
		}).Times(1 + 3 + 6)
	m.EXPECT().DescribeListeners(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.listeners(w.LoadBalancers[0]), nil).Times(1)
	m.EXPECT().DescribeRules(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.rules(w.LoadBalancers[0], 0), nil).Times(1)

	rep, err := h.run(t, Scope{All: true}, WithConcurrency(1), WithRateLimit(1000, 1000))
	if err != nil {
		t.Fatalf("Diagnose() = %v", err)
	}
	if rep.tg("alpha").Error != nil || rep.tg("legacy-web").Error != nil {
		t.Errorf("alpha or legacy-web failed: %+v %+v", rep.tg("alpha").Error, rep.tg("legacy-web").Error)
	}
	beta := rep.tg("beta")
	if beta.Error == nil || beta.Error.Category != "throttled" || !errors.Is(beta.Error, awserr.ErrThrottled) || beta.Error.Op != "DescribeTargetHealth" {
		t.Fatalf("beta error = %+v", beta.Error)
	}
	if rep.Accounts[0].Retries != 1+2+5 {
		t.Errorf("retries = %d, want 8", rep.Accounts[0].Retries)
	}
	// Backoff waited on the virtual clock: 0.5s for tags, 0.5+1 for alpha,
	// 0.5+1+2+4+8 for beta; and the rate limiter hardly at all.
	if got := h.clock.Since(vclock.Epoch); got < 17*time.Second || got > 18*time.Second {
		t.Errorf("virtual time = %v, want about 17s of backoff", got)
	}
}

func TestTagsDenied(t *testing.T) {
	w := baseWorld()
	denied := &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized to perform elasticloadbalancing:DescribeTags"}
	t.Run("no tag scope: scanned, owner from bindings, no unmanaged claim", func(t *testing.T) {
		h := newHarness(t, w)
		h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
		h.elb.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, denied).Times(1)
		h.elb.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.health(w.TargetGroups[0]), nil).Times(1)
		h.elb.EXPECT().DescribeListeners(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.listeners(w.LoadBalancers[0]), nil).Times(1)
		h.elb.EXPECT().DescribeRules(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.rules(w.LoadBalancers[0], 0), nil).Times(1)
		rep, err := h.run(t, Scope{All: true})
		if err != nil {
			t.Fatalf("Diagnose() = %v", err)
		}
		tg := rep.tg("legacy-web")
		if tg.Error == nil || tg.Error.Category != "access-denied" || !errors.Is(tg.Error, awserr.ErrAccessDenied) {
			t.Fatalf("error = %+v", tg.Error)
		}
		if tg.finding(CodeStaticNodeTarget) == nil || tg.finding(CodeUnmanagedTargetGroup) != nil {
			t.Errorf("findings = %v", codes(rep))
		}
	})
	t.Run("tag scope: membership unknown, nothing scanned", func(t *testing.T) {
		h := newHarness(t, w)
		h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
		h.elb.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, denied).Times(1)
		rep, err := h.run(t, Scope{Tags: map[string]string{"team": "web"}})
		if !errors.Is(err, ErrNothingScanned) || !errors.Is(err, awserr.ErrAccessDenied) || len(rep.TargetGroups) != 0 {
			t.Fatalf("Diagnose() = %v, target groups %d", err, len(rep.TargetGroups))
		}
	})
}

func TestClusterFaults(t *testing.T) {
	t.Run("no TargetGroupBinding CRD", func(t *testing.T) {
		w := baseWorld()
		w.Clusters[0].NoBindingCRD = true
		h := newHarness(t, w)
		expectAll(h.elb, w)
		rep, err := h.run(t, Scope{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.Clusters[0]; c.BindingCRD || !c.Read || len(c.Notes) != 1 || len(rep.Errors) != 0 {
			t.Errorf("cluster = %+v, errors %+v", c, rep.Errors)
		}
		if rep.tg("legacy-web").Owner.Kind != OwnerUnmanaged {
			t.Errorf("owner = %+v", rep.tg("legacy-web").Owner)
		}
	})
	t.Run("pods forbidden: no ghost is called", func(t *testing.T) {
		w := baseWorld()
		w.tgFix("legacy-web").Targets = append(w.tgFix("legacy-web").Targets, targetFix{ID: "10.0.9.99", Port: 30080})
		w.Clusters[0].ListErr = map[string]error{"pods": apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("rbac"))}
		h := newHarness(t, w)
		expectAll(h.elb, w)
		rep, err := h.run(t, Scope{All: true})
		if err != nil {
			t.Fatal(err)
		}
		e := rep.errorFor("prod")
		if e == nil || e.Category != "forbidden" || e.Op != "list pods" || e.Cluster != "prod" {
			t.Fatalf("cluster error = %+v", e)
		}
		if rep.Clusters[0].Read {
			t.Error("cluster reported as read")
		}
		// The nodes were listed: the node targets are still known, but an
		// address no node holds may be a pod's, so it is no ghost.
		tg := rep.tg("legacy-web")
		if tg.Counts.ByClass[ClassGhost] != 0 || tg.Counts.ByClass[ClassNode] != 2 || tg.Counts.ByClass[ClassForeign] != 1 || tg.finding(CodeGhostTarget) != nil {
			t.Errorf("counts = %+v, findings %v", tg.Counts, codes(rep))
		}
		for _, tr := range tg.Targets {
			if tr.Class == ClassForeign && !strings.Contains(tr.Note, "the pods of cluster prod could not be listed") {
				t.Errorf("note = %q", tr.Note)
			}
		}
		if len(tg.Unknowns) != 1 || tg.Unknowns[0] != (Unknown{Cluster: "prod", Source: "pods", Category: "forbidden", Effect: read.Effect(ListPods)}) {
			t.Errorf("unknowns = %+v", tg.Unknowns)
		}
		if tg.Owner.Kind != OwnerUnmanaged {
			t.Errorf("owner = %+v: the bindings were listed", tg.Owner)
		}
	})
	t.Run("NodeClaims forbidden: a note, the rest works", func(t *testing.T) {
		w := baseWorld()
		w.Clusters[0].ListErr = map[string]error{"nodeclaims": apierrors.NewForbidden(schema.GroupResource{Group: "karpenter.sh", Resource: "nodeclaims"}, "", errors.New("rbac"))}
		h := newHarness(t, w)
		expectAll(h.elb, w)
		rep, err := h.run(t, Scope{All: true})
		if err != nil || len(rep.Errors) != 0 {
			t.Fatalf("Diagnose() = %v, errors %+v", err, rep.Errors)
		}
		if c := rep.Clusters[0]; len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "nodeclaims not listed (forbidden)") {
			t.Errorf("notes = %v", c.Notes)
		}
		if rep.tg("legacy-web").finding(CodeKarpenterDisruptionRisk) == nil {
			t.Error("KarpenterDisruptionRisk missing: node labels alone must carry it")
		}
	})
	t.Run("a reader whose scheme lacks TargetGroupBinding", func(t *testing.T) {
		w := baseWorld()
		h := newHarness(t, w)
		h.src.Clusters[0].Reader = fake.NewClientBuilder().Build() // client-go scheme only
		expectAll(h.elb, w)
		rep, err := h.run(t, Scope{All: true})
		if err != nil {
			t.Fatal(err)
		}
		if c := rep.Clusters[0]; !c.BindingCRD || len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "tgbind/v1beta1.AddToScheme") {
			t.Errorf("cluster = %+v", c)
		}
		// A binding may own it: no UnmanagedTargetGroup, and the report
		// says why.
		tg := rep.tg("legacy-web")
		if f := tg.finding(CodeUnmanagedTargetGroup); f != nil {
			t.Errorf("unmanaged finding = %+v: its evidence is missing", f)
		}
		if tg.Owner.Kind != OwnerUnknown || !strings.Contains(tg.Owner.Reason, "TargetGroupBindings of cluster prod could not be read") {
			t.Errorf("owner = %+v", tg.Owner)
		}
		if len(tg.Unknowns) != 1 || tg.Unknowns[0].Source != "targetgroupbindings" || tg.Unknowns[0].Category != "not-registered" {
			t.Errorf("unknowns = %+v", tg.Unknowns)
		}
	})
}

func TestCancelledContext(t *testing.T) {
	t.Run("cancelled mid-scan", func(t *testing.T) {
		w := threeGroups()
		h := newHarness(t, w)
		ctx, cancel := context.WithCancelCause(t.Context())
		stop := errors.New("operator pressed ctrl-c")
		h.elb.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
		h.elb.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTags).Times(1)
		h.elb.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
			func(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
				cancel(stop)
				return w.health(w.TargetGroups[0]), nil
			}).Times(1)
		rep, err := Diagnose(ctx, h.src, Scope{All: true}, WithClock(h.clock), WithConcurrency(1))
		if !errors.Is(err, stop) {
			t.Fatalf("Diagnose() = %v, want the context's cause", err)
		}
		if rep == nil || len(rep.TargetGroups) != 3 {
			t.Fatalf("report = %+v, want the three target groups", rep)
		}
		scanned, cancelled := 0, 0
		for _, tg := range rep.TargetGroups {
			switch {
			case tg.Error == nil:
				scanned++
			case errors.Is(tg.Error, stop):
				cancelled++
			}
		}
		if scanned != 1 || cancelled != 2 {
			t.Errorf("scanned %d, cancelled %d; want 1 and 2", scanned, cancelled)
		}
	})
	t.Run("cancelled before the call", func(t *testing.T) {
		w := baseWorld()
		h := newHarness(t, w) // no expectations: any AWS call fails the test
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		rep, err := Diagnose(ctx, h.src, Scope{All: true}, WithClock(h.clock))
		if !errors.Is(err, context.Canceled) || rep == nil {
			t.Fatalf("Diagnose() = %v, %v", rep, err)
		}
		for name, counter := range h.lists {
			if n := len(counter.get()); n != 0 {
				t.Errorf("cluster %s listed %d kinds", name, n)
			}
		}
	})
}

func TestInvalidInput(t *testing.T) {
	w := baseWorld()
	h := newHarness(t, w) // no expectations: any AWS call fails the test
	good := h.src
	tests := []struct {
		name  string
		src   func(s Sources) Sources
		scope Scope
		opts  []Option
		field string
	}{
		{"no accounts", func(s Sources) Sources { s.Accounts = nil; return s }, Scope{All: true}, nil, "Sources.Accounts"},
		{"bad account ID", func(s Sources) Sources {
			s.Accounts = []Account{{ID: "12", Region: testRegion, ELBv2: h.elb}}
			return s
		}, Scope{All: true}, nil, "Sources.Accounts[0].ID"},
		{"bad region", func(s Sources) Sources {
			s.Accounts = []Account{{ID: testAccount, Region: "Ireland", ELBv2: h.elb}}
			return s
		}, Scope{All: true}, nil, "Sources.Accounts[0].Region"},
		{"nil client", func(s Sources) Sources { s.Accounts = []Account{{ID: testAccount, Region: testRegion}}; return s }, Scope{All: true}, nil, "Sources.Accounts[0].ELBv2"},
		{"duplicate account", func(s Sources) Sources { s.Accounts = append(s.Accounts, s.Accounts[0]); return s }, Scope{All: true}, nil, "Sources.Accounts[1]"},
		{"no clusters", func(s Sources) Sources { s.Clusters = nil; return s }, Scope{All: true}, nil, "Sources.Clusters"},
		{"nil reader", func(s Sources) Sources { s.Clusters = []Cluster{{Name: "x"}}; return s }, Scope{All: true}, nil, "Sources.Clusters[0].Reader"},
		{"duplicate cluster", func(s Sources) Sources { s.Clusters = append(s.Clusters, s.Clusters[0]); return s }, Scope{All: true}, nil, "Sources.Clusters[1].Name"},
		{"bad VPC", func(s Sources) Sources {
			s.Clusters = []Cluster{{Name: "x", Reader: s.Clusters[0].Reader, VPCID: "vpc-1"}}
			return s
		}, Scope{All: true}, nil, "Sources.Clusters[0].VPCID"},
		{"bad CIDR", func(s Sources) Sources {
			s.Clusters = []Cluster{{Name: "x", Reader: s.Clusters[0].Reader, CIDRs: []string{"10.0.0.0/33"}}}
			return s
		}, Scope{All: true}, nil, "Sources.Clusters[0].CIDRs[0]"},
		{"empty scope", func(s Sources) Sources { return s }, Scope{}, nil, "Scope"},
		{"empty tag key", func(s Sources) Sources { return s }, Scope{Tags: map[string]string{"": "x"}}, nil, "Scope.Tags"},
		{"zero concurrency", func(s Sources) Sources { return s }, Scope{All: true}, []Option{WithConcurrency(0)}, "WithConcurrency"},
		{"negative rate", func(s Sources) Sources { return s }, Scope{All: true}, []Option{WithRateLimit(-1, 1)}, "WithRateLimit"},
		{"zero burst", func(s Sources) Sources { return s }, Scope{All: true}, []Option{WithRateLimit(5, 0)}, "WithRateLimit"},
		{"zero attempts", func(s Sources) Sources { return s }, Scope{All: true}, []Option{WithMaxAttempts(0)}, "WithMaxAttempts"},
		{"nil clock", func(s Sources) Sources { return s }, Scope{All: true}, []Option{WithClock(nil)}, "WithClock"},
		{"negative page size", func(s Sources) Sources { return s }, Scope{All: true}, []Option{WithListPageSize(-1)}, "WithListPageSize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Diagnose(t.Context(), tt.src(good), tt.scope, tt.opts...)
			var ie *InputError
			if !errors.As(err, &ie) || !IsInvalidInput(err) || ie.Field != tt.field || rep != nil {
				t.Fatalf("Diagnose() = %v, %v; want an *InputError on %s and no report", rep, err, tt.field)
			}
			if !strings.HasPrefix(err.Error(), "diagnose: invalid input: "+tt.field) {
				t.Errorf("message %q", err.Error())
			}
			if verr := Validate(tt.src(good), tt.scope, tt.opts...); verr == nil || verr.Error() != err.Error() {
				t.Errorf("Validate() = %v, want Diagnose's %v", verr, err)
			}
			// ValidateScope refuses the scope and the options as Diagnose
			// does, and knows nothing of the sources.
			serr := ValidateScope(tt.scope, tt.opts...)
			if strings.HasPrefix(tt.field, "Sources.") {
				if serr != nil {
					t.Errorf("ValidateScope() = %v, want nil: the sources are not its to check", serr)
				}
			} else if serr == nil || serr.Error() != err.Error() || !IsInvalidInput(serr) {
				t.Errorf("ValidateScope() = %v, want Diagnose's %v", serr, err)
			}
		})
	}
	for name, counter := range h.lists {
		if n := len(counter.get()); n != 0 {
			t.Errorf("cluster %s was listed", name)
		}
	}
}
