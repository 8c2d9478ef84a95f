package campaign

// limits_internal_test.go: makeLimits and makeWaves on constructed cutover
// plans: several target groups on one load balancer (the test kit's
// worlds have one target group each).

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
)

const (
	lbL = "arn:aws:elasticloadbalancing:us-east-1:111111111111:loadbalancer/app/l/0123456789abcdef"
	lbM = "arn:aws:elasticloadbalancing:us-east-1:111111111111:loadbalancer/app/m/0123456789abcdef"
)

func arnOf(t *testing.T, name string) tgmigrate.ARN {
	t.Helper()
	a, err := tgmigrate.ParseTargetGroupARN("arn:aws:elasticloadbalancing:us-east-1:111111111111:targetgroup/" + name + "/0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// counted is a runnable entry on lbs whose plan counts, on L, now
// targets, adding pod targets and after once done (bounded: the plan
// bounds its overlap); quota nil: no count.
func counted(t *testing.T, name string, now, adding, after int, bounded bool, lbs ...string) Entry {
	q := diagnose.Quota{Name: "Targets per Application Load Balancer", Value: 100}
	h := diagnose.Headroom{Scope: diagnose.ScopeLoadBalancer, ARN: lbL, Quota: q, Now: now, Adding: adding, Peak: now + adding, After: after, Room: q.Value - now - adding}
	return Entry{TargetGroupARN: arnOf(t, name), Name: name, Cluster: "x", LoadBalancerARNs: lbs,
		Plan: &cutover.Plan{Quota: &cutover.QuotaPlan{Bounded: bounded, Headroom: []diagnose.Headroom{h}}}}
}

func TestMakeLimitsLoadBalancer(t *testing.T) {
	entries := []Entry{
		counted(t, "a", 60, 18, 60, false, lbL), // demand 18
		counted(t, "b", 62, 20, 67, false, lbL), // growth 5, demand 15
		counted(t, "c", 60, 50, 60, true, lbL),  // bounded: alone
		counted(t, "e", 60, 40, 60, false, lbL), // demand 40 > room 33: alone
		{TargetGroupARN: arnOf(t, "d"), Name: "d", LoadBalancerARNs: []string{lbL, lbM}, Plan: &cutover.Plan{}}, // no count
		{TargetGroupARN: arnOf(t, "z"), Name: "z", LoadBalancerARNs: []string{lbL}, Blocked: &Blocked{Reason: ReasonManual}},
	}
	l := makeLimits(entries, defaults())
	if len(l.LoadBalancers) != 2 || l.LoadBalancers[0].ARN != lbL || l.LoadBalancers[1].ARN != lbM {
		t.Fatalf("load balancers %+v", l.LoadBalancers)
	}
	L, M := l.LoadBalancers[0], l.LoadBalancers[1]
	// Quota 100, the most targets now 62, the growth 5: room 33 for the
	// overlaps; a (18) and b (15) fit together, c and e run alone.
	if !L.Counted || L.Quota.Value != 100 || L.Now != 62 || L.Growth != 5 || L.Budget != 33 || L.MaxConcurrent != 2 ||
		!strings.Contains(L.Reason, "up to 2 cutovers at once") {
		t.Errorf("L: %+v", L)
	}
	var shares []string
	for _, s := range L.Shares {
		shares = append(shares, fmt.Sprintf("%s:%d:%t", strings.Split(s.TargetGroupARN.Raw, "/")[1], s.Demand, s.Alone))
	}
	if want := []string{"a:18:false", "b:15:false", "c:50:true", "e:40:true", "d:0:true"}; !slices.Equal(shares, want) {
		t.Errorf("L's shares %q, want %q", shares, want)
	}
	if M.Counted || len(M.Shares) != 1 || !strings.Contains(M.Reason, "bounds nothing") {
		t.Errorf("M: %+v", M)
	}
	if l.Concurrency != DefaultConcurrency || l.PerAccount != DefaultPerAccount || l.PerCluster != DefaultPerCluster || len(l.Sources) != 3 {
		t.Errorf("limits %+v", l)
	}
	// The limits as the estimate applies them: a and b together; c, e
	// and d (no count of L beside counts) alone.
	a, b := entries[0], entries[1]
	if why := l.Admit([]Entry{a}, b); why != "" {
		t.Errorf("b beside a: %s", why)
	}
	if why := l.Admit([]Entry{a}, entries[2]); !strings.Contains(why, "runs alone") {
		t.Errorf("c beside a: %q", why)
	}
	if why := l.Admit([]Entry{a, b}, entries[4]); !strings.Contains(why, "it runs alone (its plan counts no targets") {
		t.Errorf("d beside a and b: %q", why)
	}
}

func TestMakeWaves(t *testing.T) {
	e := func(name, cluster string, targets, seconds int) Entry {
		return Entry{TargetGroupARN: arnOf(t, name), Name: name, Cluster: cluster, Targets: targets, Seconds: seconds, Plan: &cutover.Plan{}}
	}
	entries := []Entry{e("a", "x", 9, 100), e("b", "x", 3, 300), e("c", "y", 5, 200), e("d", "y", 5, 400), e("f", "x", 7, 50),
		{TargetGroupARN: arnOf(t, "g"), Cluster: "x", Targets: 1, Blocked: &Blocked{Reason: ReasonQuota}}}
	clusters := []Cluster{{Name: "x"}, {Name: "y"}}
	names := func(ws []Wave) string {
		var out []string
		for _, w := range ws {
			var ns []string
			for _, a := range w.TargetGroupARNs {
				ns = append(ns, strings.Split(a.Raw, "/")[1])
			}
			out = append(out, fmt.Sprintf("%s%s[%s]", map[bool]string{true: "?"}[w.Approval], w.Name, strings.Join(ns, " ")))
		}
		return strings.Join(out, " ")
	}
	cfg := func(opts ...Option) config {
		c := defaults()
		for _, o := range opts {
			o(&c)
		}
		if c.err != nil {
			t.Fatal(c.err)
		}
		return c
	}
	tests := []struct {
		name string
		cfg  config
		want string
	}{
		// Fewest targets per cluster (b in x; c and d tie on 5: c by
		// ARN); then the longest first.
		{"default", cfg(), "canary[b c] ?wave 1[d a f]"},
		{"at most two a wave", cfg(WithMaxPerWave(2)), "canary[b c] ?wave 1[d a] ?wave 2[f]"},
		{"explicit canaries", cfg(WithCanaries(arnOf(t, "d"))), "canary[d] ?wave 1[b c a f]"},
		{"no canary", cfg(WithCanaries()), "wave 1[d b c a f]"},
		{"chooser", cfg(WithCanaryChooser(func(cluster string, cands []Candidate) []tgmigrate.ARN {
			if cluster != "x" {
				return nil
			}
			return []tgmigrate.ARN{cands[len(cands)-1].TargetGroupARN} // the most targets: a
		})), "canary[a] ?wave 1[d b c f]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := makeWaves(entries, tt.cfg, clusters)
			if got := names(ws); err != nil || got != tt.want {
				t.Errorf("waves %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	bad := cfg(WithCanaryChooser(func(string, []Candidate) []tgmigrate.ARN { return []tgmigrate.ARN{arnOf(t, "g")} }))
	if _, err := makeWaves(entries, bad, clusters); !IsInvalidInput(err) {
		t.Errorf("a chooser choosing a blocked target group: %v", err)
	}
}
