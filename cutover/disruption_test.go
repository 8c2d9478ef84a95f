package cutover_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/qstools/tgmigrate/cutover"
	"github.com/qstools/tgmigrate/internal/sim/karpenter"
)

// setDoNotDisrupt sets karpenter.sh/do-not-disrupt on a node, as someone
// other than tgmigrate would.
func (s *scenario) setDoNotDisrupt(node, value string) {
	s.t.Helper()
	var n corev1.Node
	if err := s.w.Client().Get(s.t.Context(), types.NamespacedName{Name: node}, &n); err != nil {
		s.t.Fatal(err)
	}
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[cutover.AnnotationDoNotDisrupt] = value
	if err := s.w.Client().Update(s.t.Context(), &n); err != nil {
		s.t.Fatal(err)
	}
}

// annotations returns a node's do-not-disrupt value and the hold's mark
// ("-" when absent), or "gone".
func (s *scenario) annotations(node string) string {
	s.t.Helper()
	var n corev1.Node
	if err := s.w.Client().Get(s.t.Context(), types.NamespacedName{Name: node}, &n); err != nil {
		return "gone"
	}
	get := func(k string) string {
		if v, ok := n.Annotations[k]; ok {
			return v
		}
		return "-"
	}
	return get(cutover.AnnotationDoNotDisrupt) + "/" + get(cutover.AnnotationDisruptionHold)
}

