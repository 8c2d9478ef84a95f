package subnets_test

// resume_test.go: a crash after each step and after each wave resumes to
// completion; another plan's journal is refused; an invariant that fails
// holds the watch and says where; the journal's own refusals.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/subnets"
)

var errMVCrash = errors.New("crash")

func TestExecuteResumesAfterACrashAtEveryPoint(t *testing.T) {
	type point struct {
		step string // crash once this step finishes...
		wave int    // ...or once the watch has seen this wave
	}
	points := []point{{step: subnets.StepTightenBudgets}, {step: subnets.StepPatchNodeClasses}, {wave: 1}, {wave: 2}, {wave: 3},
		{step: subnets.StepWatchReplacement}, {step: subnets.StepVerifyPrivate}}
	for _, pt := range points {
		name := "after " + pt.step
		if pt.wave > 0 {
			name = fmt.Sprintf("after wave %d", pt.wave)
		}
		t.Run(name, func(t *testing.T) {
			w := newMVWorld(t, 3, nil, nil)
			p := mvPlan(t, w, mvReadiness(3, nil), subnets.MoveBudget("1"))
			poolBefore := w.spec(karpenterapi.NodePoolGVK, "default")
			ctx, cancel := context.WithCancelCause(t.Context())
			obs := subnets.ObserverFuncs{
				OnStepFinished: func(e subnets.StepEvent) {
					if e.Step == pt.step && e.Err == nil && !e.Skipped {
						cancel(errMVCrash)
					}
				},
				OnObserved: func(p subnets.WatchProgress) {
					if pt.wave > 0 && p.Wave == pt.wave && len(p.Left) > 0 {
						cancel(errMVCrash)
					}
				},
			}
			if _, err := subnets.Execute(ctx, p, w.env(), subnets.WithObserver(obs)); err == nil || ctx.Err() == nil {
				t.Fatalf("the crash did not stop Execute: %v", err)
			}
			// The crashed process never released its lease; the same
			// holder takes it back at once.
			res, err := subnets.Execute(t.Context(), p, w.env())
			if err != nil || !res.Completed || !res.Resumed {
				t.Fatalf("resume: %+v, %v", res, err)
			}
			if got := w.nodeNames(); strings.Contains(got, "public") {
				t.Errorf("nodes after resume: %s", got)
			}
			if got := w.spec(karpenterapi.NodePoolGVK, "default"); !mvEqual(got, poolBefore) {
				t.Errorf("pool after resume = %v, want %v", got, poolBefore)
			}
			if res.Steps[2].Waves != 3 {
				t.Errorf("waves = %d, want 3 across the crash", res.Steps[2].Waves)
			}
		})
	}
}

func TestExecuteRefusesAnotherPlansJournal(t *testing.T) {
	w := newMVWorld(t, 2, nil, nil)
	first := mvPlan(t, w, mvReadiness(2, nil), subnets.MoveBudget("1"))
	ctx, cancel := context.WithCancelCause(t.Context())
	obs := subnets.ObserverFuncs{OnStepFinished: func(e subnets.StepEvent) { cancel(errMVCrash) }}
	if _, err := subnets.Execute(ctx, first, w.env(), subnets.WithObserver(obs)); err == nil {
		t.Fatal("no crash")
	}
	second := mvPlan(t, w, mvReadiness(2, nil), subnets.MoveBudget("2"))
	_, err := subnets.Execute(t.Context(), second, w.env())
	var mm *subnets.PlanMismatchError
	if !errors.As(err, &mm) || mm.Got.ID != first.ID || mm.Want.ID != second.ID {
		t.Fatalf("err = %v, want a *PlanMismatchError", err)
	}
	// The first plan still resumes.
	if res, err := subnets.Execute(t.Context(), first, w.env()); err != nil || !res.Completed {
		t.Fatalf("resume the first plan: %+v, %v", res, err)
	}
}

