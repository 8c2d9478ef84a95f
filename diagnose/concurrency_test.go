package diagnose_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"golang.org/x/time/rate"
	"k8s.io/utils/clock"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// accountFleet is one account's fake: tgs target groups with one target
// each and no load balancer, so a Scope{All} scan of it makes exactly one
// DescribeTargetGroups, one DescribeTags and tgs DescribeTargetHealth calls.
func accountFleet(account string, tgs int) *fakeELBv2 {
	f := newFakeELBv2()
	for i := range tgs {
		arn := fmt.Sprintf("arn:aws:elasticloadbalancing:%s:%s:targetgroup/tg-%d/%016x", benchRegion, account, i, i)
		f.addTargetGroup(elbv2types.TargetGroup{
			TargetGroupArn: aws.String(arn), TargetGroupName: aws.String(fmt.Sprintf("tg-%d", i)),
			TargetType: elbv2types.TargetTypeEnumIp, Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(30080), VpcId: aws.String(benchVPC),
		}, nil, []elbv2types.TargetHealthDescription{{
			Target:       &elbv2types.TargetDescription{Id: aws.String(fmt.Sprintf("10.0.0.%d", i+1)), Port: aws.Int32(30080)},
			TargetHealth: &elbv2types.TargetHealth{State: elbv2types.TargetHealthStateEnumHealthy},
		}})
	}
	f.index()
	return f
}

func accountID(i int) string { return fmt.Sprintf("%012d", 100000000000+i) }

// gate holds every ELBv2 call of every account until the test releases
// it, and records how many calls were in flight at once.
type gate struct {
	entered chan *heldCall

	mu       sync.Mutex
	inFlight int
	peak     int
}

type heldCall struct {
	op      string
	release chan struct{}
}

// hold counts the call in flight until the test releases it (or ctx ends:
// a test that failed half-way lets the scan go).
func (g *gate) hold(ctx context.Context, op string) {
	c := &heldCall{op: op, release: make(chan struct{})}
	g.mu.Lock()
	g.inFlight++
	g.peak = max(g.peak, g.inFlight)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inFlight--
		g.mu.Unlock()
	}()
	select {
	case g.entered <- c:
	case <-ctx.Done():
		return
	}
	select {
	case <-c.release:
	case <-ctx.Done():
	}
}

// gatedELBv2 is an account's fake behind the gate.
type gatedELBv2 struct {
	*fakeELBv2
	g *gate
}

func (e gatedELBv2) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	e.g.hold(ctx, "DescribeTargetGroups")
	return e.fakeELBv2.DescribeTargetGroups(ctx, in, o...)
}

func (e gatedELBv2) DescribeTags(ctx context.Context, in *elbv2.DescribeTagsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	e.g.hold(ctx, "DescribeTags")
	return e.fakeELBv2.DescribeTags(ctx, in, o...)
}

func (e gatedELBv2) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	e.g.hold(ctx, "DescribeTargetHealth")
	return e.fakeELBv2.DescribeTargetHealth(ctx, in, o...)
}

// TestConcurrencyBoundsCallsInFlight scans three accounts whose ELBv2
// calls block until the test releases them. The test holds the calls of a
// phase until as many are in flight as the pool allows (WithConcurrency n,
// or fewer when the phase has fewer calls left), then releases them
// together: the peak of calls in flight is exactly n. With a pool of one
// the calls run one at a time; with two or three they overlap, across
// accounts, and never more than n at once.
//
// When the pool runs fewer calls at once than it should, the calls the
// test waits for never come: a guard of guardWait real time (never reached
// when the pool is right) then fails the test and lets the scan finish.
// Before it releases a full batch, the test yields the processor so that
// calls beyond the bound, if the pool let any through, show up in the peak.
func TestConcurrencyBoundsCallsInFlight(t *testing.T) {
	const (
		accounts  = 3
		perAcct   = 2 // target groups per account
		guardWait = 20 * time.Second
	)
	// The calls of each phase, in phase order; all of one phase end before
	// the next phase starts.
	phases := []struct {
		op    string
		calls int
	}{
		{"DescribeTargetGroups", accounts},
		{"DescribeTags", accounts},
		{"DescribeTargetHealth", accounts * perAcct},
	}
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("concurrency %d", n), func(t *testing.T) {
			g := &gate{entered: make(chan *heldCall)}
			src := diagnose.Sources{Clusters: []diagnose.Cluster{{Name: "prod", Reader: newListReader(nil), VPCID: benchVPC}}}
			for i := range accounts {
				src.Accounts = append(src.Accounts, diagnose.Account{ID: accountID(i), Region: benchRegion,
					ELBv2: gatedELBv2{fakeELBv2: accountFleet(accountID(i), perAcct), g: g}})
			}
			type result struct {
				rep *diagnose.Report
				err error
			}
			done := make(chan result, 1)
			go func() {
				rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true},
					diagnose.WithClock(vclock.New(time.Time{})), diagnose.WithRateLimit(rate.Inf, 0), diagnose.WithConcurrency(n))
				done <- result{rep, err}
			}()

			var batches []int // calls released together, in order
			passThrough := false
			for _, ph := range phases {
				left := ph.calls
				for left > 0 {
					want := min(n, left)
					var held []*heldCall
					for len(held) < want {
						if passThrough {
							c := <-g.entered
							close(c.release)
							left--
							break
						}
						select {
						case c := <-g.entered:
							if c.op != ph.op {
								t.Fatalf("%s call during the %s phase", c.op, ph.op)
							}
							held = append(held, c)
						case <-time.After(guardWait):
							t.Errorf("%s: %d calls in flight, want %d: the pool runs fewer calls at once than WithConcurrency(%d)", ph.op, len(held), want, n)
							passThrough = true
							want = len(held)
						}
					}
					if len(held) == 0 {
						continue
					}
					for range 100 {
						runtime.Gosched()
					}
					batches = append(batches, len(held))
					for _, c := range held {
						close(c.release)
					}
					left -= len(held)
				}
			}
			res := <-done
			if res.err != nil {
				t.Fatal(res.err)
			}
			if got := res.rep.Summary.TargetGroups; got != accounts*perAcct {
				t.Errorf("%d target groups reported, want %d", got, accounts*perAcct)
			}
			g.mu.Lock()
			peak := g.peak
			g.mu.Unlock()
			switch {
			case n == 1 && peak != 1:
				t.Errorf("peak in flight = %d, want exactly 1", peak)
			case n > 1 && (peak <= 1 || peak > n):
				t.Errorf("peak in flight = %d, want more than 1 and at most %d", peak, n)
			}
			t.Logf("batches released: %v", batches)
		})
	}
}

