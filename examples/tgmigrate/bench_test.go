package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// benchCLI runs the command line once per iteration and fails on a
// non-zero exit.
func benchCLI(b *testing.B, args ...string) {
	for b.Loop() {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr); code != exitOK {
			b.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
}

// BenchmarkSimulate is a plain `simulate`: the story, the four strategies
// and phased at the hardest corner, at the defaults (20 nodes, 60 pods,
// 30 minutes of virtual time each). Its target is under 30 s.
func BenchmarkSimulate(b *testing.B) { benchCLI(b, "simulate", "-seed", "7") }

// BenchmarkEnvelope is `simulate --envelope` at the defaults: every churn
// shape, 5 seeds, the sensitivity at the first seed, the grid of the knobs
// that changed something and phased worse than its plan assumes, on every
// core. Its target is under 6 minutes on 2 cores. Run it alone:
//
//	go test ./examples/tgmigrate -run '^$' -bench Envelope -benchtime 1x
func BenchmarkEnvelope(b *testing.B) {
	benchCLI(b, "simulate", "-format", "json", "-envelope", "-seed", "7")
}

// BenchmarkSimulateScale is `simulate -format json` at the sizes the
// scale issue names, up to the largest the CLI accepts (500 nodes, 1,000
// pods: the target group's and the load balancer's default quota of
// 1,000 targets, so the phased cutover bounds its overlap). The target
// for 500/1000 is under 2 minutes on 2 cores. Run it alone:
//
//	go test ./examples/tgmigrate -run '^$' -bench SimulateScale -benchtime 1x
func BenchmarkSimulateScale(b *testing.B) {
	for _, size := range []struct{ nodes, pods string }{{"100", "300"}, {"200", "600"}, {"500", "1000"}} {
		b.Run(size.nodes+"x"+size.pods, func(b *testing.B) {
			benchCLI(b, "simulate", "-format", "json", "-seed", "7", "-nodes", size.nodes, "-pods", size.pods)
		})
	}
}

// BenchmarkSimulateCampaign is `simulate --scenario campaign` at its
// defaults: the fleet of two accounts, three clusters and twelve target
// groups built and warmed up, planned, and run under churn, about 23
// minutes of virtual time. Its target is under 10 s on 2 cores.
func BenchmarkSimulateCampaign(b *testing.B) {
	benchCLI(b, "simulate", "--format", "json", "--scenario", "campaign", "--seed", "3")
}
