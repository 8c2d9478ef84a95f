package campaign

// limits_churn_internal_test.go: ChurnRoom on constructed cutover plans
// (the room a load balancer's quota leaves churn after its cutovers,
// against its pods and their deregistration delay), its line in
// Plan.Text, and the digest of a plan sealed before the field existed.

import (
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/diagnose"
)

// onLB is a runnable entry on lbL whose plan counts now targets on it,
// adding pod targets and after once done, under quota; its Service has
// pods ready endpoints and its target group the deregistration delay;
// bgDelay, when not "", is the new target group's attribute (blue/green).
func onLB(t *testing.T, name string, quota, now, adding, after, pods int, delay int32, bgDelay string) Entry {
	q := diagnose.Quota{Name: "Targets per Application Load Balancer", Value: quota}
	h := diagnose.Headroom{Scope: diagnose.ScopeLoadBalancer, ARN: lbL, Quota: q, Now: now, Adding: adding, Peak: now + adding, After: after, Room: quota - now - adding}
	p := &cutover.Plan{Quota: &cutover.QuotaPlan{Headroom: []diagnose.Headroom{h}},
		TargetGroup: cutover.TargetGroupInfo{DeregistrationDelaySeconds: delay},
		Service:     cutover.ServiceInfo{ReadyEndpoints: pods}}
	if bgDelay != "" {
		p.BlueGreen = &cutover.BlueGreenPlan{NewTargetGroup: cutover.NewTargetGroupSpec{
			Attributes: map[string]string{"deregistration_delay.timeout_seconds": bgDelay}}}
	}
	return Entry{TargetGroupARN: arnOf(t, name), Name: name, Cluster: "x", LoadBalancerARNs: []string{lbL}, Plan: p}
}

func TestMakeLimitsChurnRoom(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries func(t *testing.T) []Entry
		want    ChurnRoom // Warning checked by parts below
		parts   []string  // in the warning, when short
	}{{
		// The campaign scenario's legacy-alb: two target groups of 4 node
		// targets, 4 pods each, quota 13: room 5 after, 8 pods.
		name: "near quota, two target groups",
		entries: func(t *testing.T) []Entry {
			return []Entry{onLB(t, "a", 13, 8, 4, 8, 4, 300, ""), onLB(t, "b", 13, 8, 4, 8, 4, 300, "")}
		},
		want: ChurnRoom{Targets: 8, Room: 5, Pods: 8, TargetGroups: 2, MinDelaySeconds: 300, MaxDelaySeconds: 300, Short: true},
		parts: []string{"room for 5 under its quota of 13 (8 targets on it), fewer than its 8 pods (2 target groups, deregistration delay 300s)",
			"refused with TooManyTargets", "a drain waiting on the new pods' readiness is held", "a spot interruption's deadline can kill pods still registered",
			"Next: raise its target quota (Service Quotas), lower the target groups' deregistration_delay.timeout_seconds, or move a target group to another load balancer"},
	}, {
		// Growth counts: b ends with 2 pod targets more than the node
		// targets it removes; the delays differ (b's blue/green target
		// group takes 60s from its attribute).
		name: "growth and two delays",
		entries: func(t *testing.T) []Entry {
			return []Entry{onLB(t, "a", 20, 8, 4, 8, 4, 300, ""), onLB(t, "b", 20, 8, 6, 10, 6, 300, "60")}
		},
		want:  ChurnRoom{Targets: 10, Room: 10, Pods: 10, TargetGroups: 2, MinDelaySeconds: 60, MaxDelaySeconds: 300},
		parts: nil, // room 10 for 10 pods: one rotation fits
	}, {
		name: "one pod short, two delays",
		entries: func(t *testing.T) []Entry {
			return []Entry{onLB(t, "a", 19, 8, 4, 8, 4, 300, ""), onLB(t, "b", 19, 8, 6, 10, 6, 300, "60")}
		},
		want:  ChurnRoom{Targets: 10, Room: 9, Pods: 10, TargetGroups: 2, MinDelaySeconds: 60, MaxDelaySeconds: 300, Short: true},
		parts: []string{"room for 9 under its quota of 19 (10 targets on it), fewer than its 10 pods (2 target groups, deregistration delays 60s to 300s)"},
	}, {
		name: "room to spare",
		entries: func(t *testing.T) []Entry {
			return []Entry{onLB(t, "a", 1000, 8, 4, 8, 4, 300, ""), onLB(t, "b", 1000, 8, 4, 8, 4, 300, "")}
		},
		want: ChurnRoom{Targets: 8, Room: 992, Pods: 8, TargetGroups: 2, MinDelaySeconds: 300, MaxDelaySeconds: 300},
	}, {
		// No delay: a deregistered target leaves at once, nothing drains.
		name: "no deregistration delay",
		entries: func(t *testing.T) []Entry {
			return []Entry{onLB(t, "a", 13, 8, 4, 8, 4, 0, ""), onLB(t, "b", 13, 8, 4, 8, 4, 0, "")}
		},
		want: ChurnRoom{Targets: 8, Room: 5, Pods: 8, TargetGroups: 2},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			l := makeLimits(tc.entries(t), defaults())
			if len(l.LoadBalancers) != 1 || l.LoadBalancers[0].ChurnRoom == nil {
				t.Fatalf("load balancers %+v, want one with its churn room", l.LoadBalancers)
			}
			lb := l.LoadBalancers[0]
			got := *lb.ChurnRoom
			warning := got.Warning
			got.Warning = ""
			if got != tc.want {
				t.Errorf("churn room %+v, want %+v", got, tc.want)
			}
			if got.Room != lb.Budget || got.Targets != lb.Now+lb.Growth {
				t.Errorf("churn room %+v against the limit's budget %d, now %d, growth %d", got, lb.Budget, lb.Now, lb.Growth)
			}
			if (warning != "") != tc.want.Short {
				t.Errorf("warning %q with short %t", warning, tc.want.Short)
			}
			for _, part := range tc.parts {
				if !strings.Contains(warning, part) {
					t.Errorf("warning %q lacks %q", warning, part)
				}
			}
			text := (&Plan{SchemaVersion: PlanSchemaVersion, Limits: l}).Text()
			if strings.Contains(text, "warning:") != tc.want.Short {
				t.Errorf("the plan's text warns %t, want %t:\n%s", !tc.want.Short, tc.want.Short, text)
			}
			for line := range strings.Lines(text) {
				if n := len([]rune(strings.TrimSuffix(line, "\n"))); n > TextColumns {
					t.Errorf("line of %d columns, above %d: %q", n, TextColumns, line)
				}
			}
		})
	}
}

