package elbv2model_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
)

// instanceNet is a fakeNet that also resolves instance IDs.
type instanceNet struct {
	*fakeNet
	instances map[string]string // instance ID -> private IP
}

func (n *instanceNet) InstanceIP(id string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ip, ok := n.instances[id]
	return ip, ok
}

// TestInstanceTerminated: a terminated instance's targets stop taking
// requests at once (unused, Target.InvalidState), are no longer checked,
// stay registered, and do not come back when the target group is attached
// again; other instances and IP targets on the same address are untouched.
func TestInstanceTerminated(t *testing.T) {
	in := &instanceNet{fakeNet: newFakeNet(), instances: map[string]string{"i-0aaa": "10.0.1.10", "i-0bbb": "10.0.1.11"}}
	w := newWorld(t, func(o *elbv2model.Options) { o.Network = in })
	in.up("10.0.1.10", 30080)
	in.up("10.0.1.11", 30080)
	inst := w.tg(t, "inst", func(c *elbv2.CreateTargetGroupInput) {
		c.TargetType = types.TargetTypeEnumInstance
		c.Port = aws.Int32(30080)
	})
	ipTG := w.tg(t, "ips", func(c *elbv2.CreateTargetGroupInput) { c.Port = aws.Int32(30080) })
	_, ln := w.alb(t, "alb", inst)
	if _, err := w.model.AddRule(ln, 10, []types.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/api/*"}}}, []types.Action{forward(ipTG)}); err != nil {
		t.Fatal(err)
	}
	w.register(t, inst, td("i-0aaa"), td("i-0bbb"))
	w.register(t, ipTG, td("10.0.1.10"))
	w.at(2 * time.Minute)
	for _, id := range []string{"i-0aaa", "i-0bbb"} {
		if s, _ := w.state(inst, id, 30080); s != types.TargetHealthStateEnumHealthy {
			t.Fatalf("%s: %s, want healthy before the termination", id, s)
		}
	}

	in.down("10.0.1.10")
	w.model.InstanceTerminated("i-0aaa")
	s, r := w.state(inst, "i-0aaa", 30080)
	if s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumInvalidState {
		t.Errorf("terminated instance: %s (%s), want unused (Target.InvalidState) at once", s, r)
	}
	routable, _ := w.model.AppendRoutable(nil, inst)
	if len(routable) != 1 || routable[0].ID != "i-0bbb" {
		t.Errorf("routable %v, want only i-0bbb", routable)
	}
	if s, _ := w.state(inst, "i-0bbb", 30080); s != types.TargetHealthStateEnumHealthy {
		t.Errorf("the other instance: %s, want healthy", s)
	}
	if s, _ := w.state(ipTG, "10.0.1.10", 30080); s != types.TargetHealthStateEnumHealthy {
		t.Errorf("the IP target on the same address: %s, want healthy until its checks fail", s)
	}
	probes := in.probeCount()
	w.at(4 * time.Minute)
	if s, r := w.state(inst, "i-0aaa", 30080); s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumInvalidState {
		t.Errorf("later: %s (%s), want it to stay unused (Target.InvalidState)", s, r)
	}
	if s, _ := w.state(ipTG, "10.0.1.10", 30080); s != types.TargetHealthStateEnumUnhealthy {
		t.Errorf("the IP target: %s, want unhealthy once its checks failed", s)
	}
	// Two targets were left to check (i-0bbb and the IP target), every 10 s.
	if got := in.probeCount() - probes; got > 2*13 {
		t.Errorf("%d probes in 2 minutes: the terminated instance is still checked", got)
	}

	// Detach and attach again: the terminated instance does not restart
	// its registration.
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(ln), DefaultActions: []types.Action{forward(ipTG)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.model.ModifyListener(&elbv2.ModifyListenerInput{ListenerArn: aws.String(ln), DefaultActions: []types.Action{forward(inst)}}); err != nil {
		t.Fatal(err)
	}
	if s, r := w.state(inst, "i-0aaa", 30080); s != types.TargetHealthStateEnumUnused || r != types.TargetHealthReasonEnumInvalidState {
		t.Errorf("after re-attach: %s (%s), want unused (Target.InvalidState)", s, r)
	}
	if s, _ := w.state(inst, "i-0bbb", 30080); s != types.TargetHealthStateEnumInitial {
		t.Errorf("the live instance after re-attach: %s, want initial", s)
	}
	// It can still be deregistered, with its Port.
	if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(inst), Targets: []types.TargetDescription{td("i-0aaa", 30080)}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := w.state(inst, "i-0aaa", 30080); s != types.TargetHealthStateEnumDraining {
		t.Errorf("deregistered: %s, want draining", s)
	}
}
