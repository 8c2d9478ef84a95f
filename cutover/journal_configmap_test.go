package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/qstools/tgmigrate"
	"github.com/qstools/tgmigrate/internal/arntest"
	"github.com/qstools/tgmigrate/internal/awserr"
)

const testNS = "web"

func TestObjectNames(t *testing.T) {
	const hashLen = 10 // hex digits of the ARN's SHA-256
	long := "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/A2345678901234567890123456789012/0123456789abcdef"
	otherAccount := strings.Replace(testTG, "123456789012", "210987654321", 1)
	tests := []struct {
		name   string
		arn    string
		prefix string
	}{
		{"journal", testTG, "tgmigrate-journal-legacy-web-"},
		{"journal longest, upper case", long, "tgmigrate-journal-a2345678901234567890123456789012-"},
		{"journal other account", otherAccount, "tgmigrate-journal-legacy-web-"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := JournalConfigMapName(arntest.TG(tt.arn))
			if err != nil {
				t.Fatal(err)
			}
			l, err := LeaseName(arntest.TG(tt.arn))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(j, tt.prefix) || len(j) != len(tt.prefix)+hashLen {
				t.Errorf("JournalConfigMapName() = %q, want %q + %d hex digits", j, tt.prefix, hashLen)
			}
			if !strings.HasPrefix(l, "tgmigrate-lock-") {
				t.Errorf("LeaseName() = %q", l)
			}
			for _, n := range []string{j, l} {
				if errs := validation.IsDNS1123Label(n); len(errs) > 0 {
					t.Errorf("%q is not a DNS-1123 label: %v", n, errs)
				}
				if seen[n] {
					t.Errorf("%q is not unique", n)
				}
				seen[n] = true
			}
			again, _ := JournalConfigMapName(arntest.TG(tt.arn))
			if again != j {
				t.Error("JournalConfigMapName is not deterministic")
			}
		})
	}
	// The zero ARN, a hand-made one and a load balancer's: a malformed
	// string never gets here, tgmigrate.ParseTargetGroupARN refuses it.
	for _, bad := range []tgmigrate.ARN{{}, arntest.HandMadeTG(testTG), arntest.LB(testLB)} {
		if _, err := JournalConfigMapName(bad); !IsInvalidInput(err) || !errors.Is(err, awserr.ErrInvalidARN) {
			t.Errorf("JournalConfigMapName(%q) err = %v, want ErrInvalidInput and ErrInvalidARN", bad, err)
		}
		if _, err := LeaseName(bad); !IsInvalidInput(err) {
			t.Errorf("LeaseName(%q) err = %v", bad, err)
		}
	}
}

