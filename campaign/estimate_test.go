package campaign_test

// estimate_test.go: EstimateOf and Limits.Admit on constructed data,
// against hand-computed schedules: overlaps serialized on one load
// balancer, the per-cluster and per-account limits, a bounded plan
// alone, waves in sequence.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/campaign"
	"github.com/qstools/tgmigrate/cutover"
)

const lbARN = "arn:aws:elasticloadbalancing:us-east-1:111111111111:loadbalancer/app/web/0123456789abcdef"

// tgARN is the target group named name in account 111111111111.
func tgARN(t *testing.T, name string) tgmigrate.ARN {
	t.Helper()
	a, err := tgmigrate.ParseTargetGroupARN(fmt.Sprintf("arn:aws:elasticloadbalancing:us-east-1:111111111111:targetgroup/%s/0123456789abcdef", name))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// job is a runnable entry: name, cluster, account and seconds.
func job(t *testing.T, name, cluster, account string, seconds int) campaign.Entry {
	return campaign.Entry{TargetGroupARN: tgARN(t, name), Name: name, Cluster: cluster, AccountID: account, Region: "us-east-1",
		Seconds: seconds, Plan: &cutover.Plan{}}
}

// lb is a counted load balancer of budget with the shares name:demand
// ("!" after the demand: alone).
func lb(t *testing.T, budget int, shares ...string) campaign.LoadBalancerLimit {
	l := campaign.LoadBalancerLimit{ARN: lbARN, Counted: true, Budget: budget}
	for _, s := range shares {
		var name string
		var demand int
		alone := strings.HasSuffix(s, "!")
		if _, err := fmt.Sscanf(strings.ReplaceAll(strings.TrimSuffix(s, "!"), ":", " "), "%s %d", &name, &demand); err != nil {
			t.Fatal(err)
		}
		l.Shares = append(l.Shares, campaign.LoadBalancerShare{TargetGroupARN: tgARN(t, name), Demand: demand, Alone: alone})
	}
	return l
}

func wave(t *testing.T, names ...string) campaign.Wave {
	w := campaign.Wave{Name: "w"}
	for _, n := range names {
		w.TargetGroupARNs = append(w.TargetGroupARNs, tgARN(t, n))
	}
	return w
}

func TestEstimateOf(t *testing.T) {
	free := campaign.Limits{Concurrency: 8, PerAccount: 8, PerCluster: 8}
	limited := func(edit func(*campaign.Limits)) campaign.Limits {
		l := free
		edit(&l)
		return l
	}
	a1, a2 := "111111111111", "222222222222"
	tests := []struct {
		name    string
		entries []campaign.Entry
		waves   []campaign.Wave
		limits  campaign.Limits
		// slots are "name start-end", in start order; total and the
		// critical path.
		slots []string
		total int
		path  []string
	}{{
		// Room 40 for overlaps of 30, 30 and 20: no two fit together.
		name:    "serialized on one load balancer",
		entries: []campaign.Entry{job(t, "b", "x", a1, 200), job(t, "a", "y", a1, 100), job(t, "c", "z", a1, 50)},
		waves:   []campaign.Wave{wave(t, "b", "a", "c")},
		limits: limited(func(l *campaign.Limits) {
			l.LoadBalancers = []campaign.LoadBalancerLimit{lb(t, 40, "a:30", "b:30", "c:20")}
		}),
		slots: []string{"b 0-200", "a 200-300", "c 300-350"},
		total: 350, path: []string{"b", "a", "c"},
	}, {
		// Room 50: c (20) fits beside b (30) or a (30), a and b do not.
		name:    "two of three fit together",
		entries: []campaign.Entry{job(t, "b", "x", a1, 200), job(t, "a", "y", a1, 100), job(t, "c", "z", a1, 50)},
		waves:   []campaign.Wave{wave(t, "b", "a", "c")},
		limits: limited(func(l *campaign.Limits) {
			l.LoadBalancers = []campaign.LoadBalancerLimit{lb(t, 50, "a:30", "b:30", "c:20")}
		}),
		slots: []string{"b 0-200", "c 0-50", "a 200-300"},
		total: 300, path: []string{"b", "a"},
	}, {
		// A bounded plan runs alone; the others overlap freely.
		name:    "a bounded plan alone",
		entries: []campaign.Entry{job(t, "a", "x", a1, 100), job(t, "b", "y", a1, 60), job(t, "c", "z", a1, 60)},
		waves:   []campaign.Wave{wave(t, "a", "b", "c")},
		limits: limited(func(l *campaign.Limits) {
			l.LoadBalancers = []campaign.LoadBalancerLimit{lb(t, 500, "a:10!", "b:10", "c:10")}
		}),
		slots: []string{"a 0-100", "b 100-160", "c 100-160"},
		total: 160, path: []string{"a", "b"},
	}, {
		name:    "per-cluster limit",
		entries: []campaign.Entry{job(t, "a", "x", a1, 300), job(t, "b", "x", a2, 200), job(t, "c", "x", a2, 100), job(t, "d", "y", a1, 400)},
		waves:   []campaign.Wave{wave(t, "a", "b", "c", "d")},
		limits:  limited(func(l *campaign.Limits) { l.PerCluster = 2 }),
		slots:   []string{"a 0-300", "b 0-200", "d 0-400", "c 200-300"},
		total:   400, path: []string{"d"},
	}, {
		name:    "per-account limit",
		entries: []campaign.Entry{job(t, "a", "x", a1, 300), job(t, "b", "y", a1, 200), job(t, "c", "z", a1, 100), job(t, "d", "w", a2, 50)},
		waves:   []campaign.Wave{wave(t, "a", "b", "c", "d")},
		limits:  limited(func(l *campaign.Limits) { l.PerAccount = 2 }),
		slots:   []string{"a 0-300", "b 0-200", "d 0-50", "c 200-300"},
		total:   300, path: []string{"a"},
	}, {
		name:    "overall concurrency",
		entries: []campaign.Entry{job(t, "a", "x", a1, 100), job(t, "b", "y", a2, 100), job(t, "c", "z", a1, 100)},
		waves:   []campaign.Wave{wave(t, "a", "b", "c")},
		limits:  limited(func(l *campaign.Limits) { l.Concurrency = 1 }),
		slots:   []string{"a 0-100", "b 100-200", "c 200-300"},
		total:   300, path: []string{"a", "b", "c"},
	}, {
		// The second wave starts when the canary has ended.
		name:    "waves in sequence",
		entries: []campaign.Entry{job(t, "x", "p", a1, 100), job(t, "y", "q", a1, 300), job(t, "z", "r", a2, 200)},
		waves:   []campaign.Wave{wave(t, "x"), wave(t, "y", "z")},
		limits:  free,
		slots:   []string{"x 0-100", "y 100-400", "z 100-300"},
		total:   400, path: []string{"x", "y"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			est, slots, err := campaign.EstimateOf(tt.entries, tt.waves, tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range slots {
				got = append(got, fmt.Sprintf("%s %d-%d", strings.Split(s.TargetGroupARN.Raw, "/")[1], s.StartSeconds, s.EndSeconds))
			}
			var path []string
			for _, a := range est.CriticalPath {
				path = append(path, strings.Split(a.Raw, "/")[1])
			}
			serial := 0
			for _, e := range tt.entries {
				serial += e.Seconds
			}
			if !slices.Equal(got, tt.slots) || est.TotalSeconds != tt.total || !slices.Equal(path, tt.path) || est.SerialSeconds != serial {
				t.Errorf("slots %q, total %d, path %q, serial %d; want %q, %d, %q, %d", got, est.TotalSeconds, path, est.SerialSeconds, tt.slots, tt.total, tt.path, serial)
			}
			if w := est.Waves[len(est.Waves)-1]; w.EndSeconds != tt.total || est.Waves[0].StartSeconds != 0 {
				t.Errorf("waves %+v", est.Waves)
			}
			again, _, _ := campaign.EstimateOf(tt.entries, tt.waves, tt.limits)
			if again.TotalSeconds != est.TotalSeconds || !slices.Equal(again.CriticalPath, est.CriticalPath) {
				t.Errorf("a second run gave %+v", again)
			}
		})
	}
}

// TestLimitsAdmit: each limit says why it holds an entry back, and
// nothing running admits anything.
func TestLimitsAdmit(t *testing.T) {
	a, b, c := job(t, "a", "x", "111111111111", 10), job(t, "b", "x", "111111111111", 10), job(t, "c", "y", "222222222222", 10)
	tests := []struct {
		name    string
		limits  campaign.Limits
		running []campaign.Entry
		next    campaign.Entry
		want    string // a part of the reason; "" admitted
	}{
		{"nothing running", campaign.Limits{Concurrency: 1, PerAccount: 1, PerCluster: 1, LoadBalancers: []campaign.LoadBalancerLimit{lb(t, 0, "a:5!")}}, nil, a, ""},
		{"concurrency", campaign.Limits{Concurrency: 1, PerAccount: 9, PerCluster: 9}, []campaign.Entry{a}, c, "the campaign's concurrency"},
		{"account", campaign.Limits{Concurrency: 9, PerAccount: 1, PerCluster: 9}, []campaign.Entry{a}, b, "in account 111111111111 in us-east-1"},
		{"cluster", campaign.Limits{Concurrency: 9, PerAccount: 9, PerCluster: 1}, []campaign.Entry{a}, b, "in cluster x"},
		{"other cluster and account", campaign.Limits{Concurrency: 9, PerAccount: 1, PerCluster: 1}, []campaign.Entry{a}, c, ""},
		{"room", campaign.Limits{Concurrency: 9, PerAccount: 9, PerCluster: 9, LoadBalancers: []campaign.LoadBalancerLimit{lb(t, 10, "a:6", "b:5")}}, []campaign.Entry{a}, b, "would add 11 targets at once, above its room of 10"},
		{"fits the room", campaign.Limits{Concurrency: 9, PerAccount: 9, PerCluster: 9, LoadBalancers: []campaign.LoadBalancerLimit{lb(t, 11, "a:6", "b:5")}}, []campaign.Entry{a}, b, ""},
		{"running alone", campaign.Limits{Concurrency: 9, PerAccount: 9, PerCluster: 9, LoadBalancers: []campaign.LoadBalancerLimit{lb(t, 99, "a:1!", "b:1")}}, []campaign.Entry{a}, b, "a runs alone"},
		{"next alone", campaign.Limits{Concurrency: 9, PerAccount: 9, PerCluster: 9, LoadBalancers: []campaign.LoadBalancerLimit{lb(t, 99, "a:1", "b:1!")}}, []campaign.Entry{a}, b, "it runs alone"},
		{"not on the load balancer", campaign.Limits{Concurrency: 9, PerAccount: 9, PerCluster: 9, LoadBalancers: []campaign.LoadBalancerLimit{lb(t, 0, "a:1!")}}, []campaign.Entry{a}, c, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.limits.Admit(tt.running, tt.next)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Admit() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestEstimateOfBadWaves: a wave naming a blocked or unknown entry, or
// one twice, and limits below 1, are *InputErrors.
func TestEstimateOfBadWaves(t *testing.T) {
	a := job(t, "a", "x", "111111111111", 10)
	blocked := campaign.Entry{TargetGroupARN: tgARN(t, "b"), Blocked: &campaign.Blocked{Reason: campaign.ReasonManual}}
	ok := campaign.Limits{Concurrency: 1, PerAccount: 1, PerCluster: 1}
	tests := []struct {
		name   string
		waves  []campaign.Wave
		limits campaign.Limits
		field  string
	}{
		{"blocked", []campaign.Wave{wave(t, "b")}, ok, "waves[0].TargetGroupARNs[0]"},
		{"unknown", []campaign.Wave{wave(t, "a", "z")}, ok, "waves[0].TargetGroupARNs[1]"},
		{"twice", []campaign.Wave{wave(t, "a"), wave(t, "a")}, ok, "waves[1].TargetGroupARNs[0]"},
		{"no concurrency", []campaign.Wave{wave(t, "a")}, campaign.Limits{PerAccount: 1, PerCluster: 1}, "limits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := campaign.EstimateOf([]campaign.Entry{a, blocked}, tt.waves, tt.limits)
			var ie *campaign.InputError
			if !campaign.IsInvalidInput(err) || !errors.As(err, &ie) || ie.Field != tt.field {
				t.Errorf("EstimateOf() = %v; want an *InputError on %s", err, tt.field)
			}
		})
	}
}
