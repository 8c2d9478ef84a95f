package elbv2model_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

const (
	initial   = types.TargetHealthStateEnumInitial
	healthy   = types.TargetHealthStateEnumHealthy
	unhealthy = types.TargetHealthStateEnumUnhealthy
	draining  = types.TargetHealthStateEnumDraining
	unused    = types.TargetHealthStateEnumUnused

	regInProgress = types.TargetHealthReasonEnumRegistrationInProgress
	initialHC     = types.TargetHealthReasonEnumInitialHealthChecking
	timeout       = types.TargetHealthReasonEnumTimeout
	failedHC      = types.TargetHealthReasonEnumFailedHealthChecks
	codeMismatch  = types.TargetHealthReasonEnumResponseCodeMismatch
	deregInProg   = types.TargetHealthReasonEnumDeregistrationInProgress
	notInUse      = types.TargetHealthReasonEnumNotInUse
	notRegistered = types.TargetHealthReasonEnumNotRegistered
)

type checkpoint struct {
	at     time.Duration
	state  types.TargetHealthStateEnum
	reason types.TargetHealthReasonEnum
}

type netEvent struct {
	at time.Duration
	do func(n *fakeNet)
}

// TestTargetLifecycle walks one target through the health-check state
// machine on virtual time. The target group checks every 10 s, healthy
// after 3 passes, unhealthy after 2 failures; registration takes 10 s. So a
// good target is checked at 10, 20, 30 s and is healthy at 30 s.
func TestTargetLifecycle(t *testing.T) {
	const pod = "10.0.1.10"
	tests := []struct {
		name     string
		tgMod    func(*elbv2.CreateTargetGroupInput)
		detached bool
		setup    func(n *fakeNet)
		events   []netEvent
		target   types.TargetDescription
		want     []checkpoint
	}{
		{
			name:   "a serving pod becomes healthy after the registration delay and 3 passes",
			setup:  func(n *fakeNet) { n.up(pod, 8080) },
			target: td(pod),
			want: []checkpoint{
				{0, initial, regInProgress},
				{9 * time.Second, initial, regInProgress},
				{10 * time.Second, initial, initialHC},
				{29 * time.Second, initial, initialHC},
				{30 * time.Second, healthy, ""},
				{10 * time.Minute, healthy, ""},
			},
		},
		{
			name:   "an IP nothing answers on becomes unhealthy with Target.Timeout",
			target: td(pod),
			want: []checkpoint{
				{19 * time.Second, initial, initialHC},
				{20 * time.Second, unhealthy, timeout},
				{time.Hour, unhealthy, timeout},
			},
		},
		{
			name:   "a host with nothing on the port fails with Target.FailedHealthChecks",
			setup:  func(n *fakeNet) { n.up(pod, 9090) },
			target: td(pod),
			want:   []checkpoint{{20 * time.Second, unhealthy, failedHC}},
		},
		{
			name: "a pod that is not ready answers a non-matching code",
			setup: func(n *fakeNet) {
				n.up(pod, 8080)
				n.setReady(pod, 8080, false)
			},
			target: td(pod),
			want:   []checkpoint{{20 * time.Second, unhealthy, codeMismatch}},
		},
		{
			name:   "a health-check path the pod does not serve is a code mismatch",
			tgMod:  func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckPath = aws.String("/ready") },
			setup:  func(n *fakeNet) { n.up(pod, 8080) },
			target: td(pod),
			want:   []checkpoint{{20 * time.Second, unhealthy, codeMismatch}},
		},
		{
			name:   "a health-check port pinned to a NodePort fails pod targets",
			tgMod:  func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckPort = aws.String("30080") },
			setup:  func(n *fakeNet) { n.up(pod, 8080) },
			target: td(pod),
			want:   []checkpoint{{20 * time.Second, unhealthy, failedHC}},
		},
		{
			name:   "a matcher that rejects 200 fails a serving pod",
			tgMod:  func(in *elbv2.CreateTargetGroupInput) { in.Matcher = &types.Matcher{HttpCode: aws.String("301-399")} },
			setup:  func(n *fakeNet) { n.up(pod, 8080) },
			target: td(pod),
			want:   []checkpoint{{20 * time.Second, unhealthy, codeMismatch}},
		},
		{
			name:   "traffic-port follows a port-override registration",
			setup:  func(n *fakeNet) { n.up(pod, 9000) },
			target: td(pod, 9000),
			want:   []checkpoint{{30 * time.Second, healthy, ""}},
		},
		{
			name:   "a healthy target whose node goes away turns unhealthy, and back when it returns",
			setup:  func(n *fakeNet) { n.up(pod, 8080) },
			events: []netEvent{{35 * time.Second, func(n *fakeNet) { n.down(pod) }}, {55 * time.Second, func(n *fakeNet) { n.up(pod, 8080) }}},
			target: td(pod),
			want: []checkpoint{
				{30 * time.Second, healthy, ""},
				{49 * time.Second, healthy, ""},
				{50 * time.Second, unhealthy, timeout},
				{79 * time.Second, unhealthy, timeout},
				{80 * time.Second, healthy, ""},
			},
		},
		{
			name:   "one failure between passes does not make a healthy target unhealthy",
			setup:  func(n *fakeNet) { n.up(pod, 8080) },
			events: []netEvent{{35 * time.Second, func(n *fakeNet) { n.setReady(pod, 8080, false) }}, {45 * time.Second, func(n *fakeNet) { n.setReady(pod, 8080, true) }}},
			target: td(pod),
			want:   []checkpoint{{30 * time.Second, healthy, ""}, {41 * time.Second, healthy, ""}, {5 * time.Minute, healthy, ""}},
		},
		{
			name:     "a target group no load balancer uses leaves its targets unused",
			detached: true,
			setup:    func(n *fakeNet) { n.up(pod, 8080) },
			target:   td(pod),
			want:     []checkpoint{{0, unused, notInUse}, {time.Hour, unused, notInUse}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			tg := w.tg(t, "tg", tt.tgMod)
			if !tt.detached {
				w.alb(t, "alb", tg)
			}
			if tt.setup != nil {
				tt.setup(w.net)
			}
			for _, e := range tt.events {
				do := e.do
				w.clock.At(w.start.Add(e.at), "test", func(time.Time) { do(w.net) })
			}
			w.register(t, tg, tt.target)
			port := int32(8080)
			if tt.target.Port != nil {
				port = *tt.target.Port
			}
			for _, cp := range tt.want {
				w.at(cp.at)
				state, reason := w.state(tg, pod, port)
				if state != cp.state || reason != cp.reason {
					t.Errorf("at %v: %s (%s), want %s (%s)", cp.at, state, reason, cp.state, cp.reason)
				}
			}
			if tt.detached && w.net.probeCount() != 0 {
				t.Errorf("an unused target was probed %d times", w.net.probeCount())
			}
		})
	}
}