func newFakeClient(funcs *interceptor.Funcs, objs ...client.Object) client.WithWatch {
	b := fake.NewClientBuilder().WithObjects(objs...)
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

func newCMJournal(t *testing.T, c client.Client, clk *clocktesting.FakePassiveClock) *ConfigMapJournal {
	t.Helper()
	opts := ConfigMapJournalOptions{Namespace: testNS, TargetGroupARN: arntest.TG(testTG)}
	if clk != nil {
		opts.Clock = clk
	}
	j, err := NewConfigMapJournal(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// listConfigMaps returns the namespace's ConfigMaps by name, with their data.
func listConfigMaps(t *testing.T, c client.Client) map[string]map[string]string {
	t.Helper()
	var list corev1.ConfigMapList
	if err := c.List(context.Background(), &list, client.InNamespace(testNS)); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, cm := range list.Items {
		out[cm.Name] = cm.Data
	}
	return out
}

func TestNewConfigMapJournalInput(t *testing.T) {
	c := newFakeClient(nil)
	tests := []struct {
		name  string
		c     client.Client
		opts  ConfigMapJournalOptions
		field string
	}{
		{"nil client", nil, ConfigMapJournalOptions{Namespace: testNS, TargetGroupARN: arntest.TG(testTG)}, "client"},
		{"no namespace", c, ConfigMapJournalOptions{TargetGroupARN: arntest.TG(testTG)}, "Namespace"},
		{"bad namespace", c, ConfigMapJournalOptions{Namespace: "Web_1", TargetGroupARN: arntest.TG(testTG)}, "Namespace"},
		{"no ARN", c, ConfigMapJournalOptions{Namespace: testNS}, "TargetGroupARN"},
		{"hand-made ARN", c, ConfigMapJournalOptions{Namespace: testNS, TargetGroupARN: arntest.HandMadeTG(testTG)}, "TargetGroupARN"},
		{"load balancer ARN", c, ConfigMapJournalOptions{Namespace: testNS, TargetGroupARN: arntest.LB(testLB)}, "TargetGroupARN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := NewConfigMapJournal(tt.c, tt.opts)
			var ie *InputError
			if j != nil || !errors.As(err, &ie) || ie.Field != tt.field {
				t.Fatalf("NewConfigMapJournal() = %v, %v; want an *InputError on %s", j, err, tt.field)
			}
		})
	}
}

func TestConfigMapJournalSaveLoadResume(t *testing.T) {
	ctx := t.Context()
	c := newFakeClient(nil)
	clk := clocktesting.NewFakePassiveClock(testEpoch)
	j := newCMJournal(t, c, clk)

	if _, err := j.Load(ctx, testPlan); !IsNoJournal(err) {
		t.Fatalf("Load() on an empty namespace: err = %v, want ErrNoJournal", err)
	}
	s := NewState(testPlan, "in-place", "bind", "deregister")
	if err := j.Save(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s.Revision != 1 || !s.UpdatedAt.Equal(testEpoch) || s.TargetGroupARN.Raw != testTG {
		t.Errorf("after Save: revision %d, updatedAt %v, tg %q", s.Revision, s.UpdatedAt, s.TargetGroupARN)
	}
	clk.SetTime(testEpoch.Add(time.Minute))
	_ = s.SetStep("bind", StepDone, clk.Now(), nil)
	s.RecordBatch(TargetAddr{IP: "10.0.1.17", Port: 31080})
	if err := j.Save(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s.Revision != 2 {
		t.Errorf("revision = %d, want 2", s.Revision)
	}

	var cm corev1.ConfigMap
	if err := c.Get(ctx, j.Key(), &cm); err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{LabelManagedBy: ManagedBy, LabelComponent: "journal"}
	if diff := cmp.Diff(wantLabels, cm.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if cm.Annotations[AnnotationTargetGroupARN] != testTG || cm.Annotations[AnnotationPlanID] != testPlan.ID {
		t.Errorf("annotations = %v", cm.Annotations)
	}

	// A new process resumes from the ConfigMap.
	j2 := newCMJournal(t, c, clk)
	got, err := j2.Load(ctx, testPlan)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("resumed state (-want +got):\n%s", diff)
	}
	_ = got.SetStep("deregister", StepRunning, clk.Now(), nil)
	if err := j2.Save(ctx, got); err != nil {
		t.Fatalf("Save after resume: %v", err)
	}
	// The first process is now stale.
	if err := j.Save(ctx, s); !IsConflict(err) {
		t.Fatalf("stale Save: err = %v, want a conflict", err)
	}
}

func TestConfigMapJournalConflicts(t *testing.T) {
	ctx := t.Context()

	t.Run("two journals update the same ConfigMap", func(t *testing.T) {
		c := newFakeClient(nil)
		seed := newCMJournal(t, c, nil)
		if err := seed.Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
			t.Fatal(err)
		}
		a, b := newCMJournal(t, c, nil), newCMJournal(t, c, nil)
		sa, err := a.Load(ctx, testPlan)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.Load(ctx, testPlan)
		if err != nil {
			t.Fatal(err)
		}
		sa.Notes = append(sa.Notes, "from a")
		if err := a.Save(ctx, sa); err != nil {
			t.Fatal(err)
		}
		sb.Notes = append(sb.Notes, "from b")
		before := *sb
		err = b.Save(ctx, sb)
		var ce *ConflictError
		if !errors.As(err, &ce) || !apierrors.IsConflict(ce.Err) {
			t.Fatalf("second Save: err = %v, want a *ConflictError wrapping a 409", err)
		}
		if sb.Revision != before.Revision || !sb.UpdatedAt.Equal(before.UpdatedAt) {
			t.Error("a failed Save changed the state given")
		}
		if !strings.Contains(listConfigMaps(t, c)[j0name(t)][JournalDataKey], "from a") {
			t.Error("the first save was overwritten")
		}
	})

	t.Run("two journals create at once", func(t *testing.T) {
		c := newFakeClient(nil)
		a, b := newCMJournal(t, c, nil), newCMJournal(t, c, nil)
		for _, j := range []*ConfigMapJournal{a, b} {
			if _, err := j.Load(ctx, testPlan); !IsNoJournal(err) {
				t.Fatal(err)
			}
		}
		if err := a.Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
			t.Fatal(err)
		}
		err := b.Save(ctx, NewState(testPlan, "in-place", "b"))
		if !IsConflict(err) {
			t.Fatalf("second create: err = %v, want a conflict", err)
		}
		if !strings.Contains(err.Error(), "expected it absent") {
			t.Errorf("message %q does not say what was expected", err)
		}
	})

	t.Run("save without load expects absence", func(t *testing.T) {
		c := newFakeClient(nil)
		if err := newCMJournal(t, c, nil).Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
			t.Fatal(err)
		}
		if err := newCMJournal(t, c, nil).Save(ctx, NewState(testPlan, "in-place", "a")); !IsConflict(err) {
			t.Fatalf("err = %v, want a conflict", err)
		}
	})

	t.Run("deleted since loaded", func(t *testing.T) {
		c := newFakeClient(nil)
		j := newCMJournal(t, c, nil)
		s := NewState(testPlan, "in-place", "a")
		if err := j.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: j.Key().Name}}); err != nil {
			t.Fatal(err)
		}
		err := j.Save(ctx, s)
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Actual != "absent" {
			t.Fatalf("err = %v, want a *ConflictError saying it is absent", err)
		}
		if len(listConfigMaps(t, c)) != 0 {
			t.Error("Save re-created a journal someone deleted")
		}
	})

	t.Run("state with an old revision", func(t *testing.T) {
		c := newFakeClient(nil)
		j := newCMJournal(t, c, nil)
		s := NewState(testPlan, "in-place", "a")
		if err := j.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
		stale := s.Clone()
		if err := j.Save(ctx, s); err != nil {
			t.Fatal(err)
		}
		if err := j.Save(ctx, stale); !IsConflict(err) || !strings.Contains(err.Error(), "revision 1") {
			t.Fatalf("err = %v, want a conflict naming the revisions", err)
		}
	})
}

