package subnets_test

// move_test.go: Execute's happy path, its dry run, the optimistic guard
// and Rollback.

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/subnets"
)

func TestExecuteMovesEveryNodeWaveByWave(t *testing.T) {
	w := newMVWorld(t, 4, []any{map[string]any{"nodes": "20%"}}, nil)
	p := mvPlan(t, w, mvReadiness(4, []karpenterapi.Budget{{Nodes: "20%"}}), subnets.MoveBudget("1"))
	poolBefore := w.spec(karpenterapi.NodePoolGVK, "default")
	var waves []int
	var tightened []string
	obs := subnets.ObserverFuncs{
		OnObserved: func(p subnets.WatchProgress) {
			if len(p.Left) > 0 {
				waves = append(waves, p.Wave)
			}
		},
		OnStepStarted: func(e subnets.StepEvent) {
			if e.Step == subnets.StepWatchReplacement {
				pool, _ := karpenterapi.NodePoolOf(w.get(karpenterapi.NodePoolGVK, "default"))
				for _, b := range pool.Budgets {
					tightened = append(tightened, b.Nodes+":"+strings.Join(b.Reasons, ","))
				}
			}
		},
	}
	res, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithObserver(obs))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Resumed || res.DryRun {
		t.Fatalf("result = %+v", res)
	}
	if got := w.nodeNames(); strings.Contains(got, "public") || strings.Contains(got, "old-") {
		t.Fatalf("nodes after the move: %s", got)
	}
	if !reflect.DeepEqual(waves, []int{1, 2, 3, 4}) {
		t.Errorf("waves observed = %v, want one node per wave, 4 waves", waves)
	}
	if !reflect.DeepEqual(tightened, []string{"1:Drifted", "20%:"}) {
		t.Errorf("budgets during the watch = %v, want the move's in front of the pool's", tightened)
	}
	nc, err := karpenterapi.EC2NodeClassOf(w.get(karpenterapi.EC2NodeClassGVK, "default"))
	if err != nil {
		t.Fatal(err)
	}
	if nc.AssociatePublicIPAddress == nil || *nc.AssociatePublicIPAddress || len(nc.SubnetSelectorTerms) != 1 || nc.SubnetSelectorTerms[0].Tags["tier"] != "private" {
		t.Errorf("node class after the move = %+v", nc)
	}
	spec := w.spec(karpenterapi.EC2NodeClassGVK, "default")
	if spec["role"] != "KarpenterNodeRole-prod" || spec["amiSelectorTerms"] == nil {
		t.Errorf("fields the move does not own were lost: %v", spec)
	}
	if got := w.spec(karpenterapi.NodePoolGVK, "default"); !reflect.DeepEqual(got, poolBefore) {
		t.Errorf("pool after the move = %v, want its spec as before: %v", got, poolBefore)
	}
	watch := res.Steps[2]
	if watch.ID != subnets.StepWatchReplacement || watch.Waves != 4 || len(watch.Departing) != 4 || len(watch.Remaining) != 0 {
		t.Errorf("watch record = %+v", watch)
	}
	for _, s := range res.Steps {
		if s.Status != subnets.StepDone {
			t.Errorf("step %s is %s", s.ID, s.Status)
		}
	}
	if j, l := w.journalAndLease(); !j || l {
		t.Errorf("journal kept %v, lease released %v: want the journal kept and the lease gone", j, !l)
	}
	// A second run of the same plan finds every step done.
	again, err := subnets.Execute(t.Context(), p, w.env())
	if err != nil || !again.Completed || !again.Resumed || len(again.Writes) != 0 {
		t.Fatalf("re-run: %+v, %v", again, err)
	}
}

func TestExecuteDryRunWritesNothing(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	p := mvPlan(t, w, mvReadiness(2, nil), subnets.MoveBudget("1"))
	ncBefore, poolBefore := w.spec(karpenterapi.EC2NodeClassGVK, "default"), w.spec(karpenterapi.NodePoolGVK, "default")
	res, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithDryRun())
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || res.Completed || len(res.Writes) != 2 ||
		!strings.HasPrefix(res.Writes[0], "NodePool/default: spec.disruption.budgets: absent") ||
		!strings.Contains(res.Writes[0], "-> [1 for Drifted; 10%]") ||
		!strings.HasPrefix(res.Writes[1], "EC2NodeClass/default: ") {
		t.Fatalf("dry run = %+v", res)
	}
	if !reflect.DeepEqual(w.spec(karpenterapi.EC2NodeClassGVK, "default"), ncBefore) || !reflect.DeepEqual(w.spec(karpenterapi.NodePoolGVK, "default"), poolBefore) {
		t.Error("a dry run changed an object")
	}
	if j, l := w.journalAndLease(); j || l {
		t.Errorf("a dry run wrote the journal (%v) or the lease (%v)", j, l)
	}
	if got := w.nodeNames(); got != "old-0(public) old-1(public)" {
		t.Errorf("nodes = %s", got)
	}
}

