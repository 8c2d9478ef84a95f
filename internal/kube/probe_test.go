package kube

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ctr is a container with a readiness probe GET path on port (nil: no
// probe) and the given declared ports.
func ctr(path string, scheme corev1.URIScheme, port *intstr.IntOrString, ports ...corev1.ContainerPort) corev1.Container {
	c := corev1.Container{Name: "app", Ports: ports}
	if port != nil {
		c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Scheme: scheme, Port: *port}}}
	}
	return c
}

func podOf(cs ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: cs}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

// times repeats a pod n times.
func times(n int, p *corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = p
	}
	return out
}

func TestReadinessProbe(t *testing.T) {
	n := func(v int32) *intstr.IntOrString { p := intstr.FromInt32(v); return &p }
	s := func(v string) *intstr.IntOrString { p := intstr.FromString(v); return &p }
	http := corev1.ContainerPort{Name: "http", ContainerPort: 8080}
	admin := corev1.ContainerPort{Name: "admin", ContainerPort: 9090}
	numeric := &corev1.ServicePort{Port: 80, TargetPort: intstr.FromInt32(8080)}
	named := &corev1.ServicePort{Port: 80, TargetPort: intstr.FromString("http")}
	zero := &corev1.ServicePort{Port: 8080}
	cat := func(ps ...[]*corev1.Pod) []*corev1.Pod {
		var out []*corev1.Pod
		for _, p := range ps {
			out = append(out, p...)
		}
		return out
	}
	deleted := podOf(ctr("/old", "", n(8080)))
	deleted.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	failed := podOf(ctr("/old", "", n(8080)))
	failed.Status.Phase = corev1.PodFailed
	sidecar := podOf(corev1.Container{Name: "proxy", Ports: []corev1.ContainerPort{http}}, ctr("/side", "", n(8080)))

	tests := []struct {
		name   string
		pods   []*corev1.Pod
		sp     *corev1.ServicePort
		want   Probe
		wantOK bool
	}{
		{name: "no pods", sp: numeric},
		{name: "no probe", pods: times(2, podOf(ctr("", "", nil, http))), sp: numeric},
		{name: "one probe", pods: times(2, podOf(ctr("/ready", "", n(8080), http))), sp: numeric, want: Probe{"/ready", "HTTP"}, wantOK: true},
		{name: "HTTPS is kept", pods: times(2, podOf(ctr("/ready", corev1.URISchemeHTTPS, n(8080)))), sp: numeric, want: Probe{"/ready", "HTTPS"}, wantOK: true},
		// Old cutover ignored a probe without a path; old diagnose read "/".
		{name: "an empty path is /", pods: times(2, podOf(ctr("", "", n(8080)))), sp: numeric, want: Probe{"/", "HTTP"}, wantOK: true},
		{name: "empty paths vote for /", pods: cat(times(2, podOf(ctr("", "", n(8080)))), times(1, podOf(ctr("/ready", "", n(8080))))), sp: numeric, want: Probe{"/", "HTTP"}, wantOK: true},
		{name: "the most common wins", pods: cat(times(1, podOf(ctr("/a", "", n(8080)))), times(2, podOf(ctr("/b", "", n(8080))))), sp: numeric, want: Probe{"/b", "HTTP"}, wantOK: true},
		{name: "a tie goes to the smaller path", pods: cat(times(2, podOf(ctr("/b", "", n(8080)))), times(2, podOf(ctr("/a", "", n(8080))))), sp: numeric, want: Probe{"/a", "HTTP"}, wantOK: true},
		{name: "a tie on the path goes to the smaller scheme", pods: cat(times(1, podOf(ctr("/a", corev1.URISchemeHTTPS, n(8080)))), times(1, podOf(ctr("/a", "", n(8080))))), sp: numeric, want: Probe{"/a", "HTTP"}, wantOK: true},
		// Old cutover counted paths alone (/a: 3); the health check is one
		// (path, scheme) endpoint, and (/b, HTTP) has the most pods.
		{name: "an endpoint is a path and a scheme", pods: cat(times(2, podOf(ctr("/a", corev1.URISchemeHTTPS, n(8080)))), times(1, podOf(ctr("/a", "", n(8080)))), times(3, podOf(ctr("/b", "", n(8080))))), sp: numeric, want: Probe{"/b", "HTTP"}, wantOK: true},
		{name: "a probe on another port does not vote", pods: cat(times(3, podOf(ctr("/admin", "", n(9090), http, admin))), times(1, podOf(ctr("/ready", "", n(8080), http, admin)))), sp: numeric, want: Probe{"/ready", "HTTP"}, wantOK: true},
		// Old cutover took a number only when the container declares it, or
		// declares no port; old diagnose compared the numbers alone.
		{name: "a number matches a container that declares no port", pods: times(1, podOf(ctr("/ready", "", n(8080)))), sp: numeric, want: Probe{"/ready", "HTTP"}, wantOK: true},
		{name: "a number matches a container that declares other ports", pods: times(1, podOf(ctr("/ready", "", n(8080), admin))), sp: numeric, want: Probe{"/ready", "HTTP"}, wantOK: true},
		{name: "a probe port by name", pods: times(1, podOf(ctr("/ready", "", s("http"), http))), sp: numeric, want: Probe{"/ready", "HTTP"}, wantOK: true},
		{name: "a probe port name the container lacks", pods: times(1, podOf(ctr("/ready", "", s("http"), admin))), sp: numeric},
		{name: "a named target port", pods: times(1, podOf(ctr("/ready", "", n(8080), http))), sp: named, want: Probe{"/ready", "HTTP"}, wantOK: true},
		// Old diagnose voted across pods for the name's number and, when no
		// pod had it, let every probe vote; old cutover resolved it per
		// container.
		{name: "a named target port no pod has", pods: times(1, podOf(ctr("/ready", "", n(8080)))), sp: named},
		{name: "a named target port resolves per pod", pods: cat(
			times(1, podOf(ctr("/a", "", n(8080), http))),
			times(2, podOf(ctr("/b", "", n(8080), corev1.ContainerPort{Name: "http", ContainerPort: 9000}))),
		), sp: named, want: Probe{"/a", "HTTP"}, wantOK: true},
		{name: "a named target port declared by another container of the pod", pods: times(1, sidecar), sp: named, want: Probe{"/side", "HTTP"}, wantOK: true},
		{name: "a zero target port is the Service port", pods: times(1, podOf(ctr("/ready", "", n(8080)))), sp: zero, want: Probe{"/ready", "HTTP"}, wantOK: true},
		{name: "an unknown Service port lets every probe vote", pods: cat(times(1, podOf(ctr("/a", "", n(8080)))), times(1, podOf(ctr("/b", "", n(9090))))), want: Probe{"/a", "HTTP"}, wantOK: true},
		// Old diagnose let every pod of the Service vote.
		{name: "leaving pods do not vote", pods: cat(times(2, deleted), times(2, failed), times(1, podOf(ctr("/new", "", n(8080))))), sp: numeric, want: Probe{"/new", "HTTP"}, wantOK: true},
		{name: "exec probes do not vote", pods: []*corev1.Pod{{Spec: corev1.PodSpec{Containers: []corev1.Container{{ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{}}}}}}}}, sp: numeric},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadinessProbe(tt.pods, tt.sp)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ReadinessProbe = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
