package campaign_test

// journal_test.go: the campaign journals' optimistic writes (a write
// over another version is a conflict, in both backends), a journal of
// another plan refused, and a stale cutover plan re-planned before it
// runs.

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/campaign"
)

func TestJournalsConflict(t *testing.T) {
	f := execFleet(t)
	file, err := campaign.NewFileJournal(filepath.Join(t.TempDir(), "campaign.json"))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := campaign.NewConfigMapJournal(f.World("prod-a").Client(), "default", "journal-test")
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []campaign.Journal{file, cm} {
		t.Run(j.Where(), func(t *testing.T) {
			ctx := t.Context()
			st, v, err := j.Load(ctx)
			if err != nil || st != nil || v != "" {
				t.Fatalf("empty journal: %v %v %q", st, err, v)
			}
			first := &campaign.JournalState{SchemaVersion: campaign.JournalSchemaVersion, PlanID: "campaign-1", PlanDigest: "sha256:1"}
			v1, err := j.Save(ctx, first, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := j.Save(ctx, first, ""); !errors.Is(err, campaign.ErrJournalConflict) {
				t.Fatalf("second create: %v, want a conflict", err)
			}
			got, v, err := j.Load(ctx)
			if err != nil || v != v1 || got.PlanID != "campaign-1" {
				t.Fatalf("load: %+v %q %v", got, v, err)
			}
			got.PlanDigest = "sha256:2"
			v2, err := j.Save(ctx, got, v1)
			if err != nil {
				t.Fatal(err)
			}
			// A runner that read v1 loses its update, nothing is overwritten.
			if _, err := j.Save(ctx, first, v1); !errors.Is(err, campaign.ErrJournalConflict) {
				t.Fatalf("stale write: %v, want a conflict", err)
			}
			if got, v, _ := j.Load(ctx); v != v2 || got.PlanDigest != "sha256:2" {
				t.Fatalf("after the stale write: %+v %q", got, v)
			}
		})
	}
}

// TestExecuteJournalOfAnotherPlan: a journal of another plan is refused
// before any entry runs.
func TestExecuteJournalOfAnotherPlan(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	env := execEnv(t, f, "runner-1")
	if _, err := env.Journal.Save(t.Context(), &campaign.JournalState{SchemaVersion: campaign.JournalSchemaVersion, PlanID: "campaign-0", PlanDigest: "sha256:0"}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := campaign.Execute(t.Context(), env, p); !errors.Is(err, campaign.ErrJournalMismatch) {
		t.Fatalf("err %v, want a mismatch", err)
	}
	for _, w := range f.Worlds() {
		if w.Calls()["RegisterTargets"]+w.Calls()["ModifyTargetGroup"] != 0 {
			t.Errorf("%s: written", w.ClusterName())
		}
	}
}

// TestExecuteStalePlan: staging's health check changed after the
// campaign was planned: its cutover plan is stale, re-planned (same
// target group, cluster and strategy) and run; the journal records it.
func TestExecuteStalePlan(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f)
	w := f.World("staging")
	if _, err := w.ELBv2().ModifyTargetGroup(context.Background(), &elbv2.ModifyTargetGroupInput{
		TargetGroupArn: aws.String(w.Legacy().TargetGroupARN.Raw), HealthCheckIntervalSeconds: aws.Int32(10)}); err != nil {
		t.Fatal(err)
	}
	st := newSteps()
	var replanned []string
	res, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithWorkers(2), campaign.WithCutoverOptions(st.options(nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Entries {
		if e.Replan != nil {
			replanned = append(replanned, e.Cluster)
			orig, _ := p.Entry(w.Legacy().TargetGroupARN)
			if e.Replan.Digest == orig.Plan.Digest || len(e.Replan.Changed) == 0 || e.Cutover == nil || e.Cutover.PlanID != e.Replan.PlanID {
				t.Errorf("re-plan %+v, cutover %+v", e.Replan, e.Cutover)
			}
			t.Logf("%s re-planned: %v", e.Cluster, e.Replan.Changed)
		}
	}
	if len(replanned) != 1 || replanned[0] != "staging" {
		t.Fatalf("re-planned %v, want staging", replanned)
	}
	if !res.Completed {
		t.Fatalf("result %+v", res.Totals)
	}
	noFailedRequests(t, f)
}

// TestExecuteStalePlanBlocked: after planning, staging's namespace lost
// the controller's readiness-gate label: its re-plan has a precondition
// the campaign did not accept, so it no longer fits the approved
// campaign and is blocked with the reason; nothing of it changes; the
// others run.
func TestExecuteStalePlanBlocked(t *testing.T) {
	f := execFleet(t)
	p := execPlan(t, f, campaign.WithCanaries())
	w := f.World("staging")
	var ns corev1.Namespace
	if err := w.Client().Get(t.Context(), client.ObjectKey{Name: w.Legacy().Namespace}, &ns); err != nil {
		t.Fatal(err)
	}
	delete(ns.Labels, "elbv2.k8s.aws/pod-readiness-gate-inject")
	if err := w.Client().Update(t.Context(), &ns); err != nil {
		t.Fatal(err)
	}
	res, err := run(t.Context(), t, execEnv(t, f, "runner-1"), p, parallel(f), campaign.WithWorkers(3))
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(res)
	if got["staging"] != campaign.StatusBlocked || got["prod-a"] != campaign.StatusDone || got["prod-b"] != campaign.StatusDone {
		t.Fatalf("statuses %v", got)
	}
	for _, e := range res.Entries {
		if e.Cluster == "staging" && !strings.Contains(e.Reason, "precondition") {
			t.Errorf("staging's reason %q", e.Reason)
		}
	}
	if w.NodeTargets() == 0 || w.Calls()["ModifyTargetGroup"]+w.Calls()["DeregisterTargets"] != 0 {
		t.Errorf("staging changed: %d node targets, calls %v", w.NodeTargets(), w.Calls())
	}
	noFailedRequests(t, f)
}
