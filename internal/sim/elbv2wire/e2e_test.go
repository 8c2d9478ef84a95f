package elbv2wire_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/qstools/tgmigrate/internal/awserr"
	internalretry "github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// sdkTypes ignores what only the SDK client adds (ResultMetadata) and
// compares the SDK types' unexported marker fields.
var sdkTypes = cmp.Options{
	cmpopts.IgnoreFields(elbv2.DescribeTargetGroupsOutput{}, "ResultMetadata"),
	cmpopts.IgnoreFields(elbv2.DescribeTargetHealthOutput{}, "ResultMetadata"),
	cmpopts.IgnoreFields(elbv2.DescribeTargetGroupAttributesOutput{}, "ResultMetadata"),
	cmpopts.IgnoreFields(elbv2.DescribeTagsOutput{}, "ResultMetadata"),
	cmpopts.IgnoreFields(elbv2.DescribeLoadBalancersOutput{}, "ResultMetadata"),
	cmpopts.IgnoreFields(elbv2.DescribeListenersOutput{}, "ResultMetadata"),
	cmpopts.IgnoreFields(elbv2.DescribeRulesOutput{}, "ResultMetadata"),
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmpopts.EquateEmpty(),
}

// TestEveryOperationThroughTheSDK drives the model through the real SDK
// client: every served operation, the reads compared with the Go facade's
// answers on the same state, the writes checked on the model.
func TestEveryOperationThroughTheSDK(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	arn := aws.String(w.tg)

	created, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{
		Name: aws.String("pods"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp, Port: aws.Int32(8080),
		VpcId: aws.String(vpcID), HealthCheckPath: aws.String("/healthz"), Matcher: &types.Matcher{HttpCode: aws.String("200-299")},
		Tags: []types.Tag{{Key: aws.String("team"), Value: aws.String("web")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	podTG := created.TargetGroups[0].TargetGroupArn
	if aws.ToString(created.TargetGroups[0].HealthCheckPath) != "/healthz" || aws.ToString(created.TargetGroups[0].Matcher.HttpCode) != "200-299" {
		t.Errorf("created %+v", created.TargetGroups[0])
	}
	if _, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: arn, Targets: pods(2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyTargetGroup(ctx, &elbv2.ModifyTargetGroupInput{TargetGroupArn: arn, HealthCheckIntervalSeconds: aws.Int32(15), Matcher: &types.Matcher{HttpCode: aws.String("200")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyTargetGroupAttributes(ctx, &elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: arn, Attributes: []types.TargetGroupAttribute{
		{Key: aws.String("deregistration_delay.timeout_seconds"), Value: aws.String("30")},
	}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddTags(ctx, &elbv2.AddTagsInput{ResourceArns: []string{w.tg}, Tags: []types.Tag{{Key: aws.String("owner"), Value: aws.String("me")}}}); err != nil {
		t.Fatal(err)
	}
	weighted := []types.Action{{Type: types.ActionTypeEnumForward, ForwardConfig: &types.ForwardActionConfig{TargetGroups: []types.TargetGroupTuple{
		{TargetGroupArn: arn, Weight: aws.Int32(90)}, {TargetGroupArn: podTG, Weight: aws.Int32(10)},
	}}}}
	if _, err := c.ModifyListener(ctx, &elbv2.ModifyListenerInput{ListenerArn: aws.String(w.ln), DefaultActions: weighted}); err != nil {
		t.Fatal(err)
	}
	rule, err := w.model.AddRule(w.ln, 10, []types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/api/*"}}},
		[]types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: arn}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyRule(ctx, &elbv2.ModifyRuleInput{RuleArn: aws.String(rule), Actions: weighted}); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Minute) // health checks: the pods turn healthy
	if _, err := c.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: arn, Targets: pods(1)}); err != nil {
		t.Fatal(err)
	}

	// The reads, through the wire and through the facade, on the same state.
	reads := []struct {
		name string
		wire func() (any, error)
		sim  func() (any, error)
	}{
		{"DescribeTargetGroups", func() (any, error) { return c.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{}) },
			func() (any, error) { return w.sim.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{}) }},
		{"DescribeTargetHealth", func() (any, error) {
			return c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: arn})
		},
			func() (any, error) {
				return w.sim.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: arn})
			}},
		{"DescribeTargetHealth filtered", func() (any, error) {
			return c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: arn, Targets: pods(3)})
		}, func() (any, error) {
			return w.sim.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: arn, Targets: pods(3)})
		}},
		{"DescribeTargetGroupAttributes", func() (any, error) {
			return c.DescribeTargetGroupAttributes(ctx, &elbv2.DescribeTargetGroupAttributesInput{TargetGroupArn: arn})
		}, func() (any, error) {
			return w.sim.DescribeTargetGroupAttributes(ctx, &elbv2.DescribeTargetGroupAttributesInput{TargetGroupArn: arn})
		}},
		{"DescribeTags", func() (any, error) {
			return c.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: []string{w.tg, *podTG}})
		},
			func() (any, error) {
				return w.sim.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: []string{w.tg, *podTG}})
			}},
		{"DescribeLoadBalancers", func() (any, error) { return c.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{}) },
			func() (any, error) { return w.sim.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{}) }},
		{"DescribeListeners", func() (any, error) {
			return c.DescribeListeners(ctx, &elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(w.lb)})
		}, func() (any, error) {
			return w.sim.DescribeListeners(ctx, &elbv2.DescribeListenersInput{LoadBalancerArn: aws.String(w.lb)})
		}},
		{"DescribeRules", func() (any, error) {
			return c.DescribeRules(ctx, &elbv2.DescribeRulesInput{ListenerArn: aws.String(w.ln)})
		},
			func() (any, error) {
				return w.sim.DescribeRules(ctx, &elbv2.DescribeRulesInput{ListenerArn: aws.String(w.ln)})
			}},
	}
	for _, r := range reads {
		got, err := r.wire()
		if err != nil {
			t.Fatalf("%s through the wire: %v", r.name, err)
		}
		want, err := r.sim()
		if err != nil {
			t.Fatalf("%s through the facade: %v", r.name, err)
		}
		if diff := cmp.Diff(want, got, sdkTypes); diff != "" {
			t.Errorf("%s (-facade +wire):\n%s", r.name, diff)
		}
	}

	// The writes took effect on the model.
	route, err := w.model.Route(w.ln, "")
	if err != nil || len(route.TargetGroups) != 2 {
		t.Errorf("route %+v, %v", route, err)
	}
	var states []string
	for _, v := range w.model.Targets(w.tg) {
		states = append(states, v.IP+" "+string(v.State))
	}
	if want := []string{"10.0.1.1 draining", "10.0.1.2 healthy"}; !slices.Equal(states, want) {
		t.Errorf("targets %v, want %v", states, want)
	}
	if _, err := c.DeleteTargetGroup(ctx, &elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(mustCreate(t, w, "gone"))}); err != nil {
		t.Fatal(err)
	}

	// Every request was counted at the endpoint, once.
	want := map[string]int{"CreateTargetGroup": 1, "RegisterTargets": 1, "ModifyTargetGroup": 1, "ModifyTargetGroupAttributes": 1,
		"AddTags": 1, "ModifyListener": 1, "ModifyRule": 1, "DeregisterTargets": 1, "DescribeTargetGroups": 1, "DescribeTargetHealth": 2,
		"DescribeTargetGroupAttributes": 1, "DescribeTags": 1, "DescribeLoadBalancers": 1, "DescribeListeners": 1, "DescribeRules": 1,
		"DeleteTargetGroup": 1}
	if diff := cmp.Diff(want, w.ep.Counts()); diff != "" {
		t.Errorf("endpoint counts (-want +got):\n%s", diff)
	}
	if got := len(elbv2wire.Actions()); got != len(want) {
		t.Errorf("the test covers %d actions of %d", len(want), got)
	}
}

func mustCreate(t *testing.T, w *world, name string) string {
	t.Helper()
	out, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{Name: aws.String(name), TargetType: types.TargetTypeEnumIp,
		Protocol: types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpcID)})
	if err != nil {
		t.Fatal(err)
	}
	return *out.TargetGroups[0].TargetGroupArn
}

// TestPaginationOver400TargetGroups: the SDK's paginator follows the
// model's Marker across pages of 400.
func TestPaginationOver400TargetGroups(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	w.addTargetGroups(t, 904) // 905 with "tg": pages of 400, 400, 105
	c := w.client(elbv2wire.ClientOptions{})
	p := elbv2.NewDescribeTargetGroupsPaginator(c, &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(400)})
	var got []string
	var sizes []int
	for p.HasMorePages() {
		page, err := p.NextPage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(page.TargetGroups))
		for _, tg := range page.TargetGroups {
			got = append(got, aws.ToString(tg.TargetGroupArn))
		}
	}
	want := w.model.TargetGroupARNs()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || !slices.Equal(sizes, []int{400, 400, 105}) {
		t.Errorf("pages %v, %d ARNs (want %d, all of them)", sizes, len(got), len(want))
	}
	if n := w.ep.Counts()["DescribeTargetGroups"]; n != 3 {
		t.Errorf("%d DescribeTargetGroups at the endpoint, want 3: %+v", n, w.ep.Requests())
	}
	// A marker the model did not issue fails as ELBv2 fails it.
	_, err := c.DescribeTargetGroups(t.Context(), &elbv2.DescribeTargetGroupsInput{Marker: aws.String("not-a-marker")})
	if code(err) != "ValidationError" {
		t.Errorf("bad marker: %v", err)
	}
}

// TestThrottlingRetriedBySDKAndLibrary: a Throttling answer (HTTP 400) is
// retried by the SDK's standard retryer and then by the library's backoff
// on the virtual clock; the throttled attempts never reach the model, so
// the call takes effect once.
func TestThrottlingRetriedBySDKAndLibrary(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	var calls elbv2wire.CallCounter
	c := w.client(elbv2wire.ClientOptions{OnCall: calls.Count}) // the SDK's standard retryer, 3 attempts
	ctx := t.Context()
	arn := aws.String(w.tg)

	// RegisterTargets: 4 throttles, so the SDK's 3 attempts fail, the
	// library backs off once, and the SDK's next call succeeds on its
	// second attempt.
	for range 4 {
		if err := w.sim.Inject(elbv2sim.InjectedError{Op: elbv2sim.OpRegisterTargets, Err: throttling()}); err != nil {
			t.Fatal(err)
		}
	}
	var notified []error
	start := w.clock.Now()
	err := internalretry.Do(ctx, w.clock, internalretry.Policy{Initial: time.Second, MaxAttempts: 5}, func(ctx context.Context) error {
		_, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: arn, Targets: pods(2)})
		return awserr.Classify("RegisterTargets", w.tg, err)
	}, internalretry.WithNotify(func(err error, _ time.Duration) { notified = append(notified, err) }))
	if err != nil {
		t.Fatal(err)
	}
	if len(notified) != 1 || !errors.Is(notified[0], awserr.ErrThrottled) {
		t.Errorf("library retries %v, want one throttle", notified)
	}
	var maxAttempts *retry.MaxAttemptsError
	if !errors.As(notified[0], &maxAttempts) || maxAttempts.Attempt != 3 {
		t.Errorf("the SDK's retryer did not give up after 3 attempts: %v", notified[0])
	}
	if got := w.clock.Since(start); got != time.Second {
		t.Errorf("virtual time %v: the library's backoff is 1s on the virtual clock", got)
	}
	if n := w.ep.Counts()["RegisterTargets"]; n != 5 {
		t.Errorf("%d RegisterTargets at the endpoint, want 5 (3 + 2)", n)
	}
	if n := calls.Counts()["RegisterTargets"]; n != 2 {
		t.Errorf("%d RegisterTargets calls by the library, want 2 (one retry of its own)", n)
	}
	var codes []string
	for _, r := range w.ep.Requests() {
		codes = append(codes, strings.TrimSpace(r.Action+" "+r.Code))
	}
	if want := slices.Repeat([]string{"RegisterTargets Throttling"}, 4); !slices.Equal(codes[:4], want) || codes[4] != "RegisterTargets" {
		t.Errorf("requests %v", codes)
	}
	for _, r := range w.ep.Requests()[:4] {
		if r.Status != http.StatusBadRequest {
			t.Errorf("throttled request answered %d, want 400", r.Status)
		}
	}
	for _, p := range pods(2) {
		if n := w.registrations(*p.Id, *p.Port); n != 1 {
			t.Errorf("%s registered %d times, want once", *p.Id, n)
		}
	}

	// ModifyListener is not idempotent in effect: each call that reaches
	// the model changes the routing version. Two throttles, then success,
	// all inside the SDK's retries: one change.
	for range 2 {
		if err := w.sim.Inject(elbv2sim.InjectedError{Op: elbv2sim.OpModifyListener, Err: throttling()}); err != nil {
			t.Fatal(err)
		}
	}
	before := w.model.RoutingVersion()
	if _, err := c.ModifyListener(ctx, &elbv2.ModifyListenerInput{ListenerArn: aws.String(w.ln), DefaultActions: []types.Action{
		{Type: types.ActionTypeEnumForward, TargetGroupArn: arn}}}); err != nil {
		t.Fatal(err)
	}
	if got := w.model.RoutingVersion() - before; got != 1 {
		t.Errorf("routing changed %d times, want once", got)
	}
	if n := w.ep.Counts()["ModifyListener"]; n != 3 {
		t.Errorf("%d ModifyListener at the endpoint, want 3", n)
	}
	reached := 0
	for _, call := range w.sim.Calls() {
		if call.Op == elbv2sim.OpModifyListener && call.ErrCode == "" {
			reached++
		}
	}
	if reached != 1 {
		t.Errorf("%d ModifyListener calls reached the model, want 1", reached)
	}
}

// TestRateThrottleOnTheVirtualClock: elbv2sim's token bucket throttles
// through the wire exactly as through the facade; HTTP calls do not move
// the virtual clock, so the SDK's retries find the bucket empty, and only
// the library's backoff, on the virtual clock, refills it.
func TestRateThrottleOnTheVirtualClock(t *testing.T) {
	th, err := elbv2sim.NewThrottle(map[elbv2sim.OpClass]elbv2sim.Bucket{elbv2sim.ClassDescribe: {Capacity: 2, RefillPerSecond: 1}})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, elbv2sim.Options{Throttle: th})
	c := w.client(elbv2wire.ClientOptions{})
	ctx := t.Context()
	in := &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)}
	now := w.clock.Now()
	for range 2 {
		if _, err := c.DescribeTargetHealth(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.DescribeTargetHealth(ctx, in)
	if !errors.Is(awserr.Classify("DescribeTargetHealth", w.tg, err), awserr.ErrThrottled) {
		t.Fatalf("third call: %v, want throttled", err)
	}
	if n := w.ep.Counts()["DescribeTargetHealth"]; n != 5 || !w.clock.Now().Equal(now) {
		t.Errorf("%d requests (want 2 + 3 attempts), virtual time moved %v", n, w.clock.Since(now))
	}
	attempts := 0
	err = internalretry.Do(ctx, w.clock, internalretry.Policy{Initial: time.Second}, func(ctx context.Context) error {
		attempts++
		_, err := c.DescribeTargetHealth(ctx, in)
		return awserr.Classify("DescribeTargetHealth", w.tg, err)
	})
	if err != nil || attempts != 2 || w.clock.Since(now) != time.Second {
		t.Errorf("library retry: %v after %d attempts and %v", err, attempts, w.clock.Since(now))
	}
}

// TestLostResponseIsRetried: a response lost after the backend ran
// (FaultReset with AfterBackend) is retried by the SDK, so the call runs
// twice. ModifyListener's result is the same; its routing version shows
// the second run. This is AWS's own hazard, and why the library's writes
// are idempotent in effect.
func TestLostResponseIsRetried(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{})
	if err := w.ep.Inject(elbv2wire.FaultRule{Action: "ModifyListener", Fault: elbv2wire.FaultReset, AfterBackend: true}); err != nil {
		t.Fatal(err)
	}
	before := w.model.RoutingVersion()
	if _, err := c.ModifyListener(t.Context(), &elbv2.ModifyListenerInput{ListenerArn: aws.String(w.ln), DefaultActions: []types.Action{
		{Type: types.ActionTypeEnumForward, TargetGroupArn: aws.String(w.tg)}}}); err != nil {
		t.Fatal(err)
	}
	if got := w.model.RoutingVersion() - before; got != 2 {
		t.Errorf("routing changed %d times, want 2: the lost response's call and the retry", got)
	}
	reqs := w.ep.Requests()
	if len(reqs) != 2 || reqs[0].Fault != elbv2wire.FaultReset || reqs[0].Status != 0 || reqs[1].Status != 200 {
		t.Errorf("requests %+v", reqs)
	}
}

// TestWireFaultsGiveTypedErrors: malformed bodies, truncated bodies,
// reset connections and 5xx answers come back as errors the library can
// classify, never as panics: the wire failures as ErrTransport, the 5xx
// answers (AWS codes it does not know) as ErrUnknown only; both are
// ErrUnknown and neither is retryable by the library. The retryable ones
// are retried by the SDK, and a fault before the backend has no effect.
func TestWireFaultsGiveTypedErrors(t *testing.T) {
	tests := []struct {
		fault elbv2wire.Fault
		// check tells the SDK's error apart.
		check func(error) bool
		// retried: the SDK's standard retryer retries it.
		retried bool
		// transport: no AWS answer could be read (awserr.ErrTransport).
		transport bool
	}{
		{elbv2wire.FaultMalformed, func(err error) bool { var d *smithy.DeserializationError; return errors.As(err, &d) }, false, true},
		{elbv2wire.FaultTruncated, func(err error) bool { var d *smithy.DeserializationError; return errors.As(err, &d) }, false, true},
		{elbv2wire.FaultReset, func(err error) bool { var s *smithyhttp.RequestSendError; return errors.As(err, &s) }, true, true},
		{elbv2wire.FaultInternal, func(err error) bool { return code(err) == elbv2wire.CodeInternalFailure && status(err) == 500 }, true, false},
		{elbv2wire.FaultUnavailable, func(err error) bool { return code(err) == elbv2wire.CodeServiceUnavailable && status(err) == 503 }, true, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault), func(t *testing.T) {
			w := newWorld(t, elbv2sim.Options{})
			ctx := t.Context()
			in := &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: pods(1)}

			// No SDK retries: the fault comes back as a typed error.
			once := w.client(elbv2wire.ClientOptions{MaxAttempts: 1})
			if err := w.ep.Inject(elbv2wire.FaultRule{Action: "RegisterTargets", Fault: tt.fault}); err != nil {
				t.Fatal(err)
			}
			_, err := once.RegisterTargets(ctx, in)
			if err == nil || !tt.check(err) {
				t.Fatalf("error %T %v", err, err)
			}
			var op *smithy.OperationError
			if !errors.As(err, &op) || op.OperationName != "RegisterTargets" {
				t.Errorf("not wrapped as an operation error: %v", err)
			}
			classified := awserr.Classify("RegisterTargets", w.tg, err)
			if !errors.Is(classified, awserr.ErrUnknown) || errors.Is(classified, awserr.ErrTransport) != tt.transport ||
				awserr.IsRetryable(classified, false) {
				t.Errorf("classified %v: want ErrUnknown, ErrTransport %t, not retryable", classified, tt.transport)
			}
			if n := w.registrations("10.0.1.1", 8080); n != 0 {
				t.Errorf("a faulted call registered the target %d times", n)
			}

			// The standard retryer: retried when the SDK retries it.
			std := w.client(elbv2wire.ClientOptions{})
			if err := w.ep.Inject(elbv2wire.FaultRule{Action: "RegisterTargets", Fault: tt.fault}); err != nil {
				t.Fatal(err)
			}
			w.ep.ResetCounts()
			_, err = std.RegisterTargets(ctx, in)
			if tt.retried != (err == nil) {
				t.Errorf("with retries: %v (retried %t)", err, tt.retried)
			}
			want := 1
			if tt.retried {
				want = 2
			}
			if n := w.ep.Counts()["RegisterTargets"]; n != want {
				t.Errorf("%d requests, want %d", n, want)
			}
		})
	}
}

func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// TestTypedExceptionsAndStatuses: the model's errors reach the caller as
// the SDK's typed exceptions, answered with AWS's HTTP statuses.
func TestTypedExceptionsAndStatuses(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{MaxAttempts: 1})
	ctx := t.Context()
	gone := strings.Replace(w.tg, "/tg/", "/gone/", 1)
	tests := []struct {
		name   string
		call   func() error
		target any
		status int
	}{
		{"TargetGroupNotFound", func() error {
			_, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(gone)})
			return err
		}, new(*types.TargetGroupNotFoundException), 400},
		{"InvalidTarget", func() error {
			_, err := c.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: []types.TargetDescription{{Id: aws.String("192.168.1.1")}}})
			return err
		}, new(*types.InvalidTargetException), 400},
		{"DuplicateTargetGroupName", func() error {
			_, err := c.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("tg"), TargetType: types.TargetTypeEnumIp,
				Protocol: types.ProtocolEnumHttp, Port: aws.Int32(9090), VpcId: aws.String(vpcID)})
			return err
		}, new(*types.DuplicateTargetGroupNameException), 400},
		{"ListenerNotFound", func() error {
			_, err := c.ModifyListener(ctx, &elbv2.ModifyListenerInput{ListenerArn: aws.String(w.ln + "0")})
			return err
		}, new(*types.ListenerNotFoundException), 400},
		{"ValidationError", func() error {
			_, err := c.ModifyTargetGroup(ctx, &elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String(w.tg), HealthCheckIntervalSeconds: aws.Int32(1)})
			return err
		}, new(*smithy.GenericAPIError), 400},
		{"PriorRequestNotComplete", func() error {
			if err := w.sim.Inject(elbv2sim.InjectedError{Op: elbv2sim.OpAddTags, Err: &types.PriorRequestNotCompleteException{Message: aws.String("busy")}}); err != nil {
				t.Fatal(err)
			}
			_, err := c.AddTags(ctx, &elbv2.AddTagsInput{ResourceArns: []string{w.tg}, Tags: []types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
			return err
		}, new(*types.PriorRequestNotCompleteException), 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.As(err, tt.target) || code(err) != tt.name || status(err) != tt.status {
				t.Fatalf("error %T %v (status %d), want %T with status %d", err, err, status(err), tt.target, tt.status)
			}
			var reqID interface{ ServiceRequestID() string }
			if !errors.As(err, &reqID) || reqID.ServiceRequestID() == "" {
				t.Errorf("no request ID in %v", err)
			}
		})
	}
}

// TestNoClockWaitInHandlers: with a facade that has latency, the caller
// spends it on the virtual clock before each attempt (BeforeAttempt =
// Client.Wait) and the handler never waits: a call made from inside a
// world event (as the LBC stand-in's are) succeeds, where a wait in the
// handler would trip the clock's "events must not wait" guard.
func TestNoClockWaitInHandlers(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{Latency: 200 * time.Millisecond})
	c := w.client(elbv2wire.ClientOptions{BeforeAttempt: w.sim.Wait})
	ctx := t.Context()
	in := &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)}
	start := w.clock.Now()
	if _, err := c.DescribeTargetHealth(ctx, in); err != nil {
		t.Fatal(err)
	}
	if got := w.clock.Since(start); got != 200*time.Millisecond {
		t.Errorf("the call took %v of virtual time, want the latency", got)
	}

	// From a world event, through a client that does not spend latency.
	lbcLike := w.client(elbv2wire.ClientOptions{MaxAttempts: 1})
	var eventErr error
	w.clock.AfterEvent(time.Second, "lbc-like reconcile", func(time.Time) {
		_, eventErr = lbcLike.DescribeTargetHealth(ctx, in)
	})
	w.clock.Advance(2 * time.Second)
	if eventErr != nil {
		t.Fatalf("a call from an event: %v", eventErr)
	}

	// The guard is real: the facade itself, with its latency, from an
	// event, panics.
	defer func() {
		if recover() == nil {
			t.Error("the facade's latency in an event did not trip the clock's guard")
		}
	}()
	w.clock.AfterEvent(time.Second, "facade with latency", func(time.Time) {
		_, _ = w.sim.DescribeTargetHealth(ctx, in)
	})
	w.clock.Advance(2 * time.Second)
}

// TestConcurrentCalls: the endpoint serves concurrent callers (run with
// -race); every request is counted once.
func TestConcurrentCalls(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Go(func() {
			var err error
			if i%2 == 0 {
				_, err = c.DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
			} else {
				_, err = c.RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: pods(2)})
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if diff := cmp.Diff(map[string]int{"DescribeTargetHealth": 16, "RegisterTargets": 16}, w.ep.Counts()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(w.ep.Counts(), w.sim.Counts()); diff != "" {
		t.Errorf("endpoint and facade counts differ:\n%s", diff)
	}
}

// TestContextCancelled: a cancelled context ends the call in the client,
// with the context's error, before anything is sent.
func TestContextCancelled(t *testing.T) {
	w := newWorld(t, elbv2sim.Options{})
	c := w.client(elbv2wire.ClientOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := c.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v", err)
	}
	if n := len(w.ep.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
