package traffic_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/traffic"
	"github.com/qstools/tgmigrate/internal/vclock"
)

const vpcID = "vpc-1"

// net: every IP in up serves every port; probes of IPs in sick get a bad
// status even though the IP serves (a broken health-check path).
type net struct {
	mu   sync.Mutex
	up   map[string]bool
	sick map[string]bool
	app  map[string]string // what answers at an IP; "" for the expected app
}

func newNet() *net {
	return &net{up: map[string]bool{}, sick: map[string]bool{}, app: map[string]string{}}
}

func (n *net) set(ip string, up bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.up[ip] = up
}

func (n *net) Probe(ip string, _ int32, _ string) elbv2model.ProbeResult {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case !n.up[ip]:
		return elbv2model.ProbeTimeout
	case n.sick[ip]:
		return elbv2model.ProbeBadStatus
	}
	return elbv2model.ProbeOK
}

func (n *net) Serve(ip string, _ int32) elbv2model.Answer {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.up[ip] {
		return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
	}
	return elbv2model.Answer{Result: elbv2model.ProbeOK, App: n.app[ip]}
}

func (n *net) InVPC(string, string) bool { return false }

type world struct {
	clock *vclock.Clock
	net   *net
	model *elbv2model.Model
	start time.Time
	lb    string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	clock := vclock.New(time.Time{})
	n := newNet()
	// The scenarios count HealthyThresholdCount passes for new targets.
	m, err := elbv2model.New(elbv2model.Options{Clock: clock, Network: n, VPCs: map[string]string{vpcID: "10.0.0.0/16"},
		NewTargetChecks: elbv2model.HealthyThreshold})
	if err != nil {
		t.Fatal(err)
	}
	lb, err := m.AddLoadBalancer("alb", vpcID)
	if err != nil {
		t.Fatal(err)
	}
	return &world{clock: clock, net: n, model: m, start: clock.Now(), lb: lb}
}

// tg creates a target group checked every 30 s (healthy after 2 passes,
// unhealthy after 2 failures) and registers ips on port 8080, all up.
func (w *world) tg(t testing.TB, name string, ips ...string) string {
	t.Helper()
	out, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String(name), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String(vpcID), HealthCheckIntervalSeconds: aws.Int32(30),
		HealthyThresholdCount: aws.Int32(2), UnhealthyThresholdCount: aws.Int32(2),
	})
	if err != nil {
		t.Fatal(err)
	}
	arn := *out.TargetGroups[0].TargetGroupArn
	if len(ips) > 0 {
		var tds []types.TargetDescription
		for _, ip := range ips {
			w.net.set(ip, true)
			tds = append(tds, types.TargetDescription{Id: aws.String(ip)})
		}
		if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: tds}); err != nil {
			t.Fatal(err)
		}
	}
	return arn
}

func (w *world) listener(t testing.TB, port int32, a types.Action) string {
	t.Helper()
	l, err := w.model.AddListener(w.lb, port, []types.Action{a})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func forward(weights ...any) types.Action {
	fc := &types.ForwardActionConfig{}
	for i := 0; i < len(weights); i += 2 {
		fc.TargetGroups = append(fc.TargetGroups, types.TargetGroupTuple{TargetGroupArn: aws.String(weights[i].(string)), Weight: aws.Int32(int32(weights[i+1].(int)))})
	}
	return types.Action{Type: types.ActionTypeEnumForward, ForwardConfig: fc}
}

func (w *world) at(d time.Duration) { w.clock.RunUntil(w.start.Add(d)) }

func TestNewValidatesOptions(t *testing.T) {
	w := newWorld(t)
	tg := w.tg(t, "tg")
	ln := w.listener(t, 80, forward(tg, 1))
	tests := []struct {
		name string
		opts traffic.Options
	}{
		{"no listener", traffic.Options{}},
		{"RPS above the maximum", traffic.Options{ListenerARN: ln, RPS: traffic.MaxRPS + 1}},
		{"negative RPS", traffic.Options{ListenerARN: ln, RPS: -1}},
		{"a start in the past", traffic.Options{ListenerARN: ln, Start: w.start.Add(-time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := traffic.New(w.model, w.net, tt.opts)
			var oe *traffic.OptionsError
			if g != nil || !errors.As(err, &oe) || !errors.Is(err, traffic.ErrInvalidOptions) {
				t.Errorf("New = %v, %v; want an *OptionsError", g, err)
			}
		})
	}
	_, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln + "0"})
	var nf *types.ListenerNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("unknown listener: %v, want ListenerNotFound", err)
	}
	rules, _ := w.model.DescribeRules(&elbv2.DescribeRulesInput{ListenerArn: aws.String(ln)})
	other := w.listener(t, 81, forward(tg, 1))
	if _, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: other, RuleARN: *rules.Rules[0].RuleArn}); err == nil {
		t.Errorf("a rule of another listener was accepted")
	}
}

