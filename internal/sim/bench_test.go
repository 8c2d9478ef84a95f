package sim_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/qstools/tgmigrate/internal/sim"
)

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkChurn30m runs 30 minutes of virtual time: 20 nodes, 60 pods,
// 20 requests per second, every node replaced (drift) within the 30
// minutes. cpu-ms/op is the process CPU time of one scenario, setup
// included; run-cpu-ms/op that of the 30-minute run alone.
func BenchmarkChurn30m(b *testing.B) {
	cases := []struct {
		name string
		bind bool
	}{
		{"static", false},
		{"multicluster-binding", true},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			var total, run time.Duration
			b.ReportAllocs()
			for b.Loop() {
				t0 := cpuTime(b)
				w, err := sim.New(context.Background(), sim.Config{Seed: 1, Nodes: 20, Pods: 60})
				if err != nil {
					b.Fatal(err)
				}
				if bc.bind {
					if err := w.Client().Create(context.Background(), w.NewBinding("web", true)); err != nil {
						b.Fatal(err)
					}
				}
				initial := w.Cluster().Nodes()
				if err := w.ReplaceAllNodes(25 * time.Minute); err != nil {
					b.Fatal(err)
				}
				t1 := cpuTime(b)
				w.Run(30 * time.Minute)
				t2 := cpuTime(b)
				total += t2 - t0
				run += t2 - t1
				for _, n := range initial {
					if v, _ := w.Cluster().Node(n.Name); v.Phase != "Terminated" {
						b.Fatalf("node %s not replaced within 30 minutes (%s)", n.Name, v.Phase)
					}
				}
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(run.Milliseconds())/float64(b.N), "run-cpu-ms/op")
		})
	}
}
