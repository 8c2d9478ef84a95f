package subnets_test

// sim_test.go: package subnets on the simulated world: readiness read
// through the real AWS SDK clients over loopback in sound and broken
// worlds, and the move crashed after each wave, then resumed or rolled
// back.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/qstools/tgmigrate/diagnose"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/subnets"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
)

// TestSimReadinessOverTheWire checks readiness in sound and broken
// worlds whose EC2 and ELBv2 clients are the real SDK's over loopback:
// the sound worlds are Ready with their egress, each broken one names its
// culprit, and PlanMove refuses it writing nothing.
func TestSimReadinessOverTheWire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		cfg     func(*sim.Config)
		break_  func(t *testing.T, w *sim.World) // after the cutover
		noCut   bool                             // skip the cutover
		ready   bool
		egress  string
		code    diagnose.Code
		culprit func(w *sim.World) []string // what the finding must name
	}{
		{name: "nat", ready: true, egress: sim.EgressNAT},
		{name: "endpoints", cfg: func(c *sim.Config) { c.Move.PrivateEgress = sim.EgressEndpoints }, ready: true, egress: "endpoints"},
		{name: "no egress", cfg: func(c *sim.Config) { c.Move.PrivateEgress = sim.EgressNone }, code: subnets.CodeNoEgress,
			culprit: func(*sim.World) []string { return []string{"ecr.api", "ecr.dkr", ".s3", ".sts", ".ec2"} }},
		{name: "missing zone", code: subnets.CodeZoneNotEnabled,
			break_: func(t *testing.T, w *sim.World) {
				zones := w.Cluster().Zones()
				enabled := map[string]string{}
				for _, z := range zones[:len(zones)-1] {
					enabled[z] = "subnet-public-" + z
				}
				if err := w.Model().SetLoadBalancerZones(w.Legacy().LoadBalancerARN, enabled); err != nil {
					t.Fatal(err)
				}
			},
			culprit: func(w *sim.World) []string {
				zones := w.Cluster().Zones()
				return []string{w.Legacy().LoadBalancerARN, zones[len(zones)-1]}
			}},
		{name: "pinned", noCut: true, code: subnets.CodeNodeIPsPinned,
			culprit: func(w *sim.World) []string { return []string{tgName(w.Legacy().TargetGroupARN)} }},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newSimWorld(t, simConfig(uint64(100+i), true, tc.cfg))
			if _, ok := w.EC2().(*ec2.Client); !ok {
				t.Fatalf("w.EC2() is %T, want the SDK's *ec2.Client", w.EC2())
			}
			if w.Wire() == nil {
				t.Fatal("the world has no wire endpoint")
			}
			if !tc.noCut {
				simCutover(t, w)
			}
			if tc.break_ != nil {
				tc.break_(t, w)
			}
			ctx := t.Context()
			before := simSpecs(t, w)
			r, err := simReadiness(ctx, w)
			if err != nil {
				t.Fatalf("CheckReadiness: %v", err)
			}
			counts := w.AWSCounts()
			ops := []string{"DescribeSubnets", "DescribeRouteTables", "DescribeVpcEndpoints", "DescribeTargetHealth"}
			if !tc.noCut {
				// The pinned node IPs block the move before the load
				// balancers' zones are read.
				ops = append(ops, "DescribeLoadBalancers")
			}
			for _, op := range ops {
				if counts[op] == 0 {
					t.Errorf("no %s went over the wire: %v", op, counts)
				}
			}
			if tc.ready {
				if !r.Ready {
					t.Fatalf("not Ready: %v", r.Findings)
				}
				if len(r.Zones) != 3 {
					t.Errorf("%d zones, want 3: %+v", len(r.Zones), r.Zones)
				}
				var zones []string
				for _, s := range r.PrivateSubnets {
					zones = append(zones, s.Zone)
					if s.Egress != tc.egress {
						t.Errorf("subnet %s: egress %q, want %q", s.ID, s.Egress, tc.egress)
					}
				}
				slices.Sort(zones)
				if len(slices.Compact(zones)) != 3 || len(r.PrivateSubnets) != 3 {
					t.Errorf("private subnets %+v: want one in each of 3 zones", r.PrivateSubnets)
				}
				if _, err := subnets.PlanMove(ctx, r, subnets.PlanClock(w.Clock())); err != nil {
					t.Errorf("PlanMove of a Ready world: %v", err)
				}
				return
			}
			if r.Ready {
				t.Fatalf("Ready, want %s: %v", tc.code, r.Findings)
			}
			var found *diagnose.Finding
			for i := range r.Findings {
				if r.Findings[i].Code == tc.code {
					found = &r.Findings[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s finding: %v", tc.code, r.Findings)
			}
			text := fmt.Sprintf("%s %+v", *found, found.Evidence) // its line (Finding.String) and its evidence
			for _, c := range tc.culprit(w) {
				if !strings.Contains(text, c) {
					t.Errorf("the %s finding does not name %q: %s", tc.code, c, text)
				}
			}
			if _, err := subnets.PlanMove(ctx, r, subnets.PlanClock(w.Clock())); !errors.Is(err, subnets.ErrNotReady) {
				t.Errorf("PlanMove: %v, want ErrNotReady", err)
			}
			sameSpecs(t, "a refused move", before, simSpecs(t, w))
		})
	}
}