func TestWeightedForwarding(t *testing.T) {
	w := newWorld(t)
	a := w.tg(t, "a", "10.0.1.1", "10.0.1.2")
	b := w.tg(t, "b", "10.0.2.1")
	ln := w.listener(t, 80, forward(a, 90, b, 10))
	per := map[string]int{}
	perTarget := map[string]int{}
	g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 100, Start: w.start.Add(time.Minute), Seed: 1, OnRequest: func(r traffic.Request) {
		per[r.TargetGroupARN]++
		perTarget[r.Target.IP]++
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.at(2*time.Minute - time.Millisecond)
	st := g.Stats()
	if st.Total != 6000 || st.Failed != 0 {
		t.Fatalf("stats %v", st)
	}
	if per[a] < 5200 || per[a] > 5600 || per[a]+per[b] != 6000 {
		t.Errorf("a got %d and b %d of 6000 requests at weights 90/10", per[a], per[b])
	}
	if perTarget["10.0.1.1"] < per[a]*4/10 || perTarget["10.0.1.2"] < per[a]*4/10 {
		t.Errorf("targets of a are not used evenly: %v", perTarget)
	}

	// Shifting the weights takes effect at once.
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(ln), DefaultActions: []types.Action{forward(a, 0, b, 1)}}); err != nil {
		t.Fatal(err)
	}
	clear(per)
	w.at(3 * time.Minute)
	if per[a] != 0 || per[b] != 6001 {
		t.Errorf("after the shift a got %d, b %d", per[a], per[b])
	}
}

func TestTargetSelection(t *testing.T) {
	const ip1, ip2 = "10.0.1.1", "10.0.1.2"
	tests := []struct {
		name    string
		setup   func(w *world, tg string)
		at      time.Duration
		outcome traffic.Outcome
		sel     elbv2model.Selection
	}{
		{"healthy targets serve", nil, time.Minute, traffic.Served, elbv2model.SelectHealthy},
		{"initial targets take no requests: 503", nil, 20 * time.Second, traffic.NoTarget, elbv2model.SelectNone},
		{"all unhealthy: the ALB fails open and they serve", func(w *world, _ string) {
			w.net.sick[ip1], w.net.sick[ip2] = true, true
		}, time.Minute, traffic.Served, elbv2model.SelectFailOpen},
		{"all gone: fail open to dead targets, 502", func(w *world, _ string) {
			w.clock.At(w.start.Add(45*time.Second), "down", func(time.Time) { w.net.set(ip1, false); w.net.set(ip2, false) })
		}, 2 * time.Minute, traffic.TargetFailed, elbv2model.SelectFailOpen},
		{"all draining: 503", func(w *world, tg string) {
			w.clock.At(w.start.Add(45*time.Second), "deregister", func(time.Time) {
				_, _ = w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{{Id: aws.String(ip1)}, {Id: aws.String(ip2)}}})
			})
		}, time.Minute, traffic.NoTarget, elbv2model.SelectNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tg := w.tg(t, "tg", ip1, ip2)
			ln := w.listener(t, 80, forward(tg, 1))
			if tt.setup != nil {
				tt.setup(w, tg)
			}
			var last traffic.Request
			if _, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, OnRequest: func(r traffic.Request) { last = r }}); err != nil {
				t.Fatal(err)
			}
			w.at(tt.at)
			if last.Outcome != tt.outcome || last.Selection != tt.sel {
				t.Errorf("last request %v (%v), want %v (%v)", last.Outcome, last.Selection, tt.outcome, tt.sel)
			}
		})
	}
}