// journal returns the journal's state of the seed's case.
func (s *scenario) journal(p *cutover.Plan) *cutover.State {
	s.t.Helper()
	j, err := cutover.NewConfigMapJournal(s.w.Client(), cutover.ConfigMapJournalOptions{Namespace: p.Binding.Namespace, TargetGroupARN: p.TargetGroup.ARN})
	if err != nil {
		s.t.Fatal(err)
	}
	st, err := j.Inspect(s.t.Context())
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// TestDisruptionHoldOnTheSimulator: the hold, a crash, the resume and the
// release, against the simulator's Karpenter. The hold annotates every
// node of the target group's targets and of the Service's pods and
// journals what each carried; after a crash the annotations stay and the
// journal says so, and while they stand Karpenter starts no graceful
// disruption of those nodes (its queue says why). The resumed Execute
// completes and releases only what the hold added: a node someone else
// annotated "true" keeps it (and Karpenter leaves it alone), a previous
// value comes back, an annotation changed since is left. No request fails.
func TestDisruptionHoldOnTheSimulator(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(151))
	foreign, previous, changed := s.original[0], s.original[1], s.original[2]
	s.setDoNotDisrupt(foreign, "true")
	s.setDoNotDisrupt(previous, "false")
	p := s.plan(nil)

	var seen []string
	if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(crashAt(1, &seen))); !errors.Is(err, errCrash) || seen[0] != "step "+cutover.StepHoldDisruption {
		t.Fatalf("crash after the hold: %v after %v", err, seen)
	}
	heldAt := s.w.Clock().Now()
	for _, n := range s.original {
		want := "true/" + p.ID
		if n == foreign {
			want = "true/-"
		}
		if got := s.annotations(n); got != want {
			t.Errorf("node %s after the hold: %s, want %s", n, got, want)
		}
	}
	h := s.journal(p).DisruptionHold
	if !h.Active() || len(h.Nodes) != len(s.original) {
		t.Fatalf("the journal's hold %+v: want it standing, with every node", h)
	}
	for _, rec := range h.Nodes {
		switch {
		case rec.Node == foreign && (rec.Added || !rec.Had || rec.Previous != "true"):
			t.Errorf("record %+v: want the foreign annotation found and not added", rec)
		case rec.Node == previous && (!rec.Added || !rec.Had || rec.Previous != "false"):
			t.Errorf("record %+v: want the previous value journaled", rec)
		case rec.Node != foreign && rec.Node != previous && (!rec.Added || rec.Had):
			t.Errorf("record %+v: want it added", rec)
		}
	}

	// Karpenter drifts every node while the crashed run's hold stands: it
	// starts no graceful disruption of the held nodes.
	if err := s.w.ReplaceAllNodes(0); err != nil {
		t.Fatal(err)
	}
	s.w.Run(10 * time.Minute)
	for _, d := range s.w.Karpenter().Disruptions() {
		if d.StartedAt.After(heldAt) {
			t.Errorf("the disruption of %s (%s) started while the hold stood", d.Node, d.Reason)
		}
	}
	blocked := 0
	for node, why := range s.w.Karpenter().Queued() {
		if strings.Contains(why, "annotated "+cutover.AnnotationDoNotDisrupt) {
			blocked++
		} else {
			t.Errorf("node %s waits for another reason: %s", node, why)
		}
	}
	if blocked != len(s.original) {
		t.Errorf("%d nodes' drift blocked by the annotation, want %d: %v", blocked, len(s.original), s.w.Karpenter().Queued())
	}

	// The operator resumes up to the verification; someone changes a held
	// node's annotation; the release follows.
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepVerify))
	if err != nil || !res.Stopped || !res.Resumed || len(res.Warnings) == 0 {
		t.Fatalf("resume: %+v, %v", res, err)
	}
	if w := res.Warnings[len(res.Warnings)-1]; !strings.Contains(w, "stays held") {
		t.Errorf("the stopped run's last warning %q: want it to say the hold stands", w)
	}
	s.setDoNotDisrupt(changed, "false")
	res, err = cutover.Execute(t.Context(), s.env, p, simPods)
	if err != nil || !res.Completed {
		t.Fatalf("release: %+v, %v", res, err)
	}
	want := map[string]string{foreign: "true/-", previous: "false/-", changed: "false/-"}
	for _, n := range s.original {
		w, ok := want[n]
		if !ok {
			w = "-/-"
		}
		if got := s.annotations(n); got != w {
			t.Errorf("node %s after the release: %s, want %s", n, got, w)
		}
	}
	if st := s.journal(p); st.DisruptionHold.Active() || len(st.DisruptionHold.Added()) != 0 {
		t.Errorf("the journal's hold after the release: %+v", st.DisruptionHold)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}

	// Released, Karpenter replaces every node but the one someone else
	// annotated "true".
	deadline := s.w.Clock().Now().Add(40 * time.Minute)
	left := func() []string {
		var out []string
		for _, n := range s.original {
			if v, ok := s.w.Cluster().Node(n); ok && v.Phase != "Terminated" {
				out = append(out, n)
			}
		}
		return out
	}
	for s.w.Clock().Now().Before(deadline) && len(left()) > 1 {
		s.w.Run(30 * time.Second)
	}
	if got := left(); !slices.Equal(got, []string{foreign}) {
		t.Errorf("nodes of the start left after the release: %v, want only %s", got, foreign)
	}
	if st := s.w.Traffic(); st.Failed != 0 {
		t.Errorf("traffic: %s", st.String())
	}
}