// TestSimReadinessSecurityGroupPath checks the security-group path over
// the wire: the simulated EC2NodeClass lists the nodes' group in
// status.securityGroups, and readiness reads it with
// DescribeSecurityGroups through the real SDK client. In the world whose
// node group leaves out the pods' port, the path is open only through the
// binding's spec.networking (the controller authorized it during the
// cutover); without that rule it is a SecurityGroupPath finding.
func TestSimReadinessSecurityGroupPath(t *testing.T) {
	t.Parallel()
	w := newSimWorld(t, simConfig(7, true, func(c *sim.Config) { c.PodPortBlocked = true }))
	simCutover(t, w)
	r, err := simReadiness(t.Context(), w)
	if err != nil {
		t.Fatalf("CheckReadiness: %v", err)
	}
	if len(r.Findings) != 0 || !r.Ready || len(r.TargetGroups) != 1 || r.TargetGroups[0].Networking == "" {
		t.Fatalf("after the cutover: ready %v, findings %v, target groups %+v; want ready, the path open through spec.networking", r.Ready, r.Findings, r.TargetGroups)
	}
	if w.AWSCounts()["DescribeSecurityGroups"] == 0 {
		t.Errorf("DescribeSecurityGroups did not go over the wire: %v", w.AWSCounts())
	}

	// Without spec.networking the controller no longer manages the rule,
	// and nothing else lets the load balancer reach the pods' port.
	var tgbs v1beta1.TargetGroupBindingList
	if err := w.Client().List(t.Context(), &tgbs); err != nil || len(tgbs.Items) != 1 {
		t.Fatalf("bindings: %v (%d)", err, len(tgbs.Items))
	}
	tgb := tgbs.Items[0]
	tgb.Spec.Networking = nil
	if err := w.Client().Update(t.Context(), &tgb); err != nil {
		t.Fatalf("update binding: %v", err)
	}
	// The controller's rule goes with it (whether the stand-in revoked it
	// already or not: a NotFound is fine).
	_, _ = w.SUTEC2().RevokeSecurityGroupIngress(t.Context(), &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(sim.NodeSecurityGroup),
		IpPermissions: []ec2types.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(sim.DefaultContainerPort), ToPort: aws.Int32(sim.DefaultContainerPort),
			UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(sim.LoadBalancerSecurityGroup)}}}}})
	before := simSpecs(t, w)
	r, err = simReadiness(t.Context(), w)
	if err != nil {
		t.Fatalf("CheckReadiness: %v", err)
	}
	i := slices.IndexFunc(r.Findings, func(f diagnose.Finding) bool { return f.Code == subnets.CodeSecurityGroupPath })
	if i < 0 || r.Ready {
		t.Fatalf("no SecurityGroupPath finding without spec.networking: ready %v, findings %v, notes %v", r.Ready, r.Findings, r.Notes)
	}
	if f := r.Findings[i]; !strings.Contains(f.Message, "8080") || !slices.Contains(f.Evidence.Names, sim.NodeSecurityGroup) {
		t.Errorf("finding %q %v: want the port and the nodes' group named", f.Message, f.Evidence.Names)
	}
	if _, err := subnets.PlanMove(t.Context(), r, subnets.PlanClock(w.Clock())); !errors.Is(err, subnets.ErrNotReady) {
		t.Errorf("PlanMove: %v, want ErrNotReady", err)
	}
	sameSpecs(t, "refused", before, simSpecs(t, w))
}

// tgName is the name part of a target group ARN.
func tgName(arn string) string {
	parts := strings.Split(arn, "/")
	if len(parts) < 2 {
		return arn
	}
	return parts[len(parts)-2]
}

