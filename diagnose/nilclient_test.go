package diagnose_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/servicequotas"
	"github.com/go-logr/logr/funcr"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/vclock"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// The robustness tests (this file, errors_test.go and fuzz_test.go) share
// one account, one VPC, one ALB and these helpers.
const (
	robustAccount = "123456789012"
	robustRegion  = "eu-west-1"
	robustVPC     = "vpc-0a1b2c3d4e5f60718"
	robustALB     = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/0123456789abcdef"
	robustLstn    = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web/0123456789abcdef/fedcba9876543210"
)

func robustARN(name string) string {
	return fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:targetgroup/%s/0123456789abcdef", robustRegion, robustAccount, name)
}

// robustFleet is one ALB with a listener and one forward rule per target
// group, each target group of type ip with two healthy targets.
func robustFleet(names ...string) *fakeELBv2 {
	f := newFakeELBv2()
	var rules []elbv2types.Rule
	for i, n := range names {
		arn := robustARN(n)
		f.addTargetGroup(elbv2types.TargetGroup{
			TargetGroupArn: aws.String(arn), TargetGroupName: aws.String(n), TargetType: elbv2types.TargetTypeEnumIp,
			Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(8080), VpcId: aws.String(robustVPC), LoadBalancerArns: []string{robustALB},
		}, map[string]string{"team": n}, []elbv2types.TargetHealthDescription{
			{Target: &elbv2types.TargetDescription{Id: aws.String(fmt.Sprintf("10.1.%d.1", i)), Port: aws.Int32(8080)},
				TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy}},
			{Target: &elbv2types.TargetDescription{Id: aws.String(fmt.Sprintf("10.1.%d.2", i)), Port: aws.Int32(8080)},
				TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy}},
		})
		rules = append(rules, elbv2types.Rule{RuleArn: aws.String(fmt.Sprintf("%s-rule-%d", robustLstn, i)), Priority: aws.String(fmt.Sprint(i + 1)),
			Actions: []elbv2types.Action{{Type: elbv2types.ActionTypeEnumForward, TargetGroupArn: aws.String(arn)}}})
	}
	f.listeners[robustALB] = []elbv2types.Listener{{ListenerArn: aws.String(robustLstn), Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(80)}}
	f.rules[robustLstn] = rules
	f.index()
	return f
}

// robustCluster is a cluster with one node, 10.0.0.1, and nothing else.
func robustCluster(tb testing.TB) client.Reader {
	tb.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	if err := v1beta1.AddToScheme(s); err != nil {
		tb.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}}}}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(node).Build()
}

func robustSources(tb testing.TB, elb diagnose.ELBv2API) diagnose.Sources {
	return diagnose.Sources{
		Accounts: []diagnose.Account{{ID: robustAccount, Region: robustRegion, ELBv2: elb}},
		Clusters: []diagnose.Cluster{{Name: "prod", Reader: robustCluster(tb), VPCID: robustVPC}},
	}
}

// robustOptions run on a virtual clock with no rate limit, so that no
// retry and no token really waits.
func robustOptions(more ...diagnose.Option) []diagnose.Option {
	return append([]diagnose.Option{diagnose.WithClock(vclock.New(time.Time{})), diagnose.WithRateLimit(rate.Inf, 0), diagnose.WithMaxAttempts(2)}, more...)
}

// stubELBv2 answers every call with (nil, nil), and counts the calls. A nil
// *stubELBv2 is a typed nil: any call on it panics.
type stubELBv2 struct{ calls atomic.Int64 }

var _ diagnose.ELBv2API = (*stubELBv2)(nil)

func (s *stubELBv2) DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

func (s *stubELBv2) DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

func (s *stubELBv2) DescribeTargetGroupAttributes(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

func (s *stubELBv2) DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

func (s *stubELBv2) DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

func (s *stubELBv2) DescribeListeners(context.Context, *elbv2.DescribeListenersInput, ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

func (s *stubELBv2) DescribeRules(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	s.calls.Add(1)
	return nil, nil
}

// stubReader is a client.Reader that lists nothing. A nil *stubReader is a
// typed nil.
type stubReader struct{}

func (*stubReader) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return nil
}

func (*stubReader) List(context.Context, client.ObjectList, ...client.ListOption) error { return nil }

// faultyELBv2 is the in-memory fake with faults: the operations in nilOps
// answer (nil, nil), and the operation panicOp panics, for the resource
// panicOn only when it is set.
type faultyELBv2 struct {
	*fakeELBv2
	nilOps           map[string]bool
	panicOp, panicOn string
}

func (f *faultyELBv2) fault(op, resource string) bool {
	if op == f.panicOp && (f.panicOn == "" || f.panicOn == resource) {
		panic(fmt.Sprintf("%s %s: the client broke", op, resource))
	}
	return f.nilOps[op]
}

func (f *faultyELBv2) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	if f.fault("DescribeTargetGroups", "") {
		return nil, nil
	}
	return f.fakeELBv2.DescribeTargetGroups(ctx, in, o...)
}

