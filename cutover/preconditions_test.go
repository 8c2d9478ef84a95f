package cutover

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/mock/gomock"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/qstools/tgmigrate/internal/arntest"
)

// podFixture builds a pod of the Service "web" (selector app=web) with
// the given containers and grace period.
func podFixture(name string, grace *int64, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: unitNS, Name: name, Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: containers, TerminationGracePeriodSeconds: grace},
	}
}

func sleepAction(s int64) *corev1.Lifecycle {
	return &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: s}}}
}

func execHook(cmd ...string) *corev1.Lifecycle {
	return &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}}
}

// app is a container serving the port named http (8080) with lc as its
// lifecycle; sidecar one that declares another port.
func app(lc *corev1.Lifecycle) corev1.Container {
	return corev1.Container{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}, Lifecycle: lc}
}

func sidecar(lc *corev1.Lifecycle) corev1.Container {
	return corev1.Container{Name: "sidecar", Ports: []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}, Lifecycle: lc}
}

// TestPodSettings: what PlanCutover reads of the Service's pods, against
// what the assumptions need. Safe settings give no precondition; each
// unsafe or unreadable one is reported with what was seen and what is
// needed (seconds for durations, and the assumption they derive from).
func TestPodSettings(t *testing.T) {
	safe := ptr.To[int64](160)
	labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unitNS, Labels: map[string]string{labelReadinessGateInject: "enabled"}}}
	unlabelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unitNS}}
	pdb := func(sel map[string]string) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: unitNS, Name: "web"},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: sel}}}
	}
	webPDB := pdb(map[string]string{"app": "web"})
	type want struct {
		setting      PodSetting
		seen, need   *int64
		unknown      bool
		atFault      int
		seenContains string
	}
	sec := func(s int64) *int64 { return &s }
	tests := []struct {
		name     string
		a        Assumptions
		selector map[string]string
		objs     []client.Object
		want     []want
	}{
		{name: "safe: preStop sleep, grace period, readiness gate, PDB",
			objs: []client.Object{labelled, webPDB, podFixture("web-0", safe, app(sleepAction(130)))}},
		{name: "safe: exec sleep, /bin/sleep and sh -c sleep",
			objs: []client.Object{labelled, webPDB,
				podFixture("web-0", safe, app(execHook("sleep", "130"))),
				podFixture("web-1", safe, app(execHook("/bin/sleep", "140s"))),
				podFixture("web-2", safe, app(execHook("sh", "-c", "sleep 150")))}},
		{name: "safe: a sidecar without preStop does not serve the port",
			objs: []client.Object{labelled, webPDB, podFixture("web-0", safe, app(sleepAction(130)), sidecar(nil))}},
		{name: "everything unsafe, the seed's pods: 15 s preStop, 30 s grace, no gate, no PDB",
			objs: []client.Object{unlabelled, podFixture("web-0", ptr.To[int64](30), app(sleepAction(15))), podFixture("web-1", nil, app(sleepAction(15)))},
			want: []want{
				{setting: SettingPreStop, seen: sec(15), need: sec(130), atFault: 2, seenContains: "15 s on 2 of 2 pods"},
				{setting: SettingTerminationGracePeriod, seen: sec(30), need: sec(160), atFault: 2, seenContains: "30 s on 2 of 2 pods"},
				{setting: SettingReadinessGate, seenContains: "not labelled " + labelReadinessGateInject},
				{setting: SettingPodDisruptionBudget, atFault: 2, seenContains: "no PodDisruptionBudget selects 2 of the 2 pods"},
			}},
		{name: "no preStop at all is 0 s",
			objs: []client.Object{labelled, webPDB, podFixture("web-0", safe, app(nil))},
			want: []want{{setting: SettingPreStop, seen: sec(0), need: sec(130), atFault: 1}}},
		{name: "an httpGet hook is unknown",
			objs: []client.Object{labelled, webPDB, podFixture("web-0", safe, app(&corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
				HTTPGet: &corev1.HTTPGetAction{Path: "/drain", Port: intstr.FromInt32(8080)}}}))},
			want: []want{{setting: SettingPreStop, need: sec(130), unknown: true, atFault: 1, seenContains: "httpGet"}}},
		{name: "an exec hook that is not a sleep is unknown",
			objs: []client.Object{labelled, webPDB, podFixture("web-0", safe, app(execHook("/app/drain", "--wait")))},
			want: []want{{setting: SettingPreStop, need: sec(130), unknown: true, atFault: 1, seenContains: "/app/drain --wait"}}},
		{name: "a short hook is at fault whatever an unknown one says",
			objs: []client.Object{labelled, webPDB,
				podFixture("web-0", safe, app(sleepAction(20))),
				podFixture("web-1", safe, app(&corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}}))},
			want: []want{{setting: SettingPreStop, seen: sec(20), need: sec(130), unknown: true, atFault: 2, seenContains: "unknown on 1 of 2 pods"}}},
		{name: "no container declares the port: every container counts",
			objs: []client.Object{labelled, webPDB, podFixture("web-0", safe,
				corev1.Container{Name: "a", Lifecycle: sleepAction(130)}, corev1.Container{Name: "b"})},
			want: []want{{setting: SettingPreStop, seen: sec(0), need: sec(130), atFault: 1}}},
		{name: "a PDB of other pods does not count",
			objs: []client.Object{labelled, pdb(map[string]string{"app": "api"}), podFixture("web-0", safe, app(sleepAction(130)))},
			want: []want{{setting: SettingPodDisruptionBudget, atFault: 1}}},
		{name: "no lag, a controller delay of 2 s: the 15 s preStop is safe, a 30 s grace period is not",
			a:    Assumptions{DeregistrationLag: -1, ControllerDelay: 2 * time.Second},
			objs: []client.Object{labelled, webPDB, podFixture("web-0", ptr.To[int64](30), app(sleepAction(15)))},
			want: []want{{setting: SettingTerminationGracePeriod, seen: sec(30), need: sec(32), atFault: 1}}},
		// The simulator's default world assumes a lag of 15 s and the
		// envelope's controller delay of 10 s (World.Assumptions), and its
		// pods default to the safe settings for them (sim.SafePodSettings):
		// the cutover tests' plans rely on these two cases.
		{name: "a lag of 15 s, a controller delay of 10 s: a 25 s preStop and a 55 s grace period are safe",
			a:    Assumptions{DeregistrationLag: 15 * time.Second, ControllerDelay: 10 * time.Second},
			objs: []client.Object{labelled, webPDB, podFixture("web-0", ptr.To[int64](55), app(sleepAction(25)))}},
		{name: "a lag of 15 s, a controller delay of 10 s: the seed's 15 s preStop and 30 s grace period are not",
			a:    Assumptions{DeregistrationLag: 15 * time.Second, ControllerDelay: 10 * time.Second},
			objs: []client.Object{labelled, webPDB, podFixture("web-0", ptr.To[int64](30), app(sleepAction(15)))},
			want: []want{
				{setting: SettingPreStop, seen: sec(15), need: sec(25), atFault: 1},
				{setting: SettingTerminationGracePeriod, seen: sec(30), need: sec(55), atFault: 1},
			}},
		{name: "a Service without a selector: its pods cannot be read",
			selector: map[string]string{},
			objs:     []client.Object{labelled},
			want: []want{{setting: SettingPreStop, unknown: true}, {setting: SettingTerminationGracePeriod, unknown: true},
				{setting: SettingPodDisruptionBudget, unknown: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := clientgoscheme.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			kc := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tt.objs...).Build()
			sel := map[string]string{"app": "web"}
			if tt.selector != nil {
				sel = tt.selector
			}
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: unitNS, Name: "web"}, Spec: corev1.ServiceSpec{Selector: sel,
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}}
			pods, err := servicePods(t.Context(), kc, svc)
			if err != nil {
				t.Fatal(err)
			}
			pc, _, err := podSettings(t.Context(), kc, svc, &svc.Spec.Ports[0], pods, tt.a)
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.want) == 0 {
				if pc != nil {
					t.Fatalf("precondition %+v, want none", pc)
				}
				return
			}
			if pc == nil || pc.Kind != PreconditionPodSettings || pc.Reason == "" {
				t.Fatalf("precondition %+v, want one of kind %s", pc, PreconditionPodSettings)
			}
			if len(pc.Settings) != len(tt.want) {
				t.Fatalf("settings %+v, want %d", pc.Settings, len(tt.want))
			}
			for i, w := range tt.want {
				c := pc.Settings[i]
				var need *int64
				if c.NeedSeconds != 0 {
					need = &c.NeedSeconds
				}
				if c.Setting != w.setting || !cmp.Equal(c.SeenSeconds, w.seen) || (w.need != nil && !cmp.Equal(need, w.need)) ||
					c.Unknown != w.unknown || c.PodsAtFault != w.atFault || !strings.Contains(c.Seen, w.seenContains) || c.Need == "" {
					t.Errorf("setting %d: %+v, want %+v (seen %v, need %v)", i, c, w, secondsOf(w.seen), secondsOf(w.need))
				}
				if c.NeedSeconds != 0 && !strings.Contains(c.From, "Assumptions.Safe") {
					t.Errorf("setting %s: need %d s derives from %q, want the assumption named", c.Setting, c.NeedSeconds, c.From)
				}
			}
		})
	}
}