// simMove plans and executes the move in w; stopAfter > 0 cancels the
// ctx once the watch has seen that many waves (the crash). It returns the
// plan, the result and the waves seen.
func simMove(t *testing.T, w *sim.World, stopAfter int) (*subnets.Plan, *subnets.Result, int, error) {
	t.Helper()
	r, err := simReadiness(t.Context(), w)
	if err != nil {
		t.Fatalf("CheckReadiness: %v", err)
	}
	plan, err := subnets.PlanMove(t.Context(), r, subnets.PlanClock(w.Clock()))
	if err != nil {
		t.Fatalf("PlanMove: %v (%v)", err, r.Findings)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	waves := 0
	obs := subnets.ObserverFuncs{OnObserved: func(p subnets.WatchProgress) {
		waves = max(waves, p.Wave)
		if stopAfter > 0 && p.Wave >= stopAfter {
			cancel()
		}
	}}
	res, err := subnets.Execute(ctx, plan, simEnv(w), subnets.WithObserver(obs))
	return plan, res, waves, err
}

// TestSimMoveCrashAfterEachWave crashes the move after each of its waves,
// then resumes it from the journal in one world and rolls it back in
// another: every node ends private (resumed) or public with the specs as
// before (rolled back), and no request fails.
func TestSimMoveCrashAfterEachWave(t *testing.T) {
	t.Parallel()
	w := newSimWorld(t, simConfig(1, false, nil))
	simCutover(t, w)
	_, res, waves, err := simMove(t, w, 0)
	if err != nil || !res.Completed {
		t.Fatalf("uninterrupted move: %v (%+v)", err, res)
	}
	checkAllPrivate(t, w)
	if waves < 1 {
		t.Fatalf("the uninterrupted move saw %d waves", waves)
	}
	t.Logf("uninterrupted move: %d waves", waves)
	last := waves
	if testing.Short() {
		last = 1
	}
	for k := 1; k <= last; k++ {
		t.Run(fmt.Sprintf("wave %d resumed", k), func(t *testing.T) {
			t.Parallel()
			w := newSimWorld(t, simConfig(1, false, nil))
			simCutover(t, w)
			plan := crashAfter(t, w, k)
			res, err := subnets.Execute(t.Context(), plan, simEnv(w))
			if err != nil || !res.Completed || !res.Resumed {
				t.Fatalf("resume: %v (%+v)", err, res)
			}
			checkAllPrivate(t, w)
		})
		t.Run(fmt.Sprintf("wave %d rolled back", k), func(t *testing.T) {
			t.Parallel()
			w := newSimWorld(t, simConfig(1, false, nil))
			simCutover(t, w)
			before := simSpecs(t, w)
			plan := crashAfter(t, w, k)
			res, err := subnets.Rollback(t.Context(), plan, simEnv(w))
			if err != nil || !res.Completed {
				t.Fatalf("rollback: %v (%+v)", err, res)
			}
			sameSpecs(t, "rolled back", before, simSpecs(t, w))
			// The nodes the move launched, registered or not when it
			// crashed, are public again when Rollback returns: its watch
			// takes in the late ones too.
			for _, n := range w.Cluster().Nodes() {
				if !n.Public || n.ExternalIP == "" {
					t.Errorf("node %s is private after the rollback (public=%v, ip=%q)", n.Name, n.Public, n.ExternalIP)
				}
			}
			if f := w.Traffic().Failed; f != 0 {
				t.Errorf("%d requests failed", f)
			}
		})
	}
}

// crashAfter runs the move until its watch has seen k waves, then cancels
// it, and returns its plan.
func crashAfter(t *testing.T, w *sim.World, k int) *subnets.Plan {
	t.Helper()
	plan, res, waves, err := simMove(t, w, k)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the crashed move: %v, want context.Canceled (%+v)", err, res)
	}
	if waves < k {
		t.Fatalf("crashed after %d waves, want %d", waves, k)
	}
	return plan
}

// checkAllPrivate fails t unless every node is private and no request
// failed.
func checkAllPrivate(t *testing.T, w *sim.World) {
	t.Helper()
	public, total := simPublicNodes(w)
	if total == 0 || len(public) > 0 {
		t.Errorf("%d of %d nodes still public: %v", len(public), total, public)
	}
	if f := w.Traffic().Failed; f != 0 {
		t.Errorf("%d requests failed", f)
	}
}