func TestWatchHoldsOnAnInvariantAndSaysWhere(t *testing.T) {
	t.Run("floor", func(t *testing.T) {
		w := newMVWorld(t, 3, nil, nil)
		w.elb.onWave = func(wave int, e *mvELB) {
			if wave == 1 {
				e.healthy = 3 // below the floor of 4, and it stays there
			}
		}
		p := mvPlan(t, w, mvReadiness(3, nil))
		_, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithFloorGrace(-1))
		var inv *subnets.InvariantError
		if !errors.As(err, &inv) || inv.Step != subnets.StepWatchReplacement || inv.Wave != 1 || len(inv.Violations) != 1 ||
			inv.Violations[0].Kind != "floor" || inv.Violations[0].TargetGroup != mvTGARN || inv.Violations[0].Detail != "3 healthy, floor 4" {
			t.Fatalf("err = %v, want a floor hold after wave 1", err)
		}
		if inv.At.Sub(w.clock.Now()) > 0 {
			t.Errorf("held at %v, after now", inv.At)
		}
		st := mvJournal(t, w)
		watch := st.Steps[1]
		if watch.Status != subnets.StepHeld || len(watch.Violations) != 1 || watch.Waves != 1 || len(watch.Remaining) != 2 {
			t.Errorf("journal's watch = %+v", watch)
		}
		// Fixed, a re-run continues the watch where it held.
		w.elb.mu.Lock()
		w.elb.healthy = 6
		w.elb.mu.Unlock()
		res, err := subnets.Execute(t.Context(), p, w.env())
		if err != nil || !res.Completed || res.Steps[1].Waves != 3 {
			t.Fatalf("after the fix: %+v, %v", res, err)
		}
	})
	t.Run("floor dip within the grace", func(t *testing.T) {
		w := newMVWorld(t, 2, nil, nil)
		w.elb.onWave = func(wave int, e *mvELB) { e.healthy = map[int]int{1: 3, 2: 6}[wave] }
		p := mvPlan(t, w, mvReadiness(2, nil))
		var seen int
		obs := subnets.ObserverFuncs{OnObserved: func(p subnets.WatchProgress) { seen += len(p.Violations) }}
		if _, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithPollInterval(10e9), subnets.WithFloorGrace(60e9), subnets.WithObserver(obs)); err != nil {
			t.Fatalf("a dip shorter than the grace held the move: %v", err)
		}
		if seen == 0 {
			t.Error("the dip was never observed: the test proves nothing")
		}
	})
	t.Run("zone", func(t *testing.T) {
		w := newMVWorld(t, 2, nil, nil)
		w.elb.onWave = func(wave int, e *mvELB) { e.unused = e.unused || wave == 1 }
		p := mvPlan(t, w, mvReadiness(2, nil))
		_, err := subnets.Execute(t.Context(), p, w.env())
		var inv *subnets.InvariantError
		if !errors.As(err, &inv) || len(inv.Violations) != 1 || inv.Violations[0].Kind != "zone" ||
			inv.Violations[0].Detail != "10.0.3.7:8080 unused (Target.NotInUse) in eu-west-1c" {
			t.Fatalf("err = %v, want a zone hold", err)
		}
		// Rolling back from a hold restores the node class; the zone
		// violation is still there, so the watch back holds too.
		if _, err := subnets.Rollback(t.Context(), p, w.env()); !errors.Is(err, subnets.ErrInvariant) {
			t.Fatalf("rollback: %v, want the same hold", err)
		}
		w.elb.mu.Lock()
		w.elb.unused = false
		w.elb.mu.Unlock()
		if res, err := subnets.Rollback(t.Context(), p, w.env()); err != nil || !res.Completed || !res.Resumed {
			t.Fatalf("rollback after the fix: %+v, %v", res, err)
		}
	})
}

func TestVerifyNamesThePublicNodes(t *testing.T) {
	w := newMVWorld(t, 1, nil, nil)
	stray := mvNode("self-managed-1", true, 5)
	stray.Labels = nil // no NodePool: Karpenter does not replace it
	if err := w.c.Create(t.Context(), stray); err != nil {
		t.Fatal(err)
	}
	p := mvPlan(t, w, mvReadiness(1, nil))
	_, err := subnets.Execute(t.Context(), p, w.env())
	var ve *subnets.VerifyError
	if !errors.As(err, &ve) || len(ve.Nodes) != 1 || ve.Nodes[0].Node != "self-managed-1" || !strings.HasPrefix(ve.Nodes[0].Reason, "ExternalIP") {
		t.Fatalf("err = %v, want a *VerifyError naming self-managed-1", err)
	}
	if st := mvJournal(t, w); st.Steps[2].Status != subnets.StepFailed || st.Steps[1].Status != subnets.StepDone {
		t.Errorf("journal = %+v", st.Steps)
	}
	if err := w.c.Delete(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "self-managed-1"}}); err != nil {
		t.Fatal(err)
	}
	if res, err := subnets.Execute(t.Context(), p, w.env()); err != nil || !res.Completed {
		t.Fatalf("after the node group moved: %+v, %v", res, err)
	}
}