func TestFixedResponseAndRedirect(t *testing.T) {
	w := newWorld(t)
	tg := w.tg(t, "tg")
	down := w.listener(t, 80, types.Action{Type: types.ActionTypeEnumFixedResponse, FixedResponseConfig: &types.FixedResponseActionConfig{StatusCode: aws.String("503")}})
	ok := w.listener(t, 81, types.Action{Type: types.ActionTypeEnumFixedResponse, FixedResponseConfig: &types.FixedResponseActionConfig{StatusCode: aws.String("200")}})
	redirect := w.listener(t, 82, types.Action{Type: types.ActionTypeEnumRedirect, RedirectConfig: &types.RedirectActionConfig{StatusCode: types.RedirectActionStatusCodeEnumHttp301}})
	_ = tg
	var gens []*traffic.Generator
	for _, ln := range []string{down, ok, redirect} {
		g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 1})
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, g)
	}
	w.at(9 * time.Second)
	got := []string{}
	for _, g := range gens {
		st := g.Stats()
		got = append(got, fmt.Sprintf("served %d failed %d other %d", st.Served, st.Failed, st.Other))
	}
	want := []string{"served 0 failed 10 other 10", "served 10 failed 0 other 0", "served 10 failed 0 other 0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGhostTargetOutage reproduces the incident in miniature: two node
// targets; Karpenter removes one node at 101 s; until two failed health
// checks (at 130 s and 160 s) mark the ghost unhealthy, the ALB keeps
// sending it about half of the requests, which fail with 502.
func TestGhostTargetOutage(t *testing.T) {
	w := newWorld(t)
	tg := w.tg(t, "legacy", "10.0.2.1", "10.0.2.2")
	ln := w.listener(t, 80, forward(tg, 1))
	g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 50, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	w.clock.At(w.start.Add(101*time.Second), "karpenter terminates the node", func(time.Time) { w.net.set("10.0.2.2", false) })
	w.at(10 * time.Minute)
	g.Stop()
	w.at(11 * time.Minute)
	st := g.Stats()
	if st.Total != 600*50+1 {
		t.Errorf("%d requests, want %d (Stop ends them)", st.Total, 600*50+1)
	}
	// Seconds 40 and earlier: the targets are initial until the second pass at 40 s.
	if len(st.Outages) != 2 {
		t.Fatalf("outages %+v, want the start-up one and the ghost one", st.Outages)
	}
	if o := st.Outages[0]; !o.Start.Equal(w.start) || !o.End.Equal(w.start.Add(40*time.Second)) || o.Failed != o.Requests {
		t.Errorf("start-up outage %+v, want [0s, 40s) with every request failing", o)
	}
	ghost := st.Outages[1]
	if !ghost.Start.Equal(w.start.Add(101*time.Second)) || !ghost.End.Equal(w.start.Add(160*time.Second)) {
		t.Errorf("ghost outage [%v, %v), want [101s, 160s)", ghost.Start.Sub(w.start), ghost.End.Sub(w.start))
	}
	if ghost.Failed < ghost.Requests/3 || ghost.Failed > ghost.Requests*2/3 {
		t.Errorf("%d of %d requests failed during the ghost window, want about half", ghost.Failed, ghost.Requests)
	}
	if st.Longest != st.Outages[1] || st.TargetFailed != ghost.Failed || st.NoTarget != st.Outages[0].Failed {
		t.Errorf("stats %+v", st)
	}
}

func TestDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		w := newWorld(t)
		a := w.tg(t, "a", "10.0.1.1", "10.0.1.2", "10.0.1.3")
		b := w.tg(t, "b", "10.0.2.1")
		ln := w.listener(t, 80, forward(a, 3, b, 1))
		var log []string
		if _, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, Seed: seed, OnRequest: func(r traffic.Request) {
			log = append(log, r.Target.IP)
		}}); err != nil {
			t.Fatal(err)
		}
		w.at(2 * time.Minute)
		return log
	}
	if diff := cmp.Diff(run(3), run(3)); diff != "" {
		t.Errorf("same seed, different requests (-a +b):\n%s", diff)
	}
	if cmp.Equal(run(3), run(4)) {
		t.Errorf("different seeds gave the same requests")
	}
}

func BenchmarkTraffic30Min(b *testing.B) {
	for b.Loop() {
		w := newWorld(b)
		var ips []string
		for i := range 60 {
			ips = append(ips, fmt.Sprintf("10.0.1.%d", i+1))
		}
		tg := w.tg(b, "pods", ips...)
		ln := w.listener(b, 80, forward(tg, 1))
		g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 10})
		if err != nil {
			b.Fatal(err)
		}
		w.at(30 * time.Minute)
		if st := g.Stats(); st.Total != 18001 {
			b.Fatalf("%d requests", st.Total)
		}
	}
}