// timedELBv2 records the virtual time of each call of one account.
type timedELBv2 struct {
	*fakeELBv2
	clk   clock.PassiveClock
	mu    *sync.Mutex
	times *[]time.Duration
}

func (e timedELBv2) stamp() {
	e.mu.Lock()
	*e.times = append(*e.times, e.clk.Since(vclock.Epoch))
	e.mu.Unlock()
}

func (e timedELBv2) DescribeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error) {
	e.stamp()
	return e.fakeELBv2.DescribeTargetGroups(ctx, in, o...)
}

func (e timedELBv2) DescribeTags(ctx context.Context, in *elbv2.DescribeTagsInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error) {
	e.stamp()
	return e.fakeELBv2.DescribeTags(ctx, in, o...)
}

func (e timedELBv2) DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, o ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error) {
	e.stamp()
	return e.fakeELBv2.DescribeTargetHealth(ctx, in, o...)
}

// waitCounter is the virtual clock, counting the waits (timers) made on it
// and their durations.
type waitCounter struct {
	*vclock.Clock
	mu    sync.Mutex
	waits []time.Duration
}

func (c *waitCounter) NewTimer(d time.Duration) clock.Timer {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return c.Clock.NewTimer(d)
}

// TestRateLimitPerAccountOnInjectedClock: two accounts, one call per
// second and no burst each. Each account's three calls land one virtual
// second apart (0s, 1s, 2s), and the two accounts' calls share those
// instants: each account's limiter paces its own calls only, so the scan
// takes 2s of virtual time and two waits of 1s. One limiter shared by both
// would have spread the six calls over 5s with five waits. One worker, so
// that one goroutine at a time waits on the virtual clock (package vclock).
func TestRateLimitPerAccountOnInjectedClock(t *testing.T) {
	clk := &waitCounter{Clock: vclock.New(time.Time{})}
	var mu sync.Mutex
	times := make([][]time.Duration, 2)
	src := diagnose.Sources{Clusters: []diagnose.Cluster{{Name: "prod", Reader: newListReader(nil), VPCID: benchVPC}}}
	for i := range times {
		src.Accounts = append(src.Accounts, diagnose.Account{ID: accountID(i), Region: benchRegion,
			ELBv2: timedELBv2{fakeELBv2: accountFleet(accountID(i), 1), clk: clk, mu: &mu, times: &times[i]}})
	}
	rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true},
		diagnose.WithClock(clk), diagnose.WithRateLimit(1, 1), diagnose.WithConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, time.Second, 2 * time.Second}
	for i, got := range times {
		if !slices.Equal(got, want) {
			t.Errorf("account %d: calls at %v of virtual time, want %v", i, got, want)
		}
	}
	if got := clk.Since(vclock.Epoch); got != 2*time.Second {
		t.Errorf("virtual time = %v, want 2s", got)
	}
	clk.mu.Lock()
	waits := slices.Clone(clk.waits)
	clk.mu.Unlock()
	if !slices.Equal(waits, []time.Duration{time.Second, time.Second}) {
		t.Errorf("waits on the clock = %v, want two of 1s", waits)
	}
	for _, a := range rep.Accounts {
		if a.APICalls["DescribeTargetGroups"]+a.APICalls["DescribeTags"]+a.APICalls["DescribeTargetHealth"] != 3 || a.Retries != 0 {
			t.Errorf("account %s: calls %v, retries %d", a.ID, a.APICalls, a.Retries)
		}
	}
}