func TestJournalRefusesWhatItDoesNotOwn(t *testing.T) {
	w := newMVWorld(t, 1, nil, nil)
	p := mvPlan(t, w, mvReadiness(1, nil))
	if _, err := subnets.Execute(t.Context(), p, w.env()); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKey{Namespace: mvNamespace, Name: subnets.JournalName(mvCluster)}
	edit := func(f func(cm *corev1.ConfigMap)) {
		t.Helper()
		var cm corev1.ConfigMap
		if err := w.c.Get(t.Context(), key, &cm); err != nil {
			t.Fatal(err)
		}
		f(&cm)
		if err := w.c.Update(t.Context(), &cm); err != nil {
			t.Fatal(err)
		}
	}
	j, err := subnets.NewConfigMapJournal(w.c, mvNamespace, mvCluster, w.clock)
	if err != nil {
		t.Fatal(err)
	}
	st, err := j.Load(t.Context(), p.Ref())
	if err != nil || st == nil {
		t.Fatal(err)
	}
	// Someone else writes it: this journal's save is a lost update.
	edit(func(cm *corev1.ConfigMap) { cm.Annotations["touched"] = "yes" })
	if err := j.Save(t.Context(), st); !errors.Is(err, subnets.ErrJournalConflict) {
		t.Errorf("save over another write: %v, want ErrJournalConflict", err)
	}
	edit(func(cm *corev1.ConfigMap) {
		cm.Data[subnets.JournalDataKey] = strings.Replace(cm.Data[subnets.JournalDataKey], `"revision"`, `"surprise": 1, "revision"`, 1)
	})
	if _, err := j.Inspect(t.Context()); !errors.Is(err, subnets.ErrCorruptJournal) {
		t.Errorf("unknown field: %v, want ErrCorruptJournal", err)
	}
	edit(func(cm *corev1.ConfigMap) { cm.Labels = nil })
	if _, err := j.Inspect(t.Context()); !errors.Is(err, subnets.ErrNotManaged) {
		t.Errorf("unlabelled: %v, want ErrNotManaged", err)
	}
	if _, err := subnets.NewConfigMapJournal(nil, mvNamespace, mvCluster, nil); !errors.Is(err, subnets.ErrMoveInput) {
		t.Errorf("nil client: %v", err)
	}
}

func TestExecuteRefusesBadInputWritingNothing(t *testing.T) {
	w := newMVWorld(t, 1, nil, nil)
	p := mvPlan(t, w, mvReadiness(1, nil))
	edited := *p
	edited.MoveBudget = "5"
	noELB := w.env()
	noELB.ELBv2 = nil
	noNS := w.env()
	noNS.Namespace = "Not A Namespace"
	for name, run := range map[string]func() error{
		"nil plan":    func() error { _, err := subnets.Execute(t.Context(), nil, w.env()); return err },
		"edited plan": func() error { _, err := subnets.Execute(t.Context(), &edited, w.env()); return err },
		"nil client": func() error {
			_, err := subnets.Execute(t.Context(), p, subnets.Env{Namespace: mvNamespace})
			return err
		},
		"nil ELBv2": func() error { _, err := subnets.Execute(t.Context(), p, noELB); return err },
		"bad ns":    func() error { _, err := subnets.Execute(t.Context(), p, noNS); return err },
		"neg poll": func() error {
			_, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithPollInterval(-1))
			return err
		},
		"long poll": func() error {
			_, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithPollInterval(10*60e9))
			return err
		},
		"neg timeout":  func() error { _, err := subnets.Execute(t.Context(), p, w.env(), subnets.WithTimeout(-1)); return err },
		"rollback nil": func() error { _, err := subnets.Rollback(t.Context(), nil, w.env()); return err },
	} {
		if err := run(); !errors.Is(err, subnets.ErrMoveInput) {
			t.Errorf("%s: %v, want ErrMoveInput", name, err)
		}
	}
	if got := w.nodeNames(); got != "old-0(public)" {
		t.Errorf("nodes = %s", got)
	}
	if j, l := w.journalAndLease(); j || l {
		t.Errorf("journal %v lease %v", j, l)
	}
}

// mvJournal reads the world's journal.
func mvJournal(t *testing.T, w *mvWorld) *subnets.MoveState {
	t.Helper()
	j, err := subnets.NewConfigMapJournal(w.c, mvNamespace, mvCluster, w.clock)
	if err != nil {
		t.Fatal(err)
	}
	st, err := j.Inspect(t.Context())
	if err != nil || st == nil {
		t.Fatalf("journal: %v, %v", st, err)
	}
	return st
}

// mvEqual compares two specs.
func mvEqual(a, b map[string]any) bool { return reflect.DeepEqual(a, b) }
