package read

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	"golang.org/x/time/rate"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/retry"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// counter is an OnAttempt hook that counts attempts by operation.
type counter map[string]int

func (c counter) add(op string) { c[op]++ }

func newReader(t *testing.T, o Options) (*mocks.MockELBv2API, *Reader) {
	t.Helper()
	m := mocks.NewMockELBv2API(gomock.NewController(t))
	return m, New(m, NewCaller(o))
}

var throttled = &smithy.GenericAPIError{Code: "Throttling", Message: "rate exceeded"}

// TestPagingStopsOnRepeatedMarker: a service that hands back a marker it
// gave before ends the query there, with every page read once.
func TestPagingStopsOnRepeatedMarker(t *testing.T) {
	calls := counter{}
	m, r := newReader(t, Options{OnAttempt: calls.add})
	markers := []string{"a", "b", "a"}
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
			if got := aws.ToInt32(in.PageSize); got != PageSize {
				t.Errorf("PageSize = %d, want %d", got, PageSize)
			}
			i := calls["DescribeTargetGroups"] - 1
			return &elbv2.DescribeTargetGroupsOutput{
				TargetGroups: []elbv2types.TargetGroup{{TargetGroupArn: aws.String(fmt.Sprint("tg-", i))}},
				NextMarker:   aws.String(markers[i]),
			}, nil
		}).Times(3)
	tgs, err := r.TargetGroups(t.Context(), elbv2.DescribeTargetGroupsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tgs) != 3 {
		t.Errorf("read %d target groups, want 3 (one per page)", len(tgs))
	}
}

// TestNilOutput: an answer with neither an output nor an error is an
// error wrapping ErrNilResponse, on a single read and on a paged one.
func TestNilOutput(t *testing.T) {
	m, r := newReader(t, Options{})
	m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).Return(nil, nil)
	m.EXPECT().DescribeListeners(gomock.Any(), gomock.Any(), gomock.Any()).Return(nil, nil)
	if _, err := r.TargetHealth(t.Context(), "tg-1"); !errors.Is(err, awserr.ErrNilResponse) || err.Error() != "DescribeTargetHealth tg-1: nil response" {
		t.Errorf("TargetHealth: %v, want ErrNilResponse", err)
	}
	if _, err := r.Listeners(t.Context(), "lb-1"); !errors.Is(err, awserr.ErrNilResponse) {
		t.Errorf("Listeners: %v, want ErrNilResponse", err)
	}
}

// TestThrottlingRetried: throttling is retried on the virtual clock, with
// the policy's delays, until it passes or the policy gives up.
func TestThrottlingRetried(t *testing.T) {
	tests := []struct {
		name      string
		throttles int
		last      bool
		wantErr   func(error) bool
		wantCalls int
		wantWait  time.Duration
	}{
		{name: "then success", throttles: 2, wantErr: func(err error) bool { return err == nil }, wantCalls: 3, wantWait: 300 * time.Millisecond},
		{name: "gave up", throttles: 9, wantCalls: 4, wantWait: 700 * time.Millisecond,
			wantErr: func(err error) bool { return errors.Is(err, retry.ErrGaveUp) && errors.Is(err, awserr.ErrThrottled) }},
		{name: "gave up, last error", throttles: 9, last: true, wantCalls: 4, wantWait: 700 * time.Millisecond,
			wantErr: func(err error) bool { return !errors.Is(err, retry.ErrGaveUp) && errors.Is(err, awserr.ErrThrottled) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := vclock.New(time.Time{})
			calls, retries := counter{}, 0
			m, r := newReader(t, Options{Clock: clk, OnAttempt: calls.add, LastOnGiveUp: tt.last,
				Policy:  retry.Policy{Initial: 100 * time.Millisecond, Max: time.Second, MaxAttempts: 4},
				OnRetry: func(string, string, error, time.Duration) { retries++ }})
			m.EXPECT().DescribeTargetGroupAttributes(gomock.Any(), gomock.Any()).DoAndReturn(
				func(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error) {
					if calls["DescribeTargetGroupAttributes"] <= tt.throttles {
						return nil, throttled
					}
					return &elbv2.DescribeTargetGroupAttributesOutput{}, nil
				}).Times(tt.wantCalls)
			_, err := r.Attributes(t.Context(), "tg-1")
			if !tt.wantErr(err) {
				t.Errorf("Attributes: unexpected error %v", err)
			}
			if calls["DescribeTargetGroupAttributes"] != tt.wantCalls || retries != tt.wantCalls-1 {
				t.Errorf("%d attempts, %d retries; want %d and %d", calls["DescribeTargetGroupAttributes"], retries, tt.wantCalls, tt.wantCalls-1)
			}
			if got := clk.Since(vclock.Epoch); got != tt.wantWait {
				t.Errorf("waited %v, want %v", got, tt.wantWait)
			}
		})
	}
}