// TestChurnRoomNotInOldDigest: a plan sealed before ChurnRoom and the
// shares' Pods and DeregistrationDelaySeconds existed (they are absent
// from its JSON) still parses: the fields are omitted when empty, so its
// digest is what this code computes.
func TestChurnRoomNotInOldDigest(t *testing.T) {
	l := makeLimits([]Entry{onLB(t, "a", 13, 8, 4, 8, 4, 300, ""), onLB(t, "b", 13, 8, 4, 8, 4, 300, "")}, defaults())
	if l.LoadBalancers[0].ChurnRoom == nil || !l.LoadBalancers[0].ChurnRoom.Short {
		t.Fatalf("limits %+v, want a short churn room", l.LoadBalancers)
	}
	p := &Plan{SchemaVersion: PlanSchemaVersion, ID: "campaign-0123456789ab", Limits: l}
	if err := p.seal(); err != nil {
		t.Fatal(err)
	}
	withRoom := p.Digest
	old := *p
	old.Limits.LoadBalancers = append([]LoadBalancerLimit(nil), l.LoadBalancers...)
	lb := &old.Limits.LoadBalancers[0]
	lb.ChurnRoom = nil
	lb.Shares = append([]LoadBalancerShare(nil), lb.Shares...)
	for i := range lb.Shares {
		lb.Shares[i].Pods, lb.Shares[i].DeregistrationDelaySeconds = 0, 0
	}
	if err := old.seal(); err != nil {
		t.Fatal(err)
	}
	b, err := old.JSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"churnRoom"`, `"pods"`, `"deregistrationDelaySeconds"`} {
		if strings.Contains(string(b), field) {
			t.Fatalf("the old plan's JSON holds %s:\n%s", field, b)
		}
	}
	got, err := ParsePlan(b)
	if err != nil {
		t.Fatalf("ParsePlan of a plan without the churn room: %v", err)
	}
	if got.Digest != old.Digest || got.Digest == withRoom || got.Limits.LoadBalancers[0].ChurnRoom != nil {
		t.Errorf("parsed digest %s (sealed %s, with the room %s), churn room %+v", got.Digest, old.Digest, withRoom, got.Limits.LoadBalancers[0].ChurnRoom)
	}
	// The new plan round-trips too, its churn room covered by the digest.
	b, err = p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := ParsePlan(b); err != nil || again.Limits.LoadBalancers[0].ChurnRoom.Warning != l.LoadBalancers[0].ChurnRoom.Warning {
		t.Errorf("ParsePlan of the new plan: %v", err)
	}
	edited := strings.Replace(string(b), `"room": 5`, `"room": 6`, 1)
	if edited == string(b) {
		t.Fatal("no churn room's room in the JSON")
	}
	if _, err := ParsePlan([]byte(edited)); !IsInvalidInput(err) {
		t.Errorf("ParsePlan of an edited churn room: %v, want an input error", err)
	}
}
