package cutover_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/ec2sim"
)

// podPortAllowed asks the network model whether the load balancer's group
// reaches the pods' port on the nodes' group.
func podPortAllowed(w *sim.World) bool {
	ok, _ := w.EC2Model().Allows(ec2sim.Source{GroupIDs: []string{sim.LoadBalancerSecurityGroup}}, []string{sim.NodeSecurityGroup}, "tcp", w.Legacy().ContainerPort)
	return ok
}

// TestSecurityGroupCheck: the plan reads the load balancer's security
// groups and the pods' (through their network interfaces) and checks the
// pods' port: allowed, it changes nothing; blocked, the plan sets the
// binding's spec.networking, the controller authorizes the rule, the
// cutover completes with no failed request, and the rollback's deletion
// of the binding has the controller revoke it; blocked with
// LeaveSecurityGroups, the plan carries a precondition naming the missing
// rule and Execute refuses it, changing nothing. Without Env.EC2 the
// check is skipped and the plan says so. On the facade and, unless
// -short, through the wire.
func TestSecurityGroupCheck(t *testing.T) {
	t.Parallel()
	for _, tr := range matrixTransports() {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			t.Run("allowed", func(t *testing.T) {
				t.Parallel()
				cfg := smallWorld(51)
				cfg.Wire = tr.wire
				s := newScenario(t, cfg)
				s.env.EC2 = s.w.EC2()
				p := s.plan(nil)
				n := p.Network
				if n == nil || !n.Checked || !n.Allowed || n.Networking || p.Binding.Object.Spec.Networking != nil {
					t.Fatalf("network %+v, binding networking %v: want checked, allowed, nothing set", n, p.Binding.Object.Spec.Networking)
				}
				if !slices.Equal(n.LoadBalancerSecurityGroups, []string{sim.LoadBalancerSecurityGroup}) || !slices.Equal(n.PodSecurityGroups, []string{sim.NodeSecurityGroup}) {
					t.Errorf("groups %v -> %v, want %s -> %s", n.LoadBalancerSecurityGroups, n.PodSecurityGroups, sim.LoadBalancerSecurityGroup, sim.NodeSecurityGroup)
				}
				if !strings.Contains(n.By, "tcp/8080 from "+sim.LoadBalancerSecurityGroup) {
					t.Errorf("by %q: want the rule named", n.By)
				}
				if !strings.Contains(p.Text(), "network:") {
					t.Errorf("the plan's text does not show the check:\n%s", p.Text())
				}
				pol, err := p.IAMPolicy()
				if err != nil || !policyAllows(pol, cutover.ActionDescribeSecurityGroups) || !policyAllows(pol, cutover.ActionDescribeNetworkInterfaces) {
					t.Errorf("IAM policy %+v (%v): want the check's reads", pol, err)
				}
			})
			t.Run("blocked, fixed by spec.networking", func(t *testing.T) {
				t.Parallel()
				cfg := smallWorld(52)
				cfg.Wire = tr.wire
				cfg.PodPortBlocked = true
				s := newScenario(t, cfg)
				s.env.EC2 = s.w.EC2()
				p := s.plan(nil)
				n := p.Network
				if n == nil || !n.Checked || n.Allowed || !n.Networking || len(n.Blocked) == 0 {
					t.Fatalf("network %+v: want checked, blocked, fixed by networking", n)
				}
				nw := p.Binding.Object.Spec.Networking
				if nw == nil || len(nw.Ingress) != 1 || nw.Ingress[0].From[0].SecurityGroup == nil || nw.Ingress[0].From[0].SecurityGroup.GroupID != sim.LoadBalancerSecurityGroup ||
					nw.Ingress[0].Ports[0].Port == nil || nw.Ingress[0].Ports[0].Port.String() != s.w.Legacy().PortName {
					t.Fatalf("binding networking %+v: want ingress from %s on the pods' port %q", nw, sim.LoadBalancerSecurityGroup, s.w.Legacy().PortName)
				}
				pol, err := p.ControllerPolicy()
				if err != nil || !policyAllows(pol, cutover.ActionAuthorizeSecurityGroupIngress) || !policyAllows(pol, cutover.ActionDescribeVpcs) {
					t.Fatalf("controller policy %+v (%v): want ec2:AuthorizeSecurityGroupIngress and ec2:DescribeVpcs", pol, err)
				}
				res, err := cutover.Execute(t.Context(), s.env, p, simPods)
				if err != nil {
					t.Fatalf("Execute: %v", err)
				}
				if !podPortAllowed(s.w) {
					t.Error("the controller did not authorize the pods' port")
				}
				if st := s.w.Traffic(); st.Failed != 0 || res.Ratio > 1.2 {
					t.Errorf("traffic %s, ratio %.3f: want 0 failed", st.String(), res.Ratio)
				}
				rb, err := cutover.Rollback(t.Context(), s.env, p)
				if err != nil {
					t.Fatalf("Rollback: %v", err)
				}
				s.checkRolledBack(rb)
				if podPortAllowed(s.w) {
					t.Error("the controller's rule is still there once the binding is gone")
				}
			})
			t.Run("blocked, refused", func(t *testing.T) {
				if tr.wire != nil {
					t.Skip("the same reads as blocked, fixed: the facade is enough")
				}
				t.Parallel()
				cfg := smallWorld(53)
				cfg.Wire = tr.wire
				cfg.PodPortBlocked = true
				s := newScenario(t, cfg)
				s.env.EC2 = s.w.EC2()
				p := s.plan(func(r *cutover.Request) { r.LeaveSecurityGroups = true })
				if p.Binding.Object.Spec.Networking != nil || p.Network == nil || p.Network.Networking {
					t.Fatalf("network %+v: want no spec.networking", p.Network)
				}
				var rule *cutover.MissingRule
				for _, pc := range p.Preconditions {
					if pc.Kind == cutover.PreconditionSecurityGroup {
						rule = pc.Rule
					}
				}
				want := cutover.MissingRule{GroupIDs: []string{sim.NodeSecurityGroup}, FromGroupIDs: []string{sim.LoadBalancerSecurityGroup}, Protocol: "tcp", Port: s.w.Legacy().ContainerPort}
				if rule == nil || rule.String() != want.String() {
					t.Fatalf("precondition rule %v, want %v", rule, want)
				}
				before := s.w.SUTEC2().Counts()
				sutBefore := mutatingOps(s.w.AWSCounts())
				_, err := cutover.Execute(t.Context(), s.env, p, simPods)
				var pe *cutover.PreconditionError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), "missing ingress tcp/8080 on "+sim.NodeSecurityGroup+" from "+sim.LoadBalancerSecurityGroup) {
					t.Fatalf("Execute: %v; want a *PreconditionError naming the missing rule", err)
				}
				// Nothing changed: no binding, no AWS write, no EC2 call.
				if s.bindingExists(p) {
					t.Error("a binding exists")
				}
				if got := mutatingOps(s.w.AWSCounts()); got != sutBefore {
					t.Errorf("%d mutating ELBv2 calls, want none", got-sutBefore)
				}
				if got := s.w.SUTEC2().Counts(); !maps.Equal(got, before) {
					t.Errorf("EC2 calls %v -> %v: want none", before, got)
				}
				if podPortAllowed(s.w) {
					t.Error("the pods' port is allowed: nothing should have changed")
				}
			})
		})
	}
	t.Run("no EC2", func(t *testing.T) {
		t.Parallel()
		s := newScenario(t, smallWorld(54))
		p := s.plan(nil)
		if p.Network == nil || p.Network.Checked || !strings.Contains(p.Network.Note, "Env.EC2") {
			t.Fatalf("network %+v: want not checked, saying Env.EC2 was not given", p.Network)
		}
		if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.HasPrefix(w, "security groups: not checked") }) {
			t.Errorf("warnings %q: want the skipped check named", p.Warnings)
		}
	})
}

