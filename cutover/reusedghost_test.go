package cutover_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/qstools/tgmigrate/cutover"
)

// TestPlanDeregistersAReusedGhost: the VPC CNI handed a ghost's address to
// a pod, which does not serve the ghost's port (the legacy NodePort). The
// target is dead for the target group all the same: the plan records it as
// a ghost, names the pod that holds its address, and its deregistration
// step removes it with the node targets.
func TestPlanDeregistersAReusedGhost(t *testing.T) {
	s := newScenario(t, smallWorld(61))
	l := s.w.Legacy()
	var pods corev1.PodList
	if err := s.w.Client().List(t.Context(), &pods, client.InNamespace(l.Namespace)); err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].Status.PodIP != "" {
			pod = &pods.Items[i]
			break
		}
	}
	if pod == nil {
		t.Fatal("no pod with an address")
	}
	ghost := elbv2types.TargetDescription{Id: aws.String(pod.Status.PodIP), Port: aws.Int32(l.NodePort)}
	if _, err := s.w.Model().RegisterTargets(&elbv2.RegisterTargetsInput{
		TargetGroupArn: aws.String(l.TargetGroupARN), Targets: []elbv2types.TargetDescription{ghost},
	}); err != nil {
		t.Fatal(err)
	}

	p := s.plan(nil)
	var found *cutover.RecordedTarget
	for i, rt := range p.Recorded {
		if rt.IP == pod.Status.PodIP && rt.Port == l.NodePort {
			found = &p.Recorded[i]
		}
	}
	if found == nil {
		t.Fatalf("%s:%d is not among the recorded targets %v; others %v", pod.Status.PodIP, l.NodePort, p.Recorded, p.Others)
	}
	if found.Class != "ghost" || !strings.Contains(found.Note, "pod "+pod.Namespace+"/"+pod.Name) {
		t.Errorf("recorded %+v: want a ghost whose note names pod %s/%s", *found, pod.Namespace, pod.Name)
	}
	if !slices.ContainsFunc(p.Steps, func(st cutover.Step) bool { return st.ID == cutover.StepDeregister }) {
		t.Errorf("no %s step in %v", cutover.StepDeregister, p.Steps)
	}
}
