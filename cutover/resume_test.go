package cutover_test

// resume_test.go: Resume from the journal alone after a crash, to the
// end state of an uninterrupted run; a journal written before plans were
// saved in it (a *NoSavedPlanError, then Execute with the plan saves it);
// a saved plan that is not the journal's; Resume's bad input.

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/tgbind/v1beta1"
	"github.com/qstools/tgmigrate/tgmigratetest"
)

// resumeWorld is a world, its Env, a plan of its legacy target group, and
// the default ConfigMap journal Execute keeps it in.
func resumeWorld(t *testing.T) (*tgmigratetest.World, cutover.Env, *cutover.Plan, *cutover.ConfigMapJournal) {
	t.Helper()
	w, err := tgmigratetest.NewWorld(t.Context(), tgmigratetest.Options{Seed: 5, Nodes: 4, Pods: 8, ReadinessGateInjection: true})
	if err != nil {
		t.Fatal(err)
	}
	env := cutover.Env{ELBv2: w.ELBv2(), Client: w.Client(), Clock: w.Clock(), ClusterVPCID: w.VPCID(), Holder: "test"}
	l := w.Legacy()
	plan, err := cutover.PlanCutover(t.Context(), env, cutover.Request{TargetGroupARN: l.TargetGroupARN, Namespace: l.Namespace,
		Service: l.Service, Port: intstr.FromString(l.PortName), Assumptions: w.Assumptions()})
	if err != nil {
		t.Fatal(err)
	}
	j, err := cutover.NewConfigMapJournal(w.Client(), cutover.ConfigMapJournalOptions{Namespace: l.Namespace, TargetGroupARN: l.TargetGroupARN})
	if err != nil {
		t.Fatal(err)
	}
	return w, env, plan, j
}

// endState is what a cutover leaves: the steps' statuses in the journal,
// the binding's spec, the health check, the node targets left, the
// requests failed.
type endState struct {
	Steps       map[string]cutover.StepStatus
	Binding     v1beta1.TargetGroupBindingSpec
	HealthCheck [4]string
	NodeTargets int
	Failed      int
}

func endOf(t *testing.T, w *tgmigratetest.World, j *cutover.ConfigMapJournal) endState {
	t.Helper()
	st, err := j.Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	es := endState{Steps: map[string]cutover.StepStatus{}, NodeTargets: w.NodeTargets(), Failed: w.Requests().Failed}
	for _, s := range st.Steps {
		es.Steps[s.ID] = s.Status
	}
	var tgbs v1beta1.TargetGroupBindingList
	if err := w.Client().List(t.Context(), &tgbs, client.InNamespace(w.Legacy().Namespace)); err != nil || len(tgbs.Items) != 1 {
		t.Fatalf("bindings: %d, %v", len(tgbs.Items), err)
	}
	es.Binding = tgbs.Items[0].Spec
	out, err := w.ELBv2().DescribeTargetGroups(t.Context(), &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{w.Legacy().TargetGroupARN.String()}})
	if err != nil || len(out.TargetGroups) != 1 {
		t.Fatalf("DescribeTargetGroups: %v", err)
	}
	tg := out.TargetGroups[0]
	es.HealthCheck = [4]string{aws.ToString(tg.HealthCheckPath), aws.ToString(tg.HealthCheckPort),
		fmt.Sprint(aws.ToInt32(tg.HealthCheckIntervalSeconds)), fmt.Sprint(aws.ToInt32(tg.HealthyThresholdCount))}
	return es
}

// TestResumeFromJournalAlone: Execute crashes after its second event;
// Resume, given only the journal, completes the cutover to the same end
// state as an uninterrupted run of the same world.
func TestResumeFromJournalAlone(t *testing.T) {
	w0, env0, plan0, j0 := resumeWorld(t)
	if res, err := cutover.Execute(t.Context(), env0, plan0); err != nil || !res.Completed {
		t.Fatalf("uninterrupted Execute() = %+v, %v", res, err)
	}
	want := endOf(t, w0, j0)

	w, env, plan, j := resumeWorld(t)
	_, err := cutover.Execute(t.Context(), env, plan, cutover.WithHook(tgmigratetest.CrashAfter[cutover.Event](2)))
	if !errors.Is(err, tgmigratetest.ErrCrash) {
		t.Fatalf("Execute() = %v, want the crash", err)
	}
	plan = nil // the process restarts: no plan in hand
	w.Run(5 * time.Second)
	res, err := cutover.Resume(t.Context(), env, j)
	if err != nil || !res.Completed || !res.Resumed {
		t.Fatalf("Resume() = %+v, %v; want completed and resumed", res, err)
	}
	skipped := 0
	for _, s := range res.Steps {
		if s.Skipped {
			skipped++
		}
	}
	if skipped != 2 {
		t.Errorf("Resume skipped %d steps, want the 2 done before the crash", skipped)
	}
	if d := cmp.Diff(want, endOf(t, w, j)); d != "" {
		t.Errorf("end state after the crash and Resume (-uninterrupted +resumed):\n%s", d)
	}
	// Once more: the plan is finished, nothing to do.
	if res, err := cutover.Resume(t.Context(), env, j); err != nil || !res.Completed || res.MutatingCalls != 0 {
		t.Errorf("Resume() of a finished plan = %+v, %v", res, err)
	}
}