func TestDeregistrationDrainsThenRemoves(t *testing.T) {
	const pod = "10.0.1.10"
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", nil)
	w.alb(t, "alb", tg)
	if _, err := w.model.ModifyTargetGroupAttributes(&elbv2.ModifyTargetGroupAttributesInput{
		TargetGroupArn: aws.String(tg),
		Attributes:     []types.TargetGroupAttribute{{Key: aws.String(elbv2model.AttrDeregistrationDelay), Value: aws.String("60")}},
	}); err != nil {
		t.Fatal(err)
	}
	w.net.up(pod, 8080)
	w.register(t, tg, td(pod))
	w.at(30 * time.Second)
	if s, _ := w.state(tg, pod, 8080); s != healthy {
		t.Fatalf("state %s before deregistration, want healthy", s)
	}
	probes := w.net.probeCount()
	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td(pod, 8080)}}); err != nil {
		t.Fatal(err)
	}
	w.at(60 * time.Second)
	// A second deregistration of a draining target does not restart the delay.
	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td(pod, 8080)}}); err != nil {
		t.Fatal(err)
	}
	for _, cp := range []checkpoint{{60 * time.Second, draining, deregInProg}, {89 * time.Second, draining, deregInProg}, {90 * time.Second, "", ""}} {
		w.at(cp.at)
		if s, r := w.state(tg, pod, 8080); s != cp.state || r != cp.reason {
			t.Errorf("at %v: %s (%s), want %s (%s)", cp.at, s, r, cp.state, cp.reason)
		}
	}
	if got := w.net.probeCount(); got != probes {
		t.Errorf("a draining target was probed %d times", got-probes)
	}
	out, err := w.model.DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tg)})
	if err != nil || len(out.TargetHealthDescriptions) != 0 {
		t.Errorf("after the delay DescribeTargetHealth = %v, %v; want no targets", out, err)
	}
}

