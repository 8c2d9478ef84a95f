package diagnose

// The suites of this package a second time, through the real
// aws-sdk-go-v2 ELBv2 client: each test's gomock mock becomes the backend
// of an ELBv2 Query-protocol endpoint on loopback (internal/sim/elbv2wire),
// and Diagnose gets a real *elasticloadbalancingv2.Client pointed at it.
// The mock's expectations (inputs and exact call counts) are then checked
// on what the endpoint decoded, and the endpoint counts the same calls.
// Then Diagnose against the simulator through the wire: the seed's case
// under churn, paging over 400 target groups, throttling retried by the
// SDK and by Diagnose, malformed answers and reset connections.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire/wiretest"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// throughWire makes every harness of t hand Diagnose a real SDK client of
// an endpoint in front of its mock, with opts, until t ends.
func throughWire(t *testing.T, opts elbv2wire.ClientOptions) *[]*wiretest.Wired {
	t.Helper()
	return wiretest.Through(t, &viaELBv2, testRegion, opts)
}

// TestWireSuites runs the mock-driven suites through the wire. Attempts is
// the SDK retryer's: 0 is its default (3); 1 where a test counts
// Diagnose's own retries of throttling, so that the SDK must not retry.
//
// Left out: TestInvalidInput (it makes no AWS call), TestLimiterUnlimited,
// TestClassify and TestTakeSnapshotPaged (no ELBv2 client);
// TestConcurrencyBoundsCallsInFlight and
// TestRateLimitPerAccountOnInjectedClock, whose hand-written fakes time
// each call in the fake itself; and TestCancelledContext, whose mock
// cancels the caller's context during a call and still answers: the real
// client abandons a request whose context ends, so through the wire the
// call in flight is cancelled too, which TestWireCancelledMidScan asserts
// instead. The simulator's scenario suite runs through the wire in
// scenario_test.go.
func TestWireSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("a repetition through the wire: make test runs it, make test-short (-short) does not")
	}
	wiretest.Run(t, &viaELBv2, testRegion, "harness", []wiretest.Suite{
		{Name: "APIEconomyAll", Test: TestAPIEconomyAll},
		{Name: "APIEconomyScopes", Test: TestAPIEconomyScopes},
		{Name: "MultiAccount", Test: TestMultiAccount},
		{Name: "RateLimitOnInjectedClock", Test: TestRateLimitOnInjectedClock},
		{Name: "RoutesNLB", Test: TestRoutesNLB},
		{Name: "UnknownARNIsIsolated", Test: TestUnknownARNIsIsolated},
		{Name: "ForeignAccounts", Test: TestForeignAccounts},
		{Name: "UnknownLoadBalancerAndName", Test: TestUnknownLoadBalancerAndName},
		{Name: "NothingScanned", Test: TestNothingScanned},
		{Name: "Throttling", Test: TestThrottling, Attempts: 1}, // counts Diagnose's retries: see TestWireThrottlingRetriedBySDKAndDiagnose
		{Name: "TagsDenied", Test: TestTagsDenied},
		{Name: "ClusterFaults", Test: TestClusterFaults},
		{Name: "Findings", Test: TestFindings},
		{Name: "Golden", Test: TestGolden},
		{Name: "GoldenContent", Test: TestGoldenContent},
		{Name: "ReportValidatesAgainstSchema", Test: TestReportValidatesAgainstSchema},
		{Name: "Deterministic", Test: TestDeterministic},
		{Name: "ServiceFromTags", Test: TestServiceFromTags},
		{Name: "SubnetChecksOneBatch", Test: TestSubnetChecksOneBatch},
	})
}

// TestWireAPIEconomy is TestAPIEconomyAll with the counts read at the
// endpoint: 850 target groups, 3 pages, 43 tag batches, 850 health calls,
// 3 listeners, 3 rules, exactly, whatever Diagnose thinks it did.
func TestWireAPIEconomy(t *testing.T) {
	wired := throughWire(t, elbv2wire.ClientOptions{})
	w := fleet(850)
	h := newHarness(t, w)
	expectAll(h.elb, w)
	rep, err := h.run(t, Scope{All: true}, WithConcurrency(4))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"DescribeTargetGroups": 3, "DescribeTags": 43, "DescribeTargetHealth": 850, "DescribeListeners": 3, "DescribeRules": 3}
	if d := cmp.Diff(want, (*wired)[0].Endpoint.Counts()); d != "" {
		t.Errorf("requests at the endpoint (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, rep.Accounts[0].APICalls); d != "" {
		t.Errorf("calls Diagnose reports (-want +got):\n%s", d)
	}
	if rep.Summary.TargetGroups != 850 || rep.Summary.ByCode[CodeStaticNodeTarget] != 850 {
		t.Errorf("summary %+v", rep.Summary)
	}
}

