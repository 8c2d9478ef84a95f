package tgmigratetest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// newWorld builds a world of opts or fails the test.
func newWorld(t *testing.T, opts tgmigratetest.Options) *tgmigratetest.World {
	t.Helper()
	w, err := tgmigratetest.NewWorld(t.Context(), opts)
	if err != nil {
		t.Fatalf("NewWorld(%+v) = %v", opts, err)
	}
	return w
}

// targetIPs returns the IPs of the legacy target group's targets, read
// through the world's ELBv2 client.
func targetIPs(t *testing.T, w *tgmigratetest.World) map[string]bool {
	t.Helper()
	out, err := w.ELBv2Read().DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.Legacy().TargetGroupARN.String())})
	if err != nil {
		t.Fatalf("DescribeTargetHealth() = %v", err)
	}
	ips := map[string]bool{}
	for _, d := range out.TargetHealthDescriptions {
		ips[aws.ToString(d.Target.Id)] = true
	}
	return ips
}

// TestNewWorldOptions: the world has the size, the target type and the
// controller state its options ask for, and its ELBv2 client and its
// Kubernetes client see the same cluster: the target group's targets are
// the nodes' addresses.
func TestNewWorldOptions(t *testing.T) {
	tests := []struct {
		name        string
		opts        tgmigratetest.Options
		nodes, pods int
		targetType  tgmigrate.TargetType
	}{
		{"small", tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 5}, 3, 5, tgmigrate.TargetTypeIP},
		{"churn", tgmigratetest.Options{Seed: 2, Nodes: 4, Pods: 8, Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnWave, Interval: time.Minute, Budget: "50%"}}, 4, 8, tgmigrate.TargetTypeIP},
		{"spot", tgmigratetest.Options{Seed: 3, Nodes: 2, Pods: 2, Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSpot, Interval: time.Minute}}, 2, 2, tgmigrate.TargetTypeIP},
		{"expiry", tgmigratetest.Options{Seed: 5, Nodes: 3, Pods: 3, Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnExpiry, Interval: time.Minute}}, 3, 3, tgmigrate.TargetTypeIP},
		{"instance", tgmigratetest.Options{Seed: 4, Nodes: 2, Pods: 4, TargetType: "instance", StoppedLBC: true}, 2, 4, tgmigrate.TargetTypeInstance},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.opts)
			var nodes corev1.NodeList
			var pods corev1.PodList
			if err := w.Client().List(t.Context(), &nodes); err != nil {
				t.Fatal(err)
			}
			if err := w.Client().List(t.Context(), &pods); err != nil {
				t.Fatal(err)
			}
			if len(nodes.Items) != tt.nodes || len(pods.Items) != tt.pods {
				t.Errorf("%d nodes, %d pods; want %d, %d", len(nodes.Items), len(pods.Items), tt.nodes, tt.pods)
			}
			l := w.Legacy()
			if l.TargetType != tt.targetType || l.TargetGroupARN.IsZero() || l.Namespace != "shop" || l.Service != "web" || l.PortName != "http" {
				t.Errorf("legacy = %+v", l)
			}
			if c := w.Cluster(); c.Name != tgmigratetest.ClusterName || c.Reader == nil || c.VPCID != w.VPCID() || len(c.CIDRs) != 1 {
				t.Errorf("cluster = %+v", c)
			}
			ips := targetIPs(t, w)
			if len(ips) != tt.nodes {
				t.Errorf("%d targets, want one per node (%d)", len(ips), tt.nodes)
			}
			if tt.targetType != tgmigrate.TargetTypeIP {
				return
			}
			for _, n := range nodes.Items {
				for _, a := range n.Status.Addresses {
					if a.Type == corev1.NodeInternalIP && !ips[a.Address] {
						t.Errorf("node %s (%s) is not a target of %v", n.Name, a.Address, ips)
					}
				}
			}
		})
	}
}

