package tgbind

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// lbcTimeline returns a DescribeTargetHealth that plays the LBC and ELB on
// the virtual clock: the node targets stay healthy; the pod targets are
// registered after 20s, checked initially, and healthy from 90s on.
func lbcTimeline(clk *vclock.Clock, ips ...string) func(string) ([]elbv2types.TargetHealthDescription, error) {
	start := clk.Now()
	return func(string) ([]elbv2types.TargetHealthDescription, error) {
		out := nodeTargets()
		elapsed := clk.Since(start)
		for _, ip := range ips {
			switch {
			case elapsed < 20*time.Second:
			case elapsed < 90*time.Second:
				out = append(out, target(ip, testPodPort, elbv2types.TargetHealthStateEnumInitial, elbv2types.TargetHealthReasonEnumInitialHealthChecking))
			default:
				out = append(out, target(ip, testPodPort, elbv2types.TargetHealthStateEnumHealthy, ""))
			}
		}
		return out, nil
	}
}

func TestWaitUntilHealthy(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	u.world.healthFn = lbcTimeline(u.clock, podIPs...)
	start := u.clock.Now()

	var seen []*TargetState
	st, err := u.binder.Wait(t.Context(), tgb, WithOnProgress(func(s *TargetState) { seen = append(seen, s) }))
	if err != nil {
		t.Fatalf("Wait() = %v", err)
	}
	if !st.AllHealthy() || st.Healthy != 3 || st.Total != 3 || st.Registered != 3 {
		t.Fatalf("final state %s", st.Summary())
	}
	if len(st.Others) != 2 || st.OthersHealthy != 2 {
		t.Errorf("node targets: %+v", st.Others)
	}
	if elapsed := u.clock.Since(start); elapsed < 90*time.Second {
		t.Errorf("virtual time elapsed %v, want at least the 90s health checks take", elapsed)
	}
	if seen[len(seen)-1] != st {
		t.Errorf("last progress report is not the returned state")
	}
	// The reason codes seen, in order, without repeats.
	var phases []string
	for _, s := range seen {
		p := s.Summary()
		if len(phases) == 0 || phases[len(phases)-1] != p {
			phases = append(phases, p)
		}
	}
	want := []string{
		"0/3 healthy (Target.NotRegistered: 3), 2 other targets (2 healthy)",
		"0/3 healthy (Elb.InitialHealthChecking: 3), 2 other targets (2 healthy)",
		"3/3 healthy, 2 other targets (2 healthy)",
	}
	if diff := cmp.Diff(want, phases); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	// Observations follow the backoff: 5s, then growing by half, capped at 30s.
	var gaps []time.Duration
	for i := 1; i < len(seen); i++ {
		gaps = append(gaps, seen[i].ObservedAt.Sub(seen[i-1].ObservedAt))
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second, 7500 * time.Millisecond, 11250 * time.Millisecond, 16875 * time.Millisecond, 25312500 * time.Microsecond, 30 * time.Second}, gaps); diff != "" {
		t.Errorf("poll gaps (-want +got):\n%s", diff)
	}
}

func TestWaitMinHealthyTimesOut(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	u.world.healthFn = lbcTimeline(u.clock, podIPs...)
	st, err := u.binder.Wait(t.Context(), tgb, WithMinHealthy(4), WithTimeout(10*time.Minute), WithPollInterval(10*time.Second, time.Minute))
	var te *WaitTimeoutError
	if !errors.As(err, &te) || !IsWaitTimeout(err) {
		t.Fatalf("Wait() = %v, want *WaitTimeoutError", err)
	}
	if te.State != st || st.Healthy != 3 || !st.AllHealthy() {
		t.Errorf("state = %s", st.Summary())
	}
	if te.Elapsed <= 0 || te.Elapsed > 10*time.Minute {
		t.Errorf("Elapsed = %v", te.Elapsed)
	}
	if !strings.Contains(err.Error(), "3/3 healthy") {
		t.Errorf("message %q lacks the state", err)
	}
}

