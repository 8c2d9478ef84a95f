package elbv2sim_test

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/vclock"
)

// The facade fits the root ELBv2 interfaces, which every capability
// package re-exports under its own name, and the SDK's paginators, exactly
// as *elasticloadbalancingv2.Client does. The simulator is a leaf: not even
// its tests import a capability package, so the checks against diagnose's,
// tgbind's and cutover's names live in examples/tgmigrate.
var (
	_ tgmigrate.ELBv2ReadAPI               = (*elbv2sim.Client)(nil)
	_ tgmigrate.ELBv2API                   = (*elbv2sim.Client)(nil)
	_ elbv2.DescribeTargetGroupsAPIClient  = (*elbv2sim.Client)(nil)
	_ elbv2.DescribeLoadBalancersAPIClient = (*elbv2sim.Client)(nil)
	_ elbv2.DescribeListenersAPIClient     = (*elbv2sim.Client)(nil)
	_ elbv2.DescribeRulesAPIClient         = (*elbv2sim.Client)(nil)
	_ elbv2.DescribeTargetHealthAPIClient  = (*elbv2sim.Client)(nil)
)

const vpcID = "vpc-1"

// staticNet serves every IP in up on every port.
type staticNet struct {
	mu sync.Mutex
	up map[string]bool
}

func (n *staticNet) Probe(ip string, _ int32, _ string) elbv2model.ProbeResult {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.up[ip] {
		return elbv2model.ProbeOK
	}
	return elbv2model.ProbeTimeout
}

func (n *staticNet) Serve(ip string, _ int32) elbv2model.Answer {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.up[ip] {
		return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
	}
	return elbv2model.Answer{Result: elbv2model.ProbeOK}
}

func (n *staticNet) InVPC(string, string) bool { return false }

type world struct {
	clock *vclock.Clock
	model *elbv2model.Model
	tg    string // an ip target group on port 8080
	lb    string
	ln    string // its HTTP:80 listener, forwarding to tg
}

func newWorld(t testing.TB) *world {
	t.Helper()
	clock := vclock.New(time.Time{})
	m, err := elbv2model.New(elbv2model.Options{Clock: clock, Network: &staticNet{up: map[string]bool{}}, VPCs: map[string]string{vpcID: "10.0.0.0/16"}})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{clock: clock, model: m}
	out, err := m.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("tg"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String(vpcID),
	})
	if err != nil {
		t.Fatal(err)
	}
	w.tg = *out.TargetGroups[0].TargetGroupArn
	if w.lb, err = m.AddLoadBalancer("alb", vpcID); err != nil {
		t.Fatal(err)
	}
	if w.ln, err = m.AddListener(w.lb, 80, []types.Action{{Type: types.ActionTypeEnumForward, TargetGroupArn: aws.String(w.tg)}}); err != nil {
		t.Fatal(err)
	}
	return w
}

func newClient(t testing.TB, w *world, opts elbv2sim.Options) *elbv2sim.Client {
	t.Helper()
	c, err := elbv2sim.New(w.model, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// targets returns n pod targets 10.0.1.1..n on port 8080.
func targets(n int) []types.TargetDescription {
	out := make([]types.TargetDescription, 0, n)
	for i := range n {
		out = append(out, types.TargetDescription{Id: aws.String("10.0.1." + strconv.Itoa(i%250+1)), Port: aws.Int32(int32(8080 + i/250))})
	}
	return out
}

func code(err error) string {
	if err == nil {
		return ""
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return "not an API error: " + err.Error()
}
