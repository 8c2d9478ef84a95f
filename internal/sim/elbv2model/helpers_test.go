package elbv2model_test

import (
	"errors"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/qstools/tgmigrate/internal/sim/elbv2model"
	"github.com/qstools/tgmigrate/internal/vclock"
)

const (
	vpcID   = "vpc-1"
	vpcCIDR = "10.0.0.0/16"
)

// fakeNet is a tiny network: hosts that are up, and servers on host:port
// that answer some paths when ready.
type fakeNet struct {
	mu      sync.Mutex
	hosts   map[string]bool
	servers map[string]*server
	probes  int
}

type server struct {
	ready bool
	paths map[string]bool
}

func newFakeNet() *fakeNet {
	return &fakeNet{hosts: map[string]bool{}, servers: map[string]*server{}}
}

func ep(ip string, port int32) string { return ip + ":" + strconv.Itoa(int(port)) }

// up starts a host at ip with a ready server on each port answering "/" and "/healthz".
func (n *fakeNet) up(ip string, ports ...int32) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.hosts[ip] = true
	for _, p := range ports {
		n.servers[ep(ip, p)] = &server{ready: true, paths: map[string]bool{"/": true, "/healthz": true}}
	}
}

// down takes the whole host away: its IP stops answering.
func (n *fakeNet) down(ip string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.hosts, ip)
}

func (n *fakeNet) setReady(ip string, port int32, ready bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.servers[ep(ip, port)].ready = ready
}

func (n *fakeNet) Probe(ip string, port int32, path string) elbv2model.ProbeResult {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.probes++
	if !n.hosts[ip] {
		return elbv2model.ProbeTimeout
	}
	s, ok := n.servers[ep(ip, port)]
	if !ok {
		return elbv2model.ProbeRefused
	}
	if !s.ready || !s.paths[path] {
		return elbv2model.ProbeBadStatus
	}
	return elbv2model.ProbeOK
}

func (n *fakeNet) Serve(ip string, port int32) elbv2model.Answer {
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.servers[ep(ip, port)]
	switch {
	case !n.hosts[ip]:
		return elbv2model.Answer{Result: elbv2model.ProbeTimeout}
	case !ok || !s.ready:
		return elbv2model.Answer{Result: elbv2model.ProbeRefused}
	}
	return elbv2model.Answer{Result: elbv2model.ProbeOK, App: "app"}
}

func (n *fakeNet) InVPC(vpc, ip string) bool { return false }

func (n *fakeNet) probeCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.probes
}

type world struct {
	clock *vclock.Clock
	net   *fakeNet
	model *elbv2model.Model
	start time.Time
}

func newWorld(t testing.TB, mod func(*elbv2model.Options)) *world {
	t.Helper()
	clock := vclock.New(time.Time{})
	n := newFakeNet()
	// The lifecycle tests count HealthyThresholdCount passes for a new
	// target too; TestNewTargetChecks covers the default of one.
	opts := elbv2model.Options{Clock: clock, Network: n, VPCs: map[string]string{vpcID: vpcCIDR, "vpc-2": "10.1.0.0/16"},
		NewTargetChecks: elbv2model.HealthyThreshold}
	if mod != nil {
		mod(&opts)
	}
	m, err := elbv2model.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return &world{clock: clock, net: n, model: m, start: clock.Now()}
}

// tg creates an ip target group with fast health checks: interval 10 s,
// timeout 5 s, healthy 3, unhealthy 2, on /healthz.
func (w *world) tg(t testing.TB, name string, mod func(*elbv2.CreateTargetGroupInput)) string {
	t.Helper()
	in := &elbv2.CreateTargetGroupInput{
		Name: aws.String(name), TargetType: types.TargetTypeEnumIp, Protocol: types.ProtocolEnumHttp,
		Port: aws.Int32(8080), VpcId: aws.String(vpcID),
		HealthCheckPath: aws.String("/healthz"), HealthCheckIntervalSeconds: aws.Int32(10),
		HealthyThresholdCount: aws.Int32(3), UnhealthyThresholdCount: aws.Int32(2),
	}
	if mod != nil {
		mod(in)
	}
	out, err := w.model.CreateTargetGroup(in)
	if err != nil {
		t.Fatalf("CreateTargetGroup %s: %v", name, err)
	}
	return *out.TargetGroups[0].TargetGroupArn
}

// alb creates a load balancer with an HTTP:80 listener forwarding to tgARN.
func (w *world) alb(t testing.TB, name, tgARN string) (lbARN, listenerARN string) {
	t.Helper()
	lbARN, err := w.model.AddLoadBalancer(name, vpcID)
	if err != nil {
		t.Fatalf("AddLoadBalancer: %v", err)
	}
	listenerARN, err = w.model.AddListener(lbARN, 80, []types.Action{forward(tgARN)})
	if err != nil {
		t.Fatalf("AddListener: %v", err)
	}
	return lbARN, listenerARN
}

func forward(tgARN string) types.Action {
	return types.Action{Type: types.ActionTypeEnumForward, TargetGroupArn: aws.String(tgARN)}
}

func weighted(w map[string]int32, order ...string) types.Action {
	fc := &types.ForwardActionConfig{}
	for _, arn := range order {
		fc.TargetGroups = append(fc.TargetGroups, types.TargetGroupTuple{TargetGroupArn: aws.String(arn), Weight: aws.Int32(w[arn])})
	}
	return types.Action{Type: types.ActionTypeEnumForward, ForwardConfig: fc}
}

func (w *world) register(t testing.TB, tgARN string, targets ...types.TargetDescription) {
	t.Helper()
	if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: targets}); err != nil {
		t.Fatalf("RegisterTargets: %v", err)
	}
}

func td(ip string, port ...int32) types.TargetDescription {
	d := types.TargetDescription{Id: aws.String(ip)}
	if len(port) > 0 {
		d.Port = aws.Int32(port[0])
	}
	return d
}

// at advances the clock to start+d.
func (w *world) at(d time.Duration) { w.clock.RunUntil(w.start.Add(d)) }

// state returns the state and reason of one target, "" when it is gone.
func (w *world) state(tgARN, id string, port int32) (types.TargetHealthStateEnum, types.TargetHealthReasonEnum) {
	for _, v := range w.model.Targets(tgARN) {
		if v.ID == id && v.Port == port {
			return v.State, v.Reason
		}
	}
	return "", ""
}

// code returns the AWS error code of err, "" for nil.
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

// cmpSDK lets go-cmp compare the SDK's types, whose only unexported field
// is an empty serde marker.
var cmpSDK = cmp.Exporter(func(t reflect.Type) bool {
	return t.PkgPath() == "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
})