func secondsOf(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestExecuteRefusesPreconditions: a plan with a precondition the caller
// did not accept is refused before any call (the gomock ELBv2 allows none,
// and no journal or lease is written), with a *PreconditionError naming
// each setting and the option; with the named option Execute goes ahead,
// and the result says what it accepted.
func TestExecuteRefusesPreconditions(t *testing.T) {
	f := newExecFixture(t, 2, 4, 2)
	f.plan.Preconditions = []Precondition{{Kind: PreconditionPodSettings, Reason: "test", Settings: []SettingCheck{
		{Setting: SettingPreStop, Seen: "15 s on 4 of 4 pods", Need: "130 s", SeenSeconds: ptr.To[int64](15), NeedSeconds: 130},
		{Setting: SettingReadinessGate, Seen: "not labelled", Need: "the label"},
	}}}
	if err := f.plan.seal(); err != nil {
		t.Fatal(err)
	}
	_, err := Execute(t.Context(), f.env, f.plan)
	var pe *PreconditionError
	if !errors.As(err, &pe) || !IsPrecondition(err) || len(pe.Preconditions) != 1 {
		t.Fatalf("Execute: %v, want a *PreconditionError", err)
	}
	for _, want := range []string{"preStop 15 s (need 130 s)", "readinessGate missing", "WithAcceptPreconditions(PreconditionPodSettings)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	var cms corev1.ConfigMapList
	if err := f.kube.List(t.Context(), &cms); err != nil || len(cms.Items) != 0 {
		t.Errorf("%d ConfigMaps written (%v), want no journal", len(cms.Items), err)
	}
	lease, _ := LeaseName(arntest.TG(testTG))
	if err := f.kube.Get(t.Context(), types.NamespacedName{Namespace: unitNS, Name: lease}, &coordinationv1.Lease{}); !apierrors.IsNotFound(err) {
		t.Errorf("lease %s: %v, want none", lease, err)
	}

	// Accepted: Execute goes ahead (bind and gate done: it deregisters).
	f.done(StepBind, StepGate)
	f.describe(nil)
	f.api.EXPECT().DeregisterTargets(gomock.Any(), deregContract(2)).DoAndReturn(f.deregister).Times(1)
	res, err := Execute(t.Context(), f.env, f.plan, WithAcceptPreconditions(PreconditionPodSettings), WithStopAfter(StepDeregister))
	if err != nil || !res.Stopped || res.Deregistered != 2 {
		t.Fatalf("Execute with the option: %+v, %v", res, err)
	}
	if fmt.Sprint(res.Accepted) != "[pod-settings]" || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "precondition pod-settings accepted") {
		t.Errorf("accepted %v, warnings %q: want the result to say what was accepted", res.Accepted, res.Warnings)
	}
}