func TestExecuteRefusesAnObjectChangedSinceThePlan(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	p := mvPlan(t, w, mvReadiness(2, nil), subnets.MoveBudget("1"))
	nc := w.get(karpenterapi.EC2NodeClassGVK, "default")
	if err := karpenterapi.SetSubnetSelection(nc, []karpenterapi.SelectorTerm{{ID: "subnet-other"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.c.Update(t.Context(), nc); err != nil {
		t.Fatal(err)
	}
	ncBefore, poolBefore := w.spec(karpenterapi.EC2NodeClassGVK, "default"), w.spec(karpenterapi.NodePoolGVK, "default")
	_, err := subnets.Execute(t.Context(), p, w.env())
	var drifted *subnets.DriftedObjectError
	if !errors.As(err, &drifted) || !errors.Is(err, subnets.ErrDrifted) || drifted.Kind != "EC2NodeClass" || drifted.Name != "default" || !strings.Contains(drifted.Got, "id=subnet-other") {
		t.Fatalf("err = %v, want a *DriftedObjectError naming EC2NodeClass default", err)
	}
	if !reflect.DeepEqual(w.spec(karpenterapi.EC2NodeClassGVK, "default"), ncBefore) || !reflect.DeepEqual(w.spec(karpenterapi.NodePoolGVK, "default"), poolBefore) {
		t.Error("a refused move wrote an object (the pool's budgets come first in the plan)")
	}
	if j, l := w.journalAndLease(); j || l {
		t.Errorf("a refused move wrote the journal (%v) or the lease (%v)", j, l)
	}
}

func TestRollbackRestoresTheSpecsAsRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		budgets []any
		report  []karpenterapi.Budget
	}{
		{"absent budgets", nil, nil},
		{"pool budgets", []any{map[string]any{"nodes": "2", "reasons": []any{"Empty"}}, map[string]any{"nodes": "30%", "schedule": "0 9 * * *", "duration": "8h"}},
			[]karpenterapi.Budget{{Nodes: "2", Reasons: []string{"Empty"}}, {Nodes: "30%", Schedule: "0 9 * * *", Duration: "8h"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newMVWorld(t, 3, tc.budgets, nil)
			p := mvPlan(t, w, mvReadiness(3, tc.report), subnets.MoveBudget("50%"))
			ncBefore, poolBefore := w.spec(karpenterapi.EC2NodeClassGVK, "default"), w.spec(karpenterapi.NodePoolGVK, "default")
			if _, err := subnets.Execute(t.Context(), p, w.env()); err != nil {
				t.Fatal(err)
			}
			res, err := subnets.Rollback(t.Context(), p, w.env())
			if err != nil || !res.Completed {
				t.Fatalf("rollback: %+v, %v", res, err)
			}
			if got := w.spec(karpenterapi.EC2NodeClassGVK, "default"); !reflect.DeepEqual(got, ncBefore) {
				t.Errorf("node class spec after rollback:\n%v\nwant\n%v", got, ncBefore)
			}
			if got := w.spec(karpenterapi.NodePoolGVK, "default"); !reflect.DeepEqual(got, poolBefore) {
				t.Errorf("pool spec after rollback:\n%v\nwant\n%v", got, poolBefore)
			}
			if got := w.nodeNames(); strings.Count(got, "(public)") != 3 {
				t.Errorf("nodes after rollback: %s, want 3 public", got)
			}
			if res.Steps[1].ID != subnets.ActionWatchBack || res.Steps[1].Waves == 0 || len(res.Steps[1].Departing) != 3 {
				t.Errorf("watch back = %+v", res.Steps[1])
			}
			if _, err := subnets.Execute(t.Context(), p, w.env()); !errors.Is(err, subnets.ErrRolledBack) {
				t.Errorf("execute after rollback: %v, want ErrRolledBack", err)
			}
		})
	}
}

func TestRollbackFromTheJournalAlone(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	p := mvPlan(t, w, mvReadiness(2, nil))
	ncBefore := w.spec(karpenterapi.EC2NodeClassGVK, "default")
	if _, err := subnets.Execute(t.Context(), p, w.env()); err != nil {
		t.Fatal(err)
	}
	if _, err := subnets.Rollback(t.Context(), nil, w.env()); !errors.Is(err, subnets.ErrMoveInput) {
		t.Fatalf("rollback of no plan and no journal: %v, want ErrMoveInput", err)
	}
	j, err := subnets.NewConfigMapJournal(w.c, mvNamespace, mvCluster, w.clock)
	if err != nil {
		t.Fatal(err)
	}
	res, err := subnets.Rollback(t.Context(), nil, w.env(), subnets.WithJournal(j))
	if err != nil || !res.Completed || res.PlanID != p.ID {
		t.Fatalf("rollback from the journal: %+v, %v", res, err)
	}
	if got := w.spec(karpenterapi.EC2NodeClassGVK, "default"); !reflect.DeepEqual(got, ncBefore) {
		t.Errorf("node class after rollback: %v, want %v", got, ncBefore)
	}
}