// TestWireThrottlingRetriedBySDKAndDiagnose is TestThrottling with the
// SDK's standard retryer in front of Diagnose's backoff: Throttling
// answered as HTTP 400 is retried by the SDK first (3 attempts, real
// milliseconds), then by Diagnose on the virtual clock. The tags' single
// throttle and alpha's two never reach Diagnose; beta's six cost it two
// retries (1.5 s of virtual time) and it succeeds on the seventh request.
func TestWireThrottlingRetriedBySDKAndDiagnose(t *testing.T) {
	wired := throughWire(t, elbv2wire.ClientOptions{})
	w := threeGroups()
	h := newHarness(t, w)
	throttle := &smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}
	m := h.elb
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
	m.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, throttle).Times(1)
	m.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTags).Times(1)
	health := map[string]int{w.tgARN("alpha"): 2, w.tgARN("beta"): 6}
	var mu sync.Mutex
	calls := map[string]int{}
	m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
			arn := aws.ToString(in.TargetGroupArn)
			mu.Lock()
			calls[arn]++
			n := calls[arn]
			mu.Unlock()
			if n <= health[arn] {
				return nil, throttle
			}
			tg, _ := w.tgByARN(arn)
			return w.health(tg), nil
		}).Times(1 + 3 + 7)
	m.EXPECT().DescribeListeners(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.listeners(w.LoadBalancers[0]), nil).Times(1)
	m.EXPECT().DescribeRules(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.rules(w.LoadBalancers[0], 0), nil).Times(1)

	rep, err := h.run(t, Scope{All: true}, WithConcurrency(1), WithRateLimit(1000, 1000))
	if err != nil {
		t.Fatalf("Diagnose() = %v", err)
	}
	for _, tg := range rep.TargetGroups {
		if tg.Error != nil {
			t.Errorf("%s failed: %+v", tg.Name, tg.Error)
		}
	}
	if rep.Accounts[0].Retries != 2 {
		t.Errorf("Diagnose retried %d times, want 2 (beta's two SDK give-ups)", rep.Accounts[0].Retries)
	}
	if got := h.clock.Since(vclock.Epoch); got < 1500*time.Millisecond || got > 1600*time.Millisecond {
		t.Errorf("virtual time %v, want about 1.5 s of Diagnose's backoff", got)
	}
	ep := (*wired)[0].Endpoint
	if d := cmp.Diff(map[string]int{"DescribeTargetGroups": 1, "DescribeTags": 2, "DescribeTargetHealth": 11, "DescribeListeners": 1, "DescribeRules": 1}, ep.Counts()); d != "" {
		t.Errorf("requests at the endpoint (-want +got):\n%s", d)
	}
	throttled := 0
	for _, r := range ep.Requests() {
		if r.Code == "Throttling" {
			throttled++
			if r.Status != 400 {
				t.Errorf("throttling answered %d", r.Status)
			}
		}
	}
	if throttled != 1+2+6 {
		t.Errorf("%d throttled requests, want 9", throttled)
	}
}

// TestWireMalformedAnswers: a malformed body, a truncated body and a
// reset connection reach Diagnose as typed errors (category unknown, the
// target group reported with its error), never as a panic, and the rest of
// the scan goes on.
func TestWireMalformedAnswers(t *testing.T) {
	for _, f := range []elbv2wire.Fault{elbv2wire.FaultMalformed, elbv2wire.FaultTruncated, elbv2wire.FaultReset} {
		t.Run(string(f), func(t *testing.T) {
			wired := throughWire(t, elbv2wire.ClientOptions{MaxAttempts: 1})
			w := threeGroups()
			h := newHarness(t, w)
			m := h.elb
			m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTargetGroups).Times(1)
			m.EXPECT().DescribeTags(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(w.describeTags).Times(1)
			m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
				func(_ context.Context, in *elbv2.DescribeTargetHealthInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
					tg, _ := w.tgByARN(aws.ToString(in.TargetGroupArn))
					return w.health(tg), nil
				}).Times(2) // the faulted request never reaches the mock
			m.EXPECT().DescribeListeners(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.listeners(w.LoadBalancers[0]), nil).Times(1)
			m.EXPECT().DescribeRules(gomock.Any(), gomock.Any(), gomock.Any()).Return(w.rules(w.LoadBalancers[0], 0), nil).Times(1)
			if err := (*wired)[0].Endpoint.Inject(elbv2wire.FaultRule{Action: "DescribeTargetHealth", Fault: f}); err != nil {
				t.Fatal(err)
			}
			rep, err := h.run(t, Scope{All: true}, WithConcurrency(1))
			if err != nil {
				t.Fatalf("Diagnose() = %v, want partial results", err)
			}
			var failed []*TargetGroupReport
			for i := range rep.TargetGroups {
				if rep.TargetGroups[i].Error != nil {
					failed = append(failed, &rep.TargetGroups[i])
				}
			}
			if len(failed) != 1 || len(rep.TargetGroups) != 3 {
				t.Fatalf("%d of %d target groups failed, want 1", len(failed), len(rep.TargetGroups))
			}
			e := failed[0].Error
			if e.Category != "unknown" || !awserrIsUnknown(e) || e.Op != "DescribeTargetHealth" {
				t.Errorf("error %+v", e)
			}
			if strings.Contains(e.Message, elbv2wire.AccessKeyID) {
				t.Errorf("credentials in %q", e.Message)
			}
		})
	}
}

func awserrIsUnknown(err error) bool { return errors.Is(err, awserr.ErrUnknown) }

// TestWireCancelledMidScan is TestCancelledContext's first case through
// the wire: the context ends while DescribeTargetHealth is in flight. The
// real client abandons that request unless its answer is already in, so
// the first target group is scanned or cancelled, the two others are
// cancelled with the context's cause, and nothing else is sent.
func TestWireCancelledMidScan(t *testing.T) {
	wired := throughWire(t, elbv2wire.ClientOptions{})
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
	cancelled := 0
	for _, tg := range rep.TargetGroups {
		switch {
		case tg.Error == nil:
		case errors.Is(tg.Error, stop):
			cancelled++
		default:
			t.Errorf("%s: error %+v, want cancelled with the cause", tg.Name, tg.Error)
		}
	}
	if cancelled < 2 {
		t.Errorf("%d target groups cancelled, want at least the 2 not yet read", cancelled)
	}
	(*wired)[0].Endpoint.Close()
	if d := cmp.Diff(map[string]int{"DescribeTargetGroups": 1, "DescribeTags": 1, "DescribeTargetHealth": 1}, (*wired)[0].Endpoint.Counts()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}