func TestReregisterWhileDrainingStartsOver(t *testing.T) {
	const pod = "10.0.1.10"
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", nil)
	w.alb(t, "alb", tg)
	w.net.up(pod, 8080)
	w.register(t, tg, td(pod))
	w.at(30 * time.Second)
	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td(pod)}}); err != nil {
		t.Fatal(err)
	}
	w.at(40 * time.Second)
	w.register(t, tg, td(pod))
	for _, cp := range []checkpoint{{40 * time.Second, initial, regInProgress}, {50 * time.Second, initial, initialHC}, {70 * time.Second, healthy, ""}, {10 * time.Minute, healthy, ""}} {
		w.at(cp.at)
		if s, r := w.state(tg, pod, 8080); s != cp.state || r != cp.reason {
			t.Errorf("at %v: %s (%s), want %s (%s)", cp.at, s, r, cp.state, cp.reason)
		}
	}
}

// TestDeregisterWithoutPortOfOverride is the AWS trap the project's
// contract guards against: the call succeeds and removes nothing.
func TestDeregisterWithoutPortOfOverride(t *testing.T) {
	const node = "10.0.2.20"
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", nil) // port 8080
	w.alb(t, "alb", tg)
	w.net.up(node, 30080)
	w.register(t, tg, td(node, 30080))
	w.at(30 * time.Second)

	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td(node)}}); err != nil {
		t.Fatalf("DeregisterTargets without Port = %v, want success", err)
	}
	w.at(40 * time.Second)
	want := []elbv2model.TargetView{{ID: node, IP: node, Port: 30080, State: healthy, Since: w.start.Add(30 * time.Second)}}
	if diff := cmp.Diff(want, w.model.Targets(tg)); diff != "" {
		t.Errorf("targets after a deregistration without Port (-want +got):\n%s", diff)
	}

	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td(node, 30080)}}); err != nil {
		t.Fatal(err)
	}
	if s, r := w.state(tg, node, 30080); s != draining || r != deregInProg {
		t.Errorf("with Port: %s (%s), want draining", s, r)
	}
}

func TestRegisterTargetsRejectsAndChangesNothing(t *testing.T) {
	tests := []struct {
		name    string
		tg      string // "" means the test's target group
		targets []types.TargetDescription
		code    string
	}{
		{"an IP outside the VPC", "", []types.TargetDescription{td("10.0.1.1"), td("192.168.1.1")}, "InvalidTarget"},
		{"a public node IP", "", []types.TargetDescription{td("52.1.2.3")}, "InvalidTarget"},
		{"not an IPv4 address", "", []types.TargetDescription{td("i-0123456789abcdef0")}, "InvalidTarget"},
		{"a port out of range", "", []types.TargetDescription{td("10.0.1.1", 70000)}, "ValidationError"},
		{"a target without Id", "", []types.TargetDescription{{Port: aws.Int32(80)}}, "ValidationError"},
		{"no targets", "", nil, "ValidationError"},
		{"an unknown target group", "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/nope/0123456789abcdef", []types.TargetDescription{td("10.0.1.1")}, "TargetGroupNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			tg := w.tg(t, "tg", nil)
			w.alb(t, "alb", tg)
			arn := tt.tg
			if arn == "" {
				arn = tg
			}
			_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: tt.targets})
			if got := code(err); got != tt.code {
				t.Fatalf("error code %q (%v), want %q", got, err, tt.code)
			}
			if got := w.model.Targets(tg); len(got) != 0 {
				t.Errorf("a rejected call registered %v", got)
			}
		})
	}
}

func TestInVPCFallsBackToNetwork(t *testing.T) {
	w := newWorld(t, func(o *elbv2model.Options) { o.VPCs = nil })
	tg := w.tg(t, "tg", nil)
	_, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.1.1")}})
	if code(err) != "InvalidTarget" {
		t.Errorf("with no VPC CIDRs and a Network that says no: %v, want InvalidTarget", err)
	}
}