func j0name(t *testing.T) string {
	t.Helper()
	n, err := JournalConfigMapName(arntest.TG(testTG))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestConfigMapJournalPlanMismatch(t *testing.T) {
	ctx := t.Context()
	c := newFakeClient(nil)
	if err := newCMJournal(t, c, nil).Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want PlanRef
		msg  string
	}{
		{"other id", PlanRef{ID: "plan-other", Digest: testPlan.Digest}, "plan id plan-legacy-web-1 (want plan-other)"},
		{"same id, other digest", PlanRef{ID: testPlan.ID, Digest: "sha256:ffff"}, "digest sha256:0f1e2d3c (want sha256:ffff)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := newCMJournal(t, c, nil)
			s, err := j.Load(ctx, tt.want)
			var pm *PlanMismatchError
			if s != nil || !errors.As(err, &pm) || pm.Got != testPlan || pm.Want != tt.want {
				t.Fatalf("Load() = %v, %v; want a *PlanMismatchError", s, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q does not contain %q", err, tt.msg)
			}
			// Nor will it overwrite the other plan's journal.
			if err := j.Save(ctx, NewState(tt.want, "in-place", "a")); !IsPlanMismatch(err) {
				t.Errorf("Save() over another plan: err = %v, want a plan mismatch", err)
			}
		})
	}
	if !strings.Contains(listConfigMaps(t, c)[j0name(t)][JournalDataKey], testPlan.Digest) {
		t.Error("the original plan's journal was changed")
	}
}

