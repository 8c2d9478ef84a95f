package elbv2wire_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/qstools/tgmigrate/internal/sim/elbv2sim"
	"github.com/qstools/tgmigrate/internal/sim/elbv2wire"
)

// BenchmarkDescribeTargetHealth: one call of 20 targets through the Go
// facade, and through the real SDK client and the endpoint (signing,
// serialisation, loopback HTTP, decoding).
func BenchmarkDescribeTargetHealth(b *testing.B) {
	w := newWorld(b, elbv2sim.Options{})
	if _, err := w.sim.RegisterTargets(b.Context(), &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(w.tg), Targets: pods(20)}); err != nil {
		b.Fatal(err)
	}
	in := &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(w.tg)}
	b.Run("facade", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.sim.DescribeTargetHealth(b.Context(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wire", func(b *testing.B) {
		c := w.client(elbv2wire.ClientOptions{})
		for b.Loop() {
			if _, err := c.DescribeTargetHealth(b.Context(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPage400: one page of 400 target groups through the wire.
func BenchmarkPage400(b *testing.B) {
	w := newWorld(b, elbv2sim.Options{})
	w.addTargetGroups(b, 399)
	c := w.client(elbv2wire.ClientOptions{})
	in := &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(400)}
	for b.Loop() {
		out, err := c.DescribeTargetGroups(b.Context(), in)
		if err != nil || len(out.TargetGroups) != 400 {
			b.Fatal(err)
		}
	}
}