// TestRollbackReleasesTheHold: Rollback releases everything the journal
// says the hold added, whether it starts from a crash in the middle of
// Execute (here from the journal alone) or after a crash in its own run
// (its own hold, after a completed cutover); no request fails, and no
// node keeps the hold's mark.
func TestRollbackReleasesTheHold(t *testing.T) {
	t.Parallel() // worlds of their own
	t.Run("from a crash in Execute, from the journal", func(t *testing.T) {
		s := newScenario(t, smallWorld(152))
		p := s.plan(nil)
		if _, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithHook(crashAt(4, nil))); !errors.Is(err, errCrash) {
			t.Fatalf("crash: %v", err)
		}
		if len(s.heldNodes()) == 0 {
			t.Fatal("no node held after the crash")
		}
		rb, err := cutover.Rollback(t.Context(), s.env, s.journal(p))
		if err != nil {
			t.Fatal(err)
		}
		if len(rb.Held) != 0 || len(rb.Released) == 0 || rb.Actions[0].ID != cutover.RollbackHoldDisruption || rb.Actions[len(rb.Actions)-1].ID != cutover.RollbackReleaseDisruption {
			t.Errorf("rollback held %v, released %v, actions %+v: want Execute's hold kept, then released at the end", rb.Held, rb.Released, rb.Actions)
		}
		s.checkRolledBack(rb)
		if st := s.journal(p); st.DisruptionHold.Active() {
			t.Errorf("the journal's hold stands after the rollback: %+v", st.DisruptionHold)
		}
	})
	t.Run("after completion, from a crash in its own run", func(t *testing.T) {
		s := newScenario(t, smallWorld(153))
		p := s.plan(nil)
		if res, err := cutover.Execute(t.Context(), s.env, p, simPods); err != nil || !res.Completed {
			t.Fatalf("Execute: %+v, %v", res, err)
		}
		if n := s.heldNodes(); len(n) != 0 {
			t.Fatalf("nodes held after the cutover: %v", n)
		}
		var seen []string
		if _, err := cutover.Rollback(t.Context(), s.env, p, cutover.WithHook(crashAt(1, &seen))); !errors.Is(err, errCrash) || seen[0] != "rollback "+cutover.RollbackHoldDisruption {
			t.Fatalf("rollback's crash after its hold: %v after %v", err, seen)
		}
		held := s.heldNodes()
		if len(held) == 0 {
			t.Fatal("the rollback's hold annotated no node")
		}
		if h := s.journal(p).DisruptionHold; !h.Active() || fmt.Sprint(h.Added()) != fmt.Sprint(held) {
			t.Errorf("journal's hold %+v, nodes held %v: want the journal to say what the crashed rollback added", h, held)
		}
		rb, err := cutover.Rollback(t.Context(), s.env, p)
		if err != nil || !rb.Completed {
			t.Fatalf("rollback again: %+v, %v", rb, err)
		}
		if !slices.Equal(rb.Released, held) {
			t.Errorf("released %v, want what the crashed rollback held: %v", rb.Released, held)
		}
		s.checkRolledBack(rb)
	})
}

// TestRetireFirst: Execute's first act, before the hold's writes to the
// nodes and before any wait, deregisters the recorded target of a node
// Karpenter was already draining when Execute started: the load balancer
// keeps sending a retired target requests for the deregistration lag, so
// every second between Execute's start and that call is a second of
// exposure once the node goes. It is journaled like a batch, the run's
// result lists it as retired, and the step then waits the lag out.
func TestRetireFirst(t *testing.T) {
	t.Parallel() // a world of its own
	s := newScenario(t, smallWorld(171))
	leaving := s.original[0]
	if err := s.w.Karpenter().ReplaceNode(leaving, karpenter.ReasonDrifted); err != nil {
		t.Fatal(err)
	}
	s.w.Run(20 * time.Second) // tainted, its replacement launching
	if v, _ := s.w.Cluster().Node(leaving); v.Phase == "Terminated" {
		t.Fatalf("node %s already gone: the test needs it leaving", leaving)
	}
	var addr cutover.TargetAddr
	for _, tg := range s.w.NodeTargets() {
		if tg.Owner == "node/"+leaving {
			addr = cutover.TargetAddr{IP: tg.IP, Port: tg.Port}
		}
	}
	if addr.IP == "" {
		t.Fatalf("no node target of %s", leaving)
	}
	p := s.plan(nil)
	start := s.w.Clock().Now()
	res, err := cutover.Execute(t.Context(), s.env, p, simPods, cutover.WithStopAfter(cutover.StepHoldDisruption))
	if err != nil || !res.Stopped {
		t.Fatalf("Execute to the hold: %+v, %v", res, err)
	}
	if !slices.Contains(res.Retired, addr) {
		t.Fatalf("retired %v: want the target %s of the leaving node %s", res.Retired, addr, leaving)
	}
	var first time.Time
	for _, c := range s.w.ELBv2().Calls() {
		if c.Client == "sut" && c.Op == "DeregisterTargets" && c.ErrCode == "" {
			first = c.At
			break
		}
	}
	st := s.journal(p)
	if st.DisruptionHold == nil || len(st.DisruptionHold.Nodes) == 0 {
		t.Fatalf("no hold in the journal: %+v", st.DisruptionHold)
	}
	for _, n := range st.DisruptionHold.Nodes {
		if !first.Before(n.HeldAt) {
			t.Errorf("the first DeregisterTargets came at %v, not before the hold of %s at %v", first.Sub(start), n.Node, n.HeldAt.Sub(start))
		}
	}
	if d := first.Sub(start); d > 2*time.Second {
		t.Errorf("the first DeregisterTargets came %v after Execute's start: want its first act (the lock, the journal, one observation)", d)
	}
	if !st.Deregistered(addr) {
		t.Errorf("the journal does not record %s deregistered", addr)
	}
	// The step ends only once the lag has passed since that call.
	if lag := p.Request.Assumptions.Lag(); s.w.Clock().Now().Before(first.Add(lag)) {
		t.Errorf("the hold step ended %v after the retirement, before the deregistration lag %v", s.w.Clock().Since(first), lag)
	}
}