// TestBlockedPodPortStallsWithoutTheFix: the simulator models the rule: a
// binding on pods whose port the load balancer cannot reach registers them
// but they never turn healthy, and the gate, seeing them registered, ends
// only at its timeout; the controller is not stuck.
func TestBlockedPodPortStallsWithoutTheFix(t *testing.T) {
	t.Parallel()
	cfg := smallWorld(55)
	cfg.PodPortBlocked = true
	s := newScenario(t, cfg)
	p := s.plan(nil) // no Env.EC2: the plan cannot see the block
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithGateTimeout(3*time.Minute))
	if !cutover.IsTimeout(err) || cutover.IsController(err) {
		t.Fatalf("Execute: %v; want the gate's timeout (the targets are registered, not healthy)", err)
	}
	if !res.RolledBack {
		t.Error("not rolled back")
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic %s: want 0 failed (the node targets never left)", st.String())
	}
}

func policyAllows(p *cutover.Policy, action string) bool {
	if p == nil {
		return false
	}
	for _, st := range p.Statement {
		if st.Effect == "Allow" && slices.Contains(st.Action, action) {
			return true
		}
	}
	return false
}

// TestSecurityGroupCheckDenied: EC2 refusing the check's reads does not
// fail the plan: the check is not made, and the plan names the permission
// it lacked.
func TestSecurityGroupCheckDenied(t *testing.T) {
	t.Parallel()
	for _, op := range []string{ec2sim.OpDescribeNetworkInterfaces, ec2sim.OpDescribeSecurityGroups} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, smallWorld(56))
			s.env.EC2 = s.w.EC2()
			if err := s.w.SUTEC2().Fail(op, ec2sim.ErrUnauthorized(op)); err != nil {
				t.Fatal(err)
			}
			p := s.plan(nil)
			if n := p.Network; n == nil || n.Checked || !strings.Contains(n.Note, "ec2:"+op) {
				t.Fatalf("network %+v: want not checked, naming ec2:%s", n, op)
			}
		})
	}
}

// TestControllerPolicyBadARN: a plan whose target group ARN is missing,
// hand-made or a load balancer's gets an *InputError, not a policy.
func TestControllerPolicyBadARN(t *testing.T) {
	for _, a := range []tgmigrate.ARN{{}, arntest.HandMadeTG(legacyTGARN), arntest.LB(bogusLB)} {
		p := &cutover.Plan{TargetGroup: cutover.TargetGroupInfo{ARN: a}}
		pol, err := p.ControllerPolicy()
		if pol != nil || !cutover.IsInvalidInput(err) {
			t.Fatalf("ControllerPolicy(%q) = %v, %v; want an *InputError", a, pol, err)
		}
	}
}