// TestHalvingOnNotFound: a batch that AWS answers NotFound as a whole is
// halved until every existing target group is found and each missing one
// is named; a batch's other failure fails each of its items.
func TestHalvingOnNotFound(t *testing.T) {
	exists := map[string]bool{}
	var arns []string
	for i := range 25 {
		arn := fmt.Sprintf("tg-%02d", i)
		arns = append(arns, arn)
		exists[arn] = i != 3 && i != 21
	}
	calls := counter{}
	m, r := newReader(t, Options{OnAttempt: calls.add})
	m.EXPECT().DescribeTargetGroups(gomock.Any(), gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTargetGroupsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
			if len(in.TargetGroupArns) > ARNBatch {
				t.Errorf("a batch of %d ARNs, want at most %d", len(in.TargetGroupArns), ARNBatch)
			}
			out := &elbv2.DescribeTargetGroupsOutput{}
			for _, arn := range in.TargetGroupArns {
				if !exists[arn] {
					return nil, &elbv2types.TargetGroupNotFoundException{Message: aws.String("one is missing")}
				}
				out.TargetGroups = append(out.TargetGroups, elbv2types.TargetGroup{TargetGroupArn: aws.String(arn)})
			}
			return out, nil
		}).AnyTimes()
	found, missing, failed := r.TargetGroupsByARN(t.Context(), arns)
	var got []string
	for _, tg := range found {
		got = append(got, aws.ToString(tg.TargetGroupArn))
	}
	slices.Sort(got)
	want := slices.DeleteFunc(slices.Clone(arns), func(a string) bool { return !exists[a] })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	if len(missing) != 2 || !errors.Is(missing["tg-03"], awserr.ErrNotFound) || !errors.Is(missing["tg-21"], awserr.ErrNotFound) || len(failed) != 0 {
		t.Errorf("missing %v, failed %v; want tg-03 and tg-21 missing, none failed", missing, failed)
	}
	// Batches of 20 and 5. Around tg-03: 20 -> 10+10 -> 5+5 -> 2+3 ->
	// 1+2 -> 1+1, 11 calls; around tg-21: 5 -> 2+3 -> 1+1, 5 calls.
	if n := calls["DescribeTargetGroups"]; n != 16 {
		t.Errorf("%d calls, want 16", n)
	}
}