// TestNewWorldBadOptions: a bad option is an *OptionsError naming its
// field, never a panic, and no world.
func TestNewWorldBadOptions(t *testing.T) {
	every := tgmigratetest.Churn{Interval: time.Minute}
	tests := []struct {
		name  string
		opts  tgmigratetest.Options
		field string
	}{
		{"nodes", tgmigratetest.Options{Nodes: -1}, "Nodes"},
		{"pods", tgmigratetest.Options{Pods: -3}, "Pods"},
		{"rps", tgmigratetest.Options{RPS: 1 << 30}, "RPS"},
		{"target type", tgmigratetest.Options{TargetType: "lambda"}, "TargetType"},
		{"negative interval", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: -time.Second}}, "Churn.Interval"},
		{"shape without interval", tgmigratetest.Options{Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnWave}}, "Churn.Interval"},
		{"shape", tgmigratetest.Options{Churn: tgmigratetest.Churn{Shape: "storm", Interval: time.Minute}}, "Churn.Shape"},
		{"share", tgmigratetest.Options{Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnWave, Interval: time.Minute, Share: "lots"}}, "Churn.Share"},
		{"budget", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: time.Minute, Budget: "-5"}}, "Churn.Budget"},
		{"delay", tgmigratetest.Options{Churn: tgmigratetest.Churn{Interval: time.Minute, Delay: -time.Minute}}, "Churn.Delay"},
		{"lag", tgmigratetest.Options{Churn: every, Timings: tgmigratetest.Timings{DeregistrationLag: 24 * time.Hour}}, "Timings.DeregistrationLag"},
		{"checks", tgmigratetest.Options{Timings: tgmigratetest.Timings{NewTargetChecks: 11}}, "Timings.NewTargetChecks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := tgmigratetest.NewWorld(t.Context(), tt.opts)
			var oe *tgmigratetest.OptionsError
			if w != nil || !errors.As(err, &oe) || !errors.Is(err, tgmigratetest.ErrInvalidOptions) {
				t.Fatalf("NewWorld() = %v, %v; want no world and an *OptionsError", w, err)
			}
			if oe.Field != tt.field || oe.Pkg != "tgmigratetest" || oe.Op != "new world" {
				t.Errorf("error %q names %s %s %s, want tgmigratetest new world %s", err, oe.Pkg, oe.Op, oe.Field, tt.field)
			}
		})
	}
}

// TestClockAndRequests: the clock advances when the test runs the world
// and when the code under test waits on it, and the traffic is counted
// meanwhile; a world without traffic counts none.
func TestClockAndRequests(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 6, RPS: 10})
	start, before := w.Clock().Now(), w.Requests()
	w.Run(time.Minute)
	w.Clock().Sleep(30 * time.Second) // as the code under test's waits do
	if got := w.Clock().Since(start); got != 90*time.Second {
		t.Errorf("clock advanced %v, want 1m30s", got)
	}
	if got := w.Elapsed(); got != 90*time.Second {
		t.Errorf("Elapsed() = %v", got)
	}
	r := w.Requests()
	if n := r.Total - before.Total; n < 900 || n > 901 || r.Served != r.Total || r.Failed != 0 || r.LongestOutage != 0 {
		t.Errorf("requests %+v (before %+v), want 10 a second for 90 s more, all served", r, before)
	}

	quiet := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2, RPS: -1})
	quiet.Run(time.Minute)
	if r := quiet.Requests(); r != (tgmigratetest.Requests{}) {
		t.Errorf("no traffic: requests %+v", r)
	}
}

// TestRequestsCountFailures: a static target group under churn fails
// requests (the ghosts of the replaced nodes), and the counter shows it.
func TestRequestsCountFailures(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 3, Pods: 6})
	if err := w.ReplaceAllNodes(time.Minute); err != nil {
		t.Fatal(err)
	}
	w.Run(10 * time.Minute)
	if r := w.Requests(); r.Failed == 0 || r.LongestOutage == 0 || w.Ghosts() == 0 {
		t.Errorf("requests %+v, ghosts %d; want failures and ghosts", r, w.Ghosts())
	}
	if err := w.ReplaceAllNodes(-time.Second); !errors.Is(err, tgmigratetest.ErrInvalidOptions) {
		t.Errorf("ReplaceAllNodes(-1s) = %v", err)
	}
}