// TestResumeOldJournal: a journal written before plans were saved in it
// gives a *NoSavedPlanError and is left as it was; Execute with the plan
// resumes it and saves the plan, and Resume works from then on.
func TestResumeOldJournal(t *testing.T) {
	w, env, plan, j := resumeWorld(t)
	if _, err := cutover.Execute(t.Context(), env, plan, cutover.WithStopAfter(cutover.StepBind)); err != nil {
		t.Fatal(err)
	}
	st, err := j.Inspect(t.Context())
	if err != nil || len(st.SavedPlan) == 0 {
		t.Fatalf("journal after Execute: saved plan %d bytes, %v", len(st.SavedPlan), err)
	}
	st.SavedPlan = nil // as written before
	if err := j.Save(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	rev := st.Revision
	_, err = cutover.Resume(t.Context(), env, j)
	var nsp *cutover.NoSavedPlanError
	if !cutover.IsNoSavedPlan(err) || !errors.As(err, &nsp) || nsp.PlanID != plan.ID || nsp.Digest != plan.Digest {
		t.Fatalf("Resume() of an old journal = %v, want a *NoSavedPlanError for %s", err, plan.ID)
	}
	if st, err := j.Inspect(t.Context()); err != nil || st.Revision != rev {
		t.Errorf("the refused Resume wrote the journal: revision %d, want %d (%v)", st.Revision, rev, err)
	}
	ids := plan.StepIDs()
	next := ids[slices.Index(ids, cutover.StepBind)+1] // one more step runs, and saves
	if _, err := cutover.Execute(t.Context(), env, plan, cutover.WithStopAfter(next)); err != nil {
		t.Fatal(err)
	}
	st, err = j.Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := cutover.SavedPlan(st); err != nil || got.Ref() != plan.Ref() {
		t.Fatalf("SavedPlan() after Execute resumed the old journal = %v, %v", got, err)
	}
	if res, err := cutover.Resume(t.Context(), env, j); err != nil || !res.Completed || w.Requests().Failed != 0 {
		t.Errorf("Resume() = %+v, %v; %d requests failed", res, err, w.Requests().Failed)
	}
}

// TestResumeRefusals: what Resume and SavedPlan refuse, changing nothing.
func TestResumeRefusals(t *testing.T) {
	_, env, plan, j := resumeWorld(t)
	if _, err := cutover.Resume(t.Context(), env, nil); !cutover.IsInvalidInput(err) {
		t.Errorf("Resume(nil journal) = %v, want an *InputError", err)
	}
	if _, err := cutover.Resume(t.Context(), env, j); !cutover.IsNoJournal(err) {
		t.Errorf("Resume(empty journal) = %v, want ErrNoJournal", err)
	}
	if _, err := cutover.SavedPlan(nil); !cutover.IsInvalidInput(err) {
		t.Errorf("SavedPlan(nil) = %v, want an *InputError", err)
	}
	if _, err := cutover.Execute(t.Context(), env, plan, cutover.WithStopAfter(cutover.StepBind)); err != nil {
		t.Fatal(err)
	}
	st, err := j.Inspect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	other := st.Clone()
	other.Plan.Digest = "sha256:00"
	notGzip := st.Clone()
	notGzip.SavedPlan = []byte("{}")
	notPlan := st.Clone()
	notPlan.SavedPlan = gzipped(t, []byte(`{"schemaVersion": 1}`))
	for _, tt := range []struct {
		name string
		st   *cutover.State
	}{
		{"another plan's reference", other},
		{"not gzip", notGzip},
		{"not a plan", notPlan},
	} {
		if _, err := cutover.SavedPlan(tt.st); !cutover.IsCorruptJournal(err) {
			t.Errorf("%s: SavedPlan() = %v, want a *CorruptJournalError", tt.name, err)
		}
	}
	if got, err := cutover.SavedPlan(st); err != nil || got.Ref() != plan.Ref() {
		t.Errorf("SavedPlan() = %v, %v; want plan %s", got, err, plan.ID)
	}
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