func TestDescribeTargetHealth(t *testing.T) {
	w := newWorld(t, nil)
	tg := w.tg(t, "tg", func(in *elbv2.CreateTargetGroupInput) { in.HealthCheckPort = aws.String("8081") })
	w.alb(t, "alb", tg)
	w.register(t, tg, td("10.0.1.1"), td("10.0.1.2", 9000))

	out, err := w.model.DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{
		TargetGroupArn: aws.String(tg),
		Targets:        []types.TargetDescription{td("10.0.1.2", 9000), td("10.0.1.3"), td("10.0.1.2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []types.TargetHealthDescription{
		{Target: &types.TargetDescription{Id: aws.String("10.0.1.2"), Port: aws.Int32(9000)}, HealthCheckPort: aws.String("8081"),
			TargetHealth: &types.TargetHealth{State: initial, Reason: regInProgress, Description: aws.String("Target registration is in progress")}},
		{Target: &types.TargetDescription{Id: aws.String("10.0.1.3"), Port: aws.Int32(8080)}, HealthCheckPort: aws.String("8081"),
			TargetHealth: &types.TargetHealth{State: unused, Reason: notRegistered, Description: aws.String("Target is not registered to the target group")}},
		{Target: &types.TargetDescription{Id: aws.String("10.0.1.2"), Port: aws.Int32(8080)}, HealthCheckPort: aws.String("8081"),
			TargetHealth: &types.TargetHealth{State: unused, Reason: notRegistered, Description: aws.String("Target is not registered to the target group")}},
	}
	if diff := cmp.Diff(want, out.TargetHealthDescriptions, cmpSDK); diff != "" {
		t.Errorf("filtered DescribeTargetHealth (-want +got):\n%s", diff)
	}

	all, err := w.model.DescribeTargetHealth(&elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tg)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range all.TargetHealthDescriptions {
		got = append(got, *d.Target.Id+":"+string(d.TargetHealth.State))
	}
	if diff := cmp.Diff([]string{"10.0.1.1:initial", "10.0.1.2:initial"}, got); diff != "" {
		t.Errorf("unfiltered, in registration order (-want +got):\n%s", diff)
	}
}

func TestTransitionsAreReportedInOrderAndDeterministic(t *testing.T) {
	run := func() []string {
		var log []string
		w := newWorld(t, func(o *elbv2model.Options) {
			o.OnTransition = func(tr elbv2model.Transition) { log = append(log, tr.String()) }
		})
		tg := w.tg(t, "tg", nil)
		w.alb(t, "alb", tg)
		w.net.up("10.0.1.1", 8080)
		w.register(t, tg, td("10.0.1.1"), td("10.0.1.2"))
		w.at(time.Minute)
		if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: []types.TargetDescription{td("10.0.1.1"), td("10.0.1.2")}}); err != nil {
			t.Fatal(err)
		}
		w.at(10 * time.Minute)
		return log
	}
	first := run()
	var short []string
	for _, l := range first {
		_, rest, _ := strings.Cut(l, " ")        // drop the time
		_, rest, _ = strings.Cut(rest, " ")      // drop the ARN
		short = append(short, l[11:19]+" "+rest) // keep hh:mm:ss
	}
	want := []string{
		"00:00:00 10.0.1.1:8080 - -> initial (Elb.RegistrationInProgress)",
		"00:00:00 10.0.1.2:8080 - -> initial (Elb.RegistrationInProgress)",
		"00:00:10 10.0.1.1:8080 initial -> initial (Elb.InitialHealthChecking)",
		"00:00:10 10.0.1.2:8080 initial -> initial (Elb.InitialHealthChecking)",
		"00:00:20 10.0.1.2:8080 initial -> unhealthy (Target.Timeout)",
		"00:00:30 10.0.1.1:8080 initial -> healthy",
		"00:01:00 10.0.1.1:8080 healthy -> draining (Target.DeregistrationInProgress)",
		"00:01:00 10.0.1.2:8080 unhealthy -> draining (Target.DeregistrationInProgress)",
		"00:06:00 10.0.1.1:8080 draining -> gone",
		"00:06:00 10.0.1.2:8080 draining -> gone",
	}
	if diff := cmp.Diff(want, short); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(first, run()); diff != "" {
		t.Errorf("a second identical run differs (-first +second):\n%s", diff)
	}
}