func TestWaitContext(t *testing.T) {
	cause := errors.New("operator pressed ctrl-c")
	t.Run("cancelled while waiting", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...)).legacy()
		tgb := mustBuild(t, u)
		u.world.healthFn = lbcTimeline(u.clock, podIPs...)
		ctx, cancel := context.WithCancelCause(t.Context())
		defer cancel(nil)
		n := 0
		st, err := u.binder.Wait(ctx, tgb, WithOnProgress(func(*TargetState) {
			if n++; n == 2 {
				cancel(cause)
			}
		}))
		if !errors.Is(err, cause) || IsWaitTimeout(err) {
			t.Fatalf("Wait() = %v, want the cause", err)
		}
		if st == nil || n != 2 {
			t.Errorf("state %v after %d observations", st, n)
		}
	})
	t.Run("cancelled before", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...), strictAWS())
		ctx, cancel := context.WithCancelCause(t.Context())
		cancel(cause)
		st, err := u.binder.Wait(ctx, binding(testNS, "web", testARN, true, true))
		if !errors.Is(err, cause) || st != nil {
			t.Fatalf("Wait() = %v, %v", st, err)
		}
	})
}

func TestWaitErrors(t *testing.T) {
	t.Run("throttling is retried", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...)).legacy()
		tgb := mustBuild(t, u)
		calls := 0
		u.world.healthFn = func(string) ([]elbv2types.TargetHealthDescription, error) {
			if calls++; calls == 1 {
				return nil, &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
			}
			return podTargets(elbv2types.TargetHealthStateEnumHealthy, ""), nil
		}
		st, err := u.binder.Wait(t.Context(), tgb)
		if err != nil || !st.AllHealthy() || calls != 2 {
			t.Fatalf("Wait() = %v, %v after %d calls", st, err, calls)
		}
	})
	t.Run("access denied ends the wait", func(t *testing.T) {
		u := newUnit(t, withObjects(standardObjects()...)).legacy()
		tgb := mustBuild(t, u)
		calls := 0
		u.world.healthFn = func(string) ([]elbv2types.TargetHealthDescription, error) {
			calls++
			return nil, &smithy.GenericAPIError{Code: "AccessDenied"}
		}
		_, err := u.binder.Wait(t.Context(), tgb)
		if !errors.Is(err, awserr.ErrAccessDenied) || calls != 1 || !strings.HasPrefix(err.Error(), "tgbind: wait shop/") {
			t.Fatalf("Wait() = %v after %d calls", err, calls)
		}
	})
	t.Run("Service gone", func(t *testing.T) {
		u := newUnit(t).legacy()
		_, err := u.binder.Wait(t.Context(), binding(testNS, "web", testARN, true, true))
		if !IsServiceNotFound(err) {
			t.Fatalf("Wait() = %v", err)
		}
	})
	t.Run("nil binding", func(t *testing.T) {
		u := newUnit(t)
		if _, err := u.binder.Wait(t.Context(), nil); err == nil {
			t.Fatal("want an error")
		}
	})
}

// TestWaitFollowsEndpoints: a pod that becomes ready during the wait joins
// the total; Wait does not finish until its target is healthy too.
func TestWaitFollowsEndpoints(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...)).legacy()
	tgb := mustBuild(t, u)
	const late = "10.0.3.13" // not ready in the fixture
	lateTimeline := lbcTimeline(u.clock, podIPs...)
	joinedAt := time.Time{}
	u.world.healthFn = func(arn string) ([]elbv2types.TargetHealthDescription, error) {
		out, _ := lateTimeline(arn)
		if !joinedAt.IsZero() && u.clock.Since(joinedAt) >= 60*time.Second {
			out = append(out, target(late, testPodPort, elbv2types.TargetHealthStateEnumHealthy, ""))
		}
		return out, nil
	}
	var totals []int
	st, err := u.binder.Wait(t.Context(), tgb, WithOnProgress(func(s *TargetState) {
		totals = append(totals, s.Total)
		if len(totals) == 3 { // the pod turns ready
			es := &discoveryv1.EndpointSlice{}
			if err := u.raw.Get(t.Context(), keyOf(endpointSlice(testNS)), es); err != nil {
				t.Fatal(err)
			}
			es.Endpoints[3].Conditions.Ready = ptrTo(true)
			if err := u.raw.Update(t.Context(), es); err != nil {
				t.Fatal(err)
			}
			joinedAt = u.clock.Now()
		}
	}))
	if err != nil || st.Total != 4 || st.Healthy != 4 {
		t.Fatalf("Wait() = %s, %v", st.Summary(), err)
	}
	if totals[0] != 3 || totals[len(totals)-1] != 4 {
		t.Errorf("totals = %v", totals)
	}
	if !u.clock.Now().After(joinedAt.Add(59 * time.Second)) {
		t.Errorf("Wait finished before the late pod's target was healthy")
	}
}

