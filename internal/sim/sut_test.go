package sim_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/awserr"
	"github.com/qstools/tgmigrate/internal/sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
)

// adoptAPI is the ELBv2 API adopt calls, declared where it is used: the
// world's client fits it as it fits cutover.ELBv2API.
type adoptAPI interface {
	DescribeTargetHealth(ctx context.Context, in *elbv2.DescribeTargetHealthInput, optFns ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	DeregisterTargets(ctx context.Context, in *elbv2.DeregisterTargetsInput, optFns ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error)
}

// adopt is a minimal system under test: the safe adoption DOMAIN.md
// describes, written as production code would be (an injected clock, waits
// that select on ctx). It binds in multi-cluster mode, waits until every
// pod target is healthy, then deregisters the node targets, with Port.
func adopt(ctx context.Context, clk clock.Clock, api adoptAPI, kube client.Client, w *sim.World) error {
	if err := kube.Create(ctx, w.NewBinding("web", true)); err != nil {
		return fmt.Errorf("adopt: bind: %w", err)
	}
	arn := w.Legacy().TargetGroupARN
	for {
		out, err := api.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: &arn})
		if err != nil && !errors.Is(awserr.Classify("DescribeTargetHealth", arn, err), awserr.ErrThrottled) {
			return fmt.Errorf("adopt: describe: %w", err)
		}
		if err == nil {
			healthy, nodes := 0, []elbv2types.TargetDescription{}
			for _, d := range out.TargetHealthDescriptions {
				if aws.ToInt32(d.Target.Port) == w.Legacy().NodePort {
					nodes = append(nodes, *d.Target)
				} else if d.TargetHealth.State == elbv2types.TargetHealthStateEnumHealthy {
					healthy++
				}
			}
			if healthy == len(w.Cluster().Pods()) {
				_, err := api.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: &arn, Targets: nodes})
				return err
			}
		}
		t := clk.NewTimer(5 * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C():
		}
	}
}

// TestSystemUnderTestDrivesTheWorld: the system under test runs in the
// test's goroutine on the world's clock; its waits move the world.
func TestSystemUnderTestDrivesTheWorld(t *testing.T) {
	tests := []struct {
		name string
		sut  elbv2sim.Options
	}{
		{"no faults", elbv2sim.Options{}},
		{"latency and 30% throttling", elbv2sim.Options{Latency: 50 * time.Millisecond, Seed: 9,
			ThrottleProbability: map[elbv2sim.OpClass]float64{elbv2sim.ClassDescribe: 0.3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, sim.Config{Seed: 11, Nodes: 6, Pods: 18, SUT: tt.sut}, nil)
			start := w.Clock().Now()
			if err := adopt(t.Context(), w.Clock(), w.ELBv2(), w.Client(), w); err != nil {
				t.Fatal(err)
			}
			if w.Clock().Since(start) < w.Model().RegistrationDelay() {
				t.Errorf("adoption took %v of virtual time: the waits did not move the world", w.Clock().Since(start))
			}
			w.Run(6 * time.Minute) // the deregistration delay
			if st := w.Traffic(); st.Failed != 0 {
				t.Errorf("traffic %s: want no failure", st.String())
			}
			if nt := w.NodeTargets(); len(nt) != 0 {
				t.Errorf("node targets left: %v", nt)
			}
			for _, tg := range w.Targets(w.Legacy().TargetGroupARN) {
				if !strings.HasPrefix(tg.Owner, "pod/") || tg.State != elbv2types.TargetHealthStateEnumHealthy {
					t.Errorf("target %v", tg)
				}
			}
			counts := w.ELBv2().Counts()
			if counts[elbv2sim.OpDeregisterTargets] != 1 || counts[elbv2sim.OpDescribeTargetHealth] < 2 {
				t.Errorf("system under test's calls %v", counts)
			}
		})
	}
}
