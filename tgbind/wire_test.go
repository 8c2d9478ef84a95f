package tgbind

// The suites of this package a second time, through the real
// aws-sdk-go-v2 ELBv2 client: the rig's gomock mock becomes the backend of
// an ELBv2 Query-protocol endpoint on loopback (internal/sim/elbv2wire),
// and the Binder gets a real *elasticloadbalancingv2.Client pointed at it.
// The mock's expectations are then checked on what the endpoint decoded,
// and the endpoint counts the same calls. Then Build and Wait against the
// simulator through the wire.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire/wiretest"
)

// throughWire makes every rig of t hand the Binder a real SDK client of an
// endpoint in front of its mock, with opts, until t ends.
func throughWire(t *testing.T, opts elbv2wire.ClientOptions) *[]*wiretest.Wired {
	t.Helper()
	return wiretest.Through(t, &viaELBv2, "eu-west-1", opts)
}

// TestWireSuites runs the rig-driven suites through the wire, with the
// SDK's standard retryer (3 attempts, backoff of milliseconds), except
// where a test scripts a single Throttling answer and asserts what the
// Binder does with it (TestBuildOperationalErrors, TestWaitErrors): the
// SDK would retry it itself, so those run with one attempt, and
// TestWireWaitRetriesThrottlingInTheSDK covers the SDK's retry. Left out:
// the tests that make no ELBv2 call (Delete, names, manifests, errors).
func TestWireSuites(t *testing.T) {
	wiretest.Run(t, &viaELBv2, "eu-west-1", "rig", []wiretest.Suite{
		{Name: "Build", Test: TestBuild},
		{Name: "BuildTwoPortsNeedsAPort", Test: TestBuildTwoPortsNeedsAPort},
		{Name: "BuildCallContract", Test: TestBuildCallContract},
		{Name: "BuildRejects", Test: TestBuildRejects},
		{Name: "BuildInstanceTargetGroupPointsAtBlueGreen", Test: TestBuildInstanceTargetGroupPointsAtBlueGreen},
		{Name: "BuildOperationalErrors", Test: TestBuildOperationalErrors, Attempts: 1},
		{Name: "BuildCRDMissingIsANote", Test: TestBuildCRDMissingIsANote},
		{Name: "BuildLoadBalancerSecurityGroups", Test: TestBuildLoadBalancerSecurityGroups},
		{Name: "BuildLoadBalancerSecurityGroupsError", Test: TestBuildLoadBalancerSecurityGroupsError, Attempts: 1},
		{Name: "BindingManifest", Test: TestBindingManifest},
		{Name: "BindingTextAndJSON", Test: TestBindingTextAndJSON},
		{Name: "ValidatePasses", Test: TestValidatePasses},
		{Name: "ValidateFailures", Test: TestValidateFailures},
		{Name: "ValidateConflictErrorNamesTheManager", Test: TestValidateConflictErrorNamesTheManager},
		{Name: "ValidateSkipsAndNotes", Test: TestValidateSkipsAndNotes},
		{Name: "ValidateOperationalErrors", Test: TestValidateOperationalErrors},
		{Name: "ValidateInvalidMetadataSkipsDryRun", Test: TestValidateInvalidMetadataSkipsDryRun},
		{Name: "ApplyCreates", Test: TestApplyCreates},
		{Name: "ApplyReapply", Test: TestApplyReapply},
		{Name: "ApplyDryRun", Test: TestApplyDryRun},
		{Name: "ApplyDryRunOnExisting", Test: TestApplyDryRunOnExisting},
		{Name: "ApplyValidationFailureWritesNothing", Test: TestApplyValidationFailureWritesNothing},
		{Name: "ApplyConflict", Test: TestApplyConflict},
		{Name: "ApplyErrors", Test: TestApplyErrors},
		{Name: "BadInputCreatesNothing", Test: TestBadInputCreatesNothing},
		{Name: "WaitUntilHealthy", Test: TestWaitUntilHealthy},
		{Name: "WaitMinHealthyTimesOut", Test: TestWaitMinHealthyTimesOut},
		{Name: "WaitContext", Test: TestWaitContext},
		{Name: "WaitErrors", Test: TestWaitErrors, Attempts: 1},
		{Name: "WaitFollowsEndpoints", Test: TestWaitFollowsEndpoints},
		{Name: "Observe", Test: TestObserve},
	})
}