func TestConfigMapJournalRefuses(t *testing.T) {
	ctx := t.Context()
	name := j0name(t)
	good, err := EncodeState(NewState(testPlan, "in-place", "a"))
	if err != nil {
		t.Fatal(err)
	}
	managed := map[string]string{LabelManagedBy: ManagedBy}
	ours := map[string]string{AnnotationTargetGroupARN: testTG}
	cm := func(labels, annotations, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name, Labels: labels, Annotations: annotations}, Data: data}
	}
	tests := []struct {
		name   string
		obj    *corev1.ConfigMap
		wantIs error
	}{
		{"not labelled", cm(nil, ours, map[string]string{JournalDataKey: string(good)}), ErrNotManaged},
		{"another target group", cm(managed, map[string]string{AnnotationTargetGroupARN: testOtherTG}, map[string]string{JournalDataKey: string(good)}), ErrNotManaged},
		{"no data key", cm(managed, ours, map[string]string{"other": "x"}), ErrCorruptJournal},
		{"garbage", cm(managed, ours, map[string]string{JournalDataKey: "not json"}), ErrCorruptJournal},
		{"state of another target group", cm(managed, ours, map[string]string{JournalDataKey: strings.Replace(string(good), `"strategy"`, `"targetGroupARN": "`+testOtherTG+`", "strategy"`, 1)}), ErrCorruptJournal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeClient(nil, tt.obj)
			before := listConfigMaps(t, c)
			j := newCMJournal(t, c, nil)
			if s, err := j.Load(ctx, testPlan); s != nil || !errors.Is(err, tt.wantIs) {
				t.Fatalf("Load() = %v, %v; want %v", s, err, tt.wantIs)
			}
			if s, err := j.Inspect(ctx); s != nil || !errors.Is(err, tt.wantIs) {
				t.Fatalf("Inspect() = %v, %v; want %v", s, err, tt.wantIs)
			}
			if err := j.Save(ctx, NewState(testPlan, "in-place", "a")); err == nil {
				t.Fatal("Save() over a refused ConfigMap succeeded")
			}
			if diff := cmp.Diff(before, listConfigMaps(t, c)); diff != "" {
				t.Errorf("the ConfigMap changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestConfigMapJournalFaults(t *testing.T) {
	ctx := t.Context()
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := []struct {
		name   string
		funcs  interceptor.Funcs
		wantIs func(error) bool
	}{
		{"get forbidden", interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return apierrors.NewForbidden(gr, "x", errors.New("rbac"))
		}}, apierrors.IsForbidden},
		{"update fails", interceptor.Funcs{Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
			return apierrors.NewServiceUnavailable("etcd down")
		}}, apierrors.IsServiceUnavailable},
		{"create fails", interceptor.Funcs{Create: func(context.Context, client.WithWatch, client.Object, ...client.CreateOption) error {
			return apierrors.NewForbidden(gr, "x", errors.New("rbac"))
		}}, apierrors.IsForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A journal saved once, then read and saved through the faulty client.
			base := newFakeClient(nil)
			if tt.name != "create fails" {
				if err := newCMJournal(t, base, nil).Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
					t.Fatal(err)
				}
			}
			before := listConfigMaps(t, base)
			c := interceptor.NewClient(base, tt.funcs)
			j := newCMJournal(t, c, nil)
			s, err := j.Load(ctx, testPlan)
			if err == nil {
				err = j.Save(ctx, s)
			} else if IsNoJournal(err) {
				s = NewState(testPlan, "in-place", "a")
				err = j.Save(ctx, s)
			}
			if err == nil || !tt.wantIs(err) || !strings.HasPrefix(err.Error(), "cutover: ") {
				t.Fatalf("err = %v, want the API error wrapped", err)
			}
			if IsConflict(err) {
				t.Errorf("a transport error was reported as a conflict: %v", err)
			}
			if s != nil && s.Revision > 1 {
				t.Errorf("failed Save changed the state's revision to %d", s.Revision)
			}
			if diff := cmp.Diff(before, listConfigMaps(t, base)); diff != "" {
				t.Errorf("ConfigMaps changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestConfigMapJournalSaveInput(t *testing.T) {
	ctx := t.Context()
	c := newFakeClient(nil)
	j := newCMJournal(t, c, nil)
	bad := NewState(testPlan, "in-place", "a", "a")
	other := NewState(testPlan, "in-place", "a")
	other.TargetGroupARN = arntest.TG(testOtherTG)
	for name, s := range map[string]*State{"nil": nil, "duplicate steps": bad, "no plan": NewState(PlanRef{}, "in-place"), "other TG": other} {
		if err := j.Save(ctx, s); !IsInvalidInput(err) {
			t.Errorf("%s: Save() err = %v, want ErrInvalidInput", name, err)
		}
	}
	huge := NewState(testPlan, "in-place", "a")
	for i := range 20000 {
		huge.RecordBatch(TargetAddr{IP: fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256), Port: 31080})
	}
	if err := j.Save(ctx, huge); !IsInvalidInput(err) || !strings.Contains(err.Error(), "use a FileJournal") {
		t.Errorf("Save() of a 20,000-target state: err = %v, want ErrInvalidInput", err)
	}
	if _, err := j.Load(ctx, PlanRef{ID: "x"}); !IsInvalidInput(err) {
		t.Errorf("Load without digest: err = %v", err)
	}
	if got := listConfigMaps(t, c); len(got) != 0 {
		t.Errorf("invalid saves wrote %v", got)
	}
}

func TestConfigMapJournalInspectAndDelete(t *testing.T) {
	ctx := t.Context()
	c := newFakeClient(nil)
	j := newCMJournal(t, c, nil)
	if err := j.Delete(ctx); !IsInvalidInput(err) {
		t.Fatalf("Delete before Load: err = %v", err)
	}
	if _, err := j.Inspect(ctx); !IsNoJournal(err) {
		t.Fatal(err)
	}
	if err := j.Delete(ctx); err != nil {
		t.Fatalf("Delete of an absent journal: %v", err)
	}
	if err := j.Save(ctx, NewState(testPlan, "in-place", "a")); err != nil {
		t.Fatal(err)
	}

	// Another operator reads it whatever the plan, then the first one writes.
	other := newCMJournal(t, c, nil)
	got, err := other.Inspect(ctx)
	if err != nil || got.Plan != testPlan {
		t.Fatalf("Inspect() = %v, %v", got, err)
	}
	s, _ := j.Load(ctx, testPlan)
	s.Notes = []string{"newer"}
	if err := j.Save(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx); !IsConflict(err) {
		t.Fatalf("Delete of a changed journal: err = %v, want a conflict", err)
	}
	if len(listConfigMaps(t, c)) != 1 {
		t.Fatal("the changed journal was deleted")
	}
	if err := j.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if len(listConfigMaps(t, c)) != 0 {
		t.Fatal("Delete left the ConfigMap")
	}
	// A new plan can start on the same target group.
	next := PlanRef{ID: "plan-2", Digest: "sha256:2"}
	if err := j.Save(ctx, NewState(next, "in-place", "a")); err != nil {
		t.Fatalf("Save of a new plan after Delete: %v", err)
	}
}

// BenchmarkConfigMapJournalSave measures the encoding and client work of one
// save of a 1,000-target state against the fake client.
func BenchmarkConfigMapJournalSave(b *testing.B) {
	j, err := NewConfigMapJournal(newFakeClient(nil), ConfigMapJournalOptions{Namespace: testNS, TargetGroupARN: arntest.TG(testTG)})
	if err != nil {
		b.Fatal(err)
	}
	s := bigState()
	for b.Loop() {
		if err := j.Save(b.Context(), s); err != nil {
			b.Fatal(err)
		}
	}
	data, _ := EncodeState(s)
	b.ReportMetric(float64(len(data)), "state-bytes")
}