func (f *faultyELBv2) DescribeTags(ctx context.Context, in *elbv2.DescribeTagsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	if f.fault("DescribeTags", "") {
		return nil, nil
	}
	return f.fakeELBv2.DescribeTags(ctx, in, o...)
}

func (f *faultyELBv2) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	if f.fault("DescribeTargetHealth", aws.ToString(in.TargetGroupArn)) {
		return nil, nil
	}
	return f.fakeELBv2.DescribeTargetHealth(ctx, in, o...)
}

func (f *faultyELBv2) DescribeListeners(ctx context.Context, in *elbv2.DescribeListenersInput, o ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error) {
	if f.fault("DescribeListeners", aws.ToString(in.LoadBalancerArn)) {
		return nil, nil
	}
	return f.fakeELBv2.DescribeListeners(ctx, in, o...)
}

func (f *faultyELBv2) DescribeRules(ctx context.Context, in *elbv2.DescribeRulesInput, o ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
	if f.fault("DescribeRules", aws.ToString(in.ListenerArn)) {
		return nil, nil
	}
	return f.fakeELBv2.DescribeRules(ctx, in, o...)
}

// panicReader's List panics: a broken cluster client.
type panicReader struct{ client.Reader }

func (panicReader) List(context.Context, client.ObjectList, ...client.ListOption) error {
	panic("the cluster client broke")
}

// errorFor returns the report's error about resource, or nil.
func errorFor(rep *diagnose.Report, resource string) *diagnose.ResourceError {
	for i := range rep.Errors {
		if rep.Errors[i].Resource == resource {
			return &rep.Errors[i]
		}
	}
	return nil
}

func TestNilClientsRefused(t *testing.T) {
	tests := []struct {
		name          string
		mod           func(*diagnose.Sources)
		field, reason string
	}{
		{
			name: "typed-nil *elasticloadbalancingv2.Client",
			mod: func(s *diagnose.Sources) {
				s.Accounts = append(s.Accounts, diagnose.Account{ID: "210987654321", Region: robustRegion, ELBv2: (*elbv2.Client)(nil)})
			},
			field: "Sources.Accounts[1].ELBv2", reason: "is a nil *elasticloadbalancingv2.Client",
		},
		{
			name:  "typed-nil fake",
			mod:   func(s *diagnose.Sources) { s.Accounts[0].ELBv2 = (*stubELBv2)(nil) },
			field: "Sources.Accounts[0].ELBv2", reason: "is a nil *diagnose_test.stubELBv2",
		},
		{
			name:  "untyped nil ELBv2",
			mod:   func(s *diagnose.Sources) { s.Accounts[0].ELBv2 = nil },
			field: "Sources.Accounts[0].ELBv2", reason: "is nil",
		},
		{
			name:  "typed-nil EC2",
			mod:   func(s *diagnose.Sources) { s.Accounts[0].EC2 = (*ec2.Client)(nil) },
			field: "Sources.Accounts[0].EC2", reason: "is a nil *ec2.Client",
		},
		{
			name:  "typed-nil Service Quotas",
			mod:   func(s *diagnose.Sources) { s.Accounts[0].ServiceQuotas = (*servicequotas.Client)(nil) },
			field: "Sources.Accounts[0].ServiceQuotas", reason: "is a nil *servicequotas.Client",
		},
		{
			name: "typed-nil Reader",
			mod: func(s *diagnose.Sources) {
				s.Clusters = append(s.Clusters, diagnose.Cluster{Name: "dev", Reader: (*stubReader)(nil)})
			},
			field: "Sources.Clusters[1].Reader", reason: "is a nil *diagnose_test.stubReader",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elb := robustFleet("alpha")
			src := robustSources(t, elb)
			tt.mod(&src)
			rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true}, robustOptions()...)
			var ie *diagnose.InputError
			if !errors.As(err, &ie) || rep != nil {
				t.Fatalf("Diagnose() = %v, %v; want an *InputError and no report", rep, err)
			}
			if ie.Field != tt.field || ie.Reason != tt.reason {
				t.Errorf("InputError{Field: %q, Reason: %q}, want {%q, %q}", ie.Field, ie.Reason, tt.field, tt.reason)
			}
			if n := elb.Total(); n != 0 {
				t.Errorf("%d calls made, want none: %v", n, elb.Calls())
			}
		})
	}

	t.Run("TakeSnapshot", func(t *testing.T) {
		_, err := diagnose.TakeSnapshot(t.Context(), diagnose.Cluster{Name: "prod", Reader: (*stubReader)(nil)})
		var ie *diagnose.InputError
		if !errors.As(err, &ie) || ie.Field != "Cluster.Reader" {
			t.Fatalf("TakeSnapshot() = %v, want an *InputError on Cluster.Reader", err)
		}
	})
}