// TestWireWaitRetriesThrottlingInTheSDK is TestWaitErrors' throttling case
// with the SDK's standard retryer: the Throttling answer (HTTP 400) is
// retried by the SDK inside one of the Binder's observations, so the Binder
// finishes after one observation and two requests.
func TestWireWaitRetriesThrottlingInTheSDK(t *testing.T) {
	wired := throughWire(t, elbv2wire.ClientOptions{})
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	(*wired)[0].Endpoint.ResetCounts()
	before := (*wired)[0].Calls.Counts()["DescribeTargetHealth"]
	calls := 0
	u.world.healthFn = func(string) ([]elbv2types.TargetHealthDescription, error) {
		if calls++; calls == 1 {
			return nil, &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
		}
		return podTargets(elbv2types.TargetHealthStateEnumHealthy, ""), nil
	}
	start := u.clock.Now()
	st, err := u.binder.Wait(t.Context(), tgb)
	if err != nil || !st.AllHealthy() {
		t.Fatalf("Wait() = %v, %v", st, err)
	}
	if got := (*wired)[0].Calls.Counts()["DescribeTargetHealth"] - before; got != 1 {
		t.Errorf("the Binder observed %d times, want once: the SDK retried the throttle", got)
	}
	reqs := (*wired)[0].Endpoint.Requests()
	if len(reqs) != 2 || reqs[0].Code != "Throttling" || reqs[0].Status != 400 || reqs[1].Status != 200 {
		t.Errorf("requests %+v", reqs)
	}
	if u.clock.Since(start) != 0 {
		t.Errorf("the Binder waited %v on its clock: the SDK's retry is in real time", u.clock.Since(start))
	}
}

