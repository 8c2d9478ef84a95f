package cutover

import (
	"context"
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/arntest"
)

// nodeAnnotations returns each fixture node's do-not-disrupt annotation
// and the hold's mark ("-" when absent).
func (f *execFixture) nodeAnnotations(n int) []string {
	f.t.Helper()
	var out []string
	for i := range n {
		var node corev1.Node
		if err := f.kube.Get(context.Background(), types.NamespacedName{Name: fmt.Sprintf("node-%d", i)}, &node); err != nil {
			f.t.Fatal(err)
		}
		v, ok := node.Annotations[AnnotationDoNotDisrupt]
		if !ok {
			v = "-"
		}
		m, ok := node.Annotations[AnnotationDisruptionHold]
		if !ok {
			m = "-"
		}
		out = append(out, v+"/"+m)
	}
	return out
}

func (f *execFixture) annotate(node, value string) {
	f.t.Helper()
	var n corev1.Node
	if err := f.kube.Get(context.Background(), types.NamespacedName{Name: node}, &n); err != nil {
		f.t.Fatal(err)
	}
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[AnnotationDoNotDisrupt] = value
	if err := f.kube.Update(context.Background(), &n); err != nil {
		f.t.Fatal(err)
	}
}

func (f *execFixture) journal() *State {
	f.t.Helper()
	j, err := NewConfigMapJournal(f.kube, ConfigMapJournalOptions{Namespace: unitNS, TargetGroupARN: arntest.TG(testTG), Clock: f.clock})
	if err != nil {
		f.t.Fatal(err)
	}
	st, err := j.Inspect(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// TestHoldAndRelease: the hold annotates every node of the target group's
// node targets, journaling each node before its patch and what it carried;
// a patch that fails (a crash between the record and the patch) leaves a
// record whose annotation is missing, and the resumed step puts it on; a
// conflict is retried on a fresh read. The release removes what the hold
// added and nothing else: an annotation the hold found stays, a previous
// value comes back, and one someone changed since is left as it is.
func TestHoldAndRelease(t *testing.T) {
	f := newExecFixture(t, 5, 4, 1, StepHoldDisruption, StepReleaseDisruption)
	f.annotate("node-3", "true")  // someone else's: it stays
	f.annotate("node-4", "false") // a previous value: it comes back
	f.describe(nil)
	f.done() // the journal exists, nothing done

	patched := map[string]int{}
	crash := true
	failing := interceptor.Funcs{Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
		patched[obj.GetName()]++
		switch {
		case obj.GetName() == "node-1" && crash:
			return errors.New("connection reset: the process died")
		case obj.GetName() == "node-2" && patched["node-2"] == 1:
			return apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "node-2", errors.New("modified"))
		}
		return c.Patch(ctx, obj, patch, opts...)
	}}
	env := f.env
	env.Client = interceptor.NewClient(f.kube.(client.WithWatch), failing)
	_, err := Execute(t.Context(), env, f.plan, WithAutoRollback(false))
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepHoldDisruption {
		t.Fatalf("Execute: %v, want the hold step to fail", err)
	}
	// node-0 held; node-1 recorded but not annotated; the rest not reached.
	if got, want := fmt.Sprint(f.nodeAnnotations(5)), "[true/tgm-unit -/- -/- true/- false/-]"; got != want {
		t.Errorf("annotations after the failure %s, want %s", got, want)
	}
	st := f.journal()
	if h := st.DisruptionHold; !h.Active() || len(h.Nodes) != 2 || !h.Nodes[1].Added || h.Nodes[1].Node != "node-1" {
		t.Fatalf("journal's hold %+v: want it standing, with node-0 and node-1 recorded before their patches", h)
	}

	// Resume (node-1's patch goes through now; node-2's first one meets a
	// conflict): the hold step runs again, puts the missing annotation on
	// and holds the rest.
	crash = false
	res, err := Execute(t.Context(), env, f.plan, WithStopAfter(StepHoldDisruption))
	if err != nil || !res.Stopped {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	if patched["node-2"] != 2 {
		t.Errorf("node-2 patched %d times through the failing client, want 2 (a conflict, then the retry)", patched["node-2"])
	}
	if got, want := fmt.Sprint(f.nodeAnnotations(5)), "[true/tgm-unit true/tgm-unit true/tgm-unit true/- true/tgm-unit]"; got != want {
		t.Errorf("annotations while held %s, want %s", got, want)
	}
	st = f.journal()
	var records []string
	for _, n := range st.DisruptionHold.Nodes {
		records = append(records, fmt.Sprintf("%s added=%t had=%t %q", n.Node, n.Added, n.Had, n.Previous))
	}
	if got, want := fmt.Sprint(records), `[node-0 added=true had=false "" node-1 added=true had=false "" node-2 added=true had=false "" node-3 added=false had=true "true" node-4 added=true had=true "false"]`; got != want {
		t.Errorf("journal records\n%s\nwant\n%s", got, want)
	}

	// Someone changes node-2 while the hold stands: the release leaves it.
	f.annotate("node-2", "false")
	res, err = Execute(t.Context(), f.env, f.plan)
	if err != nil || !res.Completed {
		t.Fatalf("release: %+v, %v", res, err)
	}
	if got, want := fmt.Sprint(f.nodeAnnotations(5)), "[-/- -/- false/- true/- false/-]"; got != want {
		t.Errorf("annotations after the release %s, want %s", got, want)
	}
	st = f.journal()
	if st.DisruptionHold.Active() {
		t.Error("the journal's hold still stands")
	}
	for _, n := range st.DisruptionHold.Nodes {
		if n.ReleasedAt.IsZero() || n.Release == "" {
			t.Errorf("node %s: not released in the journal: %+v", n.Node, n)
		}
		t.Logf("%s: %s", n.Node, n.Release)
	}
	if fmt.Sprint(res.Released) != "[node-0 node-1 node-2 node-4]" {
		t.Errorf("released %v", res.Released)
	}
}