// TestNilResponses: a client that answers (nil, nil) is an error on what
// it was asked about, never a panic.
func TestNilResponses(t *testing.T) {
	names := []string{"alpha", "beta", "gamma"}
	scopes := []struct {
		name  string
		scope diagnose.Scope
	}{
		{"arns", diagnose.Scope{TargetGroupARNs: arntest.TGs(robustARN("alpha"), robustARN("beta"), robustARN("gamma"))}},
		{"all", diagnose.Scope{All: true}},
	}

	t.Run("every call", func(t *testing.T) {
		for _, sc := range scopes {
			t.Run(sc.name, func(t *testing.T) {
				elb := &stubELBv2{}
				rep, err := diagnose.Diagnose(t.Context(), robustSources(t, elb), sc.scope, robustOptions()...)
				if rep == nil || !errors.Is(err, diagnose.ErrNothingScanned) || !errors.Is(err, diagnose.ErrNilResponse) {
					t.Fatalf("Diagnose() = %v, %v; want a report, ErrNothingScanned and ErrNilResponse", rep, err)
				}
				var resources []string
				for _, a := range sc.scope.TargetGroupARNs {
					resources = append(resources, a.Raw)
				}
				if sc.scope.All {
					resources = []string{robustAccount} // the listing failed: no target group is known
				}
				for _, r := range resources {
					e := errorFor(rep, r)
					if e == nil || !errors.Is(e, diagnose.ErrNilResponse) || e.Category != "nil-response" || e.Op != "DescribeTargetGroups" {
						t.Errorf("error for %s = %+v, want a nil-response DescribeTargetGroups", r, e)
					}
				}
				if n := elb.calls.Load(); n != 1 {
					t.Errorf("%d calls, want the one DescribeTargetGroups and nothing more", n)
				}
			})
		}
	})

	tests := []struct {
		op string
		// onGroups: every target group in scope has an Error wrapping
		// ErrNilResponse, its targets read all the same when only its tags
		// are missing. Otherwise the target groups are scanned, and the
		// load balancer has the error.
		onGroups bool
		targets  int
	}{
		{op: "DescribeTargetHealth", onGroups: true, targets: 0},
		{op: "DescribeTags", onGroups: true, targets: 2},
		{op: "DescribeListeners", targets: 2},
		{op: "DescribeRules", targets: 2},
	}
	for _, tt := range tests {
		for _, sc := range scopes {
			t.Run(tt.op+"/"+sc.name, func(t *testing.T) {
				elb := &faultyELBv2{fakeELBv2: robustFleet(names...), nilOps: map[string]bool{tt.op: true}}
				rep, err := diagnose.Diagnose(t.Context(), robustSources(t, elb), sc.scope, robustOptions()...)
				if rep == nil || len(rep.TargetGroups) != len(names) {
					t.Fatalf("Diagnose() = %+v, %v; want the %d target groups", rep, err, len(names))
				}
				for _, tg := range rep.TargetGroups {
					switch {
					case tt.onGroups && (tg.Error == nil || !errors.Is(tg.Error, diagnose.ErrNilResponse) || tg.Error.Category != "nil-response"):
						t.Errorf("%s: Error = %+v, want nil-response", tg.Name, tg.Error)
					case !tt.onGroups && tg.Error != nil:
						t.Errorf("%s: Error = %+v, want none", tg.Name, tg.Error)
					case len(tg.Targets) != tt.targets:
						t.Errorf("%s: %d targets, want %d", tg.Name, len(tg.Targets), tt.targets)
					}
				}
				if !tt.onGroups {
					if e := errorFor(rep, robustALB); e == nil || !errors.Is(e, diagnose.ErrNilResponse) {
						t.Errorf("error for the load balancer = %+v, want nil-response", e)
					}
				}
			})
		}
	}
}