// seedWorld is the simulated seed's case, 4 nodes and 6 pods, on the Go
// facade or through the wire; it closes when t ends.
func seedWorld(t *testing.T, wire bool) *sim.World {
	t.Helper()
	cfg := sim.Config{Seed: 31, Nodes: 4, Pods: 6}
	if wire {
		cfg.Wire = &sim.WireOptions{}
	}
	w, err := sim.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// TestWireBuildAndWaitOnTheSimulator: Build and Wait, through the real SDK
// client, on the simulated seed's case: Build describes the legacy target
// group and its targets once each, the binding is created, the LBC
// stand-in (through the wire too) registers the pods, and Wait sees them
// all healthy. The same run on the Go facade gives the same result and the
// same calls.
func TestWireBuildAndWaitOnTheSimulator(t *testing.T) {
	type outcome struct {
		healthy, total int
		counts         map[string]int
		multi          bool
	}
	run := func(wire bool) outcome {
		w := seedWorld(t, wire)
		b, err := New(Options{ELBv2: w.AWS(), Reader: w.Client(), Clock: w.Clock(), ClusterVPCID: w.Legacy().VPCID})
		if err != nil {
			t.Fatal(err)
		}
		l := w.Legacy()
		binding, err := b.Build(t.Context(), Request{TargetGroupARN: arntest.TG(l.TargetGroupARN), Namespace: l.Namespace, Service: l.Service,
			Port: intstr.FromString(l.PortName)})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Client().Create(t.Context(), binding.TargetGroupBinding); err != nil {
			t.Fatal(err)
		}
		st, err := b.Wait(t.Context(), binding.TargetGroupBinding, WithTimeout(10*time.Minute))
		if err != nil {
			t.Fatalf("Wait() = %v, %v", st, err)
		}
		if wire {
			if _, ok := w.AWS().(ELBv2API); !ok || w.Wire() == nil {
				t.Fatal("not through the wire")
			}
			if d := cmp.Diff(w.ELBv2().Counts(), w.AWSCounts()); d != "" {
				t.Errorf("facade and endpoint counts differ (-facade +endpoint):\n%s", d)
			}
		}
		return outcome{healthy: st.Healthy, total: st.Total, counts: w.AWSCounts(), multi: binding.TargetGroupBinding.Spec.MultiClusterTargetGroup}
	}
	facade, wire := run(false), run(true)
	if wire.total != 6 || wire.healthy != 6 || !wire.multi {
		t.Errorf("through the wire: %d/%d healthy, multi-cluster %t; want 6/6 and multi-cluster (the group holds node targets)", wire.healthy, wire.total, wire.multi)
	}
	if d := cmp.Diff(facade, wire, cmp.AllowUnexported(outcome{})); d != "" {
		t.Errorf("facade and wire differ (-facade +wire):\n%s", d)
	}
	if wire.counts["DescribeTargetGroups"] != 1 || wire.counts["DescribeTargetHealth"] < 2 || wire.counts["DescribeLoadBalancers"] != 0 {
		t.Errorf("calls at the endpoint %v", wire.counts)
	}
}

// withLBGroups adds security groups to the load balancers the simulator
// describes: the simulator's ALB has none. Everything else, the lookup of
// the load balancer by ARN included, is the simulator's.
type withLBGroups struct {
	ELBv2API
	groups map[string][]string // by load balancer ARN
}

func (w withLBGroups) DescribeLoadBalancers(ctx context.Context, in *elbv2.DescribeLoadBalancersInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error) {
	out, err := w.ELBv2API.DescribeLoadBalancers(ctx, in, optFns...)
	if err != nil {
		return nil, err
	}
	for i := range out.LoadBalancers {
		out.LoadBalancers[i].SecurityGroups = w.groups[aws.ToString(out.LoadBalancers[i].LoadBalancerArn)]
	}
	return out, nil
}

// TestLoadBalancerSecurityGroupsOnTheSimulator: on the simulated seed's
// case, on the Go facade and through the wire, Build with
// WithLoadBalancerSecurityGroups asks the simulator for the legacy ALB (the
// load balancer the target group names) once, and admits its security
// groups in networking.ingress; Build without it asks nothing. With the
// simulator's ALB as it is (no security groups), Build adds nothing and
// says so.
func TestLoadBalancerSecurityGroupsOnTheSimulator(t *testing.T) {
	const sg = "sg-0123456789abcdef0"
	for _, wire := range []bool{false, true} {
		t.Run(fmt.Sprintf("wire=%t", wire), func(t *testing.T) {
			w := seedWorld(t, wire)
			l := w.Legacy()
			req := Request{TargetGroupARN: arntest.TG(l.TargetGroupARN), Namespace: l.Namespace, Service: l.Service, Port: intstr.FromString(l.PortName)}
			build := func(api ELBv2API, opts ...Option) *Binding {
				t.Helper()
				b, err := New(Options{ELBv2: api, Reader: w.Client(), Clock: w.Clock(), ClusterVPCID: l.VPCID})
				if err != nil {
					t.Fatal(err)
				}
				binding, err := b.Build(t.Context(), req, opts...)
				if err != nil {
					t.Fatal(err)
				}
				return binding
			}

			plain := build(w.AWS())
			if n := w.AWSCounts()["DescribeLoadBalancers"]; n != 0 || plain.TargetGroupBinding.Spec.Networking != nil || plain.LoadBalancers != nil {
				t.Errorf("not asked: %d DescribeLoadBalancers, networking %+v, load balancers %+v", n, plain.TargetGroupBinding.Spec.Networking, plain.LoadBalancers)
			}

			got := build(withLBGroups{ELBv2API: w.AWS(), groups: map[string][]string{l.LoadBalancerARN: {sg}}}, WithLoadBalancerSecurityGroups())
			if n := w.AWSCounts()["DescribeLoadBalancers"]; n != 1 {
				t.Errorf("%d DescribeLoadBalancers at the simulator, want 1", n)
			}
			if len(got.LoadBalancers) != 1 || got.LoadBalancers[0].ARN != l.LoadBalancerARN || !slices.Equal(got.LoadBalancers[0].SecurityGroups, []string{sg}) {
				t.Errorf("LoadBalancers = %+v, want the legacy ALB with %s", got.LoadBalancers, sg)
			}
			n := got.TargetGroupBinding.Spec.Networking
			if n == nil || len(n.Ingress) != 1 || len(n.Ingress[0].From) != 1 || n.Ingress[0].From[0].SecurityGroup.GroupID != sg ||
				n.Ingress[0].Ports[0].Port.String() != l.PortName {
				t.Errorf("networking = %+v, want %s to port %s", n, sg, l.PortName)
			}

			// The simulator's own ALB has its security group.
			own := build(w.AWS(), WithLoadBalancerSecurityGroups())
			if n := own.TargetGroupBinding.Spec.Networking; n == nil || n.Ingress[0].From[0].SecurityGroup.GroupID != sim.LoadBalancerSecurityGroup {
				t.Errorf("the simulator's ALB: networking %+v, want from %s", n, sim.LoadBalancerSecurityGroup)
			}
			bare := build(withLBGroups{ELBv2API: w.AWS(), groups: map[string][]string{}}, WithLoadBalancerSecurityGroups())
			if bare.TargetGroupBinding.Spec.Networking != nil || !strings.Contains(strings.Join(bare.Notes, "\n"), "has no security groups") {
				t.Errorf("ALB without security groups: networking %+v, notes %q", bare.TargetGroupBinding.Spec.Networking, bare.Notes)
			}
		})
	}
}
