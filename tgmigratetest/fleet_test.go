package tgmigratetest_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// fleetOptions are three clusters, each in an account of its own, under
// churn.
func fleetOptions() tgmigratetest.FleetOptions {
	opts := func(seed uint64) tgmigratetest.Options {
		return tgmigratetest.Options{Seed: seed, Nodes: 4, Pods: 8, ReadinessGateInjection: true,
			Churn: tgmigratetest.Churn{Shape: tgmigratetest.ChurnSteady, Interval: 2 * time.Minute}}
	}
	return tgmigratetest.FleetOptions{Clusters: []tgmigratetest.ClusterOptions{
		{Name: "prod-a", AccountID: "111111111111", Options: opts(1)},
		{Name: "prod-b", AccountID: "222222222222", Options: opts(2)},
		{Name: "staging", AccountID: "333333333333", Options: opts(3)},
	}}
}

// TestFleetParallelCutovers: a fleet's worlds have their own accounts,
// clusters, ARNs and counters on one clock; cutovers in two of them, run
// at once in two goroutines, keep every request served, while the third
// world, idle and static, runs on with them under the same churn and
// fails requests.
func TestFleetParallelCutovers(t *testing.T) {
	ctx := t.Context()
	f, err := tgmigratetest.NewFleet(ctx, fleetOptions())
	if err != nil {
		t.Fatal(err)
	}
	ws := f.Worlds()
	if len(ws) != 3 || f.World("prod-b") != ws[1] || f.World("nope") != nil {
		t.Fatalf("worlds %v", ws)
	}
	for i, c := range fleetOptions().Clusters {
		w := ws[i]
		arn := w.Legacy().TargetGroupARN
		if w.AccountID() != c.AccountID || w.ClusterName() != c.Name || w.Cluster().Name != c.Name ||
			arn.AccountID != c.AccountID || arn.Region != tgmigratetest.Region || w.Clock() != f.Clock() {
			t.Errorf("world %d: account %s, cluster %s, target group %v; want %s, %s in %s on the fleet's clock",
				i, w.AccountID(), w.ClusterName(), arn, c.AccountID, c.Name, tgmigratetest.Region)
		}
	}
	idleStart := ws[2].Elapsed()

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, w := range ws[:2] {
		wg.Go(func() {
			l := w.Legacy()
			env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterName: w.ClusterName(), ClusterVPCID: w.VPCID()}
			plan, err := cutover.PlanCutover(ctx, env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
				Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
			if err == nil {
				_, err = cutover.Execute(ctx, env, plan)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	f.Run(5 * time.Minute)
	for i, w := range ws {
		r, writes := w.Requests(), w.Calls()["DeregisterTargets"]
		migrated := i < 2
		switch {
		case migrated && (r.Failed != 0 || r.Served == 0):
			t.Errorf("%s: requests %+v, want every one served", w.ClusterName(), r)
		case migrated && (w.NodeTargets() != 0 || writes == 0):
			t.Errorf("%s: %d node targets left after %d DeregisterTargets calls", w.ClusterName(), w.NodeTargets(), writes)
		case !migrated && (w.NodeTargets() == 0 || writes != 0 || r.Failed == 0 || w.Ghosts() == 0):
			// Static under the same churn, on the same clock: its ghosts fail requests.
			t.Errorf("%s (idle): %d node targets, %d DeregisterTargets calls, %d ghosts, requests %+v; want its own targets, untouched, failing under churn",
				w.ClusterName(), w.NodeTargets(), writes, w.Ghosts(), r)
		}
	}
	if ran := ws[2].Elapsed() - idleStart; ran < 5*time.Minute {
		t.Errorf("the idle world ran %v while the others migrated and ran 5m", ran)
	}
}

// TestNewFleetBadOptions: a bad fleet is an *OptionsError naming the
// cluster's field, before any world is built.
func TestNewFleetBadOptions(t *testing.T) {
	with := func(edit func(*tgmigratetest.FleetOptions)) tgmigratetest.FleetOptions {
		o := fleetOptions()
		edit(&o)
		return o
	}
	tests := []struct {
		name  string
		opts  tgmigratetest.FleetOptions
		field string
	}{
		{"none", tgmigratetest.FleetOptions{}, "Clusters"},
		{"too many", tgmigratetest.FleetOptions{Clusters: make([]tgmigratetest.ClusterOptions, tgmigratetest.MaxFleetClusters+1)}, "Clusters"},
		{"no name", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[1].Name = "" }), "Clusters[1].Name"},
		{"same name", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[2].Name = "prod-a" }), "Clusters[2].Name"},
		{"bad account", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[0].AccountID = "12" }), "Clusters[0].AccountID"},
		{"shared account", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[2].AccountID = "111111111111" }), "Clusters[2].AccountID"},
		{"world option", with(func(o *tgmigratetest.FleetOptions) { o.Clusters[1].Options.Nodes = 100000 }), "Clusters[1].Options.Nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tgmigratetest.NewFleet(t.Context(), tt.opts)
			var oe *tgmigratetest.OptionsError
			if f != nil || !errors.As(err, &oe) || oe.Field != tt.field || oe.Op != "new fleet" || !strings.HasPrefix(err.Error(), "tgmigratetest: new fleet: ") {
				t.Errorf("NewFleet() = %v, %v; want an *OptionsError of new fleet naming %s", f, err, tt.field)
			}
		})
	}
}