// TestReactToInterruption: a spot interruption during the gate (forceful:
// the hold cannot stop it) has its node's target retired within a second
// of Karpenter's taint, as the watch on the nodes reports it, not at the
// next poll; with the watch off (WithReaction(-1)) it waits for the poll
// or the gate's next look. The load balancer may send the target
// requests for the lag after that, and EC2 reclaims the node two minutes
// after the notice: every second of reaction is a second of exposure.
func TestReactToInterruption(t *testing.T) {
	t.Parallel() // worlds of their own
	react := func(t *testing.T, opts ...cutover.Option) time.Duration {
		s := newScenario(t, smallWorld(173))
		p := s.plan(nil)
		victim := s.original[1]
		var addr cutover.TargetAddr
		for _, tg := range s.w.NodeTargets() {
			if tg.Owner == "node/"+victim {
				addr = cutover.TargetAddr{IP: tg.IP, Port: tg.Port}
			}
		}
		var at time.Time
		hook := cutover.WithHook(func(_ context.Context, e cutover.Event) error {
			if e.Kind == cutover.EventStep && e.Step == cutover.StepBind && at.IsZero() {
				// 22.3 s into the gate: off any poll's beat.
				at = s.w.Clock().Now().Add(22300 * time.Millisecond)
				s.w.Clock().At(at, "test: interrupt "+victim, func(time.Time) {
					_ = s.w.Karpenter().ReplaceNode(victim, karpenter.ReasonInterrupted)
				})
			}
			return nil
		})
		res, err := cutover.Execute(t.Context(), s.env, p, append([]cutover.Option{simPods, hook}, opts...)...)
		if err != nil || !res.Completed || !slices.Contains(res.Retired, addr) {
			t.Fatalf("Execute: %+v, %v; want %s retired", res, err, addr)
		}
		for _, c := range s.w.ELBv2().Calls() {
			if c.Client == "sut" && c.Op == "DeregisterTargets" && c.ErrCode == "" && c.At.After(at) {
				return c.At.Sub(at)
			}
		}
		t.Fatal("no DeregisterTargets after the interruption")
		return 0
	}
	withWatch := react(t)
	polled := react(t, cutover.WithReaction(-1))
	if withWatch > time.Second {
		t.Errorf("the interrupted node's target was retired %v after the taint, with the watch: want within a second", withWatch)
	}
	if polled <= withWatch {
		t.Errorf("without the watch it was retired after %v, with it after %v: the watch made no difference", polled, withWatch)
	}
	t.Logf("retired %v after the taint with the watch, %v without", withWatch, polled)
}
