package cutover

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/qstools/tgmigrate/diagnose"
)

// TestServesEndpoint: the planner never records a target the controller
// registers. The ready endpoints are the ready pods' addresses (a
// hostNetwork pod's is its node's) on the target port resolved per pod,
// a pod waiting only on its readiness gates included; a node target or a
// ghost on one of them is left to the LBC, whatever the snapshot said.
func TestServesEndpoint(t *testing.T) {
	pod := func(name, ip, portName string, port int32, conds ...corev1.PodConditionType) corev1.Pod {
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{Name: portName, ContainerPort: port}}}}},
			Status:     corev1.PodStatus{PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}},
		}
		for _, c := range conds {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: c, Status: corev1.ConditionTrue})
		}
		return p
	}
	hostNet := pod("ingress-1", "10.0.1.10", "https", 8443, corev1.PodReady)
	hostNet.Spec.HostNetwork = true
	pods := []corev1.Pod{
		hostNet,
		pod("web-1", "10.0.2.21", "https", 9443, corev1.PodReady),        // the named port resolves per pod
		pod("web-2", "10.0.2.22", "https", 8443, corev1.ContainersReady), // waits on its readiness gate: registered
		pod("web-3", "10.0.2.23", "https", 8443),                         // not ready: not an endpoint
		pod("web-4", "fd00::0:17", "https", 8443, corev1.PodReady),       // IPv6, spelled loosely
		pod("web-5", "10.0.2.25", "metrics", 9100, corev1.PodReady),      // no port of that name
	}
	sp := &corev1.ServicePort{Name: "https", Port: 443, TargetPort: intstr.FromString("https")}
	pl := &planner{endpoints: readyEndpoints(pods, sp)}
	if len(pl.endpoints) != 4 {
		t.Errorf("ready endpoints = %v, want 4", pl.endpoints)
	}
	tests := []struct {
		name  string
		r     diagnose.TargetReport
		serve bool
	}{
		{"a node target a hostNetwork pod's endpoint lists", report("10.0.1.10", 8443, diagnose.ClassNode), true},
		{"the same node on its NodePort", report("10.0.1.10", 30443, diagnose.ClassNode), false},
		{"a ghost that is a ready endpoint now", report("10.0.2.21", 9443, diagnose.ClassGhost), true},
		{"a ready endpoint on the port of another pod", report("10.0.2.21", 8443, diagnose.ClassGhost), false},
		{"a gated pod's endpoint", report("10.0.2.22", 8443, diagnose.ClassNode), true},
		{"a pod that is not ready", report("10.0.2.23", 8443, diagnose.ClassNode), false},
		{"IPv6 in AWS's spelling", report("fd00::17", 8443, diagnose.ClassGhost), true},
		{"a pod target is not the partition's business", report("10.0.2.21", 9443, diagnose.ClassPod), false},
		{"a foreign target neither", report("10.0.2.21", 9443, diagnose.ClassForeign), false},
	}
	for _, tt := range tests {
		if got := pl.servesEndpoint(tt.r); got != tt.serve {
			t.Errorf("%s: servesEndpoint(%s) = %t, want %t", tt.name, tt.r.Key(), got, tt.serve)
		}
	}
}

func report(ip string, port int32, class diagnose.Class) diagnose.TargetReport {
	return diagnose.TargetReport{Target: diagnose.Target{ID: ip, Port: port}, Class: class}
}
