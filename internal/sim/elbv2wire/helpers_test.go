package elbv2wire_test

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
	"github.com/qstools/tgmigrate/internal/vclock"
)

const vpcID = "vpc-1"

// upNet serves every IP in up, on every port.
type upNet struct {
	mu sync.Mutex
	up map[string]bool
}

func (n *upNet) Probe(ip string, _ int32, _ string) elbv2model.ProbeResult {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.up[ip] {
		return elbv2model.ProbeOK
	}
	return elbv2model.ProbeTimeout
}

func (n *upNet) Serve(ip string, _ int32) elbv2model.Answer {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.up[ip] {
		return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
	}
	return elbv2model.Answer{Result: elbv2model.ProbeOK}
}

func (n *upNet) InVPC(string, string) bool { return false }

// world is a model with one ip target group behind an ALB listener, its
// Go facade, and an endpoint serving that facade.
type world struct {
	clock *vclock.Clock
	model *elbv2model.Model
	sim   *elbv2sim.Client
	ep    *elbv2wire.Endpoint
	tg    string // ip target group "tg", port 8080
	lb    string
	ln    string // HTTP:80, forwarding to tg

	mu          sync.Mutex
	transitions []elbv2model.Transition
}

func newWorld(t testing.TB, simOpts elbv2sim.Options) *world {
	t.Helper()
	w := &world{clock: vclock.New(time.Time{})}
	m, err := elbv2model.New(elbv2model.Options{
		Clock: w.clock, Network: &upNet{up: map[string]bool{"10.0.1.1": true, "10.0.1.2": true}},
		VPCs: map[string]string{vpcID: "10.0.0.0/16"},
		OnTransition: func(tr elbv2model.Transition) {
			w.mu.Lock()
			w.transitions = append(w.transitions, tr)
			w.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	w.model = m
	out, err := m.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
		Name: aws.String("tg"), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String(vpcID), HealthCheckIntervalSeconds: aws.Int32(10), HealthyThresholdCount: aws.Int32(2),
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
	if simOpts.Name == "" {
		simOpts.Name = "sut"
	}
	if w.sim, err = elbv2sim.New(m, simOpts); err != nil {
		t.Fatal(err)
	}
	if w.ep, err = elbv2wire.Start(elbv2wire.Options{Backend: w.sim, Region: elbv2model.DefaultRegion}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.ep.Close)
	return w
}

// client returns a real SDK client of the endpoint.
func (w *world) client(opts elbv2wire.ClientOptions) *elbv2.Client { return w.ep.NewClient(opts) }

// registrations counts the transitions that start a registration of
// id:port.
func (w *world) registrations(id string, port int32) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, tr := range w.transitions {
		if tr.ID == id && tr.Port == port && tr.Reason == types.TargetHealthReasonEnumRegistrationInProgress && tr.From != types.TargetHealthStateEnumInitial {
			n++
		}
	}
	return n
}

// addTargetGroups creates n more target groups on the model (setup, not
// calls).
func (w *world) addTargetGroups(t testing.TB, n int) []string {
	t.Helper()
	var arns []string
	for i := range n {
		out, err := w.model.CreateTargetGroup(&elbv2.CreateTargetGroupInput{
			Name: aws.String(fmt.Sprintf("tg-%04d", i)), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
			Port: aws.Int32(int32(30000 + i)), VpcId: aws.String(vpcID),
		})
		if err != nil {
			t.Fatal(err)
		}
		arns = append(arns, *out.TargetGroups[0].TargetGroupArn)
	}
	return arns
}

func pods(n int) []types.TargetDescription {
	out := make([]types.TargetDescription, 0, n)
	for i := range n {
		out = append(out, types.TargetDescription{Id: aws.String("10.0.1." + strconv.Itoa(i+1)), Port: aws.Int32(8080)})
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

func throttling() error { return elbv2model.ThrottlingError() }