func TestObserve(t *testing.T) {
	u := newUnit(t, withObjects(standardObjects()...))
	u.world.addTG(targetGroup(testARN), append(nodeTargets(),
		target(podIPs[0], testPodPort, elbv2types.TargetHealthStateEnumHealthy, ""),
		target(podIPs[1], testPodPort, elbv2types.TargetHealthStateEnumUnhealthy, elbv2types.TargetHealthReasonEnumResponseCodeMismatch),
		target("10.0.9.9", testPodPort, elbv2types.TargetHealthStateEnumDraining, elbv2types.TargetHealthReasonEnumDeregistrationInProgress),
	)...)
	tgb := binding(testNS, "web", testARN, true, true)
	st, err := u.binder.Observe(t.Context(), tgb)
	if err != nil {
		t.Fatal(err)
	}
	want := &TargetState{
		Version: TargetStateVersion, TargetGroupARN: testARN, Namespace: testNS, Service: testService, ServicePort: "http",
		ObservedAt: vclock.Epoch,
		Endpoints: []EndpointTarget{
			{IP: "10.0.1.10", Port: testPodPort, State: "healthy"},
			{IP: "10.0.1.11", Port: testPodPort, State: "unhealthy", Reason: "Target.ResponseCodeMismatch"},
			{IP: "10.0.2.12", Port: testPodPort},
		},
		Others: []EndpointTarget{
			{IP: "10.0.100.1", Port: testNodePort, State: "healthy"},
			{IP: "10.0.100.2", Port: testNodePort, State: "healthy"},
			{IP: "10.0.9.9", Port: testPodPort, State: "draining", Reason: "Target.DeregistrationInProgress"},
		},
		Total: 3, Registered: 2, Healthy: 1, OthersHealthy: 2,
		Reasons: map[string]int{"Target.ResponseCodeMismatch": 1, "Target.NotRegistered": 1},
	}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if got := st.Summary(); got != "1/3 healthy (Target.NotRegistered: 1, Target.ResponseCodeMismatch: 1), 3 other targets (2 healthy)" {
		t.Errorf("Summary() = %q", got)
	}
	if !strings.Contains(st.String(), "endpoint 10.0.2.12:8080 -") {
		t.Errorf("String() =\n%s", st)
	}
}

func TestObserveIPv6Canonical(t *testing.T) {
	ready := []endpoint{{ip: canonicalIP("2001:db8:0:0::10"), port: 8080}}
	targets := []elbv2types.TargetHealthDescription{target("2001:0db8::0010", 8080, elbv2types.TargetHealthStateEnumHealthy, "")}
	st := compare(ready, targets)
	if st.Healthy != 1 || len(st.Others) != 0 {
		t.Fatalf("IPv6 spellings did not match: %+v", st)
	}
	if got := hostPort(st.Endpoints[0].IP, 8080); got != "[2001:db8::10]:8080" {
		t.Errorf("hostPort = %q", got)
	}
}

func TestReadyEndpointsResolvesNamedPortPerSlice(t *testing.T) {
	// Two slices: pods of an older release listen on 8080, newer on 9090,
	// both behind the named targetPort "http".
	old := endpointSlice(testNS)
	newer := endpointSlice(testNS)
	newer.Name = "web-fghij"
	newer.Ports[0].Port = ptrTo(int32(9090))
	newer.Endpoints = newer.Endpoints[:1]
	newer.Endpoints[0].Addresses = []string{"10.0.4.20"}
	other := endpointSlice(testNS)
	other.Name = "api-xyz"
	other.Labels[discoveryv1.LabelServiceName] = "api"
	u := newUnit(t, withObjects(service(testNS), old, newer, other))
	got, err := u.binder.readyEndpoints(t.Context(), testNS, testService, &service(testNS).Spec.Ports[0], discoveryv1.AddressTypeIPv4)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.key())
	}
	want := []string{"10.0.1.10:8080", "10.0.1.11:8080", "10.0.2.12:8080", "10.0.4.20:9090"}
	if !slices.Equal(want, keys) {
		t.Errorf("endpoints = %v, want %v", keys, want)
	}
	if ports := podPorts(got); !slices.Equal(ports, []int32{8080, 9090}) {
		t.Errorf("podPorts = %v", ports)
	}
}