// TestDeadAddressAndMisrouting: a target whose address nobody holds fails
// with 502 at once, or with 504 with a connect timeout; a target whose
// address another application answers at is misrouted. Span splits the
// failures by kind, and the kinds add up to Failed.
func TestDeadAddressAndMisrouting(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		// other makes the second target's address answer as another app.
		other bool
		want  traffic.Kinds
	}{
		{"dead address, no connect timeout: 502", 0, false, traffic.Kinds{Status502: 50}},
		{"dead address, 10 s connect timeout: 504", 10 * time.Second, false, traffic.Kinds{Status504: 50}},
		{"another application answers: misrouted", 10 * time.Second, true, traffic.Kinds{Misrouted: 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tg := w.tg(t, "legacy", "10.0.2.1", "10.0.2.2")
			ln := w.listener(t, 80, forward(tg, 1))
			w.at(2 * time.Minute) // both healthy
			g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 100, Seed: 7, ConnectTimeout: tt.timeout, App: "shop/web"})
			if err != nil {
				t.Fatal(err)
			}
			from := w.clock.Now()
			if tt.other {
				w.net.app["10.0.2.2"] = "other/app"
				w.net.app["10.0.2.1"] = "shop/web"
			} else {
				w.net.app["10.0.2.1"] = "shop/web"
				w.net.set("10.0.2.2", false)
			}
			w.at(2*time.Minute + time.Second)
			g.Stop()
			sp := g.Stats().Span(from, from.Add(time.Second))
			// About half of the 100 requests hit the second target; the
			// seed fixes how many.
			got := sp.Kinds
			sum := got.Status502 + got.Status503 + got.Status504 + got.Misrouted + got.Other
			if sum != sp.Failed || sp.Failed == 0 {
				t.Fatalf("kinds %+v add up to %d, failed %d", got, sum, sp.Failed)
			}
			want := tt.want
			// Scale the expected kind to the count the seed gave.
			for _, k := range []*int{&want.Status502, &want.Status504, &want.Misrouted} {
				if *k != 0 {
					*k = sp.Failed
				}
			}
			if got != want {
				t.Errorf("kinds %+v, want %+v", got, want)
			}
			if sp.Requests != 100 || sp.DegradedSeconds != 1 || sp.TotalOutageSeconds != 0 {
				t.Errorf("span %+v: want 100 requests, 1 degraded second, no total outage", sp)
			}
		})
	}
}

// TestSpanOutageSeconds: a second with no success is a total outage, one
// with some failures degraded; a span counts only its own seconds.
func TestSpanOutageSeconds(t *testing.T) {
	w := newWorld(t)
	tg := w.tg(t, "legacy", "10.0.2.1")
	ln := w.listener(t, 80, forward(tg, 1))
	w.at(2 * time.Minute)
	g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	start := w.clock.Now()
	w.at(2*time.Minute + 5*time.Second)
	// The only target dies after the request at 5 s: the rest of second
	// 5 fails (9 requests, degraded), seconds 6 and 7 fail whole (total
	// outages), and so does second 8's one request (at 8 s, the last).
	w.net.set("10.0.2.1", false)
	w.at(2*time.Minute + 8*time.Second)
	g.Stop()
	st := g.Stats()
	all := st.Span(start, start.Add(time.Hour))
	if all.TotalOutageSeconds != 3 || all.DegradedSeconds != 4 || all.Failed != 30 || all.Requests != 81 {
		t.Errorf("whole run %+v: want 81 requests, 30 failed, 4 degraded seconds of which 3 total outages", all)
	}
	if st.TotalOutageSeconds != 3 || st.DegradedSeconds != 4 {
		t.Errorf("stats: total outage %d, degraded %d; want 3 and 4", st.TotalOutageSeconds, st.DegradedSeconds)
	}
	before := st.Span(start, start.Add(5*time.Second))
	if before.Failed != 0 || before.Requests != 50 || before.DegradedSeconds != 0 {
		t.Errorf("before the failure %+v: want 50 requests, none failed", before)
	}
}

// TestFailures: the generator keeps every failed request, and only those,
// as OnRequest saw them: the start-up outage's 503s (no target yet) and
// the ghost's failures, each with the target it went to.
func TestFailures(t *testing.T) {
	w := newWorld(t)
	tg := w.tg(t, "legacy", "10.0.2.1", "10.0.2.2")
	ln := w.listener(t, 80, forward(tg, 1))
	var failed []traffic.Request
	g, err := traffic.New(w.model, w.net, traffic.Options{ListenerARN: ln, RPS: 20, Seed: 7, OnRequest: func(r traffic.Request) {
		if r.Outcome != traffic.Served {
			failed = append(failed, r)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.clock.At(w.start.Add(101*time.Second), "the node goes", func(time.Time) { w.net.set("10.0.2.2", false) })
	w.at(5 * time.Minute)
	got := g.Failures()
	if st := g.Stats(); len(got) != st.Failed || len(got) == 0 {
		t.Fatalf("%d failures kept, %d counted", len(got), st.Failed)
	}
	if d := cmp.Diff(failed, got); d != "" {
		t.Errorf("failures (-seen by OnRequest +kept):\n%s", d)
	}
	for _, r := range got {
		switch {
		case r.Outcome == traffic.NoTarget && r.At.Before(w.start.Add(40*time.Second)):
		case r.Outcome == traffic.TargetFailed && r.Target.IP == "10.0.2.2" && !r.At.Before(w.start.Add(101*time.Second)):
		default:
			t.Errorf("failure %+v: neither a start-up 503 nor the ghost's", r)
		}
	}
}
