package elbv2model_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// BenchmarkHealthChecks30Min runs 30 minutes of virtual time of two target
// groups behind one ALB: 20 node targets (half of them ghosts) checked every
// 30 s and 60 pod targets checked every 15 s, with 10 pods replaced every
// 5 minutes. One op is one whole 30-minute run.
func BenchmarkHealthChecks30Min(b *testing.B) {
	for b.Loop() {
		w := newWorld(b, nil)
		legacy := w.tg(b, "legacy", func(in *elbv2.CreateTargetGroupInput) {
			in.Port, in.HealthCheckIntervalSeconds, in.HealthCheckPath = aws.Int32(30080), aws.Int32(30), aws.String("/")
		})
		pods := w.tg(b, "pods", func(in *elbv2.CreateTargetGroupInput) {
			in.HealthCheckIntervalSeconds, in.HealthyThresholdCount = aws.Int32(15), aws.Int32(2)
		})
		lb, err := w.model.AddLoadBalancer("alb", vpcID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.model.AddListener(lb, 80, []types.Action{weighted(map[string]int32{legacy: 50, pods: 50}, legacy, pods)}); err != nil {
			b.Fatal(err)
		}
		var nodes []types.TargetDescription
		for i := range 20 {
			ip := fmt.Sprintf("10.0.2.%d", i+1)
			if i%2 == 0 {
				w.net.up(ip, 30080)
			}
			nodes = append(nodes, td(ip))
		}
		if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(legacy), Targets: nodes}); err != nil {
			b.Fatal(err)
		}
		next := 0
		addPods := func(n int) []types.TargetDescription {
			var out []types.TargetDescription
			for range n {
				next++
				ip := fmt.Sprintf("10.0.%d.%d", 10+next/250, next%250+1)
				w.net.up(ip, 8080)
				out = append(out, td(ip))
			}
			return out
		}
		live := addPods(60)
		if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(pods), Targets: live}); err != nil {
			b.Fatal(err)
		}
		for minute := 5; minute <= 30; minute += 5 {
			w.at(time.Duration(minute) * time.Minute)
			old := live[:10]
			for _, t := range old {
				w.net.down(*t.Id)
			}
			live = append(live[10:], addPods(10)...)
			if _, err := w.model.DeregisterTargets(&elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(pods), Targets: old}); err != nil {
				b.Fatal(err)
			}
			if _, err := w.model.RegisterTargets(&elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(pods), Targets: live[len(live)-10:]}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(w.net.probeCount()), "probes/op")
	}
}