// TestInject: a fault fires on its operation only, as many times as
// armed, with the code asked for; a bad fault is refused by field.
func TestInject(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2})
	tg := w.Legacy().TargetGroupARN
	if err := w.Inject(tgmigratetest.Fault{Op: "DescribeTargetHealth", Code: tgmigratetest.Throttling, Times: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Inject(tgmigratetest.Fault{Op: "DeregisterTargets", Code: tgmigratetest.AccessDenied, TargetGroup: tg}); err != nil {
		t.Fatal(err)
	}
	health := func() error {
		_, err := w.ELBv2().DescribeTargetHealth(t.Context(), &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tg.String())})
		return err
	}
	code := func(err error) string {
		var api smithy.APIError
		if errors.As(err, &api) {
			return api.ErrorCode()
		}
		return ""
	}
	for i, want := range []string{"Throttling", "Throttling", ""} {
		if err := health(); code(err) != want || (want == "") != (err == nil) {
			t.Errorf("call %d: %v, want code %q", i+1, err, want)
		}
	}
	_, err := w.ELBv2().DescribeTargetGroups(t.Context(), &elbv2.DescribeTargetGroupsInput{})
	if err != nil {
		t.Errorf("DescribeTargetGroups() = %v, want no fault", err)
	}
	_, err = w.ELBv2().DeregisterTargets(t.Context(), &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg.String())})
	if code(err) != "AccessDenied" || len(targetIPs(t, w)) != 2 {
		t.Errorf("DeregisterTargets() = %v, %d targets; want AccessDenied and no effect", err, len(targetIPs(t, w)))
	}
	if got := w.Calls()["DescribeTargetHealth"]; got < 3 {
		t.Errorf("DescribeTargetHealth calls = %d, want the 3 made at least", got)
	}

	for _, tt := range []struct {
		f     tgmigratetest.Fault
		field string
	}{
		{tgmigratetest.Fault{Op: "DescribeEverything", Code: tgmigratetest.Throttling}, "Fault.Op"},
		{tgmigratetest.Fault{Op: "ModifyRule", Code: "Boom"}, "Fault.Code"},
		{tgmigratetest.Fault{Op: "ModifyRule", Code: tgmigratetest.Throttling, Times: -1}, "Fault.Times"},
	} {
		err := w.Inject(tt.f)
		var oe *tgmigratetest.OptionsError
		if !errors.As(err, &oe) || oe.Field != tt.field || oe.Op != "inject" {
			t.Errorf("Inject(%+v) = %v, want an *OptionsError of %s", tt.f, err, tt.field)
		}
	}
}

// TestELBv2ReadHasNoWriter: the read-only client hides the writes, even
// from a type assertion.
func TestELBv2ReadHasNoWriter(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 2, Pods: 2})
	if _, ok := w.ELBv2Read().(tgmigrate.TargetWriter); ok {
		t.Error("ELBv2Read() is a TargetWriter")
	}
	if _, ok := w.ELBv2Read().(tgmigrate.ELBv2API); ok {
		t.Error("ELBv2Read() is an ELBv2API")
	}
}

// TestCrashAfter: the hook crashes Execute once, after the event asked
// for, leaving the journal; Execute again resumes and completes.
func TestCrashAfter(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 2, Nodes: 3, Pods: 6, ReadinessGateInjection: true})
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "test"}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(t.Context(), env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
		Service: l.Service, Port: intstrName(l.PortName), Assumptions: w.Assumptions()})
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	obs := cutover.WithObserver(cutover.ObserverFuncs{OnStepFinished: func(e cutover.StepEvent) {
		if e.Err == nil && !e.Skipped {
			steps++
		}
	}})
	hook := cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](2))
	_, err = cutover.Execute(t.Context(), env, plan, hook, obs, cutover.WithAutoRollback(false))
	if !errors.Is(err, tgmigratetest.ErrCrash) || !cutover.IsInterrupted(err) || steps != 2 {
		t.Fatalf("Execute() = %v after %d steps, want the crash after 2", err, steps)
	}
	w.Run(5 * time.Second)
	res, err := cutover.Execute(t.Context(), env, plan, hook, obs)
	if err != nil || !res.Completed || w.Requests().Failed != 0 {
		t.Fatalf("resumed Execute() = %+v, %v; %d requests failed", res, err, w.Requests().Failed)
	}
}

// intstrName is a named Service port.
func intstrName(name string) intstr.IntOrString { return intstr.FromString(name) }

// TestDiagnoseConcurrentReads: Diagnose's concurrent workers read the
// world under churn, again and again, without one of them waiting on the
// clock while another runs the world (the kit's calls take no virtual time
// by default); every run reads everything and finds the same.
func TestDiagnoseConcurrentReads(t *testing.T) {
	w := newWorld(t, tgmigratetest.Options{Seed: 1, Nodes: 6, Pods: 12,
		Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSpot, Interval: 30 * time.Second}})
	src := diagnose.Sources{
		Accounts: []diagnose.Account{{ID: tgmigratetest.AccountID, Region: tgmigratetest.Region, ELBv2: w.ELBv2Read()}},
		Clusters: []diagnose.Cluster{w.Cluster()},
	}
	for i := range 10 {
		rep, err := diagnose.Diagnose(t.Context(), src, diagnose.Scope{All: true}, diagnose.WithClock(w.Clock()))
		if err != nil || len(rep.Errors) != 0 || len(rep.TargetGroups) != 1 || len(rep.AllFindings()) == 0 {
			t.Fatalf("run %d: Diagnose() = %+v, %v", i, rep, err)
		}
		w.Run(time.Minute)
	}
}