// TestAbsurdTargets: targets with out-of-range ports are reported as they
// are; a description with no target or no target ID is skipped.
func TestAbsurdTargets(t *testing.T) {
	elb := robustFleet("alpha")
	arn := robustARN("alpha")
	ports := []*int32{nil, aws.Int32(0), aws.Int32(-1), aws.Int32(65536), aws.Int32(-2147483648), aws.Int32(2147483647)}
	var th []elbv2types.TargetHealthDescription
	for _, p := range ports {
		th = append(th, elbv2types.TargetHealthDescription{Target: &elbv2types.TargetDescription{Id: aws.String("10.1.0.9"), Port: p}})
	}
	th = append(th,
		elbv2types.TargetHealthDescription{}, // no target
		elbv2types.TargetHealthDescription{Target: &elbv2types.TargetDescription{Port: aws.Int32(80)}}, // no ID
	)
	elb.health[arn] = th
	rep, err := diagnose.Diagnose(t.Context(), robustSources(t, elb), diagnose.Scope{All: true}, robustOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	tg := rep.TargetGroups[0]
	if tg.Error != nil || len(tg.Targets) != len(ports) {
		t.Fatalf("target group = %+v, want %d targets and no error", tg, len(ports))
	}
	got := map[int32]bool{}
	for _, tr := range tg.Targets {
		got[tr.Port] = true
	}
	for _, p := range ports {
		if !got[aws.ToInt32(p)] {
			t.Errorf("no target on port %d: %+v", aws.ToInt32(p), tg.Targets)
		}
	}
	if rep.Summary.Targets != len(tg.Targets) {
		t.Errorf("summary counts %d targets, want %d", rep.Summary.Targets, len(tg.Targets))
	}
}

// TestPanicsAreResourceErrors: a client that panics fails what it was
// asked about, as an ErrPanic ResourceError; the rest is still reported.
func TestPanicsAreResourceErrors(t *testing.T) {
	names := []string{"alpha", "beta", "gamma"}
	tests := []struct {
		name             string
		panicOp, panicOn string
		reader           func(client.Reader) client.Reader
		// culprit is the resource with the ErrPanic error; broken are the
		// target groups with that error on them (the others are scanned
		// with no error); targets is how many targets a broken one keeps.
		culprit string
		broken  []string
		targets int
	}{
		{name: "DescribeTargetHealth of one target group", panicOp: "DescribeTargetHealth", panicOn: robustARN("beta"),
			culprit: robustARN("beta"), broken: []string{"beta"}},
		{name: "DescribeTags", panicOp: "DescribeTags", culprit: "", broken: names, targets: 2},
		{name: "DescribeListeners", panicOp: "DescribeListeners", culprit: robustALB},
		{name: "cluster reader", reader: func(r client.Reader) client.Reader { return panicReader{r} }, culprit: "prod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elb := &faultyELBv2{fakeELBv2: robustFleet(names...), panicOp: tt.panicOp, panicOn: tt.panicOn}
			src := robustSources(t, elb)
			if tt.reader != nil {
				src.Clusters[0].Reader = tt.reader(src.Clusters[0].Reader)
			}
			var mu sync.Mutex
			var logs []string
			log := funcr.New(func(_, args string) { mu.Lock(); logs = append(logs, args); mu.Unlock() }, funcr.Options{Verbosity: 1})

			rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true}, robustOptions(diagnose.WithLogger(log), diagnose.WithConcurrency(4))...)
			if err != nil || rep == nil || len(rep.TargetGroups) != len(names) {
				t.Fatalf("Diagnose() = %+v, %v; want the %d target groups and no error", rep, err, len(names))
			}
			var panics []diagnose.ResourceError
			for _, e := range rep.Errors {
				if errors.Is(&e, diagnose.ErrPanic) {
					panics = append(panics, e)
				}
			}
			if len(panics) == 0 {
				t.Fatalf("no ErrPanic error in %+v", rep.Errors)
			}
			for _, e := range panics {
				if e.Category != "panic" || !strings.HasPrefix(e.Message, "panic: ") || strings.Contains(e.Message, "goroutine") {
					t.Errorf("error %+v: want category panic and the panic's value alone", e)
				}
				if tt.culprit != "" && e.Resource != tt.culprit {
					t.Errorf("panic on %s, want on %s", e.Resource, tt.culprit)
				}
			}
			for _, tg := range rep.TargetGroups {
				broken := false
				for _, b := range tt.broken {
					broken = broken || b == tg.Name
				}
				switch {
				case broken && (tg.Error == nil || !errors.Is(tg.Error, diagnose.ErrPanic)):
					t.Errorf("%s: Error = %+v, want ErrPanic", tg.Name, tg.Error)
				case broken && len(tg.Targets) != tt.targets:
					t.Errorf("%s: %d targets, want %d", tg.Name, len(tg.Targets), tt.targets)
				case !broken && (tg.Error != nil || len(tg.Targets) != 2):
					t.Errorf("%s: Error %+v and %d targets; want it scanned", tg.Name, tg.Error, len(tg.Targets))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			logged := false
			for _, l := range logs {
				logged = logged || strings.Contains(l, `"recovered a panic"`) && strings.Contains(l, "goroutine")
			}
			if !logged {
				t.Errorf("no V(1) log of the panic with its stack in %q", logs)
			}
		})
	}
}