// TestTagsHalving: DescribeTags halves a batch around a vanished
// resource, and names each ARN it could not read.
func TestTagsHalving(t *testing.T) {
	m, r := newReader(t, Options{})
	m.EXPECT().DescribeTags(gomock.Any(), gomock.Any()).DoAndReturn(
		func(_ context.Context, in *elbv2.DescribeTagsInput, _ ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
			out := &elbv2.DescribeTagsOutput{}
			for _, arn := range in.ResourceArns {
				if arn == "gone" {
					return nil, &elbv2types.TargetGroupNotFoundException{}
				}
				out.TagDescriptions = append(out.TagDescriptions, elbv2types.TagDescription{ResourceArn: aws.String(arn),
					Tags: []elbv2types.Tag{{Key: aws.String("k"), Value: aws.String(arn)}}})
			}
			return out, nil
		}).Times(5) // [a b gone c] -> [a b] + [gone c] -> [gone] + [c]
	tags, failed := r.Tags(t.Context(), []string{"a", "b", "gone", "c"})
	want := map[string]map[string]string{"a": {"k": "a"}, "b": {"k": "b"}, "c": {"k": "c"}}
	if diff := cmp.Diff(want, tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	if len(failed) != 1 || !errors.Is(failed["gone"], awserr.ErrNotFound) {
		t.Errorf("failed = %v, want gone NotFound", failed)
	}
}

// TestBeforeAttempt: the hook runs before every attempt, retries
// included; its error stops the call before the attempt, unretried.
func TestBeforeAttempt(t *testing.T) {
	clk := vclock.New(time.Time{})
	var order []string
	lost := errors.New("lease lost")
	hookErr := map[int]error{3: lost}
	m, r := newReader(t, Options{Clock: clk, LastOnGiveUp: true, Policy: retry.Policy{Initial: time.Second},
		BeforeAttempt: func(_ context.Context, op string) error {
			order = append(order, "hook "+op)
			return hookErr[len(order)/2+1]
		}})
	m.EXPECT().DescribeRules(gomock.Any(), gomock.Any()).DoAndReturn(
		func(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error) {
			order = append(order, "call")
			return nil, throttled
		}).Times(2)
	_, err := r.Rule(t.Context(), "rule-1")
	if !errors.Is(err, lost) {
		t.Errorf("Rule: %v, want the hook's error", err)
	}
	want := []string{"hook DescribeRules", "call", "hook DescribeRules", "call", "hook DescribeRules"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestLimiterPaces: at 2 calls a second with a burst of 1, five calls
// take 2s of virtual time, and a cancelled context ends the wait.
func TestLimiterPaces(t *testing.T) {
	clk := vclock.New(time.Time{})
	calls := counter{}
	m, r := newReader(t, Options{Clock: clk, Limiter: NewLimiter(clk, 2, 1), OnAttempt: calls.add})
	m.EXPECT().DescribeTargetHealth(gomock.Any(), gomock.Any()).Return(&elbv2.DescribeTargetHealthOutput{}, nil).Times(5)
	for range 5 {
		if _, err := r.TargetHealth(t.Context(), "tg-1"); err != nil {
			t.Fatal(err)
		}
	}
	if got := clk.Since(vclock.Epoch); got != 2*time.Second {
		t.Errorf("five calls took %v, want 2s", got)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("stopped")
	cancel(cause)
	if err := NewLimiter(clk, 2, 1).Wait(ctx); !errors.Is(err, context.Canceled) || !errors.Is(err, cause) {
		t.Errorf("Wait after cancel = %v, want context.Canceled and the cause", err)
	}
}

// TestLimiterUnlimited: rate.Inf never waits.
func TestLimiterUnlimited(t *testing.T) {
	clk := vclock.New(time.Time{})
	l := NewLimiter(clk, rate.Inf, 0)
	for range 1000 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if clk.Since(vclock.Epoch) != 0 {
		t.Errorf("an unlimited limiter waited %v", clk.Since(vclock.Epoch))
	}
}

func TestARNOf(t *testing.T) {
	const raw = "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/0123456789abcdef"
	a, err := ARNOf(&elbv2types.TargetGroup{TargetGroupArn: aws.String(raw)})
	if err != nil || a.Raw != raw || a.Name != "web" || a.ValidTargetGroup() != nil {
		t.Fatalf("ARNOf(%s) = %+v, %v", raw, a, err)
	}
	for name, tg := range map[string]*elbv2types.TargetGroup{
		"nil":           nil,
		"no ARN":        {},
		"malformed":     {TargetGroupArn: aws.String("tg-web")},
		"load balancer": {TargetGroupArn: aws.String("arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/0123456789abcdef")},
	} {
		if a, err := ARNOf(tg); err == nil || !a.IsZero() {
			t.Errorf("%s: ARNOf = %+v, %v; want an error and the zero ARN", name, a, err)
		}
	}
}
