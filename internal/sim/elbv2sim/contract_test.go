package elbv2sim_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"go.uber.org/mock/gomock"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/mocks"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// reporter is a gomock.TestReporter that records failures instead of
// failing the test, so a test can assert that a broken contract is caught.
// Fatalf ends the calling goroutine, as testing.T's does.
type reporter struct {
	mu       sync.Mutex
	failures []string
}

func (r *reporter) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *reporter) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *reporter) Helper() {}

// contractMock returns a mock of tgmigrate.ELBv2API whose target writers and
// DescribeTargetHealth delegate to sim, under the project's call contract:
// every target carries its Port, and no batch exceeds 200 targets.
func contractMock(ctrl *gomock.Controller, sim *elbv2sim.Client, tg string) *mocks.MockELBv2API {
	m := mocks.NewMockELBv2API(ctrl)
	contract := gomock.All(elbv2sim.InTargetGroup(tg), elbv2sim.EveryTargetHasPort(), elbv2sim.AtMostTargets(200))
	m.EXPECT().RegisterTargets(gomock.Any(), contract).DoAndReturn(sim.RegisterTargets).AnyTimes()
	m.EXPECT().DeregisterTargets(gomock.Any(), contract).DoAndReturn(sim.DeregisterTargets).AnyTimes()
	m.EXPECT().DescribeTargetHealth(gomock.Any(), elbv2sim.InTargetGroup(tg)).DoAndReturn(sim.DescribeTargetHealth).AnyTimes()
	return m
}

// writeInBatches stands in for an executor: it registers or deregisters
// targets in batches of size, dropping the Port when dropPort is set.
func writeInBatches(ctx context.Context, api tgmigrate.TargetWriter, tg string, all []types.TargetDescription, size int, register, dropPort bool) error {
	for len(all) > 0 {
		n := min(size, len(all))
		batch := make([]types.TargetDescription, 0, n)
		for _, t := range all[:n] {
			if dropPort {
				t.Port = nil
			}
			batch = append(batch, t)
		}
		all = all[n:]
		var err error
		if register {
			_, err = api.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: batch})
		} else {
			_, err = api.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tg), Targets: batch})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func TestCallContract(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		dropPort bool
		otherTG  bool
		breaks   bool
	}{
		{name: "batches of 200 with Port keep the contract", size: 200},
		{name: "a batch of 250 breaks it", size: 250, breaks: true},
		{name: "a deregistration without Port breaks it", size: 100, dropPort: true, breaks: true},
		{name: "a call on another target group breaks it", size: 100, otherTG: true, breaks: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			sim := newClient(t, w, elbv2sim.Options{Name: "sut"})
			ctx := t.Context()
			// 450 targets registered directly, on their own ports.
			all := targets(450)
			if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: all[:200]}); err != nil {
				t.Fatal(err)
			}
			if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: all[200:]}); err != nil {
				t.Fatal(err)
			}

			rep := &reporter{}
			ctrl := gomock.NewController(rep)
			api := contractMock(ctrl, sim, w.tg)
			target := w.tg
			if tt.otherTG {
				target = w.tg + "0"
			}
			var callErr error
			finished := make(chan struct{})
			go func() {
				defer close(finished)
				callErr = writeInBatches(ctx, api, target, all, tt.size, false, tt.dropPort)
			}()
			<-finished

			if !tt.breaks {
				if len(rep.failures) != 0 || callErr != nil {
					t.Fatalf("contract failures %v, error %v", rep.failures, callErr)
				}
				draining := 0
				for _, v := range w.model.Targets(w.tg) {
					if v.State == types.TargetHealthStateEnumDraining {
						draining++
					}
				}
				if draining != 450 {
					t.Errorf("%d targets draining, want 450", draining)
				}
				if got := sim.Counts()[elbv2sim.OpDeregisterTargets]; got != 3 {
					t.Errorf("%d DeregisterTargets calls, want 3", got)
				}
				return
			}
			// The first call breaks the contract: the mock fails the test at
			// that call, and nothing reaches the simulator.
			if len(rep.failures) != 1 || !strings.Contains(rep.failures[0], "Unexpected call") || !strings.Contains(rep.failures[0], "DeregisterTargets") {
				t.Fatalf("failures %q, want one unexpected DeregisterTargets call", rep.failures)
			}
			if got := sim.Counts()[elbv2sim.OpDeregisterTargets]; got != 0 {
				t.Errorf("the broken call reached the simulator (%d calls)", got)
			}
		})
	}
}

// TestContractCatchesTheSilentNoOp shows why the contract exists: without
// the Port, the simulator, like AWS, accepts the call and removes nothing.
func TestContractCatchesTheSilentNoOp(t *testing.T) {
	w := newWorld(t)
	sim := newClient(t, w, elbv2sim.Options{})
	node := []types.TargetDescription{{Id: aws.String("10.0.2.20"), Port: aws.Int32(30080)}}
	if _, err := sim.RegisterTargets(t.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: node}); err != nil {
		t.Fatal(err)
	}
	if err := writeInBatches(t.Context(), sim, w.tg, node, 200, false, true); err != nil {
		t.Fatalf("without the mock the portless call succeeds: %v", err)
	}
	if got := w.model.Targets(w.tg); len(got) != 1 || got[0].State == types.TargetHealthStateEnumDraining {
		t.Errorf("the portless deregistration changed %v", got)
	}
}

func TestMatchers(t *testing.T) {
	withPort := []types.TargetDescription{{Id: aws.String("10.0.1.1"), Port: aws.Int32(80)}}
	noPort := []types.TargetDescription{{Id: aws.String("10.0.1.1")}}
	tests := []struct {
		m    gomock.Matcher
		x    any
		want bool
	}{
		{elbv2sim.EveryTargetHasPort(), &elbv2.DeregisterTargetsInput{Targets: withPort}, true},
		{elbv2sim.EveryTargetHasPort(), &elbv2.DeregisterTargetsInput{Targets: noPort}, false},
		{elbv2sim.EveryTargetHasPort(), &elbv2.RegisterTargetsInput{Targets: append(withPort, noPort...)}, false},
		{elbv2sim.EveryTargetHasPort(), &elbv2.DescribeTargetHealthInput{Targets: withPort}, true},
		{elbv2sim.EveryTargetHasPort(), (*elbv2.DeregisterTargetsInput)(nil), false},
		{elbv2sim.EveryTargetHasPort(), "not an input", false},
		{elbv2sim.AtMostTargets(1), &elbv2.RegisterTargetsInput{Targets: withPort}, true},
		{elbv2sim.AtMostTargets(1), &elbv2.RegisterTargetsInput{Targets: append(withPort, withPort...)}, false},
		{elbv2sim.AtMostTargets(200), &elbv2.DescribeTargetGroupsInput{}, false},
		{elbv2sim.InTargetGroup("a"), &elbv2.ModifyTargetGroupInput{TargetGroupArn: aws.String("a")}, true},
		{elbv2sim.InTargetGroup("a"), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String("b")}, false},
		{elbv2sim.InTargetGroup("a"), &elbv2.DescribeTargetHealthInput{}, false},
	}
	for i, tt := range tests {
		if got := tt.m.Matches(tt.x); got != tt.want {
			t.Errorf("%d: %s matches %T = %v, want %v", i, tt.m, tt.x, got, tt.want)
		}
	}
}
