package subnets_test

// watch_reads_test.go: what the move reads of the cluster, counted by
// step with a counting client.Reader: the watch lists only the nodes of
// the moved node classes and pools (label selectors), never a pod; the
// verification lists every node once.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate/internal/karpenterapi"
	"github.com/qstools/tgmigrate/subnets"
)

// listCall is one List the move made: in which step, of which kind,
// with which label selector, and how many objects it returned.
type listCall struct {
	step, kind, selector string
	items                int
}

func TestMoveReadsThePoolsNodes(t *testing.T) {
	const others, pods = 30, 200
	w := newMVWorld(t, 4, []any{map[string]any{"nodes": "20%"}}, nil)
	ctx := context.Background()
	// Another pool's private nodes and their pods, which the move leaves
	// alone: what a big cluster holds besides the moved pool.
	for i := range others {
		n := mvNode(fmt.Sprintf("batch-%d", i), false, i)
		n.Labels = map[string]string{karpenterapi.LabelNodePool: "batch", karpenterapi.LabelNodeClass: "batch"}
		if err := w.c.Create(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	for i := range pods {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "jobs", Name: fmt.Sprintf("job-%d", i)}, Spec: corev1.PodSpec{NodeName: fmt.Sprintf("batch-%d", i%others)}}
		if err := w.c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// A public node of the moved class in a pool the plan does not hold:
	// the watch finds it by its class label, and waits for it to leave.
	stray := mvNode("stray", true, 7)
	stray.Labels[karpenterapi.LabelNodePool] = "legacy"
	if err := w.c.Create(ctx, stray); err != nil {
		t.Fatal(err)
	}
	p := mvPlan(t, w, mvReadiness(4, []karpenterapi.Budget{{Nodes: "20%"}}), subnets.MoveBudget("1"))
	var calls []listCall
	step, polls, departing := "", 0, 0
	env := w.env()
	env.Client = interceptor.NewClient(w.c, interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
		err := c.List(ctx, l, opts...)
		lo := (&client.ListOptions{}).ApplyOptions(opts)
		sel := ""
		if lo.LabelSelector != nil {
			sel = lo.LabelSelector.String()
		}
		calls = append(calls, listCall{step: step, kind: listKind(l), selector: sel, items: apimeta.LenList(l)})
		return err
	}})
	obs := subnets.ObserverFuncs{
		OnStepStarted: func(e subnets.StepEvent) { step = e.Step },
		OnObserved: func(p subnets.WatchProgress) {
			if polls++; polls == 1 {
				departing = p.Departing
			}
		},
	}
	if res, err := subnets.Execute(t.Context(), p, env, subnets.WithObserver(obs)); err != nil || !res.Completed {
		t.Fatalf("Execute() = %+v, %v", res, err)
	}
	type tally struct{ calls, items, unscoped int }
	got := map[string]*tally{} // step/kind
	for _, c := range calls {
		k := c.step + "/" + c.kind
		if got[k] == nil {
			got[k] = &tally{}
		}
		got[k].calls++
		got[k].items += c.items
		if c.selector == "" {
			got[k].unscoped++
		}
	}
	watch, verify := got[subnets.StepWatchReplacement+"/v1.NodeList"], got[subnets.StepVerifyPrivate+"/v1.NodeList"]
	if watch == nil || verify == nil {
		t.Fatalf("lists by step and kind: %v", calls)
	}
	t.Logf("watch: %d polls, %d node lists (%d whole-cluster), %d nodes listed; verify: %d node lists, %d nodes", polls, watch.calls, watch.unscoped, watch.items, verify.calls, verify.items)
	// The watch lists once to choose the departing nodes, then once per
	// poll: two scoped lists each time (the plan's pools; the moved
	// classes' nodes outside them), and only the moved pool's nodes.
	if want := 2 * (polls + 1); watch.calls != want || watch.unscoped != 0 {
		t.Errorf("the watch made %d node lists (%d whole-cluster) over %d polls, want %d, all scoped", watch.calls, watch.unscoped, polls, want)
	}
	if perPoll := float64(watch.items) / float64(polls+1); perPoll > 6 {
		t.Errorf("the watch listed %.1f nodes a poll, want at most the moved class's 6 (5 and a replacement)", perPoll)
	}
	if departing != 5 {
		t.Errorf("%d nodes departing, want the pool's 4 and the stray of the moved class", departing)
	}
	// The verification judges every node of the cluster, once.
	if verify.calls != 1 || verify.unscoped != 1 || verify.items != 5+others {
		t.Errorf("the verification made %d node lists (%d whole-cluster) of %d nodes, want one of all %d", verify.calls, verify.unscoped, verify.items, 5+others)
	}
	for k, v := range got {
		if strings.HasSuffix(k, "/v1.PodList") {
			t.Errorf("%s: %d pod lists: the move reads no pod", k, v.calls)
		}
	}
}
